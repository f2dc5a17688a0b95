"""Everything the Vocabulary tab shows about a model, built in one go (in a worker thread).

:func:`load_table` builds the table's columns, the filter's texts, the current filter's
rows and the current sort order; :func:`load_words` segments the training words and
computes the plots. At 100,000 tokens and 50,000 words the two take about 1.5 s, so the
panel runs them in a :class:`~bpe_desktop.ui.common.background.LatestJob` and swaps the results
in on the GUI thread, where that is a model reset and a few array look-ups.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from bpe_desktop.core import BPEModel, Tokenizer
from bpe_desktop.views.vocab_plot_data import PLOTS, PlotSeries, compute_plot
from bpe_desktop.views.vocab_table import (
    FilterMask,
    TextFilter,
    TokenUsage,
    VocabColumns,
    build_columns,
    compute_mask,
    final_frequencies,
)


@dataclass(frozen=True)
class LoadedTable:
    model: BPEModel
    columns: VocabColumns
    text_filter: TextFilter
    mask: FilterMask | None  # the filter asked for, computed (None: it did not compile)


@dataclass(frozen=True)
class LoadedWords:
    model: BPEModel
    usage: TokenUsage | None  # None: the model keeps no training words
    #: each token's frequency in the final segmentation of the training words (the model's
    #: final_counts, else over the kept words; None: neither)
    final: np.ndarray | None = None
    plots: dict[str, PlotSeries] = field(default_factory=dict)


def load_table(model: BPEModel, filter_spec: tuple, sort: tuple[int, bool]) -> LoadedTable:
    """The table of ``model`` with the filter ``filter_spec`` and the order ``sort``
    (column, descending) ready."""
    columns = build_columns(model)
    text_filter = TextFilter(columns)
    try:
        mask = FilterMask(filter_spec, compute_mask(columns, text_filter, filter_spec))
    except re.error:
        mask = None
    column, descending = sort
    if column >= 0:
        columns.permutation(column, descending)
    return LoadedTable(model, columns, text_filter, mask)


def load_words(table: LoadedTable, tokenizer: Tokenizer | None = None) -> LoadedWords:
    """The training words of ``table.model`` segmented, and the three plots."""
    model = table.model
    usage = TokenUsage(model, tokenizer) if model.word_count else None
    plots = {which: compute_plot(which, model, table.columns, lambda: usage)
             for which in PLOTS}
    return LoadedWords(model, usage, final_frequencies(model, usage), plots)
