"""The training options of ``bpe-desktop train``, made from TrainConfig's declarations.

One flag per :class:`~bpe_desktop.core.config.TrainConfig` field (``--min-frequency`` for
``min_frequency``), with the field's help text, choices and range; special tokens are
``--special PIECE:ID[:ROLE]`` (repeatable) or ``--no-specials``. A ``--preset`` gives the
defaults and explicit flags override them.
"""

from __future__ import annotations

import argparse
import dataclasses
from typing import Callable

from bpe_desktop.cli._common import UsageError
from bpe_desktop.core.config import (
    BOUNDARY_OF_PRETOKENIZER,
    PRESETS,
    SpecialToken,
    TrainConfig,
    parse_special,
)
from bpe_desktop.core.errors import BpeError, ConfigError
from bpe_desktop.core.options import OptionSpec, option_flag, option_specs
from bpe_desktop.core.protected import PROTECT_STRING_FLAG

#: The command-line flag of an option (the core's messages name options by it too).
flag_of = option_flag


def whole_number(minimum: int, maximum: int | None = None) -> Callable[[str], int]:
    """An argparse type: a whole number (``_`` separators allowed) within the range."""
    def parse(text: str) -> int:
        try:
            value = int(text.replace("_", ""))
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}; got {value}")
        if maximum is not None and value > maximum:
            raise argparse.ArgumentTypeError(f"must be at most {maximum}; got {value}")
        return value

    parse.__name__ = "whole number"
    return parse


def _fraction(spec: OptionSpec) -> Callable[[str], float]:
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if spec.zero_means and value == 0.0:
            return value  # 0 has a meaning of its own ("languages as they are")
        if not 0.0 < value <= spec.maximum:
            zero = f" (or 0: {spec.zero_means})" if spec.zero_means else ""
            raise argparse.ArgumentTypeError(
                f"must be more than 0 and at most {spec.maximum:g}{zero}; got {text}")
        return value

    parse.__name__ = "number"
    return parse


def _special(text: str) -> SpecialToken:
    try:
        return parse_special(text)
    except BpeError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _help(spec: OptionSpec, default: object) -> str:
    # argparse formats help with %-style: a literal percent sign must be doubled.
    text = spec.help.replace("%", "%%")
    if default is not None and default != "" and not isinstance(default, (bool, tuple)):
        text += f" (default: {default})"
    return text


def add_train_options(parser: argparse.ArgumentParser,
                      only: tuple[str, ...] | None = None) -> None:
    """Add a flag for every training option (or those named in ``only``), and
    ``--preset``."""
    defaults = TrainConfig()
    stop = None  # the vocabulary size and the number of merges exclude each other
    for name, spec in option_specs(TrainConfig).items():
        if only is not None and name not in only:
            continue
        default = getattr(defaults, name)
        if spec.group == "stop" and stop is None:
            stop = parser.add_mutually_exclusive_group()
        where = stop if spec.group == "stop" else parser
        if name == "special_tokens":
            specials = parser.add_mutually_exclusive_group()
            specials.add_argument(flag_of(name), dest=name, type=_special, action="append",
                                  metavar=spec.metavar,
                                  help=spec.help + " Repeatable; replaces the default ones.")
            specials.add_argument("--no-specials", action="store_true",
                                  help="no special tokens at all")
        elif name == "protected":  # the strings are read from files, or typed
            where.add_argument(flag_of(name), dest="protect_files", nargs="+",
                               action="extend", metavar=spec.metavar, help=spec.help)
            where.add_argument(PROTECT_STRING_FLAG, dest="protect_strings", nargs="+",
                               action="extend", metavar="STRING",
                               help="protected strings typed here (after those of --protect "
                               "files; --protect-string=STRING for one that starts with -)")
        elif spec.choices:
            where.add_argument(flag_of(name), dest=name, choices=tuple(spec.choices),
                               help=_help(spec, default))
        elif isinstance(default, tuple):  # file lists: repeatable, several per flag
            where.add_argument(flag_of(name), dest=name, nargs="+", action="extend",
                               metavar=spec.metavar, help=spec.help)
        elif isinstance(default, bool):
            where.add_argument(flag_of(name), dest=name, action="store_true", default=None,
                               help=spec.help)
        elif isinstance(default, float):
            where.add_argument(flag_of(name), dest=name, type=_fraction(spec),
                               metavar=spec.metavar, help=_help(spec, default))
        elif spec.maximum is not None:
            where.add_argument(flag_of(name), dest=name,
                               type=whole_number(int(spec.minimum), int(spec.maximum)),
                               metavar=spec.metavar, help=_help(spec, default))
        else:
            where.add_argument(flag_of(name), dest=name, metavar=spec.metavar,
                               help=_help(spec, default))
    parser.add_argument("--preset", choices=tuple(PRESETS),
                        help="a named set of defaults: " + ", ".join(PRESETS))


def add_model_option(parser: argparse.ArgumentParser, what: str = "the model file",
                     note: str = "", metavar: str = "MODEL", **kwargs) -> None:
    """``-m/--model``, for every command that reads a model: ``what`` it is, that ``-``
    is standard input (copied first: see :mod:`bpe_desktop.cli.standard_input`), then
    the command's ``note``."""
    parser.add_argument("-m", "--model", required=True, metavar=metavar,
                        help=f"{what} (- for standard input{'; ' if note else ''}{note})",
                        **kwargs)


def add_encoding_errors_option(parser: argparse.ArgumentParser) -> None:
    """``--encoding-errors``, for every command that counts a corpus (how it reads
    invalid UTF-8 changes the counts: see ``CorpusInfo.encoding_errors``)."""
    from bpe_desktop.core.model import ENCODING_ERRORS

    parser.add_argument("--encoding-errors", choices=ENCODING_ERRORS, default="strict",
                        help="invalid UTF-8: stop with an error (strict, default) or use "
                        "U+FFFD")


def config_from_args(args: argparse.Namespace) -> TrainConfig:
    """The TrainConfig the options ask for: the preset's values, then explicit options."""
    overrides = {f.name: getattr(args, f.name) for f in dataclasses.fields(TrainConfig)
                 if getattr(args, f.name, None) is not None}
    for name, value in overrides.items():
        if isinstance(value, list) and name != "special_tokens":
            overrides[name] = tuple(value)
    pretokenizer = getattr(args, "pretokenizer", None)
    if pretokenizer in BOUNDARY_OF_PRETOKENIZER and getattr(args, "boundary", None) is None:
        overrides["boundary"] = BOUNDARY_OF_PRETOKENIZER[pretokenizer]
    if getattr(args, "protect_files", None) or getattr(args, "protect_strings", None):
        from bpe_desktop.core.protected import read_protected

        strings = [s for path in args.protect_files or () for s in read_protected(path)]
        strings += args.protect_strings or ()
        overrides["protected"] = tuple(dict.fromkeys(strings))
    if getattr(args, "no_specials", False):
        overrides["special_tokens"] = ()
    elif getattr(args, "special_tokens", None):
        overrides["special_tokens"] = tuple(args.special_tokens)
    try:
        if args.preset:
            return TrainConfig.preset(args.preset, **overrides)
        return TrainConfig(**overrides)
    except ConfigError as exc:  # options that exclude or need each other
        raise UsageError(str(exc)) from None


def probability(text: str) -> float:
    """An argparse type: a number from 0 to 1 (BPE-dropout)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0.0 <= value <= 1.0:  # also refuses nan
        raise argparse.ArgumentTypeError(f"must be from 0 to 1; got {text}")
    return value
