"""Fuzz fixtures: a scratch folder in memory, and the count of inputs in the summary."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest

from tests.fuzz.budget import BUDGET, TARGET_INPUTS
from tests.fuzz.targets import COUNTS


@pytest.fixture(scope="session")
def folders(tmp_path_factory):
    """``folders(name)``: an empty folder for the files each input is written to.

    In /dev/shm where it exists (tens of thousands of writes), else pytest's temporary
    folder. Session-scoped: hypothesis runs a test body many times per fixture.
    """
    shm = Path("/dev/shm")
    root = (Path(tempfile.mkdtemp(prefix="bpe-fuzz-", dir=shm)) if shm.is_dir()
            else tmp_path_factory.mktemp("fuzz"))

    def make(name: str) -> Path:
        path = root / name
        path.mkdir(exist_ok=True)
        return path

    yield make
    shutil.rmtree(root, ignore_errors=True)


def pytest_terminal_summary(terminalreporter) -> None:
    if not COUNTS:
        return
    total = sum(COUNTS.values())
    terminalreporter.section("fuzz inputs")
    for name in BUDGET:
        if COUNTS[name]:
            terminalreporter.write_line(f"{name:28} {COUNTS[name]:>8,}")
    terminalreporter.write_line(f"{'total':28} {total:>8,} (target {TARGET_INPUTS:,} for "
                                "a full run of tests/fuzz)")
