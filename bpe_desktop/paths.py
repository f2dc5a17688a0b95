"""Where the application finds its bundled resources and keeps per-user data.

One lookup for resources that works in the source tree, an installed wheel and a
PyInstaller bundle: the files live in the package (``bpe_desktop/resources``; the
top-level ``resources`` folder of the repository is a link to it), so they travel with
the code however it is installed.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent


def resource_path(*parts: str) -> Path:
    """Path of a bundled resource, e.g. ``resource_path("examples", "botchan.txt")``."""
    base = _PACKAGE_DIR / "resources"
    bundle = getattr(sys, "_MEIPASS", None)  # PyInstaller one-folder bundle
    if not base.is_dir() and bundle:
        base = Path(bundle) / "bpe_desktop" / "resources"
    path = base.joinpath(*parts)
    if not path.exists():
        raise FileNotFoundError(f"bundled resource {'/'.join(parts)} is missing ({path})")
    return path


def user_data_dir() -> Path:
    """Per-user folder for logs and autosaves (created on first use).

    ``BPE_DESKTOP_DATA_DIR`` overrides it (tests use a temporary folder).
    """
    override = os.environ.get("BPE_DESKTOP_DATA_DIR")
    if override:
        path = Path(override)
    elif sys.platform == "win32":
        path = Path(os.environ.get("APPDATA", Path.home())) / "BPE Desktop"
    elif sys.platform == "darwin":
        path = Path.home() / "Library" / "Application Support" / "BPE Desktop"
    else:
        path = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share") / "bpe-desktop"
    path.mkdir(parents=True, exist_ok=True)
    return path
