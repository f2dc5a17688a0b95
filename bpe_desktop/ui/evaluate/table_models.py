"""Qt table models over the core's evaluation results (read-only, sortable by proxy).

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
#: Role carrying the value a proxy sorts by (numbers as numbers).
SORT_ROLE = Qt.ItemDataRole.UserRole
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

    def set_rows(self, rows: Sequence[Sequence[Any]]) -> None:
        self.beginResetModel()
        self.rows = [list(r) for r in rows]
        self.endResetModel()

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
        if role == SORT_ROLE:
            return value
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

    def to_csv(self, path: str, order: Sequence[int] | None = None) -> None:
        """The table as CSV (full precision), its rows in ``order`` (indexes of
        :attr:`rows`; None: as they are), written atomically."""
        import io

        buffer = io.StringIO()
        writer = csv.writer(buffer)
        writer.writerow(self.headers)
        writer.writerows(self.rows if order is None else [self.rows[i] for i in order])
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

    def _refilter(self) -> None:
        self.results = [r for r in self._all if r.evaluated and (r.missed or not self.only_missed)]
        self.set_rows([[r.word, " ".join(r.gold_morphs), " ".join(r.pieces), len(r.hits),
                        len(r.missed), len(r.spurious) + r.inside, r.line]
                       for r in self.results])

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole):
        if index.isValid() and role == HTML_ROLE and index.column() == 2:
            return segmentation_html(self.results[index.row()])
        return super().data(index, role)
