"""Holding Ctrl-C back for a block of work; imports nothing heavy (the entry point uses it
before the command line's modules load)."""

from __future__ import annotations

import contextlib
import signal
import threading
from typing import Iterator


@contextlib.contextmanager
def sigint_held() -> Iterator[None]:
    """Ctrl-C during the block arrives when it ends, as a KeyboardInterrupt there; so
    does SIGTERM, which the command line handles as Ctrl-C.

    For work that must not be cut in the middle: an import (a KeyboardInterrupt raised in
    one of its callbacks, such as a module lock's weakref callback, is printed as
    "Exception ignored" and lost), a half-made cluster that could not be closed cleanly.
    The signal is blocked for the main thread, which alone runs Python's handlers; so
    elsewhere (and where signal masks do not exist) the block runs as it is.
    """
    if not hasattr(signal, "pthread_sigmask") or \
            threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)
