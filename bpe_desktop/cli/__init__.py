"""The ``bpe-desktop`` command: train, encode, decode and inspect models from a shell.

Every failure is one line on stderr, ``bpe-desktop: error: ...``, and a non-zero exit
status: 1 for errors, 2 for bad usage, 130 when interrupted (Ctrl-C). Set
``BPE_DESKTOP_DEBUG=1`` to also get the traceback of an unexpected error.

One module per command (or pair of commands), each with ``add_parser(sub)`` adding its
subcommand(s) and their ``cmd_*`` functions; :data:`COMMANDS` lists them in the order
``--help`` shows them. ``_common`` holds the error handling, ``progress`` the progress
line and ``options`` the training options made from TrainConfig's declarations.
"""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from typing import Sequence

from bpe_desktop import __version__
from bpe_desktop.cli import (
    adapt,
    codec,
    compare,
    count,
    evaluate,
    history,
    info,
    interop,
    train,
)
from bpe_desktop.cli._common import (
    EXIT_ERROR,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
    ISSUES_HINT,
    PROG,
    CliError,
    _fail,
    _os_message,
    _silence_stdout,
)
from bpe_desktop.cli.options import config_from_args  # noqa: F401 (the public helper)
from bpe_desktop.cli.progress import ProgressBar  # noqa: F401 (for callers and tests)
from bpe_desktop.cli.recording import run_command
from bpe_desktop.cli.train import HOLD_FOR_CANCEL_ENV  # noqa: F401 (a test hook)
from bpe_desktop.core.errors import BpeError

#: The command modules, in the order ``--help`` lists their commands.
COMMANDS = (train, codec, info, interop, adapt, evaluate, compare, count, history)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args_list = list(sys.argv[1:] if argv is None else argv)
    if _wants_desktop_app(parser, args_list):
        from bpe_desktop.app import main as app_main

        return app_main(args_list)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version, or a usage error (already printed)
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE if exc.code else EXIT_OK
    try:
        if args.command is None:  # only reachable with options but no command
            parser.print_help()
            return EXIT_OK
        return run_command(args, args_list)
    except KeyboardInterrupt:
        _fail("interrupted")
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_ERROR
    except (BpeError, CliError, ValueError) as exc:
        _fail(str(exc))
        return EXIT_ERROR
    except OSError as exc:
        _fail(_os_message(exc))
        return EXIT_ERROR
    except Exception as exc:
        if os.environ.get("BPE_DESKTOP_DEBUG") == "1":
            traceback.print_exc()
        _fail(f"unexpected {type(exc).__name__}: {exc} ({ISSUES_HINT}; "
              "set BPE_DESKTOP_DEBUG=1 for the traceback)")
        return EXIT_ERROR


def _wants_desktop_app(parser: argparse.ArgumentParser, argv: list[str]) -> bool:
    """No command, the application's own options, or a model file to open: the GUI.

    Anything else (a subcommand, --help, a misspelt command) goes to argparse, so a typo
    gets a usage error instead of a window.
    """
    if not argv:
        return True
    first = argv[0]
    if first in _APP_OPTIONS or first.split("=", 1)[0] in _APP_OPTIONS:
        return True
    if first.startswith("-") or first in _commands(parser):
        return False
    return first.endswith(".json") or os.path.isfile(first)


_APP_OPTIONS = ("--smoke-test", "--screenshots", "--appearance")


def _commands(parser: argparse.ArgumentParser) -> set[str]:
    for action in parser._subparsers._group_actions if parser._subparsers else ():
        if isinstance(action, argparse._SubParsersAction):
            return set(action.choices)
    return set()


class _Parser(argparse.ArgumentParser):
    """argparse with one-line usage errors."""

    def error(self, message: str):  # type: ignore[override]
        hint = f"see '{self.prog} --help'"
        self.exit(EXIT_USAGE, f"{PROG}: error: {message} ({hint})\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog=PROG,
        description="Train, inspect and use byte-pair-encoding tokenizers.",
        epilog="Run without a command to start the desktop application.",
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in COMMANDS:
        module.add_parser(sub)
    return parser
