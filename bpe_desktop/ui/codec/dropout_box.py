"""BPE-dropout samples of the Encode/Decode panel's text: a slider and Resample.

The box is checkable and starts unchecked (folded: no sampling, no room taken). Checked,
it draws ``samples`` segmentations of the text's first :data:`SAMPLE_CHARS`
characters with dropout p (the slider, :data:`DEFAULT_P` at first: at 0 every sample is
the same), sample k from seed ``seed + k``; *Resample* picks a new seed. Each sample
shows its token count and its pieces, coloured as the Pieces view colours them, with
room for several samples. Sampling is quick (a few thousand characters), so it runs on
the GUI thread, after a short pause in typing.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable

from PySide6.QtCore import QMimeData, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFont, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import (
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSlider,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from bpe_desktop.core import BpeError, BPEModel
from bpe_desktop.core.formatting import counted
from bpe_desktop.core.pieces import bidi_display, display_piece
from bpe_desktop.core.tokenizer import MAX_SEED
from bpe_desktop.ui.codec.piece_view import (
    UNKNOWN_BACKGROUND,
    UNKNOWN_FOREGROUND,
    copied_text,
    foreground_color,
)
from bpe_desktop.ui.common import theme

#: Only the text's beginning is sampled (keeps every update instant).
SAMPLE_CHARS = 2000
DEFAULT_SAMPLES, MAX_SAMPLES = 5, 20
#: The slider moves in steps of 1/SLIDER_STEPS.
SLIDER_STEPS = 100
#: Wait this long after typing before sampling again.
DEBOUNCE_MS = 300
#: Seeds drawn for Resample: short enough to read and type.
SEED_BITS = 31
#: The dropout probability the slider starts at: 0 would show identical samples.
DEFAULT_P = 0.1
#: The samples' view keeps room for this many samples (lines).
MIN_VIEW_LINES = 4


class SamplesView(QPlainTextEdit):
    """The samples' text; copying gives the pieces without the isolates drawn around markers."""

    def createMimeDataFromSelection(self) -> QMimeData:  # noqa: N802 (Qt override)
        return copied_text(super().createMimeDataFromSelection())


