"""A corpus file's line count (core.counting.count_lines: the engine, without the GIL)."""

from __future__ import annotations

import gzip

import pytest

from bpe_desktop.core import CancelToken, CorpusError
from bpe_desktop.core.counting import count_lines


def lines_of(data: bytes) -> int:
    return data.count(b"\n") + (bool(data) and not data.endswith(b"\n"))


@pytest.mark.parametrize("data", [b"", b"\n", b"one", b"one\n", b"one\ntwo", b"a\n\n\nb\n",
                                  b"x" * 10 + b"\n" + b"y" * 7, b"\n" * 9,
                                  ("z" * 1000 + "\n").encode() * 3000 + b"tail"])
def test_counts_the_lines_of_plain_and_compressed_files(tmp_path, data):
    plain, packed = tmp_path / "c.txt", tmp_path / "c.txt.gz"
    plain.write_bytes(data)
    packed.write_bytes(gzip.compress(data))
    assert count_lines(plain) == lines_of(data)
    assert count_lines(str(packed)) == lines_of(data)
    # compression is told by the content, as training tells it, not by the name
    (tmp_path / "packed.txt").write_bytes(gzip.compress(data))
    assert count_lines(tmp_path / "packed.txt") == lines_of(data)


def test_a_cancelled_count_stops(tmp_path):
    path = tmp_path / "c.txt"
    path.write_bytes(b"a\nb\n")
    cancel = CancelToken()
    assert count_lines(path, cancel) == 2
    cancel.cancel()
    assert count_lines(path, cancel) == -1


def test_unreadable_files_name_themselves(tmp_path):
    with pytest.raises(CorpusError, match="missing.txt.*does not exist"):
        count_lines(tmp_path / "missing.txt")
    bad = tmp_path / "bad.txt.gz"
    bad.write_bytes(gzip.compress(b"a\n" * 1000)[:-12])
    with pytest.raises(CorpusError, match="bad.txt.gz.*truncated or corrupt"):
        count_lines(bad)
