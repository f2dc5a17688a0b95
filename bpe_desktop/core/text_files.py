"""Opening text files that may be gzip-compressed, as every corpus reader does.

gzip is recognised by its magic bytes (as the engine recognises it), not by the name,
so a ``.gz`` file renamed, or a plain file named ``.gz``, is read for what it is.
"""

from __future__ import annotations

import gzip
import os
import zlib
from typing import IO, Sequence

from bpe_desktop.core.errors import CorpusError

GZIP_MAGIC = b"\x1f\x8b"

#: What a corpus read from standard input is called in model files and History (it is
#: no file: a run that read it cannot find it again).
STDIN_NAME = "<stdin>"

#: What a damaged gzip stream raises while it is read.
GZIP_ERRORS = (gzip.BadGzipFile, EOFError, zlib.error)


def open_text_bytes(path: str | os.PathLike) -> IO[bytes]:
    """``path`` opened for reading its bytes, decompressed when it is gzip.

    The magic bytes are peeked at, not read, so a pipe (a FIFO) loses nothing.
    """
    raw = open(path, "rb")
    try:
        gz = raw.peek(2)[:2] == GZIP_MAGIC
    except BaseException:
        raw.close()
        raise
    if not gz:
        return raw
    stream = gzip.GzipFile(fileobj=raw, mode="rb")
    stream.myfileobj = raw  # closed with the GzipFile, as gzip.open's own file is
    return stream  # type: ignore[return-value]


def read_text_bytes(path: str | os.PathLike, limit: int = -1) -> bytes:
    """The whole (decompressed) content of a text file, or its first ``limit`` bytes; a
    damaged gzip file is a :class:`CorpusError` (:func:`gzip_damage`)."""
    with open_text_bytes(path) as fh:
        try:
            return fh.read(limit)
        except GZIP_ERRORS as exc:
            raise gzip_damage(path, fh, exc) from None


def decode_utf8(data: bytes, path: str) -> str:
    """``data``, read from the file ``path``, as UTF-8 text (a leading byte order mark
    dropped); invalid UTF-8 is an error naming the file, the line and the byte of the
    line, for a text editor to find it."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise CorpusError(f"{path} line {line}: not valid UTF-8 (byte {column} of the line); "
                          "save the file as UTF-8", path=path, line=line,
                          offset=exc.start, reason="not-utf8") from None


def gzip_damage(path: str | os.PathLike, stream: IO[bytes], exc: BaseException
                ) -> CorpusError:
    """The error for ``exc`` (one of :data:`GZIP_ERRORS`), raised while reading the
    still open ``stream`` of ``path``: where, in the engine's words, by the compressed
    bytes read so far (the damage lies at most one read buffer before them)."""
    name = os.fspath(path)
    try:
        where = f" near byte offset {stream.myfileobj.tell()} of the compressed file"
    except (AttributeError, OSError, ValueError):  # not a file (a pipe) or closed
        where = ""
    return CorpusError(f"{name}: the compressed data is truncated or corrupt ({exc}){where}",
                       path=name, reason="unreadable")


def without_empty_files(paths: Sequence[str]) -> tuple[list[str], list[str]]:
    """``(kept, skipped)``: the files with content, and the empty ones (0 bytes).

    One empty file in a folder of texts should not stop a run; only when nothing is
    left is it an error (:class:`CorpusError`, reason ``empty``). Names that are not
    regular files are kept, for the reader to judge (pipes have no size).
    """
    kept: list[str] = []
    skipped: list[str] = []
    for path in paths:
        try:
            empty = os.path.isfile(path) and os.path.getsize(path) == 0
        except OSError:
            empty = False
        (skipped if empty else kept).append(path)
    if skipped and not kept:
        problem = (f"{skipped[0]} is empty" if len(skipped) == 1 else
                   f"all {len(skipped)} corpus files are empty: {_listed(skipped)}")
        raise CorpusError(problem, path=skipped[0], reason="empty")
    return kept, skipped


def skipped_message(skipped: Sequence[str]) -> str:
    """The warning for :func:`without_empty_files`'s skipped files."""
    plural = "s" if len(skipped) > 1 else ""
    return f"skipped {len(skipped)} empty file{plural}: {_listed(skipped)}"


def _listed(paths: Sequence[str], shown: int = 5) -> str:
    more = f" and {len(paths) - shown} more" if len(paths) > shown else ""
    return ", ".join(paths[:shown]) + more
