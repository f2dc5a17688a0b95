"""Test data helpers shared by the test modules: the corpora folder and GPT-2's byte map."""

from __future__ import annotations

import os
from pathlib import Path

#: Where the shared corpora live: ``shared/`` beside the repository, or BPE_DESKTOP_CORPORA.
CORPORA_DIR = Path(
    os.environ.get("BPE_DESKTOP_CORPORA")
    or Path(__file__).resolve().parents[2] / "shared" / "corpora"
)


def corpus_path(name: str) -> Path:
    """The corpus ``name`` (with or without ``.txt``); a clear failure when it is missing."""
    path = CORPORA_DIR / (name if name.endswith(".txt") else f"{name}.txt")
    if not path.is_file():
        raise FileNotFoundError(
            f"corpus {path} is missing; set BPE_DESKTOP_CORPORA to the corpora folder"
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
