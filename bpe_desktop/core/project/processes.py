"""Whether the process that left a run ``running`` still exists (on this computer): a
run of a process that is gone is marked failed when the project is next opened."""

from __future__ import annotations

import os
import sys


def process_alive(pid: int | None) -> bool:
    if pid is None:
        return False
    if pid == os.getpid():
        return True
    if sys.platform == "win32":  # os.kill(pid, 0) would end the process there
        import ctypes

        handle = ctypes.windll.kernel32.OpenProcess(0x1000, False, pid)
        if not handle:
            return False
        code = ctypes.c_ulong()
        ctypes.windll.kernel32.GetExitCodeProcess(handle, ctypes.byref(code))
        ctypes.windll.kernel32.CloseHandle(handle)
        return code.value == 259  # STILL_ACTIVE
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return _not_zombie(pid)


def _not_zombie(pid: int) -> bool:
    """A killed child its parent has not waited for yet is gone for our purpose."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except (OSError, IndexError):
        return True

