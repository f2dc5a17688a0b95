"""Finding a run's files again after the project moved with them: a project sent to a
colleague with its corpus, or an experiment's folder moved as a whole.

A file the run read that is no longer at its recorded path is looked for at the same
path relative to the project file's folder now, taken from the folder the project was in
at the run. That folder is not stored: it is the folder of the ``--project`` file a
command named, else the folder the command ran in, else the common folder of the run's
files or one above it. A folder is taken only when every recorded file under it is found
under the project's folder now with its recorded SHA-256: a file found with other content
is not the run's file, and the run keeps its "no longer there" message.
"""

from __future__ import annotations

import dataclasses
import os

from bpe_desktop.core.constraints import FILE_LIST_OPTIONS
from bpe_desktop.core.project.commands import named_project
from bpe_desktop.core.project.corpus_hash import sha256_of
from bpe_desktop.core.project.records import RunDetails, RunInput

#: Training options whose values name files (``lang`` and ``parity_dev`` as CODE=PATH too).
_FILE_OPTIONS = frozenset((*FILE_LIST_OPTIONS, "lang", "parity_dev"))


@dataclasses.dataclass(frozen=True)
class Relocation:
    """Every path under ``old`` (the project's folder at the run) is now under ``new``."""

    old: str
    new: str
    #: (recorded path, where it is now) of each input file, checked by its SHA-256.
    found: tuple[tuple[str, str], ...] = ()

    def path(self, path: str) -> str:
        prefix = os.path.join(self.old, "")
        if path == self.old or path.startswith(prefix):
            return os.path.join(self.new, os.path.relpath(path, self.old))
        return path

    def text(self, value: str) -> str:
        """An argument or option value with its path moved: ``PATH``, ``CODE=PATH``,
        ``--flag=CODE=PATH``; anything else as it is."""
        moved = self.path(value)
        if moved != value or "=" not in value:
            return moved
        head, _, tail = value.partition("=")
        return f"{head}={self.text(tail)}"

    def details(self, details: RunDetails) -> RunDetails:
        """``details`` naming the files where they are now: its inputs, the files its
        options name, its command's arguments and folder."""
        config = {name: [self.text(v) for v in value]
                  if name in _FILE_OPTIONS and isinstance(value, list) else value
                  for name, value in details.config.items()}
        command = details.command
        if command:
            command = {**command, "argv": [self.text(a) for a in command["argv"]],
                       "cwd": command.get("cwd") and self.path(command["cwd"])}
        inputs = tuple(dataclasses.replace(i, path=self.path(i.path)) for i in details.inputs)
        return dataclasses.replace(details, config=config, command=command, inputs=inputs)

    def describe(self) -> str:
        return "\n".join(f"{old} → {new}" for old, new in self.found)


def find_relocation(details: RunDetails, project_path: str) -> Relocation | None:
    """Where the run's files are now if the project moved with them (None: none of its
    files is gone, or they are not all found with their recorded SHA-256). Reads the
    files found whole: call it off the GUI thread."""
    if all(os.path.isfile(i.path) for i in details.inputs):
        return None
    new = os.path.dirname(os.path.abspath(project_path))
    for old in _former_project_folders(details):
        if old == new:
            continue
        moved = Relocation(old, new)
        under = [i for i in details.inputs if moved.path(i.path) != i.path]
        if under and all(_is_recorded_file(moved.path(i.path), i) for i in under):
            return dataclasses.replace(
                moved, found=tuple((i.path, moved.path(i.path)) for i in under))
    return None


def moved_model_file(details: RunDetails, project_path: str) -> str | None:
    """Where the model file the run wrote is now, when it is gone from its recorded path
    but the project moved with it: at the same place relative to the project's folder,
    with the SHA-256 the run recorded (a run that recorded none takes the file found).
    None: not found so. Reads the file found whole: call it off the GUI thread."""
    path = details.model_path
    if not path or os.path.exists(path):
        return None
    new = os.path.dirname(os.path.abspath(project_path))
    for old in _former_project_folders(details):
        candidate = Relocation(old, new).path(path)
        if candidate != path and os.path.isfile(candidate) and (
                not details.model_sha256 or sha256_of(candidate) == details.model_sha256):
            return candidate
    return None


def _is_recorded_file(path: str, recorded: RunInput) -> bool:
    return os.path.isfile(path) and sha256_of(path) == recorded.sha256


def _former_project_folders(details: RunDetails) -> list[str]:
    """Where the project may have been at the run, the likeliest first."""
    command = details.command or {}
    cwd, argv = command.get("cwd"), command.get("argv", [])
    folders = []
    project = named_project(argv)
    if cwd and project:
        folders.append(os.path.dirname(os.path.join(cwd, project)))
    if cwd:
        folders.append(cwd)
    try:
        folder = os.path.commonpath([os.path.dirname(i.path) for i in details.inputs])
    except ValueError:  # no inputs, or on different drives
        folder = ""
    while folder:
        folders.append(folder)
        parent = os.path.dirname(folder)
        folder = parent if parent != folder else ""
    return list(dict.fromkeys(os.path.normpath(f) for f in folders))
