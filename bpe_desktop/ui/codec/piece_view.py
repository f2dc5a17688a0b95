"""Coloured pieces: the segmentation of a text, and the steps of encoding one word.

:class:`PieceView` draws each piece on its own background (neighbours alternate through
``theme.piece_colors()``) with a thin space between pieces, so every boundary is visible
even where the text has none. It keeps the document position of each piece, so hovering
shows a tooltip and clicking reports which piece was chosen.

Lines wrap between pieces, never inside one: where the line-breaking rules would allow a
break inside a piece (``and</`` | ``w>``, ``re-`` | ``use``, between two CJK characters),
:func:`unbreakable` puts an invisible word joiner (U+2060), and the views wrap only at
such opportunities, never "anywhere".

The document of many pieces is built by :func:`build_document`, which uses no widget, so
the Encode panel builds it in its worker thread for a long text; showing it is then a
quick :meth:`PieceView.show_document`.

:class:`StepView` draws seed 000's encode loop for one word: one row per merge, the
pieces it produced and, highlighted, the pieces that merge created.
"""

from __future__ import annotations

import bisect
import functools
import html
from dataclasses import dataclass
from typing import Callable, Collection, Sequence

from PySide6.QtCore import QEvent, QMimeData, QPointF, Qt, QTextBoundaryFinder, Signal
from PySide6.QtGui import QColor, QFont, QTextCharFormat, QTextCursor, QTextDocument, QTextOption
from PySide6.QtWidgets import QTextBrowser, QToolTip, QWidget

from bpe_desktop.core import MergeStep, TrainConfig
from bpe_desktop.core.chunked import no_breath
from bpe_desktop.views.encoding_view import PieceItem
from bpe_desktop.core.pieces import (bidi_display, display_piece, has_right_to_left,
                                     text_direction, without_isolates)
from bpe_desktop.ui.common import theme

__all__ = ["PieceItem", "PieceView", "StepView", "THIN_SPACE", "WORD_JOINER", "unbreakable"]

#: Drawn between the pieces of one word: narrow, but a visible gap between two colours.
THIN_SPACE = "\u2009"
#: Invisible; no line break on either side of it.
WORD_JOINER = "\u2060"
#: Unknown pieces stand out the same way in light and dark mode (two reds, so that
#: neighbouring unknowns still show their boundary).
UNKNOWN_BACKGROUNDS = ("#d62828", "#9d0208")
UNKNOWN_BACKGROUND = UNKNOWN_BACKGROUNDS[0]
UNKNOWN_FOREGROUND = "#ffffff"


def foreground_color() -> str:
    """Text colour readable on the current scheme's piece backgrounds."""
    return "#f0f0f0" if theme.is_dark() else "#1a1a1a"


def highlight_colors() -> tuple[str, str]:
    """(background, text) of a piece a merge has just created."""
    return ("#ffb347", "#000000") if theme.is_dark() else ("#d9480f", "#ffffff")


@functools.lru_cache(maxsize=1 << 16)
def unbreakable(text: str) -> str:
    """``text`` with a word joiner wherever a line could otherwise break inside it.

    The opportunities are Qt's own (Unicode line breaking), found with the text between
    thin spaces as in the view; nothing is inserted elsewhere, so clusters that must stay
    together (a letter and its accent, Indic conjuncts, Arabic joining) are untouched.
    """
    if len(text) < 2:
        return text
    framed = THIN_SPACE + text + THIN_SPACE
    finder = QTextBoundaryFinder(QTextBoundaryFinder.BoundaryType.Line, framed)
    units = [2 if ord(c) > 0xFFFF else 1 for c in text]  # QString positions: UTF-16
    inside = set()
    while (position := finder.toNextBoundary()) != -1:
        if 1 < position < 1 + sum(units):
            inside.add(position - 1)
    if not inside:
        return text
    out, offset = [], 0
    for c, size in zip(text, units):
        if offset in inside:
            out.append(WORD_JOINER)
        out.append(c)
        offset += size
    return "".join(out)


