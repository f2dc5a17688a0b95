"""Holding Ctrl-C back for a block of work; imports nothing heavy (the entry point uses it
before the command line's modules load)."""

from __future__ import annotations

import contextlib
import signal
import threading
from typing import Iterator


@contextlib.contextmanager
def sigint_held() -> Iterator[None]:
    """Ctrl-C during the block arrives when it ends, as a KeyboardInterrupt there.

    For work that must not be cut in the middle: an import that runs Python code through
    the C API (a KeyboardInterrupt there leaves the interpreter to end itself by SIGINT),
    a half-made cluster that could not be closed cleanly. Only the main thread receives
    signals, so elsewhere (and where signal masks do not exist) the block runs as it is.
    """
    if not hasattr(signal, "pthread_sigmask") or \
            threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)
