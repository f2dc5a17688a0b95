"""The ``bpe-desktop`` command that reproduces a run ("Copy as command", reports).

A run stores its command as ``{"argv": [...], "cwd": folder}``: the command line's own
arguments when it ran from a shell, or the arguments a panel's run corresponds to. The
folder makes relative paths in the arguments exact.
"""

from __future__ import annotations

import os
import shlex
import sys
from typing import Sequence

from bpe_desktop.core.config import TrainConfig, format_special
from bpe_desktop.core.constraints import FILE_LIST_OPTIONS

PROGRAM = "bpe-desktop"
#: Files a panel's run keeps in memory (a model not saved yet) appear as this name.
UNSAVED_MODEL = "model.json"


def command_record(argv: Sequence[str], cwd: str | None = None) -> dict:
    return {"argv": list(argv), "cwd": os.getcwd() if cwd is None else cwd}


def named_project(argv: Sequence[str]) -> str | None:
    """The project file a command's ``--project FILE`` or ``--project=FILE`` names (the
    last one: the one the command line takes), or None."""
    named, options = None, _options_of(argv)
    for i, arg in enumerate(options):
        if arg == "--project" and i + 1 < len(options):
            named = options[i + 1]
        elif arg.startswith("--project="):
            named = arg.partition("=")[2]
    return named


def recording_into(argv: Sequence[str], project: str) -> list[str]:
    """``argv`` recording its run into ``project`` instead of the project it named: a run
    History runs again is recorded in the project History shows. (An abbreviation such as
    ``--proj`` stays, but the ``--project`` added after it is the one that counts.)"""
    options = _options_of(argv)
    rest = list(argv[len(options):])
    kept, skip = [], False
    for arg in options:
        if skip:
            skip = False
        elif arg == "--project":
            skip = True
        elif not arg.startswith("--project="):
            kept.append(arg)
    return [*kept, "--project", project, *rest]


def _options_of(argv: Sequence[str]) -> Sequence[str]:
    """The arguments before ``--`` (after it, every argument is a file name)."""
    return argv[:argv.index("--")] if "--" in argv else argv


def shell_command(command: dict | None) -> str:
    """One line for a shell: ``cd FOLDER && bpe-desktop ARGS`` ('' if not known)."""
    if not command:
        return ""
    quote = _quote_windows if sys.platform == "win32" else shlex.join
    line = f"{PROGRAM} {quote(command['argv'])}"
    cwd = command.get("cwd")
    return f"cd {quote([cwd])} && {line}" if cwd else line


def train_arguments(files: Sequence[str], output: str, config: TrainConfig, *,
                    word_counts: bool = False, encoding_errors: str = "strict") -> list[str]:
    """``train`` arguments giving exactly ``config``: each option that differs from the
    default, as its flag (:func:`bpe_desktop.cli.options.add_train_options`)."""
    from bpe_desktop.core.protected import PROTECT_STRING_FLAG

    # A run on languages names its files in --lang CODE=PATH, not as corpus files.
    argv = ["train", *(() if config.lang else (os.path.abspath(f) for f in files)),
            "-o", output]
    if word_counts:
        argv.append("--word-counts")
    default = TrainConfig()
    defaults = default.to_dict()
    for name, value in config.to_dict().items():
        # --pretokenizer brings its own boundary unless --boundary is given as well.
        follows = name == "boundary" and config.pretokenizer != default.pretokenizer
        if value == defaults[name] and not follows:
            continue
        if name == "special_tokens":
            if not config.special_tokens:
                argv.append("--no-specials")
            for token in config.special_tokens:
                argv += ["--special", format_special(token)]
        elif isinstance(value, bool):
            argv.append(option_flag(name))  # every switch is off by default
        elif isinstance(value, (list, tuple)):  # one FLAG=VALUE each: a value may start with -
            flag = PROTECT_STRING_FLAG if name == "protected" else option_flag(name)
            argv += [f"{flag}={item}" for item in value]
        else:
            argv += [option_flag(name), str(value)]
    if encoding_errors != "strict":
        argv += ["--encoding-errors", encoding_errors]
    return argv


def config_in_folder(config: TrainConfig, cwd: str | None) -> TrainConfig:
    """``config`` with each file it names (constraint files, ``lang`` and ``parity_dev``
    entries) resolved in ``cwd``, the folder its command ran in: a command names them
    relative to it, and the window, started elsewhere, would read other files (or none,
    and train without the languages' weights)."""
    if not cwd:
        return config
    return config.replace(
        **{name: tuple(os.path.join(cwd, p) for p in getattr(config, name))
           for name in FILE_LIST_OPTIONS},
        lang=tuple(_code_and_path(e, cwd) for e in config.lang),
        parity_dev=tuple(_dev_entry(e, cwd) for e in config.parity_dev))


def _code_and_path(entry: str, folder: str) -> str:
    code, sep, path = entry.partition("=")
    return f"{code}={os.path.join(folder, path.strip())}" if sep and path.strip() else entry


def _dev_entry(entry: str, folder: str) -> str:
    # As the training reads it: a file or folder of that name, else CODE=PATH.
    path = os.path.join(folder, entry)
    if os.path.exists(path) or "=" not in entry:
        return path
    return _code_and_path(entry, folder)


def extend_arguments(source: str, fmt: str, files: Sequence[str], output: str, *,
                     merges: int | None, vocab_size: int | None, unknown: str,
                     new_ids: str, held_out: Sequence[str] = (),
                     out_format: str = "model", encoding_errors: str = "strict") -> list[str]:
    """``extend`` arguments giving exactly this extension (``bpe-desktop extend``)."""
    argv = ["extend", "-m", os.path.abspath(source), "--format", fmt,
            *(os.path.abspath(f) for f in files)]
    argv += ["--merges", str(merges)] if merges is not None else \
        ["--vocab-size", str(vocab_size)]
    argv += ["--unknown", unknown]
    if new_ids:
        argv += ["--new-ids", new_ids]
    if held_out:
        argv += ["--held-out", *(os.path.abspath(f) for f in held_out)]
    if encoding_errors != "strict":
        argv += ["--encoding-errors", encoding_errors]
    return [*argv, "-o", output, "--out-format", out_format]


def trim_arguments(source: str, fmt: str, targets: Sequence[str], output: str, id_map: str, *,
                   out_format: str, drop_alphabet: bool, drop_specials: bool) -> list[str]:
    """``trim`` arguments giving exactly this trim (``bpe-desktop trim``)."""
    argv = ["trim", "-m", source, "--format", fmt,
            "--text", *(os.path.abspath(t) for t in targets),
            "--id-map", os.path.abspath(id_map), "-o", os.path.abspath(output),
            "--out-format", out_format]
    return argv + ["--drop-alphabet"] * drop_alphabet + ["--drop-specials"] * drop_specials


def option_flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def _quote_windows(args: Sequence[str]) -> str:
    import subprocess

    return subprocess.list2cmdline(list(args))
