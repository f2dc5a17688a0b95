"""The main window from the keyboard: Tab through a panel in the order it is laid out,
and a name for each button whose face shows no words."""

from __future__ import annotations

from PySide6.QtWidgets import QAbstractButton, QTabBar, QWidget

from tests.ui.window_helpers import train_toy

#: The ``ui`` (recorded dialogs) and ``window`` fixtures.
pytest_plugins = ["tests.ui.window_fixtures"]


def _ours(button: QAbstractButton) -> bool:
    """A button the application made (not a table's corner, a tab bar's scroll arrow,
    a line edit's clear button or the menu bar's overflow)."""
    return not (button.objectName().startswith("qt_")
                or isinstance(button.parentWidget(), QTabBar)
                or button.parentWidget().metaObject().className() == "QLineEdit")


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


def test_buttons_showing_no_words_have_a_name(window, qtbot):
    """A screen reader reads a button's name: "…" and "Aa" say nothing of what they do."""
    from bpe_desktop.ui.window.trim_dialog import TrimDialog

    model = train_toy(window, qtbot)
    trim = TrimDialog(model, window)
    qtbot.addWidget(trim)
    buttons = window.findChildren(QAbstractButton) + trim.findChildren(QAbstractButton)
    for button in filter(_ours, buttons):
        face = button.text().replace("&", "")
        if len(face) < 3 or not any(c.isalnum() for c in face):
            assert len(button.accessibleName()) >= 3, (face, button.toolTip())
