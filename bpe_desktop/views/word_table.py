"""The Evaluate panel's per-word table of a gold file: its rows, made off the GUI thread.

A gold file has tens of thousands of words: turning their results into rows, and sorting
each column both ways, is done by the evaluation's worker (:func:`word_tables`), so that
showing the results, ticking "only missed" or clicking a header is a swap of arrays on
the GUI thread.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from bpe_desktop.core.evaluation import EvaluationReport, WordResult
from bpe_desktop.views.row_order import sorted_rows

WORD_HEADERS = ("word", "gold", "segmentation", "hits", "missed", "spurious", "line")


@dataclass(frozen=True)
class WordTable:
    """The evaluated words of one gold file, in file order, as the table shows them."""

    results: list[WordResult]
    rows: list[list[Any]]
    #: per row: whether the word has a missed boundary (the "only missed" filter).
    has_missed: np.ndarray
    #: (column, descending) -> the rows' order sorted so (see :func:`sorted_rows`).
    orders: dict[tuple[int, bool], np.ndarray] = field(default_factory=dict)


def word_table(results: Sequence[WordResult], *, sorted_ahead: bool = False) -> WordTable:
    """The table of ``results`` (words the normalization changed are left out); with
    ``sorted_ahead``, every column's order both ways, ready for a header click."""
    shown = [r for r in results if r.evaluated]
    rows = [[r.word, " ".join(r.gold_morphs), " ".join(r.pieces), len(r.hits),
             len(r.missed), len(r.spurious) + r.inside, r.line] for r in shown]
    has_missed = np.fromiter((row[4] > 0 for row in rows), dtype=bool, count=len(rows))
    orders = {}
    if sorted_ahead:
        for column in range(len(WORD_HEADERS)):
            values = [row[column] for row in rows]
            for descending in (False, True):
                orders[column, descending] = sorted_rows(values, descending)
    return WordTable(shown, rows, has_missed, orders)


def word_tables(report: EvaluationReport) -> dict[str, WordTable]:
    """Each gold file's table, by name, sorted ahead (for the evaluation's worker)."""
    return {name: word_table(result.details, sorted_ahead=True)
            for name, result in report.morphology.items()}
