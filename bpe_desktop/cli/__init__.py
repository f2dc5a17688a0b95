"""The ``bpe-desktop`` command: train, encode, decode and inspect models from a shell.

Every failure is one line on stderr, ``bpe-desktop: error: ...``, and a non-zero exit
status: 1 for errors, 2 for bad usage, 130 when interrupted (Ctrl-C), 143 when
stopped by SIGTERM (which cancels the work as Ctrl-C does). A reader of the output that
stops early (``| head -1``) ends the command quietly with 141 (see
:data:`~bpe_desktop.cli._common.EXIT_BROKEN_PIPE`). Set
``BPE_DESKTOP_DEBUG=1`` to also get the traceback of an unexpected error.

One module per command (or pair of commands), each with ``add_parser(sub)`` adding its
subcommand(s) and their ``cmd_*`` functions; :data:`COMMANDS` lists them in the order
``--help`` shows them. ``_common`` holds the error handling, ``progress`` the progress
line and ``options`` the training options made from TrainConfig's declarations.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import traceback
from typing import Sequence

from bpe_desktop import __version__
from bpe_desktop.cli._common import (
    EXIT_BROKEN_PIPE,
    EXIT_ERROR,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_TERMINATED,
    EXIT_USAGE,
    ISSUES_HINT,
    PROG,
    CliError,
    UsageError,
    _fail,
    _os_message,
    _silence_stdout,
    sigterm_as_interrupt,
)
from bpe_desktop.cli.recording import run_command
from bpe_desktop.core.errors import BpeError
from bpe_desktop.launch import mark_interrupted_reported


class _CommandModule:
    """A command module, imported on first use: a command line imports only the module
    of its own command (a one-line ``encode`` must not pay for numpy, the evaluation and
    comparison code), ``--help`` all of them. ``commands`` names the subcommands its
    ``add_parser`` adds (a test checks them against the parser)."""

    def __init__(self, name: str, commands: tuple[str, ...]) -> None:
        self.name = name
        self.commands = commands

    def __getattr__(self, attr: str):
        return getattr(importlib.import_module(f"{__name__}.{self.name}"), attr)


#: The command modules, in the order ``--help`` lists their commands.
COMMANDS = (
    _CommandModule("train", ("train",)),
    _CommandModule("codec", ("encode", "decode")),
    _CommandModule("info", ("info",)),
    _CommandModule("interop", ("export", "import")),
    _CommandModule("adapt", ("extend", "trim")),
    _CommandModule("evaluate", ("evaluate",)),
    _CommandModule("compare", ("compare",)),
    _CommandModule("count", ("count",)),
    _CommandModule("history", ("history", "report")),
)

#: Names this package offers, from the module that defines them (imported when asked for).
_LAZY_NAMES = {"config_from_args": "options", "ProgressBar": "progress",
               "HOLD_FOR_CANCEL_ENV": "train"}


def __getattr__(name: str):
    # The command modules (cli.codec, ...) and a few helpers, imported when first asked for.
    if name in _LAZY_NAMES:
        return getattr(importlib.import_module(f"{__name__}.{_LAZY_NAMES[name]}"), name)
    if any(module.name == name for module in COMMANDS):
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(args_list[0] if args_list else None)
    if _wants_desktop_app(parser, args_list):
        from bpe_desktop.app import main as app_main

        return app_main(args_list)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version, or a usage error (already printed)
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE if exc.code else EXIT_OK
    if args.command is None:  # only reachable with options but no command
        parser.print_help()
        return EXIT_OK
    with sigterm_as_interrupt() as signalled:
        status = _run(args, args_list, signalled)
    return EXIT_TERMINATED if signalled["terminated"] and status == EXIT_INTERRUPTED \
        else status


def _run(args: argparse.Namespace, args_list: list[str], signalled: dict[str, bool]) -> int:
    """The command, its failures made one line and an exit status."""
    try:
        status = run_command(args, args_list)
        sys.stdout.flush()  # (a closed pipe is noticed here, not in the exit's flush)
        return status
    except KeyboardInterrupt as exc:  # a command may say what was done (its argument)
        mark_interrupted_reported()
        _fail(str(exc) or ("terminated" if signalled["terminated"] else "interrupted"))
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_BROKEN_PIPE
    except UsageError as exc:
        _fail(f"{exc} (see '{PROG} {args.command} --help')")
        return EXIT_USAGE
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


def _commands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """Each command's name (aliases included) and its parser."""
    for action in parser._subparsers._group_actions if parser._subparsers else ():
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


class _Parser(argparse.ArgumentParser):
    """argparse with one-line usage errors."""

    def error(self, message: str):  # type: ignore[override]
        hint = f"see '{self.prog} --help'"
        self.exit(EXIT_USAGE, f"{PROG}: error: {message} ({hint})\n")

    def parse_args(self, args=None, namespace=None):  # type: ignore[override]
        # argparse reports a command's unknown arguments from the top parser, whose hint
        # would be 'bpe-desktop --help': the command's parser reports them instead.
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            command = _commands(self).get(getattr(parsed, "command", None) or "", self)
            command.error(f"unrecognized arguments: {' '.join(extras)}")
        return parsed


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The command line's parser; given a ``command``, one with only that command if it
    is one (the others' modules are not imported)."""
    parser = _Parser(
        prog=PROG,
        description="Train, inspect and use byte-pair-encoding tokenizers.",
        epilog="Run without a command to start the desktop application.",
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    chosen = [m for m in COMMANDS if command in m.commands]
    for module in chosen or COMMANDS:
        module.add_parser(sub)
    return parser
