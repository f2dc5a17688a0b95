"""Test data helpers shared by the test modules: the corpora folder, GPT-2's byte map and
corpus copies holding invalid UTF-8."""

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


def latin1_copies(corpora: dict[str, Path], folder: Path, line: int,
                  lines: int = 300) -> dict[str, Path]:
    """Copies of the first ``lines`` lines of each corpus (by language code) in ``folder``,
    with a Latin-1 word (invalid UTF-8) ending line ``line`` (0-based)."""
    copies = {}
    for code, path in corpora.items():
        text = path.read_bytes().split(b"\n")[:lines]
        text[line] += b" caf\xe9"
        copies[code] = folder / f"{code}.txt"
        copies[code].write_bytes(b"\n".join(text) + b"\n")
    return copies
