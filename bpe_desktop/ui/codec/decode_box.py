"""The Encode / Decode panel's decoding box: ids typed or pasted (``16 14``, ``16,14`` or
``[16, 14]``) decoded to text, with a check that re-encoding gives the same ids. A part of
:class:`CodecPanel`, which provides ``_tok``, ``mode``, ``_decode_jobs``, ``_set_label`` and
the ``decoded`` signal."""

from __future__ import annotations

from PySide6.QtCore import Slot
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from bpe_desktop.core.formatting import counted
from bpe_desktop.views.encoding_view import DecodeResult, decode_ids
from bpe_desktop.ui.codec.jobs import decode_job
from bpe_desktop.ui.common.text_direction import follow_text_direction

#: Ids to decode written with more characters than this are decoded in a worker thread.
DECODE_ASYNC_CHARS = 50_000
ERROR_STYLE = "color: #d62828;"
OK_STYLE = "color: #2e8b57;"


class DecodeBox:
    """The decoding box and its behaviour (mixed into the panel)."""

    def _build_decode(self) -> QWidget:
        box = QGroupBox("Decode ids")
        self.decode_edit = QPlainTextEdit()
        self.decode_edit.setFont(monospace())
        self.decode_edit.setPlaceholderText("Ids to decode: 16 14, 16,14 or [16, 14]")
        self.decode_edit.setTabChangesFocus(True)  # ids hold no tab: Tab moves on to Decode
        self.decode_button = QPushButton("Decode")
        self.decode_button.setShortcut("Ctrl+Return")
        self.decode_button.setToolTip("Decode the ids (Ctrl+Enter)")
        self.decode_button.clicked.connect(self._decode)
        self.decoded_edit = QPlainTextEdit()
        follow_text_direction(self.decoded_edit)
        self.decoded_edit.setReadOnly(True)
        self.decoded_edit.setPlaceholderText("Decoded text")
        for edit in (self.decode_edit, self.decoded_edit):
            # two lines at least, not Qt's 70 px: with the dropout samples unfolded below,
            # the right column must still fit a window 700 pixels high
            edit.setMinimumHeight(edit.fontMetrics().lineSpacing() * 2
                                  + 2 * edit.frameWidth() + 8)
        self.decode_label = QLabel()
        self.decode_label.setWordWrap(True)
        row = QHBoxLayout()
        row.addWidget(self.decode_button)
        row.addWidget(self.decode_label, 1)
        layout = QVBoxLayout(box)
        layout.addWidget(self.decode_edit, 1)
        layout.addLayout(row)
        layout.addWidget(self.decoded_edit, 1)
        return box

    @Slot()
    def _decode(self) -> None:
        self.decoded_edit.clear()
        if self._tok is None:
            return
        typed = self.decode_edit.toPlainText()
        if len(typed) > DECODE_ASYNC_CHARS:
            self._set_label(self.decode_label, "Decoding…")
            self._decode_jobs.submit(decode_job(self._tok, typed, self.mode))
            return
        self._decode_jobs.discard()
        self._show_decoded(decode_ids(self._tok, typed, self.mode))

    @Slot(object)
    def _show_decoded(self, result: DecodeResult) -> None:
        if result.error:
            self.decoded_edit.clear()
            self._set_label(self.decode_label, result.error, ERROR_STYLE)
        else:
            self.decoded_edit.setPlainText(result.text)
            summary = f"{counted(result.ids, 'id')} → {counted(len(result.text), 'character')}. "
            if result.same_ids:
                self._set_label(self.decode_label, summary + "Re-encoding gives the same ids.",
                                OK_STYLE)
            else:
                self._set_label(self.decode_label, summary + (
                    f"Re-encoding gives {counted(result.again, 'other id')}: these ids are not "
                    "how the model segments this text."))
        self.decoded.emit()


def monospace() -> QFont:
    font = QFont("monospace")
    font.setStyleHint(QFont.StyleHint.Monospace)
    return font
