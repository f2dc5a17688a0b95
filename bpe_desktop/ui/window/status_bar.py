"""A status bar whose messages end at a word with "…" instead of running under the
permanent widgets on the right; the whole message is in its tooltip.

QStatusBar draws a temporary message from its left edge without clipping it to the room
left of the permanent widgets, so a long message was cut mid-word by the window edge and
ran into the model label.
"""

from __future__ import annotations

import time

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QStatusBar, QWidget

ELLIPSIS = "…"
#: QStatusBar's own margins around the message: 6 px on the left, 2 px before the first
#: permanent widget, 12 px at the right edge when there is none.
LEFT_MARGIN, GAP, RIGHT_MARGIN = 6, 2, 12


def elide_at_word(text: str, metrics: QFontMetrics, width: int) -> str:
    """``text`` on one line, cut after the last whole word that fits with "…". Of a text
    of several lines only the first is shown: lines aligned as a table, joined, read as
    one run of numbers."""
    first, *more = text.strip().splitlines() or [""]
    text = " ".join(first.split()) + (" " + ELLIPSIS if more else "")
    if metrics.horizontalAdvance(text) <= width:
        return text
    words = text.split(" ")
    fits, lo, hi = "", 1, len(words) - 1
    while lo <= hi:  # the most words that fit, by bisection (advance grows with words)
        mid = (lo + hi) // 2
        candidate = " ".join(words[:mid]).rstrip(",;:—–-") + " " + ELLIPSIS
        if metrics.horizontalAdvance(candidate) <= width:
            fits, lo = candidate, mid + 1
        else:
            hi = mid - 1
    # not even the first word fits: cut inside it
    return fits or metrics.elidedText(text, Qt.TextElideMode.ElideRight, max(0, width))


class ElidingStatusBar(QStatusBar):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._permanent: list[QWidget] = []
        self._full = ""
        self._shown = ""  # the text this class last handed to QStatusBar
        self._until: float | None = None  # when the message's timeout ends (monotonic)
        self.messageChanged.connect(self._on_message_changed)

    def addPermanentWidget(self, widget: QWidget, stretch: int = 0) -> None:  # noqa: N802
        self._permanent.append(widget)
        super().addPermanentWidget(widget, stretch)

    def showMessage(self, text: str, timeout: int = 0) -> None:  # noqa: N802 (Qt name)
        self._full = text
        self._until = time.monotonic() + timeout / 1000 if timeout else None
        shown = elide_at_word(text, self.fontMetrics(), self.message_width())
        self._shown = shown
        super().showMessage(shown, timeout)
        self.setToolTip(text if shown != text else "")

    def full_message(self) -> str:
        """The message as given (currentMessage() is what fits)."""
        return self._full if self.currentMessage() else ""

    def message_width(self) -> int:
        """Room left of the first permanent widget, as QStatusBar lays the message out."""
        right = self.width() - RIGHT_MARGIN
        visible = [w for w in self._permanent if w.isVisible()]
        if visible:
            right = min(right, min(w.x() for w in visible) - GAP)
        return max(0, right - LEFT_MARGIN)

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        if self.currentMessage() and self._full:
            left = 0 if self._until is None else self._until - time.monotonic()
            if self._until is None or left > 0:
                self.showMessage(self._full, int(left * 1000))

    def _on_message_changed(self, text: str) -> None:
        if not text:
            self.setToolTip("")
        elif text != self._shown:  # set by Qt itself (an action's status tip): elide it too
            self.showMessage(text)
