"""The main window from the keyboard: Tab through a panel in the order it is laid out."""

from __future__ import annotations

from PySide6.QtWidgets import QWidget

from tests.ui.window_helpers import train_toy

#: The ``ui`` (recorded dialogs) and ``window`` fixtures.
pytest_plugins = ["tests.ui.window_fixtures"]


def _tab_order(start: QWidget, widgets: list[QWidget]) -> list[QWidget]:
    """``widgets`` in the order Tab reaches them from ``start``."""
    order, w = [], start
    for _ in range(5000):
        if w in widgets and w not in order:
            order.append(w)
        w = w.nextInFocusChain()
    return order


def test_tab_crosses_the_vocabulary_table_before_its_export_button(window, qtbot):
    """Tab went from the filter row to Export table… (under the table), then back up to
    the table."""
    train_toy(window, qtbot)
    vocab = window.vocab
    widgets = [vocab.intermediate_check, vocab.table, vocab.export_table_button]
    assert _tab_order(vocab.filter_edit, widgets) == widgets
