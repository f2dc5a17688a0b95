"""Widgets that show a running job's progress ten times a second without costing a frame.

Two Qt behaviours make the stock widgets expensive at that rate:

* ``QLabel.setText`` asks for a new layout whenever the label's size may not be fixed, and
  the request climbs through every layout up to the window: several times the cost of
  repainting the label, most of it re-laying out widgets whose geometry does not change. :class:`StatusLine` has
  one height and never asks: its text is elided to the width it is given.
* ``QProgressBar.setValue`` repaints the bar at once, a whole paint pass of its own
  (1-2 ms) before the pass that paints the rest of the update. :class:`ProgressBar`
  leaves that repaint to the window's next pass.
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QAction, QGuiApplication, QPainter
from PySide6.QtWidgets import QProgressBar, QSizePolicy, QStyle, QWidget

#: Characters of the widest "M" a StatusLine asks for when the layout has room.
_PREFERRED_CHARACTERS = 40


class StatusLine(QWidget):
    """One line of text, elided on the right when it does not fit (the whole text is its
    tooltip and can be copied from its context menu)."""

    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._text = text
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.setToolTip(text)
        copy = QAction("Copy", self)
        copy.triggered.connect(lambda: QGuiApplication.clipboard().setText(self._text))
        self.addAction(copy)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)

    def text(self) -> str:
        return self._text

    def setText(self, text: str) -> None:  # noqa: N802 (QLabel's name, for drop-in use)
        if text == self._text:
            return
        self._text = text
        self.setToolTip(text)
        self.setAccessibleName(text)
        self.update()  # a repaint only: the size does not depend on the text

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt's name)
        metrics = self.fontMetrics()
        return QSize(metrics.horizontalAdvance("M") * _PREFERRED_CHARACTERS,
                     metrics.height() + 2)

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt's name)
        return QSize(0, self.sizeHint().height())

    def changeEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().changeEvent(event)
        if event.type() == event.Type.FontChange:
            self.updateGeometry()  # the one change that alters the height

    def paintEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        painter = QPainter(self)
        rect = self.contentsRect()
        shown = self.fontMetrics().elidedText(self._text, Qt.TextElideMode.ElideRight,
                                              rect.width())
        align = QStyle.visualAlignment(self.layoutDirection(),
                                       Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        painter.setPen(self.palette().windowText().color())
        painter.drawText(rect, int(align), shown)


class ProgressBar(QProgressBar):
    """A QProgressBar whose new value is painted with the window's next pass."""

    def setValue(self, value: int) -> None:  # noqa: N802 (Qt's name)
        if value == self.value():
            return
        # setUpdatesEnabled(True) schedules the repaint that setValue would have done now.
        self.setUpdatesEnabled(False)
        try:
            super().setValue(value)
        finally:
            self.setUpdatesEnabled(True)
