"""What running a recorded run again needs: its training options naming the files the run
read.

A command-line run records its options as typed (``train --lang en=eng.txt``), relative
to the folder it ran in; the window runs in another folder, so each file an option names is
found from the run's folder first.
"""

from __future__ import annotations

import os

from bpe_desktop.core.config import TrainConfig
from bpe_desktop.core.constraints import FILE_LIST_OPTIONS
from bpe_desktop.core.project.store import RunDetails


def recorded_training_config(details: RunDetails) -> TrainConfig:
    """The run's training options (raises ConfigError), each file they name made absolute
    in the folder its command ran in."""
    known = {k: v for k, v in details.config.items() if k in TrainConfig.__dataclass_fields__}
    folder = (details.command or {}).get("cwd") or ""
    if folder:
        for name in FILE_LIST_OPTIONS:
            known[name] = [os.path.join(folder, p) for p in known.get(name, ())]
        known["lang"] = [_code_and_path(e, folder) for e in known.get("lang", ())]
        known["parity_dev"] = [_dev_entry(e, folder) for e in known.get("parity_dev", ())]
    return TrainConfig.from_dict(known)


def _code_and_path(entry: str, folder: str) -> str:
    code, sep, path = entry.partition("=")
    return f"{code}={os.path.join(folder, path.strip())}" if sep and path.strip() else entry


def _dev_entry(entry: str, folder: str) -> str:
    # As the training reads it: a file or folder of that name, else CODE=PATH.
    path = os.path.join(folder, entry)
    if os.path.exists(path) or "=" not in entry:
        return path
    return _code_and_path(entry, folder)

