"""What identifies a corpus file: its path, size and modification time (cheap, checked
every run) and the SHA-256 of its content (computed once per size and time)."""

from __future__ import annotations

import hashlib
import os

_CHUNK = 1 << 20


def file_identity(path: str) -> tuple[str, int, int]:
    absolute = os.path.abspath(path)
    st = os.stat(absolute)
    return absolute, st.st_size, st.st_mtime_ns


def sha256_of(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()
