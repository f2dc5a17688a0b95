"""The Encode / Decode panel: live segmentation, ids, decoding, statistics, step-through.

Encoding runs on the GUI thread: the engine encodes tens of MB/s, so a text of about a
megabyte takes well under a second. What is expensive is drawing, so the coloured view
shows at most :data:`SHOW_LIMIT` pieces; statistics and the round-trip check always
cover the whole text.
"""

from __future__ import annotations

import logging
import os
import re
import unicodedata
from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import Qt, QTimer, Signal, Slot
from PySide6.QtGui import QFont, QGuiApplication
from PySide6.QtWidgets import (
    QComboBox,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSlider,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from bpe_desktop.core import BPEModel, BpeError, MergeStep, Tokenizer, TrainConfig
from bpe_desktop.core.pieces import display_piece, piece_bytes
from bpe_desktop.ui import dialogs
from bpe_desktop.ui.piece_view import THIN_SPACE, PieceItem, PieceView, StepView

log = logging.getLogger(__name__)

#: At most this many pieces (and ids) are drawn; a pasted book stays responsive.
SHOW_LIMIT = 20_000
#: Files larger than this are refused (the CLI encodes big files).
MAX_FILE_BYTES = 4 << 20
#: Live updates wait this long after the last keystroke (longer for long texts).
DEBOUNCE_MS = 150
#: The step-through shows one row per merge: long "words" would be a wall of rows.
STEP_WORD_LIMIT = 200
MODES = (("merges", "Merge rank (BPE)"), ("greedy", "Greedy longest match"))
ERROR_STYLE = "color: #d62828;"
OK_STYLE = "color: #2e8b57;"
#: Characters of plain text are drawn as a default model would draw them (␣ for space).
_PLAIN = TrainConfig()


# -- Qt-free helpers ----------------------------------------------------------------------


def parse_ids(text: str, vocab_size: int) -> list[int]:
    """Ids typed or pasted in any usual form: ``1 2 3``, ``1, 2, 3``, ``[1, 2, 3]``.

    Raises ValueError with a message naming the offending item.
    """
    items = [t for t in re.split(r"[\s,;\[\](){}]+", text) if t]
    if not items:
        raise ValueError("Type or paste ids to decode, e.g. 16 14 or [16, 14].")
    ids = []
    for n, item in enumerate(items, 1):
        if not re.fullmatch(r"[+-]?[0-9]+", item):
            raise ValueError(f"“{item[:40]}” (item {n}) is not a number.")
        value = int(item)
        if not 0 <= value < vocab_size:
            raise ValueError(f"Id {value} (item {n}) is outside the vocabulary "
                             f"(0 to {vocab_size - 1}).")
        ids.append(value)
    return ids


def format_ids(ids) -> str:
    return " ".join(map(str, ids))


def first_difference(a: str, b: str) -> int | None:
    """The first index where ``a`` and ``b`` differ (None when equal)."""
    if a == b:
        return None
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i
    return min(len(a), len(b))


def _describe_char(text: str, i: int) -> str:
    if i >= len(text):
        return "the end"
    ch = text[i]
    return f"“{display_piece(ch, _PLAIN)}” (U+{ord(ch):04X})"


@dataclass(frozen=True)
class RoundTrip:
    """Whether decode(encode(text)) gave the text back, and if not, why."""

    exact: bool
    message: str
    position: int | None = None  # first differing character


def check_round_trip(text: str, decoded: str, model: BPEModel, unknowns: int) -> RoundTrip:
    """Compare ``decoded`` with ``text`` and name the likely causes of a difference."""
    position = first_difference(text, decoded)
    if position is None:
        return RoundTrip(True, "✓ round trip exact: decoding the ids gives the text back")
    cfg = model.config
    reasons = []
    expected = text.replace("\r\n", "\n")
    if expected != text:
        reasons.append("Windows line ends (\\r\\n) became \\n")
    if cfg.normalize != "none":
        normalized = unicodedata.normalize(cfg.normalize.upper(), expected)
        if normalized != expected:
            reasons.append(f"{cfg.normalize.upper()} normalization changed some characters")
            expected = normalized
    if cfg.lowercase and expected.lower() != expected:
        reasons.append("the model lowercases text")
        expected = expected.lower()
    if unknowns:
        unk = cfg.special("unk")
        name = unk.piece if unk else "the unknown token"
        reasons.append(f"{unknowns:,} character(s) outside the vocabulary became {name}")
    if not cfg.byte_level and expected != decoded and _spacing_changed(expected, decoded, unknowns):
        reasons.append(f"the {cfg.pretokenizer} pre-tokenizer keeps words, not the spacing "
                       "between them: decoding joins words with single spaces")
    if not reasons:
        reasons.append("decoding does not reproduce this text")
    where = (f"first difference at character {position:,}: text has "
             f"{_describe_char(text, position)}, decoded has {_describe_char(decoded, position)}")
    return RoundTrip(False, "✗ round trip differs: " + "; ".join(reasons) + f" ({where})",
                     position)


def _spacing_changed(expected: str, decoded: str, unknowns: int) -> bool:
    """Whether decoding changed the whitespace (words come back joined by single spaces)."""
    regular = " ".join(expected.split()) == expected
    if unknowns:  # <unk> hides characters: judge by the text's own spacing
        return not regular
    return not regular or "".join(expected.split()) == "".join(decoded.split())


@dataclass(frozen=True)
class Stats:
    """Statistics of one encoding, always over the whole text."""

    tokens: int
    characters: int
    words: int
    unknowns: int
    distinct: int
    other_mode_tokens: int  # the same text in the other mode, for comparison

    @property
    def chars_per_token(self) -> float:
        return self.characters / self.tokens if self.tokens else 0.0

    @property
    def tokens_per_word(self) -> float:
        return self.tokens / self.words if self.words else 0.0


@dataclass(frozen=True)
class Encoding:
    ids: np.ndarray
    stats: Stats
    items: list[PieceItem]  # the first SHOW_LIMIT pieces, as drawn
    words: list[str]  # the words those pieces belong to
    round_trip: RoundTrip


def encode_text(tok: Tokenizer, text: str, mode: str, limit: int = SHOW_LIMIT) -> Encoding:
    """Everything the panel shows about ``text``; raises BpeError (e.g. no ``<unk>``)."""
    ids = tok.encode_to_numpy(text, mode=mode)
    other = "greedy" if mode == "merges" else "merges"
    words = tok.encode_words(text, mode=mode)
    unk = tok.unk_id()
    unknowns = int(np.count_nonzero(ids == unk)) if unk >= 0 else 0
    stats = Stats(tokens=len(ids), characters=len(text), words=len(words), unknowns=unknowns,
                  distinct=len(np.unique(ids)),
                  other_mode_tokens=len(tok.encode_to_numpy(text, mode=other)))
    items, shown_words = display_items(tok, text, mode, limit, words)
    decoded = tok.decode(ids)
    return Encoding(ids, stats, items, shown_words,
                    check_round_trip(text, decoded, tok.model, unknowns))


def display_items(tok: Tokenizer, text: str, mode: str, limit: int,
                  words: list | None = None) -> tuple[list[PieceItem], list[str]]:
    """The first ``limit`` pieces with their words, marking word ends and line breaks."""
    model = tok.model
    cfg = model.config
    pieces = model.pieces
    unk = tok.unk_id()
    if cfg.byte_level:
        # GPT-2's regex runs over the whole text and newlines are pieces of their own.
        lines = [words if words is not None else tok.encode_words(text, mode=mode)]
    else:
        # No other pre-tokenizer lets a word span lines: encode line by line (lazily) to
        # keep the text's line structure, which the words alone do not show.
        lines = (tok.encode_words(line, mode=mode) for line in text.split("\n"))
    items: list[PieceItem] = []
    shown_words: list[str] = []
    drawn: dict[int, tuple[str, str]] = {}  # id -> (rendering, line break after?)
    for line_words in lines:
        for word, ids in line_words:
            for i in ids:
                piece = pieces[i]
                if i not in drawn:
                    breaks = cfg.byte_level and b"\n" in piece_bytes(piece, cfg)
                    drawn[i] = (display_piece(piece, cfg), "line" if breaks else "")
                rendering, after = drawn[i]
                items.append(PieceItem(i, piece, rendering, i == unk, len(shown_words), after))
                if len(items) >= limit:
                    shown_words.append(word)
                    return items, shown_words
            shown_words.append(word)
            if items and not items[-1].after:
                items[-1] = _with_after(items[-1], "word")
        if items and not cfg.byte_level:
            items[-1] = _with_after(items[-1], "line")
    return items, shown_words


def _with_after(item: PieceItem, after: str) -> PieceItem:
    return PieceItem(item.id, item.piece, item.text, item.unknown, item.word, after)


# -- the panel ----------------------------------------------------------------------------


class CodecPanel(QWidget):
    """Type, paste or open text; see its pieces and ids; decode ids; step through a word."""

    status_message = Signal(str)
    #: re-emitted after every (debounced) encode finishes, on the GUI thread; tests wait on it
    encoded = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._model: BPEModel | None = None
        self._tok: Tokenizer | None = None
        self._encoding: Encoding | None = None
        self._steps: list[MergeStep] = []
        self._step_index = 0
        self._step_note = ""
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._encode_now)
        self._build()
        self.set_model(None)

    # -- public API -------------------------------------------------------------------------

    def set_model(self, model: BPEModel | None) -> None:
        """Show ``model``'s segmentation (None: inputs disabled, with a hint)."""
        self._model, self._tok = model, None
        if model is not None:
            try:
                self._tok = model.tokenizer()
            except BpeError as exc:  # a damaged import: say so, behave as without a model
                dialogs.show_error(self, "Cannot encode with this model", str(exc))
                self._model = None
        self._set_enabled(self._tok is not None)
        self.decoded_edit.clear()
        self._set_label(self.decode_label, "")
        self._encode_now()
        self._load_word()

    def set_text(self, text: str) -> None:
        """Fill the input and encode at once (no debounce)."""
        self.input_edit.blockSignals(True)  # the textChanged debounce is not wanted here
        try:
            self.input_edit.setPlainText(text)
        finally:
            self.input_edit.blockSignals(False)
        self._encode_now()

    def open_text_file(self, path: str) -> bool:
        """Load a UTF-8 text file into the input; on failure, an error box and no change."""
        name = os.path.basename(path)
        try:
            size = os.path.getsize(path)
            if size > MAX_FILE_BYTES:
                dialogs.show_error(
                    self, "Text too large",
                    f"{path} has {size / 2**20:.1f} MB; the Encode panel shows texts up to "
                    f"{MAX_FILE_BYTES >> 20} MB. Encode larger files with the command line: "
                    "bpe-desktop encode.")
                return False
            with open(path, "rb") as f:
                data = f.read()
        except OSError as exc:
            dialogs.show_error(self, "Cannot open text", f"{path}: {exc.strerror or exc}")
            return False
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            dialogs.show_error(
                self, "Not UTF-8 text",
                f"{name} is not UTF-8 text: the byte at offset {exc.start:,} "
                f"(0x{data[exc.start]:02X}) does not decode.\n\n{path}\n\n"
                "Save the file as UTF-8 and open it again.")
            return False
        text = text.removeprefix("\ufeff")  # a BOM is an encoding mark, not text
        self.set_text(text)
        self.status_message.emit(f"Opened {name} ({len(text):,} characters)")
        return True

    def step_through(self, word: str, *, to_end: bool = True) -> None:
        """Put ``word`` in the step-through and show every step (or only the symbols)."""
        self.word_edit.setText(word)
        self._go_to_step(len(self._steps) - 1 if to_end else 0)

    # -- read-only state (tests and the main window) ---------------------------------------

    @property
    def mode(self) -> str:
        return self.mode_combo.currentData()

    def set_mode(self, mode: str) -> None:
        self.mode_combo.setCurrentIndex(self.mode_combo.findData(mode))

    @property
    def ids(self) -> list[int]:
        """The ids of the whole input text (empty without a model or on an error)."""
        return self._encoding.ids.tolist() if self._encoding is not None else []

    @property
    def stats(self) -> Stats | None:
        return self._encoding.stats if self._encoding is not None else None

    @property
    def round_trip(self) -> RoundTrip | None:
        return self._encoding.round_trip if self._encoding is not None else None

    @property
    def steps(self) -> list[MergeStep]:
        return list(self._steps)

    @property
    def step_index(self) -> int:
        return self._step_index

    # -- layout -----------------------------------------------------------------------------

    def _build(self) -> None:
        self.hint_label = QLabel("Train or open a model to encode text with it.")
        self.hint_label.setStyleSheet("font-weight: bold;")
        self.open_button = QPushButton("Open text…")
        self.open_button.clicked.connect(self._ask_open)
        self.mode_combo = QComboBox()
        for key, label in MODES:
            self.mode_combo.addItem(label, key)
        self.mode_combo.setToolTip(
            "Merge rank: apply the learned merges in rank order (how the model was trained).\n"
            "Greedy longest match: from the left, take the longest token in the vocabulary.")
        self.mode_combo.currentIndexChanged.connect(self._encode_now)
        self.compare_label = QLabel()
        top = QHBoxLayout()
        top.addWidget(self.open_button)
        top.addWidget(QLabel("Segmentation:"))
        top.addWidget(self.mode_combo)
        top.addWidget(self.compare_label, 1)

        left = QSplitter(Qt.Orientation.Vertical)
        left.addWidget(self._build_input())
        left.addWidget(self._build_pieces())
        left.addWidget(self._build_ids())
        left.setStretchFactor(0, 2)
        left.setStretchFactor(1, 3)
        left.setStretchFactor(2, 0)  # the ids stay a few lines high
        left.setSizes([220, 360, 170])
        right = QSplitter(Qt.Orientation.Vertical)
        right.addWidget(self._build_decode())
        right.addWidget(self._build_steps())
        right.setStretchFactor(1, 2)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(left)
        split.addWidget(right)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)

        layout = QVBoxLayout(self)
        layout.addWidget(self.hint_label)
        layout.addLayout(top)
        layout.addWidget(split, 1)

    def _build_input(self) -> QWidget:
        box = QGroupBox("Text")
        self.input_edit = QPlainTextEdit()
        self.input_edit.setPlaceholderText("Type or paste text here, or open a text file. "
                                           "Double-click a word to step through it.")
        self.input_edit.textChanged.connect(self._schedule_encode)
        self.input_edit.selectionChanged.connect(self._on_input_selection)
        self.error_label = QLabel()
        self.error_label.setWordWrap(True)
        self.error_label.setStyleSheet(ERROR_STYLE)
        self.error_label.hide()
        layout = QVBoxLayout(box)
        layout.addWidget(self.input_edit)
        layout.addWidget(self.error_label)
        return box

    def _build_pieces(self) -> QWidget:
        box = QGroupBox("Pieces")
        self.piece_view = PieceView()
        self.piece_view.piece_activated.connect(self._on_piece_activated)
        self.shown_label = QLabel()
        self.piece_label = QLabel("Hover over or click a piece to see its id.")
        self.piece_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout = QVBoxLayout(box)
        layout.addWidget(self.piece_view, 1)
        layout.addWidget(self.shown_label)
        layout.addWidget(self.piece_label)
        layout.addLayout(self._build_stats())
        return box

    def _build_stats(self) -> QGridLayout:
        grid = QGridLayout()
        names = (("tokens", "Tokens"), ("characters", "Characters"),
                 ("chars_per_token", "Characters per token"), ("words", "Words"),
                 ("tokens_per_word", "Tokens per word"), ("unknowns", "Unknown tokens"),
                 ("distinct", "Distinct tokens"))
        self.stat_labels: dict[str, QLabel] = {}
        for n, (key, title) in enumerate(names):
            value = QLabel("–")
            value.setObjectName(f"stat_{key}")
            value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            self.stat_labels[key] = value
            row, col = divmod(n, 4)
            grid.addWidget(QLabel(title + ":"), row, 2 * col)
            grid.addWidget(value, row, 2 * col + 1)
        return grid

    def _build_ids(self) -> QWidget:
        box = QGroupBox("Ids")
        self.ids_edit = QPlainTextEdit()
        self.ids_edit.setReadOnly(True)
        self.ids_edit.setFont(_monospace())
        self.ids_edit.setMinimumHeight(40)
        self.copy_button = QPushButton("Copy ids")
        self.copy_button.setToolTip("Copy the ids of the whole text, space separated")
        self.copy_button.clicked.connect(self._copy_ids)
        self.to_decoder_button = QPushButton("Edit in decoder")
        self.to_decoder_button.setToolTip("Put these ids in the Decode box to edit them")
        self.to_decoder_button.clicked.connect(self._ids_to_decoder)
        self.round_trip_label = QLabel()
        self.round_trip_label.setWordWrap(True)
        self.round_trip_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        buttons = QHBoxLayout()
        buttons.addWidget(self.copy_button)
        buttons.addWidget(self.to_decoder_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(box)
        layout.addWidget(self.ids_edit, 1)
        layout.addLayout(buttons)
        layout.addWidget(self.round_trip_label)
        return box

    def _build_decode(self) -> QWidget:
        box = QGroupBox("Decode ids")
        self.decode_edit = QPlainTextEdit()
        self.decode_edit.setFont(_monospace())
        self.decode_edit.setPlaceholderText("Ids to decode: 16 14, 16,14 or [16, 14]")
        self.decode_button = QPushButton("Decode")
        self.decode_button.setShortcut("Ctrl+Return")
        self.decode_button.setToolTip("Decode the ids (Ctrl+Enter)")
        self.decode_button.clicked.connect(self._decode)
        self.decoded_edit = QPlainTextEdit()
        self.decoded_edit.setReadOnly(True)
        self.decoded_edit.setPlaceholderText("Decoded text")
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

    def _build_steps(self) -> QWidget:
        box = QGroupBox("Step through one word")
        self.word_edit = QLineEdit()
        self.word_edit.setPlaceholderText("A word (or double-click one in the text)")
        self.word_edit.setMaxLength(STEP_WORD_LIMIT)
        self.word_edit.textChanged.connect(self._load_word)
        self.reset_button = QPushButton("Reset")
        self.back_button = QPushButton("◀ Back")
        self.step_button = QPushButton("Step ▶")
        self.end_button = QPushButton("All")
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

    def _set_enabled(self, enabled: bool) -> None:
        self.hint_label.setVisible(not enabled)
        for w in (self.input_edit, self.open_button, self.mode_combo, self.decode_edit,
                  self.decode_button, self.word_edit, self.copy_button,
                  self.to_decoder_button):
            w.setEnabled(enabled)

    # -- encoding ---------------------------------------------------------------------------

    def _input_text(self) -> str:
        # toPlainText() turns no-break spaces into spaces; the raw text keeps them.
        return self.input_edit.document().toRawText().replace("\u2029", "\n")

    @Slot()
    def _schedule_encode(self) -> None:
        # Longer texts wait longer, so typing into a big text is not interrupted per key.
        size = self.input_edit.document().characterCount()
        self._timer.start(DEBOUNCE_MS + min(850, size // 2000))

    @Slot()
    def _encode_now(self) -> None:
        self._timer.stop()
        self._encoding = None
        self._show_error("")
        if self._tok is not None:
            try:
                self._encoding = encode_text(self._tok, self._input_text(), self.mode,
                                             SHOW_LIMIT)
            except BpeError as exc:
                self._show_error(f"Cannot encode this text: {exc}")
            except Exception as exc:  # noqa: BLE001 - a slot must never raise
                log.exception("encoding failed")
                self._show_error(f"Encoding failed: {exc}")
        self._show_encoding()
        self.encoded.emit()

    def _show_error(self, message: str) -> None:
        self.error_label.setText(message)
        self.error_label.setVisible(bool(message))

    def _show_encoding(self) -> None:
        enc = self._encoding
        cfg = self._model.config if self._model is not None else None
        if enc is None or cfg is None:
            self.piece_view.show_items([])
            self.ids_edit.clear()
            for label in self.stat_labels.values():
                label.setText("–")
            for label in (self.shown_label, self.compare_label, self.round_trip_label):
                self._set_label(label, "")
            return
        gap = THIN_SPACE if cfg.byte_level or cfg.boundary == "bow-prefix" else " "
        if _changed(self.piece_view.items, enc.items) or self.piece_view.word_gap != gap:
            self.piece_view.show_items(enc.items, word_gap=gap)
        total = len(enc.ids)
        shown = len(enc.items)
        self._set_label(self.shown_label, f"Showing the first {shown:,} of {total:,} pieces; "
                        "statistics cover the whole text." if shown < total else "")
        self.ids_edit.setPlainText(format_ids(enc.ids[:SHOW_LIMIT].tolist())
                                   + (" …" if total > SHOW_LIMIT else ""))
        self._show_stats(enc.stats)
        rt = enc.round_trip
        self._set_label(self.round_trip_label, rt.message, OK_STYLE if rt.exact else ERROR_STYLE)

    def _show_stats(self, s: Stats) -> None:
        values = {"tokens": f"{s.tokens:,}", "characters": f"{s.characters:,}",
                  "chars_per_token": f"{s.chars_per_token:.2f}", "words": f"{s.words:,}",
                  "tokens_per_word": f"{s.tokens_per_word:.2f}",
                  "unknowns": f"{s.unknowns:,}", "distinct": f"{s.distinct:,}"}
        for key, text in values.items():
            self.stat_labels[key].setText(text)
        self.stat_labels["unknowns"].setStyleSheet(ERROR_STYLE if s.unknowns else "")
        merges, greedy = ((s.tokens, s.other_mode_tokens) if self.mode == "merges"
                          else (s.other_mode_tokens, s.tokens))
        self.compare_label.setText(f"merge rank: {merges:,} tokens · greedy longest match: "
                                   f"{greedy:,} tokens")

    @staticmethod
    def _set_label(label: QLabel, text: str, style: str = "") -> None:
        label.setText(text)
        label.setStyleSheet(style)

    @Slot()
    def _ask_open(self) -> None:
        paths = dialogs.ask_open_paths(self, "Open text", "text", "Text files (*.txt);;All files (*)")
        if paths:
            self.open_text_file(paths[0])

    @Slot()
    def _copy_ids(self) -> None:
        ids = self.ids
        QGuiApplication.clipboard().setText(format_ids(ids))
        self.status_message.emit(f"Copied {len(ids):,} ids")

    @Slot()
    def _ids_to_decoder(self) -> None:
        self.decode_edit.setPlainText(format_ids(self.ids))

    @Slot(int)
    def _on_piece_activated(self, index: int) -> None:
        items = self.piece_view.items
        if self._model is None or not 0 <= index < len(items):
            return
        item = items[index]
        info = self._model.token_info(item.id)
        if item.unknown:
            origin = "a character outside the vocabulary"
        elif info.special:
            origin = "a special token"
        elif info.rank is None:
            origin = "a base symbol"
        else:
            origin = (f"made by merge rank {info.rank:,} "
                      f"({display_piece(info.left, self._model.config)} + "
                      f"{display_piece(info.right, self._model.config)})")
        self.piece_label.setText(f"Piece {index + 1:,}: {item.text}  ·  id {item.id}  ·  {origin}")
        words = self._encoding.words if self._encoding is not None else []
        if item.word < len(words) and len(words[item.word]) <= STEP_WORD_LIMIT:
            self.word_edit.setText(words[item.word])

    @Slot()
    def _on_input_selection(self) -> None:
        # Double-clicking selects a word: offer it to the step-through.
        selected = self.input_edit.textCursor().selectedText().strip()
        if selected and len(selected) <= STEP_WORD_LIMIT and \
                not any(c.isspace() or c == "\u2029" for c in selected):
            self.word_edit.setText(selected)

    # -- decoding ---------------------------------------------------------------------------

    @Slot()
    def _decode(self) -> None:
        self.decoded_edit.clear()
        if self._tok is None:
            return
        try:
            ids = parse_ids(self.decode_edit.toPlainText(), self._tok.vocab_size)
            text = self._tok.decode(ids)
            again = self._tok.encode(text, mode=self.mode)
        except ValueError as exc:
            self._set_label(self.decode_label, str(exc), ERROR_STYLE)
            return
        except BpeError as exc:
            self._set_label(self.decode_label, f"Cannot decode: {exc}", ERROR_STYLE)
            return
        self.decoded_edit.setPlainText(text)
        summary = f"{len(ids):,} ids → {len(text):,} characters. "
        if again == ids:
            self._set_label(self.decode_label, summary + "Re-encoding gives the same ids.",
                            OK_STYLE)
        else:
            self._set_label(self.decode_label, summary + (
                f"Re-encoding gives {len(again):,} other ids: these ids are not how the model "
                "segments this text."))

    # -- step-through -----------------------------------------------------------------------

    @Slot()
    def _load_word(self) -> None:
        """Compute the merge steps of the word in the word field (its first word)."""
        self._steps, self._step_index = [], 0
        typed = self.word_edit.text()
        note = ""
        if self._tok is not None and typed.strip():
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
        final = " · ".join(display_piece(p, cfg) for p in steps[-1].pieces)
        merges = len(steps) - 1
        where = (f"Step {i} of {merges}" if merges else "No learned merge applies") + \
            f"; final pieces: {final}"
        return f"{self._step_note} {where}".strip()


def _changed(old: list[PieceItem], new: list[PieceItem]) -> bool:
    # Re-drawing 20,000 pieces takes a noticeable moment: skip it when nothing changed.
    return old != new


def _monospace() -> QFont:
    font = QFont("monospace")
    font.setStyleHint(QFont.StyleHint.Monospace)
    return font
