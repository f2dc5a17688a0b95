"""Copy (Ctrl+C) in the tables and trees that show pieces: the current cell's text as
shown, without the directional isolates that right-to-left pieces carry for display.

Qt's own copy puts the cell's display text on the clipboard as it is, so a copied Arabic
or Hebrew piece was pasted with invisible isolate marks around it (a different string
from the piece); the text boxes strip them as they copy (see ``core.pieces``).
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QGuiApplication, QKeySequence
from PySide6.QtWidgets import QAbstractItemView

from bpe_desktop.core.pieces import without_isolates


class _PlainCopy(QObject):
    def eventFilter(self, watched, event) -> bool:  # noqa: N802 (Qt override)
        if (event.type() == QEvent.Type.KeyPress
                and event.matches(QKeySequence.StandardKey.Copy)):
            index = watched.currentIndex()
            if index.isValid():
                text = index.data()
                QGuiApplication.clipboard().setText(
                    without_isolates("" if text is None else str(text)))
            return True
        return False


def copy_without_isolates(view: QAbstractItemView) -> None:
    """Make Copy in ``view`` put the current cell's text on the clipboard without
    directional isolates."""
    view.installEventFilter(_PlainCopy(view))
