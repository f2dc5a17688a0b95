"""The main window from the keyboard: each shortcut defined once and shown where it is
offered, every panel's run button on a key, Tab through a panel in the order it is laid
out, and a name for each button whose face shows no words."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence, QShortcut
from PySide6.QtWidgets import QAbstractButton, QApplication, QMenu, QTabBar, QWidget

from tests.ui.window_helpers import train_toy

#: The ``ui`` (recorded dialogs) and ``window`` fixtures.
pytest_plugins = ["tests.ui.window_fixtures"]


def _text(sequence: QKeySequence) -> str:
    """A key sequence as a tooltip names it: the key's label (Enter, not Return)."""
    return sequence.toString(QKeySequence.SequenceFormat.NativeText).replace("Return", "Enter")


def _ours(button: QAbstractButton) -> bool:
    """A button the application made (not a table's corner, a tab bar's scroll arrow,
    a line edit's clear button or the menu bar's overflow)."""
    return not (button.objectName().startswith("qt_")
                or isinstance(button.parentWidget(), QTabBar)
                or button.parentWidget().metaObject().className() == "QLineEdit")


def _shortcuts_in_effect(window) -> list[tuple[str, str]]:
    """(key sequence, what it does) of every shortcut that works with the panel in view:
    the window's actions, and the shortcuts and access keys (Alt+letter) of the buttons
    and QShortcuts that are shown."""
    out = []
    for action in window.findChildren(QAction):
        out += [(_text(key), f"action {action.text()!r}") for key in action.shortcuts()]
    for shortcut in window.findChildren(QShortcut):
        if shortcut.parent().isVisible():
            out.append((_text(shortcut.key()), f"shortcut of {shortcut.parent()!r}"))
    for button in window.findChildren(QAbstractButton):
        if _ours(button) and button.isVisible() and not button.shortcut().isEmpty():
            out.append((_text(button.shortcut()), f"button {button.text()!r}"))
    return out


def test_no_shortcut_is_defined_twice(window, qtbot):
    train_toy(window, qtbot)  # (every panel's controls shown)
    for index in range(window.tabs.count()):
        window.tabs.setCurrentIndex(index)
        seen: dict[str, str] = {}
        for key, what in _shortcuts_in_effect(window):
            assert key not in seen, (window.tabs.tabText(index), key, seen[key], what)
            seen[key] = what


def test_every_shortcut_is_shown_where_it_is_offered(window, qtbot):
    """A window action's key is in its menu; a button's key in its tooltip; a key of a
    panel (History's Del) in the tooltip of the button that does the same."""
    train_toy(window, qtbot)
    for action in window.findChildren(QAction):
        if not action.shortcut().isEmpty():
            assert any(isinstance(o, QMenu) for o in action.associatedObjects()), action.text()
    for button in window.findChildren(QAbstractButton):
        key = button.shortcut()
        mnemonic = "&" in button.text().replace("&&", "") and _text(key).startswith("Alt+")
        if _ours(button) and not key.isEmpty() and not mnemonic:
            assert f"({_text(key)})" in button.toolTip(), (button.text(), button.toolTip())
    for shortcut in window.findChildren(QShortcut):
        panel = next(p for p in map(window.tabs.widget, range(window.tabs.count()))
                     if p.isAncestorOf(shortcut.parent()) or p is shortcut.parent())
        tips = [b.toolTip() for b in panel.findChildren(QAbstractButton)]
        assert any(f"({_text(shortcut.key())})" in tip for tip in tips), \
            (_text(shortcut.key()), tips)


def test_the_cancel_buttons_name_esc(window):
    for panel in (window.training, window.evaluate, window.compare):
        assert panel.cancel_button.toolTip().endswith("(Esc)")


def test_ctrl_enter_evaluates_and_compares(window, qtbot):
    model = train_toy(window, qtbot)
    window.tabs.setCurrentWidget(window.evaluate)
    window.evaluate.pasted_edit.setPlainText("lowest newer widest")
    window.evaluate.pasted_edit.setFocus()
    with qtbot.waitSignal(window.evaluate.evaluated, timeout=20_000):
        qtbot.keyClick(window.evaluate.pasted_edit, Qt.Key.Key_Return,
                       Qt.KeyboardModifier.ControlModifier)
    assert window.evaluate.pasted_edit.toPlainText() == "lowest newer widest"  # no new line
    window.tabs.setCurrentWidget(window.compare)
    window.compare.add_current()
    window.compare.add_model("smaller", model.truncated(3))
    window.compare.set_text("lowest newer widest")
    with qtbot.waitSignal(window.compare.compared, timeout=20_000):
        qtbot.keyClick(window.compare.text_edit, Qt.Key.Key_Return,
                       Qt.KeyboardModifier.ControlModifier)
    assert window.compare.words_model.rowCount() == 3


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


def test_tab_leaves_the_history_table_and_every_read_only_table(window, qtbot):
    """Tab walked the cells of History's runs (and Compare's languages, History's
    metrics) round and round: with rows selected whole, a keyboard user could not leave
    the table. Only the editable character map moves between its cells."""
    from PySide6.QtWidgets import QAbstractItemView

    train_toy(window, qtbot)
    window.tabs.setCurrentWidget(window.history)
    table = window.history.table
    qtbot.waitUntil(lambda: window.history.model.rowCount() == 1, timeout=10_000)
    table.setFocus()
    qtbot.keyClick(table, Qt.Key.Key_Tab)
    assert QApplication.focusWidget() is not table
    editable = {window.evaluate.character_map.table}
    for view in window.findChildren(QAbstractItemView):
        assert view.tabKeyNavigation() == (view in editable), view


#: Buttons reached by Tab only: one of several alike (each list's Add… and Remove, the
#: results' Export CSV…) or on the Training form, whose letters the fields use up.
_TAB_ONLY = {"Add…", "Add", "Remove", "Export CSV…", "Export plot…", "Export…", "Reset"}


def test_each_panel_s_own_buttons_have_a_key(window, qtbot):
    """Vocabulary, Encode / Decode, Evaluate and Compare had no access letter at all:
    each button and check box there is reached with Alt+its letter or its shortcut."""
    train_toy(window, qtbot)
    for panel in (window.vocab, window.codec, window.evaluate, window.compare):
        window.tabs.setCurrentWidget(panel)
        for button in filter(_ours, panel.findChildren(QAbstractButton)):
            if button.text() in _TAB_ONLY or not button.text():
                continue
            by_window = button.toolTip().endswith("(Esc)")  # Training ▸ Cancel stops it
            assert by_window or not button.shortcut().isEmpty(), button.text()
