"""The ``bpe-desktop`` command's entry point.

It imports nothing heavy itself, so that a Ctrl-C while the command line's modules are
still being imported (numpy, the engine: the first few tenths of a second) ends the
command as a Ctrl-C later does: one line on stderr and exit status 130, no traceback.
"""

from __future__ import annotations

import sys
from typing import Sequence

#: The command's name in messages, and its exit status after Ctrl-C (128 + SIGINT);
#: ``bpe_desktop.cli`` uses both.
PROG = "bpe-desktop"
EXIT_INTERRUPTED = 130


def main(argv: Sequence[str] | None = None) -> int:
    try:
        from bpe_desktop.cli import main as cli_main

        return cli_main(argv)
    except KeyboardInterrupt:
        try:
            sys.stderr.write(f"{PROG}: error: interrupted\n")
            sys.stderr.flush()
        except (OSError, ValueError):
            pass
        return EXIT_INTERRUPTED
