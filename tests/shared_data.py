"""Test data helpers shared by the test modules: the corpora folder and GPT-2's byte map."""

from __future__ import annotations

import os
from pathlib import Path

_REPO = Path(__file__).resolve().parents[1]
#: The corpora the tests read ship with the repository (tests/data/README.md gives their
#: sources and licences); Botchan is the application's own example corpus. BPE_DESKTOP_CORPORA
#: points the tests at another folder holding files of the same names.
DATA_DIR = _REPO / "tests" / "data"
_SHIPPED = {"botchan.txt": _REPO / "bpe_desktop" / "resources" / "examples" / "botchan.txt"}


def corpus_path(name: str) -> Path:
    """The corpus ``name`` (with or without ``.txt``); a clear failure when it is missing."""
    file_name = name if name.endswith(".txt") else f"{name}.txt"
    override = os.environ.get("BPE_DESKTOP_CORPORA")
    if override:
        path = Path(override) / file_name
    else:
        path = _SHIPPED.get(file_name, DATA_DIR / file_name)
    if not path.is_file():
        raise FileNotFoundError(
            f"corpus {path} is missing"
            + ("; BPE_DESKTOP_CORPORA points at a folder without it" if override else "")
        )
    return path


def gpt2_chars() -> list[str]:
    """GPT-2's byte -> printable character map, as a list indexed by byte."""
    out, extra = [], 0
    for b in range(256):
        if 0x21 <= b <= 0x7E or 0xA1 <= b <= 0xAC or 0xAE <= b <= 0xFF:
            out.append(chr(b))
        else:
            out.append(chr(256 + extra))
            extra += 1
    return out


def missing_system_tool(message: str) -> None:
    """Skip a test whose system tool (Xvfb, a validator) is absent on a developer's machine;
    fail instead where everything must run (.ci/run sets BPE_DESKTOP_REQUIRE_TOOLS=1)."""
    import pytest

    if os.environ.get("BPE_DESKTOP_REQUIRE_TOOLS") == "1":
        pytest.fail(message)
    pytest.skip(message)
