"""Fixtures for the interoperability tests: the shared corpora, normalized for the peers.

Our corpus reader strips a leading UTF-8 BOM and turns CRLF into LF; the peers read
files verbatim. To give every tool the same text, the peers get a normalized copy.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

# Run against the source tree when the package is not installed (``pytest`` from a
# checkout where the engine was built in place by ``maturin develop``).
try:
    import bpe_desktop  # noqa: F401
except ImportError:  # pragma: no cover - depends on how the tests are launched
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.shared_data import corpus_path  # noqa: E402


#: The corpora whose lines exported tokenizers encode, in our tool and in the peer.
TARGETS = ("ud_german", "ud_russian", "ud_hindi", "ud_japanese")


def normalized_text(path: Path) -> str:
    """The text our reader sees: BOM stripped, CRLF turned into LF."""
    text = path.read_bytes().decode("utf-8")
    return text.removeprefix("\ufeff").replace("\r\n", "\n")


def lines_of_targets() -> dict[str, list[str]]:
    """The normalized lines of each of :data:`TARGETS`."""
    return {name: normalized_text(corpus_path(name)).splitlines() for name in TARGETS}


@pytest.fixture(scope="session")
def normalized_corpus(tmp_path_factory):
    """``normalized_corpus(name) -> Path`` of an LF, BOM-less copy for the peers."""
    folder = tmp_path_factory.mktemp("normalized-corpora")
    made: dict[str, Path] = {}

    def get(name: str) -> Path:
        if name not in made:
            out = folder / f"{name}.txt"
            # newline="" so that Python writes the "\n"s as they are.
            with open(out, "w", encoding="utf-8", newline="") as f:
                f.write(normalized_text(corpus_path(name)))
            made[name] = out
        return made[name]

    return get


@pytest.fixture(scope="module")
def adapt_folder(tmp_path_factory, request):
    """A folder per test module for the peer-built tokenizers that extension tests adapt."""
    return tmp_path_factory.mktemp(request.module.__name__.rsplit(".", 1)[-1])


@pytest.fixture(scope="module")
def russian(adapt_folder):
    """The Russian training text (a file in ``adapt_folder``) and its held-out lines."""
    from tests.peer_sources import split_russian

    return split_russian(adapt_folder)
