"""How the Evaluate panel shows its result tables: read-only views over models that
sort themselves, rows selected whole, and the coloured segmentation of the words table.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAbstractTextDocumentLayout, QPalette, QTextDocument
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableView,
)

from bpe_desktop.ui.evaluate.table_models import HTML_ROLE


class HtmlDelegate(QStyledItemDelegate):
    """Paints a cell's HTML_ROLE text (the coloured segmentation)."""

    def paint(self, painter, option, index) -> None:
        text = index.data(HTML_ROLE)
        if text is None:
            return super().paint(painter, option, index)
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        opt.text = ""
        style = opt.widget.style() if opt.widget else None
        if style is not None:
            style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, opt.widget)
        doc = QTextDocument()
        doc.setDefaultFont(opt.font)
        doc.setHtml(text)
        painter.save()
        painter.translate(opt.rect.left() + 3, opt.rect.top()
                          + (opt.rect.height() - doc.size().height()) / 2)
        ctx = QAbstractTextDocumentLayout.PaintContext()
        ctx.palette.setColor(QPalette.ColorRole.Text, opt.palette.color(QPalette.ColorRole.Text))
        doc.documentLayout().draw(painter, ctx)
        painter.restore()


def result_table(model, *, sortable: bool = True) -> QTableView:
    view = QTableView()
    view.setModel(model)
    if sortable:  # the model sorts itself (RowsModel.sort)
        view.horizontalHeader().setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
        view.setSortingEnabled(True)  # (unsorted until a header is clicked)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    view.setTabKeyNavigation(False)  # rows are selected whole: Tab leaves the table
    view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    # Widths from the rows in sight and 100 more, not Qt's 1,000: each sort of a large
    # words table measured them again (a quarter of a second).
    view.horizontalHeader().setResizeContentsPrecision(100)
    view.verticalHeader().hide()
    return view