class DropoutSamplesBox(QGroupBox):
    """Several dropout samples of one text with their token counts."""

    #: Emitted after the samples were drawn again.
    sampled = Signal()
    #: "Export tokenizer.json with this p…": the main window exports (hf) with p.
    export_requested = Signal(float)

    def __init__(self, text_source: Callable[[], str], parent=None) -> None:
        super().__init__("BPE-dropout samples", parent)
        self._text_source = text_source
        self._model: BPEModel | None = None
        self.seed = secrets.randbits(SEED_BITS)
        #: (token count, pieces) of each sample shown.
        self.samples: list[tuple[int, list[str]]] = []
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setRange(0, SLIDER_STEPS)
        self.slider.setValue(round(DEFAULT_P * SLIDER_STEPS))
        self.slider.setToolTip("Probability p of skipping each applicable merge "
                               "(Provilkov et al. 2020): 0 is ordinary encoding, 1 leaves "
                               "single symbols")
        self.slider.valueChanged.connect(self.resample_same_seed)
        self.p_label = QLabel()
        self.count_spin = QSpinBox()
        self.count_spin.setRange(1, MAX_SAMPLES)
        self.count_spin.setValue(DEFAULT_SAMPLES)
        self.count_spin.setSuffix(" samples")
        self.count_spin.valueChanged.connect(self.resample_same_seed)
        self.resample_button = QPushButton("Resa&mple")
        self.resample_button.setToolTip("Draw new samples (a new seed)")
        self.resample_button.clicked.connect(self.resample)
        self.export_button = QPushButton("Export…")
        self.export_button.setToolTip("Export a Hugging Face tokenizer.json that applies "
                                      "BPE-dropout with this p when loaded")
        self.export_button.clicked.connect(
            lambda: self.export_requested.emit(self.probability))
        self.seed_label = QLabel()
        self.seed_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.view = SamplesView()
        self.view.setReadOnly(True)
        self.view.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.view.setMinimumHeight(self.view.fontMetrics().lineSpacing() * MIN_VIEW_LINES
                                   + 2 * self.view.frameWidth() + 8)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(DEBOUNCE_MS)
        self._timer.timeout.connect(self.resample_same_seed)
        self.content = QWidget()
        # The slider has a row of its own: beside the buttons, in the panel's narrow
        # right column, it was squeezed to nothing.
        p_row = QHBoxLayout()
        p_row.addWidget(QLabel("p"))
        p_row.addWidget(self.slider, 1)
        p_row.addWidget(self.p_label)
        row = QHBoxLayout()
        row.addWidget(self.count_spin)
        row.addWidget(self.resample_button)
        row.addWidget(self.seed_label, 1)
        row.addWidget(self.export_button)
        inner = QVBoxLayout(self.content)
        inner.setContentsMargins(0, 0, 0, 0)
        inner.addLayout(p_row)
        inner.addLayout(row)
        inner.addWidget(self.view, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 4, 6, 4)
        layout.addWidget(self.content)
        self.setCheckable(True)
        self.setChecked(False)
        self.content.hide()
        self.toggled.connect(self._on_toggled)
        self.set_model(None)

    @property
    def probability(self) -> float:
        return self.slider.value() / SLIDER_STEPS

    def set_model(self, model: BPEModel | None) -> None:
        """Sample with ``model`` from the next change on (its tokenizer may still be
        being built: the owner calls :meth:`text_changed` once the text is encoded)."""
        self._timer.stop()
        self._model = model
        for w in (self.slider, self.count_spin, self.resample_button, self.export_button):
            w.setEnabled(model is not None)
        self.samples = []
        self.view.setPlainText("")

    def text_changed(self) -> None:
        """The text changed: sample again once typing pauses (when unfolded)."""
        if self.isChecked():
            self._timer.start()

    def _on_toggled(self, on: bool) -> None:
        self.content.setVisible(on)
        if on:
            self.resample_same_seed()
        else:
            self._timer.stop()
            self.samples = []
            self.view.clear()

    def resample(self) -> None:
        self.seed = secrets.randbits(SEED_BITS)
        self.resample_same_seed()

    def resample_same_seed(self) -> None:
        self._timer.stop()
        p = self.probability
        self.p_label.setText(f"{p:.2f}")
        self.seed_label.setText(f"seed {self.seed}")
        self.seed_label.setToolTip("Sample k is drawn from seed + k - 1: the same seed and "
                                   "p give the same samples")
        self.samples = []
        if not self.isChecked():
            return
        text = self._text_source()[:SAMPLE_CHARS] if self._model is not None else ""
        if not text.strip():
            self.view.setPlainText("" if self._model is None else
                                   "Type text above to see dropout samples.")
            self.sampled.emit()
            return
        try:
            tok = self._model.tokenizer()
            for k in range(self.count_spin.value()):
                pieces = tok.encode_as_pieces(text, dropout=p,
                                              seed=(self.seed + k) % (MAX_SEED + 1))
                self.samples.append((len(pieces), pieces))
        except BpeError as exc:
            self.samples = []
            self.view.setPlainText(f"Cannot sample: {exc}")
            self.sampled.emit()
            return
        self._show_samples()
        self.sampled.emit()

    def _show_samples(self) -> None:
        """Each sample on a line: its number, its token count, its coloured pieces."""
        cfg = self._model.config
        unk = cfg.special("unk")
        fg = QColor(foreground_color())
        formats = []
        for color in theme.piece_colors():
            f = QTextCharFormat()
            f.setBackground(QColor(color))
            f.setForeground(fg)
            formats.append(f)
        unknown = QTextCharFormat()
        unknown.setBackground(QColor(UNKNOWN_BACKGROUND))
        unknown.setForeground(QColor(UNKNOWN_FOREGROUND))
        unknown.setFontWeight(QFont.Weight.Bold)
        plain = QTextCharFormat()
        self.view.clear()
        cursor = QTextCursor(self.view.document())
        cursor.beginEditBlock()
        for k, (n, pieces) in enumerate(self.samples):
            if k:
                cursor.insertBlock()
            cursor.insertText(f"#{k + 1}  {counted(n, 'token')}:  ", plain)
            for i, piece in enumerate(pieces):
                fmt = unknown if unk is not None and piece == unk.piece else \
                    formats[i % len(formats)]
                cursor.insertText(bidi_display(display_piece(piece, cfg)), fmt)
                cursor.insertText(" ", plain)
        cursor.endEditBlock()
