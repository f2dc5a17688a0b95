"""The ``bpe-desktop`` command's entry point.

It imports nothing heavy itself, so that a Ctrl-C while the command line's modules are
still being imported (numpy, the engine: the first few tenths of a second) ends the
command as a Ctrl-C later does: one line on stderr and exit status 130, no traceback.
"""

from __future__ import annotations

import contextlib
import signal
import sys
from typing import Iterator, Sequence

#: The command's name in messages, and its exit status after Ctrl-C (128 + SIGINT);
#: ``bpe_desktop.cli`` uses both.
PROG = "bpe-desktop"
EXIT_INTERRUPTED = 130


def main(argv: Sequence[str] | None = None) -> int:
    try:
        with _ctrl_c_held():
            from bpe_desktop.cli import main as cli_main

        return cli_main(argv)
    except KeyboardInterrupt:
        try:
            sys.stderr.write(f"{PROG}: error: interrupted\n")
            sys.stderr.flush()
        except (OSError, ValueError):
            pass
        return EXIT_INTERRUPTED


def run() -> int:
    """The program's entry point (the ``bpe-desktop`` script, ``python -m bpe_desktop``):
    :func:`main`, then an exit that Ctrl-C no longer interrupts.

    Once the command is over (its outputs written or abandoned), a Ctrl-C during the
    interpreter's own shutdown (a Dask cluster's, at exit) would end the process by SIGINT
    with no word; the command's status stands instead.
    """
    try:
        return main()
    finally:
        with contextlib.suppress(ValueError):  # (not the main thread: an embedding)
            signal.signal(signal.SIGINT, signal.SIG_IGN)


@contextlib.contextmanager
def _ctrl_c_held() -> Iterator[None]:
    """Ctrl-C during the block arrives when it ends, here, as a KeyboardInterrupt.

    An extension module may run Python code while it is imported through the C API; a
    KeyboardInterrupt there marks the interpreter, which then ends itself by SIGINT
    (exit status -2) however the exception was caught. Held until the imports are done,
    the signal can only interrupt this module's own code.
    """
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)