def plain(text: str) -> str:
    """Shown text without the word joiners and directional isolates (what a reader sees)."""
    return without_isolates(text.replace(WORD_JOINER, ""))


def copied_text(mime: QMimeData) -> QMimeData:
    """``mime`` (a view's selection) as plain text without the invisible characters added
    for drawing (word joiners, directional isolates): copied pieces are their own text."""
    out = QMimeData()
    out.setText(plain(mime.text()))
    return out


@dataclass(frozen=True)
class PieceStyle:
    """Colours of the pieces (taken on the GUI thread, used wherever the document is built)."""

    backgrounds: tuple[str, ...]
    foreground: str

    @classmethod
    def current(cls) -> "PieceStyle":
        return cls(tuple(theme.piece_colors()), foreground_color())


@dataclass
class PieceDocument:
    """A document of drawn pieces, with each piece's start and end position in it."""

    document: QTextDocument
    starts: list[int]
    ends: list[int]


#: Pieces of a line looked at for its direction.
DIRECTION_ITEMS = 200
#: How the view wraps: between pieces only ("anywhere" would cut a piece longer than a line).
PIECE_WRAP = QTextOption.WrapMode.WordWrap


def build_document(items: Sequence[PieceItem], word_gap: str, style: PieceStyle,
                   breathe: Callable[[], None] = no_breath) -> PieceDocument:
    """The coloured document of ``items`` (no widget: any thread may build it, and then
    hand it to the GUI thread with ``moveToThread``)."""
    fg = QColor(style.foreground)
    formats = []
    for c in style.backgrounds:
        f = QTextCharFormat()
        f.setBackground(QColor(c))
        f.setForeground(fg)
        formats.append(f)
    unknowns = []
    for c in UNKNOWN_BACKGROUNDS:
        f = QTextCharFormat()
        f.setBackground(QColor(c))
        f.setForeground(QColor(UNKNOWN_FOREGROUND))
        f.setFontWeight(QFont.Weight.Bold)
        unknowns.append(f)
    plain_format = QTextCharFormat()

    doc = QTextDocument()
    doc.setUndoRedoEnabled(False)
    # The view's wrapping, set here: setting it when the view takes the document would
    # lay the document out again, on the GUI thread.
    option = doc.defaultTextOption()
    option.setWrapMode(PIECE_WRAP)
    doc.setDefaultTextOption(option)
    starts, ends = [], []
    cursor = QTextCursor(doc)
    cursor.beginEditBlock()
    line: list[str] = []  # the line's first known pieces, for its direction
    rtl_lines = iter(_lines_with_right_to_left(items))
    rtl = next(rtl_lines)
    for i, item in enumerate(items):
        starts.append(cursor.position())
        fmt = unknowns[i % 2] if item.unknown else formats[i % len(formats)]
        cursor.insertText(unbreakable(bidi_display(item.text) if rtl else item.text), fmt)
        ends.append(cursor.position())
        if not item.unknown and len(line) < DIRECTION_ITEMS:
            line.append(item.text)
        if item.after == "line":
            _set_line_direction(cursor, line)
            line = []
            rtl = next(rtl_lines)
            cursor.insertBlock()
        elif item.after == "word":
            cursor.insertText(word_gap, plain_format)
        else:
            cursor.insertText(THIN_SPACE, plain_format)
        if i % 1000 == 999:
            breathe()
    _set_line_direction(cursor, line)
    cursor.endEditBlock()
    return PieceDocument(doc, starts, ends)


def _lines_with_right_to_left(items: Sequence[PieceItem]) -> list[bool]:
    """Per line of ``items``, whether it holds right-to-left letters: only such a line's
    pieces get isolates (in a left-to-right line they would only slow its layout)."""
    flags, line = [], []
    for item in items:
        line.append(item.text)
        if item.after == "line":
            flags.append(has_right_to_left("".join(line)))
            line = []
    flags.append(has_right_to_left("".join(line)))
    return flags


