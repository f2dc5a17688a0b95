"""What an error dialog says when an output file cannot be written: which file, why in
words (not Python's ``[Errno 28] …: '/path'``), that an earlier file of that name is kept
(every output is written atomically), and what to do next."""

from __future__ import annotations

import errno

#: The next step for the usual reasons a write fails.
_NEXT_STEP = {
    errno.ENOSPC: "Free some space on the disk, or choose another disk.",
    errno.EDQUOT: "Free some space on the disk, or choose another disk.",
    errno.EFBIG: "Free some space on the disk, or choose another disk.",
    # Windows refuses to replace a file another program holds open as EACCES too
    errno.EACCES: ("If another program has the file open, close it there; otherwise choose "
                   "a folder you may write to."),
    errno.EPERM: "Choose a folder you may write to.",
    errno.EROFS: "Choose a folder you may write to.",
    errno.ENOENT: "Choose a folder that exists.",
    errno.EISDIR: "Choose a file name, not a folder.",
}
_OTHERWISE = "Try again, or choose another folder."


def next_step(exc: OSError) -> str:
    """What to do about ``exc``, raised while writing."""
    return _NEXT_STEP.get(exc.errno, _OTHERWISE)


def write_failure(path: str, exc: BaseException) -> str:
    """The message for ``exc``, raised while writing ``path``."""
    if not (isinstance(exc, OSError) and exc.strerror):
        return f"Could not write {path}: {exc}"
    return (f"Could not write {exc.filename or path}: {exc.strerror}.\n\n"
            "An earlier file of that name, if any, is unchanged. "
            + next_step(exc))
