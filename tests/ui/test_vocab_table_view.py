"""The vocabulary table's view repaints no more of itself than changed (a plain QTableView,
the control, repaints more)."""

from __future__ import annotations

from collections import Counter

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QTableView

from bpe_desktop.views.vocab_table import COL_COUNT, COL_FINAL, HEADERS, TokenUsage
from bpe_desktop.ui.vocabulary.table_model import VocabTableModel
from bpe_desktop.ui.vocabulary.table_view import VocabTableView

DISPLAY = int(Qt.ItemDataRole.DisplayRole)


class CountingModel(VocabTableModel):
    """Counts the cells whose text a paint asks for, by column."""

    def __init__(self) -> None:
        super().__init__()
        self.painted: Counter = Counter()

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if role == DISPLAY:
            self.painted[index.column()] += 1
        return super().data(index, role)


def shown(qtbot, view_class, model: CountingModel):
    view = VocabTableView(model) if view_class is VocabTableView else QTableView()
    if view_class is QTableView:
        view.setModel(model)
    qtbot.addWidget(view)
    view.resize(1400, 500)  # every column in sight
    view.show()
    qtbot.waitExposed(view)
    settle(qtbot)
    model.painted.clear()
    return view


def settle(qtbot) -> None:
    """Every pass that is due: the paints, and the layout Qt leaves to a timer."""
    for _ in range(3):
        qtbot.wait(30)


@pytest.mark.parametrize("view_class", [VocabTableView, QTableView])
def test_a_new_table_is_painted_once(qtbot, botchan_model, view_class):
    model = CountingModel()
    view = shown(qtbot, view_class, model)
    model.set_bpe_model(botchan_model)
    settle(qtbot)
    rows = view.viewport().height() // view.rowHeight(0) + 1
    cells = sum(model.painted.values())
    assert cells >= 10 * len(HEADERS)
    if view_class is VocabTableView:
        assert all(n <= rows for n in model.painted.values()), model.painted
    else:  # the control: laid out in a later pass, then painted whole again
        assert max(model.painted.values()) > rows, model.painted


@pytest.mark.parametrize("view_class", [VocabTableView, QTableView])
def test_final_frequencies_repaint_their_column_only(qtbot, botchan_model, view_class):
    model = CountingModel()
    model.set_bpe_model(botchan_model)
    view = shown(qtbot, view_class, model)
    view.selectRow(3)
    view.verticalScrollBar().setValue(40)
    settle(qtbot)
    model.painted.clear()
    resets = []
    model.modelReset.connect(lambda: resets.append(True))
    model.set_final(TokenUsage(botchan_model).frequencies())
    settle(qtbot)
    assert resets == []  # the rows did not change: scroll position and selection stay
    assert view.verticalScrollBar().value() == 40
    assert view.selectionModel().selectedRows()[0].row() == 3
    assert model.painted[COL_FINAL] >= 10
    others = sum(n for column, n in model.painted.items() if column != COL_FINAL)
    if view_class is VocabTableView:
        assert others == 0, model.painted
    else:  # the control repaints every column
        assert others >= 10 * (len(HEADERS) - 1)


def test_final_frequencies_reorder_a_table_sorted_by_them(qtbot, botchan_model):
    model = CountingModel()
    model.set_bpe_model(botchan_model)
    view = shown(qtbot, VocabTableView, model)
    view.sortByColumn(COL_FINAL, Qt.SortOrder.DescendingOrder)
    resets = []
    model.modelReset.connect(lambda: resets.append(True))
    final = TokenUsage(botchan_model).frequencies()
    model.set_final(final)
    assert resets == [True]
    assert final[model.token_id(0)] == final.max() > 0


def test_a_sorted_table_is_painted_once(qtbot, botchan_model):
    model = CountingModel()
    model.set_bpe_model(botchan_model)
    view = shown(qtbot, VocabTableView, model)
    model.sort(COL_COUNT, Qt.SortOrder.DescendingOrder)
    settle(qtbot)
    rows = view.viewport().height() // view.rowHeight(0) + 1
    assert 10 <= min(model.painted.values()) <= max(model.painted.values()) <= rows
