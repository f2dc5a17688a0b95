"""What a front end needs to know about each training option, stated once.

Every field of :class:`~bpe_desktop.core.config.TrainConfig` is declared with
:func:`option`, which attaches an :class:`OptionSpec`: the label a form shows, the help text
(tooltip, ``--help``), the allowed values with a readable label for each, and the numeric
range. The command line (``bpe-desktop train``) and the Training panel are built from these
specs, so adding an option means adding one field. The value lists and limits come from the
engine (``bpe_desktop._engine.OPTION_VALUES``, ``MAX_VOCAB``, ...), which is what finally
accepts or refuses them.
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass, field
from typing import Any, Mapping

from bpe_desktop.core import _native

_ENGINE = _native.engine()

#: Each option's values as the engine accepts them, in documentation order.
OPTION_VALUES: Mapping[str, tuple[str, ...]] = {
    name: tuple(values) for name, values in _ENGINE.OPTION_VALUES.items()
}
#: The regular expression of each byte-level pre-tokenizer, as HF tokenizers (``Split``)
#: and tiktoken (``pat_str``) write it: GPT-2's (its ByteLevel default), and the ones the
#: engine runs as given (tiktoken's cl100k_base and o200k_base, Llama 3's).
PRETOKENIZER_PATTERNS: Mapping[str, str] = {
    "gpt2": r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+""",
    **_ENGINE.PRETOKENIZER_PATTERNS,
}
#: Byte-level pre-tokenizers: those cut by one of these regexes, then UTF-8 bytes written
#: with GPT-2's byte characters.
BYTE_LEVEL_PRETOKENIZERS: tuple[str, ...] = tuple(PRETOKENIZER_PATTERNS)
#: Largest vocabulary / merge count: ids are 32-bit in the engine.
MAX_VOCAB: int = _ENGINE.MAX_VOCAB
#: The most threads a run may ask for.
MAX_THREADS: int = _ENGINE.MAX_THREADS
#: Counts are 64-bit in the engine: no pair can occur more often than this.
MAX_COUNT = 2**64 - 1


@dataclass(frozen=True)
class OptionSpec:
    """How one option reads to a person, and what it accepts."""

    #: The form's label and the name used in summaries. A ``&`` gives it an access letter
    #: (Alt+letter) only if no other control shown with the Training form has it (the
    #: menus, the tabs, the other fields): a shared letter reaches neither predictably.
    #: The form has more fields than free letters, so the less used have none (Tab).
    label: str
    #: One paragraph for tooltips and ``--help``.
    help: str
    #: Allowed values -> a short readable label, in the order a menu lists them.
    choices: Mapping[str, str] = field(default_factory=dict)
    minimum: float | None = None
    maximum: float | None = None
    #: True when None ("no limit") is allowed.
    optional: bool = False
    #: The command-line flag's metavar; the flag itself is ``--`` + the name with dashes.
    metavar: str = "VALUE"
    #: Where the form puts it: "stop", "text", "merging", "vocabulary" or "run".
    group: str = "merging"
    #: What 0 means, for numbers where it is special ("all cores").
    zero_means: str = ""
    #: How far one arrow press moves a fractional number in the form.
    step: float = 0.0005
    #: An example a text field shows while empty.
    placeholder: str = ""
    #: False for options that describe the machine, not the model (never saved with it).
    stored: bool = True
    #: Where the Training panel takes the option when it is no field of the form (a
    #: message names it so there); "" for a field, named by its label.
    form_name: str = ""

    @property
    def plain_label(self) -> str:
        """The label without its mnemonic ``&`` and trailing colon."""
        return self.label.replace("&", "").rstrip(":")


def option(default: Any = dataclasses.MISSING, *, default_factory: Any = dataclasses.MISSING,
           **spec: Any) -> Any:
    """A dataclass field carrying its :class:`OptionSpec` (``label``, ``help``, ...)."""
    kwargs: dict[str, Any] = {"metadata": {"option": OptionSpec(**spec)}}
    if default_factory is not dataclasses.MISSING:
        kwargs["default_factory"] = default_factory
    else:
        kwargs["default"] = default
    return field(**kwargs)


def choices_of(name: str, labels: Mapping[str, str]) -> dict[str, str]:
    """``labels`` for the engine's values of option ``name``, in the engine's order;
    a value without a label (or a label for a value the engine lacks) is a bug."""
    values = OPTION_VALUES[name]
    if set(values) != set(labels):
        raise RuntimeError(f"option {name}: labels for {sorted(labels)} but the engine "
                           f"accepts {list(values)}")
    return {value: labels[value] for value in values}


#: Options whose flag is not ``--`` and the name with dashes.
_FLAG_NAMES = {"special_tokens": "--special", "protected": "--protect"}


def option_flag(name: str) -> str:
    """The command-line flag of training option ``name``."""
    return _FLAG_NAMES.get(name, "--" + name.replace("_", "-"))


@functools.cache
def option_specs(config_class: type) -> dict[str, OptionSpec]:
    """Every field of ``config_class`` with its spec, in declaration order."""
    return {f.name: f.metadata["option"] for f in dataclasses.fields(config_class)
            if "option" in f.metadata}