def _set_line_direction(cursor: QTextCursor, pieces: list[str]) -> None:
    """Lay the cursor's line out in the direction of its text: ▁ at the start of an
    Arabic word is then its right. Told by the known pieces (Qt's own guess reads the
    first letter drawn, which may be the ``<unk>`` of an unknown character)."""
    rtl = text_direction("".join(pieces)) == "rtl"
    block = cursor.blockFormat()
    if rtl or block.layoutDirection() == Qt.LayoutDirection.RightToLeft:
        # (a new line takes over its predecessor's format: set back to left-to-right)
        block.setLayoutDirection(Qt.LayoutDirection.RightToLeft if rtl
                                 else Qt.LayoutDirection.LeftToRight)
        cursor.setBlockFormat(block)


class PieceView(QTextBrowser):
    """Read-only coloured pieces; hover for a tooltip, click to select a piece."""

    #: The text cursor moved onto piece ``index`` (an index into :attr:`items`).
    piece_activated = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setOpenLinks(False)
        self.setUndoRedoEnabled(False)
        self.document().setUndoRedoEnabled(False)
        self.setWordWrapMode(PIECE_WRAP)
        font = QFont(self.font())
        if font.pointSizeF() > 0:  # a little larger: pieces are read closely
            font.setPointSizeF(font.pointSizeF() * 1.15)
            self.setFont(font)
        self.items: list[PieceItem] = []
        self.word_gap = " "
        self._starts: list[int] = []
        self._ends: list[int] = []
        self._document: QTextDocument | None = None  # the shown one, once we built it
        self.cursorPositionChanged.connect(self._on_cursor_moved)
        theme.on_scheme_change(self.refresh)

    def show_items(self, items: Sequence[PieceItem], *, word_gap: str = " ") -> None:
        """Draw ``items``; ``word_gap`` goes between words (a thin space when the pieces
        themselves show the whitespace, as byte-level ``␣`` or ``▁``)."""
        self.items = list(items)
        self.word_gap = word_gap
        self.refresh()

    def show_document(self, built: PieceDocument, items: Sequence[PieceItem],
                      word_gap: str) -> None:
        """Show a document :func:`build_document` made of ``items`` (in another thread)."""
        self.items = list(items)
        self.word_gap = word_gap
        self._install(built)

    def refresh(self) -> None:
        """Redraw with the current scheme's colours (also called on a scheme change)."""
        self._install(build_document(self.items, self.word_gap, PieceStyle.current()))

    def _install(self, built: PieceDocument) -> None:
        built.document.setDefaultFont(self.font())
        self.blockSignals(True)  # replacing the document moves the cursor: not a user's choice
        try:
            self.setDocument(built.document)
            self._document = built.document  # keep it alive while shown
            self._starts, self._ends = built.starts, built.ends
            self.moveCursor(QTextCursor.MoveOperation.Start)
        finally:
            self.blockSignals(False)

    def piece_at(self, position: int) -> int | None:
        """The index of the piece drawn at document ``position`` (None on a gap)."""
        i = bisect.bisect_right(self._starts, position) - 1
        if i < 0 or position >= self._ends[i]:
            return None
        return i

    def tooltip_text(self, index: int) -> str:
        item = self.items[index]
        kind = " (unknown)" if item.unknown else ""
        return f"{item.text}   id {item.id}{kind}\npiece {index + 1} of {len(self.items)}: {item.piece!r}"

    def createMimeDataFromSelection(self) -> QMimeData:  # noqa: N802 (Qt override)
        return copied_text(super().createMimeDataFromSelection())

    def viewportEvent(self, event: QEvent) -> bool:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.ToolTip:
            offset = QPointF(self.horizontalScrollBar().value(), self.verticalScrollBar().value())
            layout = self.document().documentLayout()
            position = layout.hitTest(QPointF(event.pos()) + offset, Qt.HitTestAccuracy.ExactHit)
            index = self.piece_at(position) if position >= 0 else None
            if index is None:
                QToolTip.hideText()
            else:
                QToolTip.showText(event.globalPos(), self.tooltip_text(index), self.viewport())
            return True
        return super().viewportEvent(event)

    def _on_cursor_moved(self) -> None:
        position = self.textCursor().position()
        # The cursor sits between characters: prefer the piece to its right, then left.
        index = self.piece_at(position)
        if index is None and position > 0:
            index = self.piece_at(position - 1)
        if index is not None:
            self.piece_activated.emit(index)


