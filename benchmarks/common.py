"""Paths shared by the benchmark scripts."""

from __future__ import annotations

import os
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
CACHE = HERE / ".cache"
RESULTS = HERE / "results"
#: The shared corpora: ``shared/`` beside the repository, or BPE_DESKTOP_CORPORA.
CORPORA_DIR = Path(os.environ.get("BPE_DESKTOP_CORPORA") or ROOT.parent / "shared" / "corpora")
