"""Keyboard: Tab moves on from a table of whole-row selections to the next control (the
Vocabulary table, the Evaluate and Compare tables), as from any other field; going from
cell to cell kept the keyboard inside the table."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QTableView

from tests.ui.window_helpers import compare_on_typed_text, evaluate_typed_text, train_toy

pytest_plugins = ["tests.ui.window_fixtures"]


def _tab_leaves(qtbot, table: QTableView) -> None:
    table.setFocus(Qt.FocusReason.TabFocusReason)
    assert QApplication.focusWidget() is table
    qtbot.keyClick(table, Qt.Key.Key_Tab)
    assert QApplication.focusWidget() is not table


def test_tab_leaves_the_vocabulary_table(window, qtbot):
    train_toy(window, qtbot)
    window.tabs.setCurrentIndex(window.VOCABULARY)
    table = window.vocab.table
    qtbot.waitUntil(lambda: table.model().rowCount() > 0)
    _tab_leaves(qtbot, table)
    assert window.vocab.isAncestorOf(QApplication.focusWidget())


def test_tab_leaves_the_evaluate_and_compare_tables(window, qtbot):
    train_toy(window, qtbot)
    window.tabs.setCurrentIndex(window.EVALUATE)
    evaluate_typed_text(window, qtbot)
    for table in window.evaluate.findChildren(QTableView):
        if table.isVisible():
            _tab_leaves(qtbot, table)
    window.tabs.setCurrentIndex(window.COMPARE)
    compare_on_typed_text(window, qtbot)
    _tab_leaves(qtbot, window.compare.words_view)
