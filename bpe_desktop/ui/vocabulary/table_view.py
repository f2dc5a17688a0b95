"""The vocabulary table's view: a QTableView that repaints no more of itself than changed.

At 100,000 tokens one full paint of the table takes ~12 ms of the GUI thread (each cell
asks the model, in Python, for its text). Two of Qt's habits repainted it all needlessly:

* A reset (another model, a filter applied) is painted at once, but the view lays
  itself out only in a later pass and then repaints the whole table again. Here the
  layout follows the reset at once, so the first paint is the only one.
* A change to a range of cells (``dataChanged``) repaints the whole viewport, even when
  the range is one column: the final frequencies arriving after the table. Here only
  that column's visible cells are repainted (unless assistive technology is listening:
  it is told of the change as Qt tells it).
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QRect, Qt
from PySide6.QtGui import QAccessible
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableView, QWidget

from bpe_desktop.views import vocab_table as cols
from bpe_desktop.ui.common.plain_copy import copy_without_isolates
from bpe_desktop.ui.vocabulary.table_model import VocabTableModel

#: Each column's width in digits' widths (a sample, not the contents: 100,000 rows).
COLUMN_CHARS = {cols.COL_ID: 7, cols.COL_PIECE: 18, cols.COL_KIND: 8, cols.COL_CHARS: 6,
                cols.COL_BYTES: 6, cols.COL_RANK: 7, cols.COL_COUNT: 11, cols.COL_LEFT: 12,
                cols.COL_RIGHT: 12, cols.COL_FINAL: 11}


class VocabTableView(QTableView):
    """The token table: rows selected whole, fixed row heights, widths from samples."""

    def __init__(self, model: VocabTableModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("vocabTable")
        self.setModel(model)
        # After the view's and its header's own slots (connected by setModel). (A new row
        # order is painted once as it is: laying it out here made it three paints.)
        model.modelReset.connect(self.doItemsLayout)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        # Rows are selected whole: Tab goes on to the next control (the token's details)
        # instead of from cell to cell, which kept the keyboard in the table.
        self.setTabKeyNavigation(False)
        self.setAlternatingRowColors(True)
        copy_without_isolates(self)
        self.setWordWrap(False)
        # Id order until a header is clicked (enabling sorting sorts by the indicator).
        self.horizontalHeader().setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
        self.setSortingEnabled(True)
        self.verticalHeader().hide()  # the ID column numbers the rows already
        # The scroll bar's room is kept: one appearing with a model's rows narrowed the
        # viewport, and the table was painted three times in a row instead of once.
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)
        # Fixed row heights: sizing 100,000 rows to their contents would take seconds.
        self.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 6)
        self.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.horizontalHeader().setStretchLastSection(True)
        for column, width in self.column_widths().items():
            if column != cols.COL_RIGHT:  # the last column stretches to the table's edge
                self.setColumnWidth(column, width)

    def column_widths(self) -> dict[int, int]:
        em = self.fontMetrics().horizontalAdvance("0")
        return {column: (chars + 2) * em for column, chars in COLUMN_CHARS.items()}

    def dataChanged(self, top_left: QModelIndex, bottom_right: QModelIndex,  # noqa: N802 (Qt)
                    roles=()) -> None:
        column = top_left.column()
        if (top_left == bottom_right or column != bottom_right.column()
                or not top_left.isValid() or QAccessible.isActive()):
            super().dataChanged(top_left, bottom_right, list(roles))
            return
        if not self.isColumnHidden(column):
            viewport = self.viewport()
            viewport.update(QRect(self.columnViewportPosition(column), 0,
                                  self.columnWidth(column), viewport.height()))
