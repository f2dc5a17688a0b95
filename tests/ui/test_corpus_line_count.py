"""The corpus list's line count (read a buffer at a time, plain or gzip-compressed)."""

from __future__ import annotations

import gzip

import pytest

from bpe_desktop.ui.training import corpus_list


class NotCancelled:
    cancelled = False


class Cancelled:
    cancelled = True


def lines_of(data: bytes) -> int:
    return data.count(b"\n") + (bool(data) and not data.endswith(b"\n"))


@pytest.mark.parametrize("data", [b"", b"\n", b"one", b"one\n", b"one\ntwo", b"a\n\n\nb\n",
                                  b"x" * 10 + b"\n" + b"y" * 7, b"\n" * 9])
@pytest.mark.parametrize("chunk", [1, 3, 4, 1 << 20])
def test_counts_the_lines_across_buffer_refills(tmp_path, monkeypatch, data, chunk):
    monkeypatch.setattr(corpus_list, "_CHUNK", chunk)
    plain, packed = tmp_path / "c.txt", tmp_path / "c.txt.gz"
    plain.write_bytes(data)
    packed.write_bytes(gzip.compress(data))
    assert corpus_list.count_lines(str(plain), NotCancelled()) == lines_of(data)
    assert corpus_list.count_lines(str(packed), NotCancelled()) == lines_of(data)


def test_a_cancelled_count_stops(tmp_path):
    path = tmp_path / "c.txt"
    path.write_bytes(b"a\nb\n")
    assert corpus_list.count_lines(str(path), Cancelled()) == -1
