"""A project file renamed, moved or deleted while a program has it open.

SQLite keeps the latest writes in ``NAME-wal`` beside the name the file was opened under
and does not copy them into a file that has moved since (closing skips that step): left
alone, every run recorded since the last checkpoint would stay behind in a ``-wal`` file
the moved project never reads. A connection that notices the move first copies them in
itself (a checkpoint through its open file), then the file is opened again where it is
now, found among the files this process has open by its device and inode (Linux: where
``/proc/self/fd`` names them; elsewhere the move is reported, with nothing lost).
"""

from __future__ import annotations

import os

#: (device, inode) of a file; None: no file there.
Identity = tuple[int, int] | None


def identity(path: str) -> Identity:
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return stat.st_dev, stat.st_ino


def current_path(opened: Identity) -> str | None:
    """Where the file opened as ``opened`` is now (it is open in this process), or None:
    deleted, or not to be found on this system."""
    if opened is None or not os.path.isdir("/proc/self/fd"):
        return None
    for fd in os.listdir("/proc/self/fd"):
        link = f"/proc/self/fd/{fd}"
        try:
            target = os.readlink(link)
        except OSError:  # closed meanwhile
            continue
        if os.path.isabs(target) and identity(target) == opened:
            return target
    return None


def remove_left_journal(old_path: str) -> None:
    """The empty ``-wal`` and ``-shm`` files left at the old name once everything in them
    is in the moved file (nothing else uses them: no project is at that name now)."""
    if os.path.exists(old_path):
        return
    wal = old_path + "-wal"
    try:
        if os.path.getsize(wal) == 0:
            os.remove(wal)
            os.remove(old_path + "-shm")
    except OSError:
        pass
