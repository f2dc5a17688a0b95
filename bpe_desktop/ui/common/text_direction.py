"""Text boxes laid out in their text's direction: right-to-left text (Arabic, Hebrew,
Syriac) aligned right and read from the right.

QTextEdit does this per paragraph; QPlainTextEdit (the text boxes) does not: it lays out
every paragraph left-aligned. Here a box's document takes the direction of its first
letter with a strong direction (Unicode's paragraph rule, applied to the whole box).
The Pieces view sets each line's direction itself (:mod:`bpe_desktop.ui.codec.piece_view`).
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QPlainTextEdit

from bpe_desktop.core.pieces import text_direction

#: Paragraphs looked at for the first strong letter (a long text decides early).
_BLOCKS = 64
DIRECTIONS = {"rtl": Qt.LayoutDirection.RightToLeft, "ltr": Qt.LayoutDirection.LeftToRight}


def set_direction(document: QTextDocument, direction: str) -> None:
    """Lay ``document`` out right-to-left (aligned right) or left-to-right; nothing is
    laid out again when the direction stays."""
    option = document.defaultTextOption()
    wanted = DIRECTIONS[direction]
    if option.textDirection() == wanted:
        return
    option.setTextDirection(wanted)
    option.setAlignment(Qt.AlignmentFlag.AlignAbsolute | (
        Qt.AlignmentFlag.AlignRight if direction == "rtl" else Qt.AlignmentFlag.AlignLeft))
    document.setDefaultTextOption(option)


def document_direction(document: QTextDocument) -> str:
    """The direction of the first strong letter in the document's first paragraphs."""
    block = document.firstBlock()
    for _ in range(_BLOCKS):
        if not block.isValid():
            break
        for ch in block.text():
            if ch.isalpha():
                return text_direction(block.text())
        block = block.next()
    return "ltr"


def follow_text_direction(edit: QPlainTextEdit) -> None:
    """Keep ``edit``'s layout in its text's direction as the text changes (a document
    given to it later with ``setDocument`` is followed with :func:`follow_document`)."""
    follow_document(edit.document())


def follow_document(document: QTextDocument) -> None:
    """Keep ``document`` laid out in its text's direction as it changes."""
    document.contentsChanged.connect(
        lambda: set_direction(document, document_direction(document)))
    set_direction(document, document_direction(document))
