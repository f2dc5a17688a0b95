"""The Encode / Decode panel's step-through of one word: each merge applied in rank order
(seed 000's encode loop), with a slider and buttons. A part of :class:`CodecPanel`, which
provides ``_tok`` and ``_model``."""

from __future__ import annotations

from PySide6.QtCore import Qt, Slot
from PySide6.QtWidgets import (
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSlider,
    QVBoxLayout,
    QWidget,
)

from bpe_desktop.core import BpeError
from bpe_desktop.core.pieces import bidi_joined, display_piece
from bpe_desktop.ui.codec.piece_view import StepView

#: The step-through shows one row per merge: long "words" would be a wall of rows.
STEP_WORD_LIMIT = 200


class StepThrough:
    """The step-through box and its behaviour (mixed into the panel)."""

    def _build_steps(self) -> QWidget:
        box = QGroupBox("Step through one word")
        self.word_edit = QLineEdit()
        self.word_edit.setPlaceholderText("A word (or double-click one in the text)")
        self.word_edit.setMaxLength(STEP_WORD_LIMIT)
        self.word_edit.textChanged.connect(self._load_word)
        self.reset_button = QPushButton("Reset")
        self.back_button = QPushButton("◀ &Back")
        self.step_button = QPushButton("Ste&p ▶")
        self.end_button = QPushButton("&All")
        self.reset_button.clicked.connect(lambda: self._go_to_step(0))
        self.back_button.clicked.connect(lambda: self._go_to_step(self._step_index - 1))
        self.step_button.clicked.connect(lambda: self._go_to_step(self._step_index + 1))
        self.end_button.clicked.connect(lambda: self._go_to_step(len(self._steps) - 1))
        self.step_slider = QSlider(Qt.Orientation.Horizontal)
        self.step_slider.valueChanged.connect(self._go_to_step)
        self.step_label = QLabel()
        self.step_label.setWordWrap(True)
        self.step_view = StepView()
        buttons = QHBoxLayout()
        for b in (self.reset_button, self.back_button, self.step_button, self.end_button):
            buttons.addWidget(b)
        layout = QVBoxLayout(box)
        layout.addWidget(self.word_edit)
        layout.addLayout(buttons)
        layout.addWidget(self.step_slider)
        layout.addWidget(self.step_label)
        layout.addWidget(self.step_view, 1)
        return box

    @Slot()
    def _load_word(self) -> None:
        """Compute the merge steps of the word in the word field (its first word)."""
        self._steps, self._step_index = [], 0
        typed = self.word_edit.text()
        note = ""
        if self._tok is None and self._model is not None and typed.strip():
            note = "Preparing the model…"  # the word is stepped through once it is ready
        elif self._tok is not None and typed.strip():
            try:
                words = self._tok.encode_words(typed)
                if not words:
                    note = "No word here for this model's pre-tokenizer."
                else:
                    word = words[0][0]
                    self._steps = self._tok.merge_steps(word)
                    if len(words) > 1:
                        note = (f"This model cuts that into {len(words)} words; stepping "
                                f"through the first, “{word}”.")
            except BpeError as exc:
                note = f"Cannot encode this word: {exc}"
        self._step_note = note
        self._show_step()

    @Slot(int)
    def _go_to_step(self, index: int) -> None:
        if not self._steps:
            return
        index = max(0, min(index, len(self._steps) - 1))
        if index != self._step_index:
            self._step_index = index
            self._show_step()

    def _show_step(self) -> None:
        steps, i = self._steps, self._step_index
        last = len(steps) - 1
        self.step_slider.blockSignals(True)
        self.step_slider.setRange(0, max(0, last))
        self.step_slider.setValue(i)
        self.step_slider.blockSignals(False)
        for b, on in ((self.reset_button, i > 0), (self.back_button, i > 0),
                      (self.step_button, i < last), (self.end_button, i < last)):
            b.setEnabled(on)
        self.step_slider.setEnabled(last > 0)
        cfg = self._model.config if self._model is not None else None
        unk = cfg.special("unk") if cfg is not None else None
        self.step_view.show_steps(steps, i, cfg, unk.piece if unk else None)
        self.step_label.setText(self._step_summary())

    def _step_summary(self) -> str:
        steps, i = self._steps, self._step_index
        if not steps:
            return self._step_note or "Type a word, or double-click one in the text."
        cfg = self._model.config
        final = bidi_joined([display_piece(p, cfg) for p in steps[-1].pieces], " · ")
        merges = len(steps) - 1
        where = (f"Step {i} of {merges}" if merges else "No learned merge applies") + \
            f"; final pieces: {final}"
        return f"{self._step_note} {where}".strip()
