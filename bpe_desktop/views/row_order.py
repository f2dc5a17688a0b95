"""The order of a table's rows sorted by one column, computed with NumPy.

The rule (the evaluation and comparison tables sort by it): numbers by value before
texts, texts by code point (as Python compares them), blanks (None or "") last in their
original order whichever the direction, ties kept in their original order. NumPy sorts
without a Python call per comparison: a Python sort of a 40,000-word table held the
window for a tenth of a second.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np


def sorted_rows(values: Sequence[Any], descending: bool = False) -> np.ndarray:
    """The indices of ``values`` in sorted order (see the module docstring)."""
    kinds = set(map(type, values))
    if kinds <= {str}:  # the usual columns: all texts or all numbers, in one NumPy array
        texts = np.array(values, dtype=str) if values else np.empty(0, dtype="<U1")
        filled, blank = np.flatnonzero(texts != ""), np.flatnonzero(texts == "")
        return np.concatenate([filled[_stable_order(texts[filled], descending)], blank])
    if kinds <= {int, float, bool}:
        return _stable_order(np.array(values, dtype=np.float64), descending).astype(np.int64)
    is_number = np.fromiter((isinstance(v, (int, float)) for v in values), dtype=bool,
                            count=len(values))
    is_blank = np.fromiter((v is None or v == "" for v in values), dtype=bool,
                           count=len(values))
    numbers = np.flatnonzero(is_number)
    texts = np.flatnonzero(~is_number & ~is_blank)
    number_keys = np.array([values[i] for i in numbers], dtype=np.float64)
    text_keys = np.array([str(values[i]) for i in texts], dtype=str)
    if not len(text_keys):
        text_keys = np.empty(0, dtype="<U1")
    numbers = numbers[_stable_order(number_keys, descending)]
    texts = texts[_stable_order(text_keys, descending)]
    filled = np.concatenate([texts, numbers] if descending else [numbers, texts])
    return np.concatenate([filled, np.flatnonzero(is_blank)]).astype(np.int64)


def _stable_order(keys: np.ndarray, descending: bool) -> np.ndarray:
    """Ascending, or descending with ties still in their original order."""
    if not descending:
        return np.argsort(keys, kind="stable")
    # Sorting the reversed keys ascending and reading the result backwards keeps equal
    # keys in their original order (as Python's sort(reverse=True) does).
    last = len(keys) - 1
    return last - np.argsort(keys[::-1], kind="stable")[::-1]
