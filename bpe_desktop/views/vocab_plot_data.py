"""The data of the vocabulary plots: merge-count curve, Zipf rank-frequency, token lengths.

Qt-free, so that the vocabulary loader computes it in a worker thread beside the table
and the widgets in ``ui/vocabulary/plots.py`` only draw it.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from bpe_desktop.core.model import BPEModel
from bpe_desktop.views.vocab_table import (
    SPECIAL,
    TokenUsage,
    VocabColumns,
    final_frequencies,
)

#: Plot keys, in tab order, with their tab titles.
PLOTS = {"merges": "Merge counts", "zipf": "Zipf", "lengths": "Token lengths"}


def merge_curve(model: BPEModel) -> tuple[np.ndarray, np.ndarray]:
    """(merge rank, count at merge) for every merge with a recorded count > 0."""
    counts = model.merge_counts()
    ranks = np.flatnonzero(counts > 0)
    return ranks, counts[ranks]


def zipf_curve(frequencies: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(rank from 1, frequency) of the tokens that occur, most frequent first."""
    freq = np.sort(frequencies[frequencies > 0])[::-1]
    return np.arange(1, len(freq) + 1, dtype=np.int64), freq


def length_histogram(columns: VocabColumns) -> tuple[np.ndarray, np.ndarray]:
    """(length in characters, number of tokens) over the non-special tokens."""
    chars = columns.chars[columns.kind != SPECIAL]
    counts = np.bincount(chars) if len(chars) else np.zeros(0, dtype=np.int64)
    return np.arange(len(counts), dtype=np.int64), counts.astype(np.int64)


#: A plot's data: (x, y, note); the note says why it is empty ("" when it is not).
PlotSeries = tuple[np.ndarray, np.ndarray, str]


def compute_plot(which: str, model: BPEModel | None, columns: VocabColumns | None,
                 usage: Callable[[], TokenUsage | None] | None) -> PlotSeries:
    """The data of plot ``which``; ``usage`` gives the segmented training words."""
    empty = np.zeros(0, dtype=np.int64)
    if model is None or columns is None:
        return empty, empty, "No model"
    if which == "merges":
        if not model.merge_count:
            return empty, empty, "This model has no merges"
        x, y = merge_curve(model)
        return x, y, "" if len(x) else "This model does not record merge counts"
    if which == "zipf":  # the Final column's frequencies
        words = None  # (segmenting the kept words is needed only without final counts)
        if model.final_counts is None and model.word_count and usage is not None:
            words = usage()
        frequencies = final_frequencies(model, words)
        if frequencies is None:
            return empty, empty, "This model keeps no training words"
        x, y = zipf_curve(frequencies)
        return x, y, "" if len(x) else "No token occurs in the training words"
    x, y = length_histogram(columns)
    return x, y, "" if y.any() else "No tokens"
