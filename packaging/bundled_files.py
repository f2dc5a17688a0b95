"""The data files the desktop bundle carries besides code (bpe-desktop.spec's ``datas``).

Each copy of BPE Desktop and of what it bundles must carry their licence texts: MIT and
BSD ask for the notice in every binary copy. So the bundle holds, next to the resources
(whose example corpora have their sources and licences in ``examples/README.md``):
BPE Desktop's ``LICENSE`` (from the wheel's metadata when the bundle is made from an
unpacked wheel, as packaging/build.sh does), and the metadata folder of each bundled
library, which holds its licence files.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def bundled_distributions() -> list[str]:
    """The runtime libraries the bundle holds: pyproject.toml's ``dependencies``."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    names = (re.match(r"[A-Za-z0-9._-]+", r).group(0)
             for r in project["project"]["dependencies"])
    return list(dict.fromkeys(names))


def own_licence(source: Path) -> Path:
    """BPE Desktop's licence text in ``source``: a source tree or an unpacked wheel."""
    for candidate in (source / "LICENSE", *sorted(source.glob("*.dist-info/licenses/LICENSE"))):
        if candidate.is_file():
            return candidate
    raise SystemExit(f"no LICENSE in {source}: a bundle must carry the licence text")


def data_files(source: Path) -> list[tuple[str, str]]:
    """(source path, folder in the bundle) of every data file or folder to bundle."""
    from PyInstaller.utils.hooks import copy_metadata

    return [(str(source / "bpe_desktop" / "resources"), "bpe_desktop/resources"),
            (str(own_licence(source)), "."),
            *(entry for name in bundled_distributions() for entry in copy_metadata(name))]
