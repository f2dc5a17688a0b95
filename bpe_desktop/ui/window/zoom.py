"""View ▸ Zoom: the text boxes', pieces' and tables' fonts larger or smaller, remembered.

Scripts with small glyphs (Arabic vowel marks, Devanagari conjuncts, CJK) are read more
easily a few sizes up. The zoom scales the fonts of the window's text views and tables
(menus and labels follow the desktop's own setting) from the size each had before any
zoom, and tables' rows with them.
"""

from __future__ import annotations

from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QAbstractItemView, QPlainTextEdit, QTableView, QTextEdit, QWidget

from bpe_desktop.ui.common.settings import Settings

SETTINGS_KEY = "view/zoom"
#: Zoom levels in percent, and the step between them.
MIN_ZOOM, MAX_ZOOM, STEP, DEFAULT_ZOOM = 50, 300, 10, 100
#: The property holding a widget's point size before any zoom.
_BASE = "zoomBasePointSize"
#: Row height of a zoomed table, in lines of its font.
ROW_LINES = 1.45


class TextZoom:
    """Scales the text views and tables under ``root``."""

    def __init__(self, root: QWidget) -> None:
        self.root = root
        saved = Settings().value(SETTINGS_KEY, DEFAULT_ZOOM)
        try:
            self.percent = min(MAX_ZOOM, max(MIN_ZOOM, int(saved)))
        except (TypeError, ValueError):
            self.percent = DEFAULT_ZOOM
        self.apply()

    def zoom_in(self) -> None:
        self.set_percent(self.percent + STEP)

    def zoom_out(self) -> None:
        self.set_percent(self.percent - STEP)

    def reset(self) -> None:
        self.set_percent(DEFAULT_ZOOM)

    def set_percent(self, percent: int) -> None:
        percent = min(MAX_ZOOM, max(MIN_ZOOM, percent))
        if percent != self.percent:
            self.percent = percent
            Settings().set_value(SETTINGS_KEY, percent)
            self.apply()

    def widgets(self) -> list[QWidget]:
        return [w for kind in (QAbstractItemView, QPlainTextEdit, QTextEdit)
                for w in self.root.findChildren(kind)]

    def apply(self) -> None:
        for widget in self.widgets():
            base = widget.property(_BASE)
            if base is None:
                if self.percent == DEFAULT_ZOOM or widget.font().pointSizeF() <= 0:
                    continue  # nothing to undo yet (or a font sized in pixels)
                base = widget.font().pointSizeF()
                widget.setProperty(_BASE, base)
            font = widget.font()
            font.setPointSizeF(float(base) * self.percent / 100)
            widget.setFont(font)
            if isinstance(widget, QTextEdit | QPlainTextEdit):
                widget.document().setDefaultFont(font)
            if isinstance(widget, QTableView):
                widget.verticalHeader().setDefaultSectionSize(
                    round(QFontMetrics(font).height() * ROW_LINES))
