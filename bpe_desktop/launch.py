"""The ``bpe-desktop`` command's entry point.

It imports nothing heavy itself, so that a Ctrl-C while the command line's modules are
still being imported (numpy, the engine: the first few tenths of a second) ends the
command as a Ctrl-C later does: one line on stderr and exit status 130, no traceback.
"""

from __future__ import annotations

import os
import signal
import sys
from typing import Sequence

from bpe_desktop.signals import sigint_held

#: The command's name in messages, and its exit status after Ctrl-C (128 + SIGINT);
#: ``bpe_desktop.cli`` uses both.
PROG = "bpe-desktop"
EXIT_INTERRUPTED = 130


def main(argv: Sequence[str] | None = None) -> int:
    global _reported
    _reported = False  # a new command (tests run several in one process)
    _replace_closed_streams()
    try:
        # An import must not take the KeyboardInterrupt (see sigint_held).
        with sigint_held():
            from bpe_desktop.cli import main as cli_main

        return cli_main(argv)
    except KeyboardInterrupt:
        report_interrupted()
        return EXIT_INTERRUPTED


def _replace_closed_streams() -> None:
    """A standard stream the process was started without (``2>&-``, a launcher that
    closes it) is None in Python: writing progress or a message to it must not end the
    command, so such a stream becomes the null device (what is written there is dropped,
    as ``print`` drops it)."""
    for name in ("stdout", "stderr"):
        if getattr(sys, name) is None:
            setattr(sys, name, open(os.devnull, "w", encoding="utf-8"))


#: Whether the Ctrl-C line was written (a second Ctrl-C must not write it again).
_reported = False


def report_interrupted() -> None:
    """The line a Ctrl-C ends the command with, written once."""
    if _reported:
        return
    mark_interrupted_reported()
    try:
        sys.stderr.write(f"{PROG}: error: interrupted\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def mark_interrupted_reported() -> None:
    """The command wrote the Ctrl-C line itself: a second Ctrl-C must not repeat it."""
    global _reported
    _reported = True


def run() -> int:
    """The program's entry point (the ``bpe-desktop`` script, ``python -m bpe_desktop``):
    :func:`main`, then an exit that Ctrl-C no longer interrupts, with :func:`main`'s status.

    Once the command is over (its outputs written or abandoned), a Ctrl-C during the
    interpreter's own shutdown (a Dask cluster's, at exit) would end the process by SIGINT
    with no word; the command's status stands instead.
    """
    global _reported
    status, _reported = EXIT_INTERRUPTED, False
    try:
        status = main()
    except KeyboardInterrupt:  # before main's handler was reached, or while it reported
        report_interrupted()
    finally:
        _ignore_sigint()
        _forget_interrupted_source_text()
    return status


def _ignore_sigint() -> None:
    while True:
        try:
            signal.signal(signal.SIGINT, signal.SIG_IGN)
        except KeyboardInterrupt:  # a Ctrl-C pending when asked is raised first: drop it
            continue
        except ValueError:  # not the main thread (an embedding)
            pass
        return


def _forget_interrupted_source_text() -> None:
    """Clear CPython's mark of a KeyboardInterrupt that ended code run from source text.

    ``exec``/``eval`` of a string (namedtuple and dataclasses build their methods so, on
    import) that a Ctrl-C interrupts marks the interpreter, even when the
    KeyboardInterrupt is caught later; started as ``python -m``, the interpreter then
    ends itself by SIGINT at exit instead of with the status returned. Each string
    ``exec`` clears the mark first, and by now no Ctrl-C can interrupt one.
    """
    exec("pass", {})
