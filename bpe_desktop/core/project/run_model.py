"""The model a recorded run made: where the run keeps it, and how History's actions
(Open model, Compare) read it.

A run's model is either the user's BPE Desktop model file (``models.path``) or, when no
such file holds it (a model never saved, or one written only in another tool's format:
a ``tokenizer.json``, a sentencepiece ``.model``, a transformers folder), the model
itself, kept in the project (``models.data``): such a file would open only through an
import that may not give back the same model, and it may be moved or overwritten.
Runs recorded before that rule kept only the other tool's file: it is read through the
importers File ▸ Import uses.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Collection, Mapping

from bpe_desktop.core.project.store import Project, ProjectError

#: The output format of a BPE Desktop model file.
OWN_FORMAT = "model"


def model_to_keep(model, path: str | None, fmt: str = OWN_FORMAT
                  ) -> tuple[str | None, bytes | None]:
    """(path, data) recording the model a run wrote to ``path`` (None: to no file) in
    ``fmt``: the path of a BPE Desktop model file, else the model's file text to keep."""
    if path is not None and fmt == OWN_FORMAT:
        return os.path.abspath(path), None
    from bpe_desktop.core.model_file import dumps

    return None, dumps(model).encode("utf-8")


@dataclass(frozen=True)
class RunModelSource:
    """Where a run's model is read from: its BPE Desktop model file (``own_file``), the
    copy kept in the project (``data``), or another tool's file or folder (``path``)."""

    run_id: int
    path: str | None
    data: bytes | None
    own_file: bool

    def describe(self) -> str:
        """How the model was found, for the status bar."""
        if self.own_file:
            return f"from {self.path}"
        if self.data is not None:
            return "kept in the project"
        return f"imported from {self.path}"


def run_model_source(project: Project, run_id: int, written_over: Collection[int] = (),
                     moved: Mapping[int, str] | None = None) -> RunModelSource:
    """Where run ``run_id``'s model is (cheap: no model is read); ProjectError saying why
    when it has none, or its file is gone or, among ``written_over`` (see
    :func:`~bpe_desktop.core.project.rerun.model_file_changed`: that reads the file, so
    the caller checks it off the GUI thread), holds another run's or program's model.
    ``moved``: where model files moved with the project are now, by run (see
    :func:`~bpe_desktop.core.project.relocation.moved_model_file`, also off the GUI
    thread)."""
    details = project.run_details(run_id)
    path = (moved or {}).get(run_id, details.model_path)
    found = path is not None and _exists(path)
    if found and run_id in written_over:
        if details.has_stored_model:
            return RunModelSource(run_id, None, project.stored_model(run_id), False)
        raise ProjectError(f"Run {run_id}'s model file {path} was written over since: it "
                           "holds another run's or program's model.")
    if found and _is_model_file(path):
        return RunModelSource(run_id, path, None, True)
    if details.has_stored_model:
        return RunModelSource(run_id, None, project.stored_model(run_id), False)
    if found:
        return RunModelSource(run_id, path, None, False)
    if path:
        raise ProjectError(f"Run {run_id}'s model file {path} is gone (moved or deleted).")
    raise ProjectError(f"Run {run_id} kept no model.")


def read_run_model(source: RunModelSource):
    """The model at ``source`` (slow: run it off the GUI thread). Another tool's file
    goes through its importer; errors name the file."""
    from bpe_desktop.core.model_file import load_model, loads

    if source.data is not None:
        return loads(source.data)
    if source.own_file:
        return load_model(source.path)
    from bpe_desktop.core.formats import import_model
    from bpe_desktop.core.formats.detect import detect_format

    path = source.path
    transformers = os.path.join(path, "tokenizer.json")
    if os.path.isdir(path) and os.path.isfile(transformers):  # a transformers folder
        return import_model("hf", transformers)
    fmt = detect_format(path)
    return load_model(path) if fmt == OWN_FORMAT else import_model(fmt, path)


def _is_model_file(path: str) -> bool:
    """A BPE Desktop model file: its first member is ``"format"`` (as the writer puts it;
    a hand-written file with it elsewhere is still read, through ``detect_format``)."""
    try:
        with open(path, "rb") as stream:
            head = stream.read(200).lstrip().removeprefix(b"\xef\xbb\xbf").lstrip()
    except OSError:  # a folder (GPT-2 files, transformers), or unreadable
        return False
    return head.startswith(b"{") and b'"bpe-desktop/model"' in head


def _exists(path: str) -> bool:
    """A file or folder, or the prefix of GPT-2 files (``PREFIX-vocab.json``)."""
    from bpe_desktop.core.formats.gpt2 import file_pair

    return os.path.exists(path) or file_pair(path)[0].is_file()