# -- the step-through view ----------------------------------------------------------------


def merged_positions(before: Sequence[str], after: Sequence[str],
                     pair: tuple[str, str] | None) -> set[int]:
    """Indexes in ``after`` of the pieces that merging ``pair`` created in ``before``.

    Replays the merge as the engine does it (all occurrences, left to right, no overlap).
    """
    if pair is None:
        return set()
    left, right = pair
    out, i, j = set(), 0, 0
    while i < len(before) and j < len(after):
        if i + 1 < len(before) and before[i] == left and before[i + 1] == right:
            out.add(j)
            i += 2
        else:
            i += 1
        j += 1
    return out


def pieces_html(pieces: Sequence[str], config: TrainConfig, *, highlighted: Collection[int] = (),
                unknown: str | None = None) -> str:
    """Coloured spans for ``pieces`` (escaped), the ``highlighted`` ones in the accent colour."""
    colors = theme.piece_colors()
    fg = foreground_color()
    hi_bg, hi_fg = highlight_colors()
    spans = []
    for i, piece in enumerate(pieces):
        text = html.escape(unbreakable(bidi_display(display_piece(piece, config))))
        if piece == unknown:
            style = f"background-color:{UNKNOWN_BACKGROUND}; color:{UNKNOWN_FOREGROUND}; font-weight:bold"
        elif i in highlighted:
            style = f"background-color:{hi_bg}; color:{hi_fg}; font-weight:bold"
        else:
            style = f"background-color:{colors[i % len(colors)]}; color:{fg}"
        spans.append(f'<span style="{style}">{text}</span>')
    return " · ".join(spans)


def step_row_html(steps: Sequence[MergeStep], index: int, config: TrainConfig,
                  unknown: str | None) -> str:
    """One row: "rank 3: merge (e, s) → pieces", or the initial symbols for row 0."""
    step = steps[index]
    if step.pair is None:
        head = "start: the symbols"
        highlighted: set[int] = set()
    else:
        left, right = (html.escape(bidi_display(display_piece(p, config))) for p in step.pair)
        head = f"<b>rank {step.rank}</b>: merge ({left}, {right}) →"
        highlighted = merged_positions(steps[index - 1].pieces, step.pieces, step.pair)
    body = pieces_html(step.pieces, config, highlighted=highlighted, unknown=unknown)
    return f"<tr><td align='right'>{index}.&nbsp;</td><td>{head}&nbsp;</td><td>{body}</td></tr>"


class StepView(QTextBrowser):
    """The rows of :func:`step_row_html` up to the current step."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setOpenLinks(False)
        self.document().setUndoRedoEnabled(False)
        self._steps: list[MergeStep] = []
        self._upto = 0
        self._config: TrainConfig | None = None
        self._unknown: str | None = None
        self.setWordWrapMode(QTextOption.WrapMode.WordWrap)
        theme.on_scheme_change(self.refresh)

    def createMimeDataFromSelection(self) -> QMimeData:  # noqa: N802 (Qt override)
        return copied_text(super().createMimeDataFromSelection())

    def show_steps(self, steps: Sequence[MergeStep], upto: int, config: TrainConfig | None,
                   unknown: str | None) -> None:
        self._steps, self._upto, self._config, self._unknown = list(steps), upto, config, unknown
        self.refresh()

    def refresh(self) -> None:
        if not self._steps or self._config is None:
            self.clear()
            return
        rows = "".join(step_row_html(self._steps, i, self._config, self._unknown)
                       for i in range(min(self._upto, len(self._steps) - 1) + 1))
        self.setHtml(f"<table cellspacing='4'>{rows}</table>")
        self.verticalScrollBar().setValue(self.verticalScrollBar().maximum())
