"""Paths shared by the benchmark scripts."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
CACHE = HERE / ".cache"
RESULTS = HERE / "results"
#: The shared corpora: ``shared/`` beside the repository, or BPE_DESKTOP_CORPORA.
CORPORA_DIR = Path(os.environ.get("BPE_DESKTOP_CORPORA") or ROOT.parent / "shared" / "corpora")


def add_child_options(ap: argparse.ArgumentParser) -> None:
    """The hidden options with which a benchmark runs one measurement in a child process."""
    ap.add_argument("--timeout", type=float, default=1800, help="seconds per run")
    ap.add_argument("--out", type=Path, default=RESULTS, help="folder for the JSON results")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--corpus-file", help=argparse.SUPPRESS)
    ap.add_argument("--result", help=argparse.SUPPRESS)


def comma_list(ap: argparse.ArgumentParser, text: str, allowed, what: str) -> list[str]:
    """The items of a comma-separated option, each one checked against ``allowed``."""
    items = [item.strip() for item in text.split(",") if item.strip()]
    for item in items:
        if item not in allowed:
            ap.error(f"unknown {what} {item!r}")
    return items
