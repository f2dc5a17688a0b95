"""An option error as the Training panel says it: the options it names by the form's
labels, where the command line names them by their flags."""

from __future__ import annotations

import re

from bpe_desktop.core.config import TrainConfig
from bpe_desktop.core.errors import ConfigError
from bpe_desktop.core.options import option_flag, option_specs


def form_name(name: str) -> str:
    """Training option ``name`` as the form shows it: its label in quotes, or the place
    the panel takes it from when it is no field of the form."""
    spec = option_specs(TrainConfig)[name]
    return spec.form_name or f"“{spec.plain_label}”"


def form_message(error: BaseException) -> str:
    """``str(error)``, each training option it names (``ConfigError.options``) by its form
    name instead of its flag (with the flag's CODE=PATH-like argument, which a form
    field does not take)."""
    message = str(error)
    specs = option_specs(TrainConfig)
    for name in getattr(error, "options", ()) if isinstance(error, ConfigError) else ():
        if name not in specs:
            continue
        argument = re.escape(" " + specs[name].metavar)
        # not inside a longer flag: --parity-dev is no part of --parity-dev-documents
        pattern = re.escape(option_flag(name)) + f"(?:{argument})?(?![\\w-])"
        shown = form_name(name)
        message = re.sub(pattern, lambda _, shown=shown: shown, message)
    return message
