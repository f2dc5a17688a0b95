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

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt

from bpe_desktop.core.evaluation import (
    SweepPoint,
    WordResult,
)
from bpe_desktop.core.formats._common import write_files
from bpe_desktop.ui.common.table_base import OneCallPerCell

Index = QModelIndex | QPersistentModelIndex
#: Role of the word table's coloured segmentation (HTML).
HTML_ROLE = Qt.ItemDataRole.UserRole + 1
#: Boundary colours of the per-word table (hit, missed, spurious).
BOUNDARY_COLORS = {"hit": "#2f9e44", "missed": "#e03131", "spurious": "#f08c00"}
BOUNDARY_MARKS = {"hit": "|", "missed": "¦", "spurious": "|"}


class RowsModel(OneCallPerCell):
    """A table of rows with fixed headers; floats shown with 4 decimals."""

    def __init__(self, headers: Sequence[str], parent=None) -> None:
        super().__init__(parent)
        self.headers = list(headers)
        self.rows: list[list[Any]] = []
        self._sort_by: tuple[int, bool] | None = None  # (column, descending)

    def set_rows(self, rows: Sequence[Sequence[Any]]) -> None:
        """Show ``rows``, in the order of the column last sorted by, if any."""
        self.beginResetModel()
        self.rows = [list(r) for r in rows]
        if self._sort_by is not None:
            self._reorder(self._sorted_order(*self._sort_by))
        self.endResetModel()

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Sort the rows by ``column`` (a header click), blanks last: here, in one Python
        sort, as a proxy model's call per comparison froze the window for seconds on a gold
        file of 40,000 words."""
        wanted = (column, order == Qt.SortOrder.DescendingOrder)
        if not 0 <= column < len(self.headers) or wanted == self._sort_by:
            return  # (the rows stay in that order as they are replaced)
        self._sort_by = wanted
        self.beginResetModel()
        self._reorder(self._sorted_order(*self._sort_by))
        self.endResetModel()

    def _sorted_order(self, column: int, descending: bool) -> list[int]:
        values = [row[column] for row in self.rows]
        filled = [i for i, v in enumerate(values) if v is not None and v != ""]
        filled.sort(key=lambda i: _sort_key(values[i]), reverse=descending)
        blank = [i for i, v in enumerate(values) if v is None or v == ""]
        return filled + blank

    def _reorder(self, order: list[int]) -> None:
        """Put the rows (and whatever a subclass keeps beside them) in ``order``."""
        self.rows = [self.rows[i] for i in order]

    def rowCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.headers)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return self.headers[section]
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        value = self.rows[index.row()][index.column()]
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


def _sort_key(value: Any) -> tuple:
    """Numbers by value, before texts (a column mixing them keeps them apart)."""
    if isinstance(value, (int, float)):
        return (0, value, "")
    return (1, 0, str(value))


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

WORD_HEADERS = ("word", "gold", "segmentation", "hits", "missed", "spurious", "line")


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
        self._all: list[WordResult] = []
        self.results: list[WordResult] = []
        self.only_missed = False

    def set_results(self, results: Sequence[WordResult]) -> None:
        self._all = list(results)
        self._refilter()

    def set_only_missed(self, only: bool) -> None:
        self.only_missed = only
        self._refilter()

    def _reorder(self, order: list[int]) -> None:
        super()._reorder(order)
        self.results = [self.results[i] for i in order]

    def _refilter(self) -> None:
        self.results = [r for r in self._all if r.evaluated and (r.missed or not self.only_missed)]
        self.set_rows([[r.word, " ".join(r.gold_morphs), " ".join(r.pieces), len(r.hits),
                        len(r.missed), len(r.spurious) + r.inside, r.line]
                       for r in self.results])

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole):
        if index.isValid() and role == HTML_ROLE and index.column() == 2:
            return segmentation_html(self.results[index.row()])
        return super().data(index, role)
