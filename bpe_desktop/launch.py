"""The ``bpe-desktop`` command's entry point.

It imports nothing heavy itself, so that a Ctrl-C while the command line's modules are
still being imported (numpy, the engine: the first few tenths of a second) ends the
command as a Ctrl-C later does: one line on stderr and exit status 130, no traceback.
"""

from __future__ import annotations

import contextlib
import signal
import sys
from typing import Sequence

from bpe_desktop.signals import sigint_held

#: The command's name in messages, and its exit status after Ctrl-C (128 + SIGINT);
#: ``bpe_desktop.cli`` uses both.
PROG = "bpe-desktop"
EXIT_INTERRUPTED = 130


def main(argv: Sequence[str] | None = None) -> int:
    try:
        # An import running code through the C API must not take the KeyboardInterrupt.
        with sigint_held():
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
