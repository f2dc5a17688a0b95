"""Qt table models over the core's evaluation results (read-only, sortable).

Each model holds plain rows computed once from a result; :meth:`RowsModel.to_csv`
writes what the table shows, so the exported file and the screen agree.
"""

from __future__ import annotations

import csv
import html
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt

from bpe_desktop.core.evaluation import (
    SweepPoint,
    WordResult,
)
from bpe_desktop.core.formats._common import write_files
from bpe_desktop.ui.common.table_base import OneCallPerCell
from bpe_desktop.views.row_order import sorted_rows
from bpe_desktop.views.word_table import WORD_HEADERS, WordTable, word_table

Index = QModelIndex | QPersistentModelIndex
#: Role of the word table's coloured segmentation (HTML).
HTML_ROLE = Qt.ItemDataRole.UserRole + 1
#: Boundary colours of the per-word table (hit, missed, spurious).
BOUNDARY_COLORS = {"hit": "#2f9e44", "missed": "#e03131", "spurious": "#f08c00"}
BOUNDARY_MARKS = {"hit": "|", "missed": "¦", "spurious": "|"}


class RowsModel(OneCallPerCell):
    """A table of rows with fixed headers; floats shown with 4 decimals.

    The rows stay in the order given; what is shown is an array of their indices,
    sorted by the column last clicked (:func:`sorted_rows`, each column's order computed
    once per set of rows) and, in a subclass, filtered by a mask: a header click or a
    filter reorders integers instead of rebuilding the rows in Python.
    """

    def __init__(self, headers: Sequence[str], parent=None) -> None:
        super().__init__(parent)
        self.headers = list(headers)
        self._all_rows: list[Sequence[Any]] = []
        self._shown = np.empty(0, dtype=np.int64)  # indices into _all_rows, as shown
        self._keep: np.ndarray | None = None  # the rows a filter keeps (None: all)
        self._orders: dict[tuple[int, bool], np.ndarray] = {}
        self._sort_by: tuple[int, bool] | None = None  # (column, descending)

    @property
    def rows(self) -> list[Sequence[Any]]:
        """The rows shown, in the order shown."""
        return [self._all_rows[i] for i in self._shown]

    def set_rows(self, rows: Sequence[Sequence[Any]], keep: np.ndarray | None = None,
                 orders: dict[tuple[int, bool], np.ndarray] | None = None) -> None:
        """Show ``rows`` (those ``keep`` marks, if given), in the order of the column last
        sorted by, if any; ``orders``: the rows' orders by (column, descending) known
        already (the others are computed when first asked for)."""
        self.beginResetModel()
        self._all_rows = list(rows)  # (rows are never changed in place)
        self._orders = dict(orders or {})
        self._keep = keep
        self._shown = self._shown_order()
        self.endResetModel()

    def set_keep(self, keep: np.ndarray | None) -> None:
        """Show only the rows ``keep`` marks (None: all), in the current order."""
        self.beginResetModel()
        self._keep = keep
        self._shown = self._shown_order()
        self.endResetModel()

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Sort the rows by ``column`` (a header click), blanks last."""
        wanted = (column, order == Qt.SortOrder.DescendingOrder)
        if not 0 <= column < len(self.headers) or wanted == self._sort_by:
            return  # (the rows stay in that order as they are replaced)
        self._sort_by = wanted
        self.beginResetModel()
        self._shown = self._shown_order()
        self.endResetModel()

    def _shown_order(self) -> np.ndarray:
        if self._sort_by is None:
            order = np.arange(len(self._all_rows), dtype=np.int64)
        elif (order := self._orders.get(self._sort_by)) is None:
            column, descending = self._sort_by
            order = self._orders[self._sort_by] = sorted_rows(
                [row[column] for row in self._all_rows], descending)
        return order if self._keep is None else order[self._keep[order]]

    def rowCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._shown)

    def columnCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.headers)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return self.headers[section]
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        value = self._all_rows[self._shown[index.row()]][index.column()]
        if role == Qt.ItemDataRole.DisplayRole:
            return self.text(value)
        if role == Qt.ItemDataRole.TextAlignmentRole and isinstance(value, (int, float)):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    @staticmethod
    def text(value: Any) -> str:
        if isinstance(value, float):
            return f"{value:.4f}"
        if isinstance(value, int):
            return f"{value:,}"
        return "" if value is None else str(value)

    def to_csv(self, path: str) -> None:
        """The table as CSV (full precision, rows in the order shown), written atomically."""
        import io

        buffer = io.StringIO()
        writer = csv.writer(buffer)
        writer.writerow(self.headers)
        writer.writerows(self.rows)
        write_files([(Path(path), buffer.getvalue().encode("utf-8"))])


TEXT_LABELS = {"tokens": "tokens", "words": "words", "fertility": "fertility (tokens/word)",
               "chars_per_token": "characters per token", "bytes_per_token": "bytes per token",
               "split_share": "words split in ≥ 2 tokens", "unknown_rate": "unknown rate",
               "utilisation": "vocabulary utilisation", "renyi_efficiency": "Rényi efficiency"}


SWEEP_HEADERS_FIXED = ("vocabulary size", "merges")


def sweep_table(points: Sequence[SweepPoint]) -> tuple[list[str], list[list[Any]]]:
    headers = list(SWEEP_HEADERS_FIXED)
    if not points:
        return headers, []
    names = list(points[0].morphology)
    for name in names:
        headers += [f"F1 {name}", f"MorphScore {name}"]
    has_text = points[0].text is not None
    if has_text:
        headers += ["fertility", "Rényi efficiency"]
    rows = []
    for p in points:
        row: list[Any] = [p.vocab_size, p.merges]
        for name in names:
            row += [p.morphology[name].f1, p.morphology[name].morphscore]
        if has_text:
            row += [p.text.fertility, p.text.renyi_efficiency]
        rows.append(row)
    return headers, rows


# -- per-word results -----------------------------------------------------------------------

def segmentation_html(r: WordResult) -> str:
    """The word with its boundaries coloured: hit, missed (gold only), spurious."""
    kinds = {b: "hit" for b in r.hits}
    kinds.update({b: "missed" for b in r.missed})
    kinds.update({b: "spurious" for b in r.spurious})
    out = []
    for i, ch in enumerate(r.word):
        kind = kinds.get(i)
        if kind:
            out.append(f"<b style='color:{BOUNDARY_COLORS[kind]}'>{BOUNDARY_MARKS[kind]}</b>")
        out.append(html.escape(ch))
    if r.inside:
        out.append(f" <span style='color:{BOUNDARY_COLORS['spurious']}'>"
                   f"(+{r.inside} inside a character)</span>")
    return "".join(out)


class WordTableModel(RowsModel):
    """Gold against predicted, one row per gold word; filterable to missed boundaries."""

    def __init__(self, parent=None) -> None:
        super().__init__(WORD_HEADERS, parent)
        self._results: list[WordResult] = []
        self._has_missed = np.empty(0, dtype=bool)
        self.only_missed = False

    @property
    def results(self) -> list[WordResult]:
        """The words shown, in the order shown."""
        return [self._results[i] for i in self._shown]

    def result_at(self, row: int) -> WordResult:
        return self._results[self._shown[row]]

    def set_results(self, results: Sequence[WordResult]) -> None:
        self.set_table(word_table(results))

    def set_table(self, table: WordTable) -> None:
        """Show ``table`` (made by the worker: rows, filter and orders ready)."""
        self._results = table.results
        self._has_missed = table.has_missed
        self.set_rows(table.rows, self._kept(), table.orders)

    def set_only_missed(self, only: bool) -> None:
        self.only_missed = only
        self.set_keep(self._kept())

    def _kept(self) -> np.ndarray | None:
        return self._has_missed if self.only_missed else None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole):
        if index.isValid() and role == HTML_ROLE and index.column() == 2:
            return segmentation_html(self.result_at(index.row()))
        return super().data(index, role)
