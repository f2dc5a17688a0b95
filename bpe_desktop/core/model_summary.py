"""A model's facts as plain data (``bpe-desktop info --json``): its sizes, and the parts of
its file that describe it, named and written as the model file writes them (Help ▸ Model
files), so that a script reads the same keys in both."""

from __future__ import annotations

from typing import Any

from bpe_desktop.core.model import BPEModel
from bpe_desktop.core.model_file import (
    RUNTIME_ONLY_KEYS,
    _constraints,
    _corpus_dict,
    created_time,
)


def model_summary(model: BPEModel) -> dict[str, Any]:
    """``created`` (None when not read from a file), the vocabulary's size and its parts
    (special tokens, alphabet, tokens made by merges: they add up to ``vocab_size``), the
    number of merges, then ``description``, ``config``, ``corpus`` and ``constraints`` as
    in the model file. Whole numbers stay whole; no value is NaN or infinite (the
    configuration's fractions are checked ranges)."""
    specials = len(model.config.special_tokens)
    alphabet = len(model.alphabet)
    config = model.config.to_dict()
    for key in RUNTIME_ONLY_KEYS:  # (the machine's, not the model's: never in the file)
        config.pop(key, None)
    return {
        "created": created_time(model),
        "vocab_size": model.vocab_size,
        "special_count": specials,
        "alphabet_size": alphabet,
        "merged_tokens": model.vocab_size - specials - alphabet,
        "merges": model.merge_count,
        "description": model.description,
        "config": config,
        "corpus": _corpus_dict(model.corpus),
        "constraints": _constraints(model.constraints),
    }


def merge_rows(model: BPEModel) -> list[list[Any]]:
    """The merges in rank order as the model file lists them: ``[left, right, count]``,
    ``count`` None where the model has none (an import from a format without counts)."""
    return [[m.left, m.right, m.count] for m in model.merges]
