"""One non-modal window of a kind: asking again brings it back or replaces it, and a
closed one is freed (each kept its model or tables in memory for the session)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog

D = TypeVar("D", bound=QDialog)


class SingleDialog(Generic[D]):
    """Holds the open dialog of one kind (``dialog``, None once it is closed)."""

    def __init__(self) -> None:
        self.dialog: D | None = None

    def show(self, make: Callable[[], D], keep: Callable[[D], bool] = lambda _: False) -> D:
        """Show the open dialog again when ``keep(it)`` (what the user typed in it stays);
        otherwise close it and show a new one from ``make()``."""
        old = self.dialog
        if old is not None and keep(old):
            old.show()
            old.raise_()
            old.activateWindow()
            return old
        if old is not None:
            old.close()
        self.dialog = dialog = make()
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.destroyed.connect(lambda: self._forget(dialog))
        dialog.show()
        return dialog

    def _forget(self, dialog: D) -> None:
        if self.dialog is dialog:
            self.dialog = None
