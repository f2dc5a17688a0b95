"""Buttons enabled only when they can act on something.

An Export button is enabled only when its table has rows, a Remove button only when its
list has a selected row. Each follows Qt's signals for the change (rows reset, inserted or
removed; the selection changed), so whatever changes the table or the list (results
shown or cleared, another model, rows removed) updates the button without its panel
having to call anything. A mirrored Run-menu entry follows the button
(``bpe_desktop.ui.window.panel_menus``).

Buttons that add things (most open a dialog) are left alone: they can always act.
"""

from __future__ import annotations

from shiboken6 import isValid
from PySide6.QtCore import QAbstractItemModel, QObject, Slot
from PySide6.QtWidgets import QAbstractButton, QAbstractItemView


class _Follower(QObject):
    """Sets ``button`` enabled when ``can_act()``; a child of the button, so its
    connections end with it. ``source`` is the object ``can_act`` asks: a list being
    destroyed clears its model (a reset) after its selection model is gone, so nothing
    is asked once ``source`` is being destroyed."""

    def __init__(self, button: QAbstractButton, source: QObject, can_act) -> None:
        super().__init__(button)
        self._button, self._source, self._can_act = button, source, can_act
        self.update()

    @Slot()
    def update(self, *_args) -> None:
        if isValid(self._source) and isValid(self._button):
            self._button.setEnabled(bool(self._can_act()))


def enable_with_rows(button: QAbstractButton, model: QAbstractItemModel) -> None:
    """``button`` (an export of ``model``'s table) is enabled while the table has rows."""
    follower = _Follower(button, model, lambda: model.rowCount() > 0)
    for signal in (model.modelReset, model.rowsInserted, model.rowsRemoved):
        signal.connect(follower.update)


def enable_with_selection(button: QAbstractButton, view: QAbstractItemView) -> None:
    """``button`` (a Remove of ``view``'s rows) is enabled while a row is selected. As
    History's buttons do, it follows the selection and the model's reset (a list cleared
    or refilled); and removed rows (the selection model drops them first)."""
    selection = view.selectionModel()
    follower = _Follower(button, view, lambda: isValid(selection) and selection.hasSelection())
    selection.selectionChanged.connect(follower.update)
    model = view.model()
    for signal in (model.modelReset, model.rowsRemoved):
        signal.connect(follower.update)
