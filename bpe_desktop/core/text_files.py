"""Opening text files that may be gzip-compressed, as every corpus reader does.

gzip is recognised by its magic bytes (as the engine recognises it), not by the name,
so a ``.gz`` file renamed, or a plain file named ``.gz``, is read for what it is.
"""

from __future__ import annotations

import gzip
import os
import zlib
from typing import IO

GZIP_MAGIC = b"\x1f\x8b"

#: What a damaged gzip stream raises while it is read.
GZIP_ERRORS = (gzip.BadGzipFile, EOFError, zlib.error)


def is_gzip(path: str | os.PathLike) -> bool:
    with open(path, "rb") as fh:
        return fh.read(2) == GZIP_MAGIC


def open_text_bytes(path: str | os.PathLike) -> IO[bytes]:
    """``path`` opened for reading its bytes, decompressed when it is gzip."""
    if is_gzip(path):
        return gzip.open(path, "rb")  # type: ignore[return-value]
    return open(path, "rb")


def read_text_bytes(path: str | os.PathLike) -> bytes:
    """The whole (decompressed) content of a text file."""
    with open_text_bytes(path) as fh:
        return fh.read()
