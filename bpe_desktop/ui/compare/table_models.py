"""Qt table models of a comparison: aligned words, vocabulary overlap.

The aligned-word table has one row per running word (line, word, then one column per
tokenizer with its pieces joined by ``·``). A row whose tokenizers do not all cut the
word the same way is *different*; a cell that cuts differently from the first tokenizer
is highlighted, and hovering a cell lists each of its tokens with id and merge rank.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor

from bpe_desktop.core.comparison import CATEGORIES, Comparison, Cut, Overlap, OverlapRow
from bpe_desktop.core.pieces import bidi_joined, isolated_if_rtl
from bpe_desktop.ui.common.table_base import OneCallPerCell

Index = QModelIndex | QPersistentModelIndex
#: Background of a cell cut differently from the first tokenizer's.
DIFFERENT_COLOR = "#ffd8a8"
#: Shown between pieces.
PIECE_SEPARATOR = " · "
#: The overlap lists as the category chooser names them.
CATEGORY_LABELS = {"both": "in both", "only_a": "only in A", "only_b": "only in B"}


def token_tooltip(cut: Cut) -> str:
    """One line per token: the piece, its id and the merge rank that made it."""
    lines = []
    for t in cut.tokens:
        rank = "alphabet or special" if t.rank is None else f"rank {t.rank:,}"
        lines.append(f"{isolated_if_rtl(t.piece)}   id {t.id:,}, {rank}")
    return "\n".join(lines)


class AlignedWordsModel(OneCallPerCell):
    """The running words of a comparison with each tokenizer's cut."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.comparison: Comparison | None = None
        self.hide_identical = False
        self._rows = np.empty(0, dtype=np.int64)  # indices of the occurrences shown

    def set_comparison(self, comparison: Comparison | None) -> None:
        self.beginResetModel()
        self.comparison = comparison
        self._refilter()
        self.endResetModel()

    def set_hide_identical(self, hide: bool) -> None:
        self.beginResetModel()
        self.hide_identical = hide
        self._refilter()
        self.endResetModel()

    def _refilter(self) -> None:
        c = self.comparison
        if c is None:
            self._rows = np.empty(0, dtype=np.int64)
        elif self.hide_identical:
            a = c.alignment
            self._rows = np.flatnonzero(a.cuts_differ.any(axis=1)[a.occurrence_words])
        else:
            self._rows = np.arange(len(c.alignment.occurrences), dtype=np.int64)

    def cell_differs(self, row: int, column: int) -> bool:
        """Whether the cut in (row, column) differs from the first tokenizer's."""
        k = column - 2
        if k < 1:
            return False
        c = self.comparison
        return bool(c.alignment.cuts_differ[c.alignment.occurrence_words[self._rows[row]], k])

    def _word(self, row: int):
        c = self.comparison
        return c.alignment.words[c.alignment.occurrences[self._rows[row]].word]

    def rowCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:
        if parent.isValid() or self.comparison is None:
            return 0
        return 2 + len(self.comparison.names)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if role != Qt.ItemDataRole.DisplayRole or orientation != Qt.Orientation.Horizontal:
            return None
        if section == 0:
            return "line"
        if section == 1:
            return "word"
        return self.comparison.names[section - 2]

    def pieces_text(self, row: int, column: int) -> str:
        """The cut as drawn: markers isolated, so a right-to-left word's read as written."""
        return bidi_joined(self._word(row).cuts[column - 2].pieces, PIECE_SEPARATOR)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        row, col = index.row(), index.column()
        occurrence = self.comparison.alignment.occurrences[self._rows[row]]
        if role == Qt.ItemDataRole.DisplayRole:
            if col == 0:
                return f"{occurrence.line:,}"
            if col == 1:
                return self._word(row).word
            return self.pieces_text(row, col)
        if role == Qt.ItemDataRole.ToolTipRole and col >= 2:
            return token_tooltip(self._word(row).cuts[col - 2])
        if role == Qt.ItemDataRole.BackgroundRole and self.cell_differs(row, col):
            return QBrush(QColor(DIFFERENT_COLOR))
        if role == Qt.ItemDataRole.TextAlignmentRole and col == 0:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None


class OverlapModel(OneCallPerCell):
    """One overlap list (both, only in A, only in B) of one pair: text and pieces."""

    HEADERS = ("text", "pieces in A", "pieces in B")

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.overlap: Overlap | None = None
        self.category = CATEGORIES[0]
        self.rows: list[OverlapRow] = []

    def set_overlap(self, overlap: Overlap | None, category: str | None = None) -> None:
        self.beginResetModel()
        self.overlap = overlap
        if category is not None:
            self.category = category
        self.rows = overlap.of(self.category) if overlap is not None else []
        self.endResetModel()

    def set_category(self, category: str) -> None:
        self.set_overlap(self.overlap, category)

    def rowCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.HEADERS)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            header = self.HEADERS[section]
            if self.overlap is not None and section:
                return f"{header[:-1]}{self.overlap.a if section == 1 else self.overlap.b}"
            return header
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or role != Qt.ItemDataRole.DisplayRole:
            return None
        r = self.rows[index.row()]
        if index.column() == 0:
            return r.text
        return bidi_joined(r.pieces_a if index.column() == 1 else r.pieces_b, " ")

    def to_csv(self, path: str) -> None:
        """The list shown, as CSV (the core's columns), written atomically."""
        if self.overlap is not None:
            self.overlap.to_csv(path, categories=(self.category,))


def pair_rows(comparison: Comparison) -> list[list]:
    """The pair summary table: one row per pair, B against A."""
    rows = []
    for p, o in zip(comparison.pairs, comparison.overlaps):
        ov = o.summary()
        rows.append([f"{p.a} → {p.b}", p.precision, p.recall, p.f1, p.identical_share,
                     p.skipped, p.tokens_a, p.tokens_b, ov["both"], ov["only_a"], ov["only_b"]])
    return rows


PAIR_HEADERS = ("A → B", "precision", "recall", "F1", "identical words", "skipped",
                "tokens A", "tokens B", "both", "only A", "only B")


def metrics_table(comparison: Comparison) -> tuple[list[str], list[list]]:
    """The evaluation's text statistics side by side: one column per tokenizer."""
    from bpe_desktop.ui.evaluate.table_models import TEXT_LABELS

    headers = ["measure", *comparison.names]
    summaries = [s.summary() for s in comparison.stats]
    rows = [["vocabulary size", *comparison.vocab_sizes]]
    rows += [[TEXT_LABELS[k], *(s[k] for s in summaries)] for k in summaries[0]]
    return headers, rows


def overlap_categories() -> Sequence[tuple[str, str]]:
    return [(c, CATEGORY_LABELS[c]) for c in CATEGORIES]
