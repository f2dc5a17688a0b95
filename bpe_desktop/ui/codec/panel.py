"""The Encode / Decode panel: live segmentation, ids, decoding, statistics, step-through.

Short texts are encoded on the GUI thread as they are typed (a few milliseconds). A text
longer than :data:`ASYNC_CHARS` (a pasted page, an opened file) is encoded in a worker
thread (:class:`~bpe_desktop.ui.common.background.LatestJob`) with a busy indicator: typing and
the rest of the window stay responsive, a newer text or mode supersedes the running job,
and a result for a text that has changed since is dropped. The worker also builds the
coloured document of the first :data:`SHOW_LIMIT` pieces (and, for a text given to
:meth:`CodecPanel.set_text`, the input box's document), so the GUI thread only swaps
documents in. Statistics, ids and the round trip always cover the whole text.

A large model's tokenizer takes a while to build, so :meth:`CodecPanel.set_model` builds
it in the worker too ("Preparing the model…") — at once if the panel is shown or has text,
else when it is first shown; small models are ready at once.
"""

from __future__ import annotations

import logging
import os

from PySide6.QtCore import QCoreApplication, Qt, QTimer, Signal, Slot
from PySide6.QtGui import QGuiApplication, QTextDocument
from PySide6.QtWidgets import (
    QComboBox,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPlainTextDocumentLayout,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from bpe_desktop.core import BpeError, BPEModel, MergeStep, Tokenizer
from bpe_desktop.core.chunked import INLINE_WORK, model_work
from bpe_desktop.core.errors import CorpusError
from bpe_desktop.core.formatting import counted
from bpe_desktop.core.text_files import read_text_bytes
from bpe_desktop.views.encoding_view import (  # noqa: F401 (the panel's helpers, re-exported)
    SHOW_LIMIT,
    DecodeResult,
    Encoding,
    PieceItem,
    RoundTrip,
    Stats,
    as_typed,
    check_round_trip,
    decode_ids,
    encode_text,
    first_difference,
    format_id_lines,
    format_ids,
    parse_ids,
)
from bpe_desktop.core.pieces import display_piece, isolated_if_rtl
from bpe_desktop.ui.codec.decode_box import ERROR_STYLE, OK_STYLE, DecodeBox, monospace
from bpe_desktop.ui.codec.dropout_box import DropoutSamplesBox
from bpe_desktop.ui.common.modal_work import Cancelled, release_pipe_reader, run_modal
from bpe_desktop.ui.codec.jobs import EncodeRequest, EncodeResult, encode_job, shown_ids_text
from bpe_desktop.ui.codec.piece_view import THIN_SPACE, PieceDocument, PieceStyle, PieceView
from bpe_desktop.ui.codec.stats_grid import StatsGrid
from bpe_desktop.ui.codec.step_through import STEP_WORD_LIMIT, StepThrough
from bpe_desktop.ui.common import dialogs
from bpe_desktop.ui.common.background import LatestJob
from bpe_desktop.ui.common.passes import StepsInPasses
from bpe_desktop.ui.common.text_direction import follow_document, follow_text_direction
from bpe_desktop.ui.common.workers import JobError

log = logging.getLogger(__name__)

#: Texts longer than this (characters) are encoded in a worker thread; shorter ones are
#: encoded and drawn on the GUI thread within one frame (laying out the view is most of it).
ASYNC_CHARS = 2000
#: The busy indicator shows only for work that takes longer than this (no flicker).
BUSY_DELAY_MS = 200
#: Files larger than this are refused (the CLI encodes big files).
MAX_FILE_BYTES = 4 << 20
#: Live updates wait this long after the last keystroke (longer for long texts).
DEBOUNCE_MS = 150
MODES = (("merges", "Merge rank (BPE)"), ("greedy", "Greedy longest match"))


# -- the panel ----------------------------------------------------------------------------


class CodecPanel(StepThrough, DecodeBox, StatsGrid, QWidget):
    """Type, paste or open text; see its pieces and ids; decode ids; step through a word."""

    status_message = Signal(str)
    #: Emitted on the GUI thread after every encode whose result is shown (not for one
    #: superseded by a newer text): at once for a short text, later for a long one.
    encoded = Signal()
    #: A background decode finished (also emitted at once for a short one).
    decoded = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._model: BPEModel | None = None
        self._tok: Tokenizer | None = None
        self._encoding: Encoding | None = None
        self._pending_text: str | None = None  # given to set_text, its document coming
        self._version = 0  # counts edits of the input, to tell a stale result
        self._steps: list[MergeStep] = []
        self._step_index = 0
        self._step_note = ""
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._encode_now)
        self._jobs = LatestJob(self)
        self._jobs.finished.connect(self._on_encoded)
        self._jobs.failed.connect(self._on_encode_failed)
        self._jobs.busy_changed.connect(self._on_busy)
        self._busy_timer = QTimer(self)
        self._busy_timer.setSingleShot(True)
        self._busy_timer.timeout.connect(lambda: self._update_busy(self._jobs.busy))
        #: A result shown in steps (each lays out one view); a newer one drops it.
        self._showing = StepsInPasses(self)
        self._handoff: list[QTextDocument] = []  # documents built by jobs (see _encode_job)
        self._drawn: dict = {}  # each id's rendering for the current model (encode_text)
        self._decode_jobs = LatestJob(self)
        self._decode_jobs.finished.connect(self._show_decoded)
        self._decode_jobs.failed.connect(
            lambda e: self._show_decoded(DecodeResult(error=f"Decoding failed: {e.message}")))
        self._build()
        self.set_model(None)

    # -- public API -------------------------------------------------------------------------

    def set_model(self, model: BPEModel | None) -> None:
        """Show ``model``'s segmentation (None: inputs disabled, with a hint). A large
        model's tokenizer is built in the background (when the panel is shown or has
        text); the text is encoded once it is."""
        self._decode_jobs.discard()
        self._model, self._tok = model, None
        self._drawn = {}
        if model is not None and model_work(model, words=False) <= INLINE_WORK:
            try:
                self._tok = model.tokenizer()
            except BpeError as exc:  # a damaged import: say so, behave as without a model
                dialogs.show_error(self, "Cannot encode with this model", str(exc))
                self._model = None
        self._set_enabled(self._model is not None)
        self.dropout_box.set_model(self._model)
        self.decoded_edit.clear()
        self._set_label(self.decode_label, "")
        self._encode_now()
        self._load_word()

    def set_text(self, text: str) -> None:
        """Fill the input and encode at once (no debounce); a long text is put in the
        input box and encoded in the background (``encoded`` follows)."""
        self._version += 1
        if len(text) <= ASYNC_CHARS:
            self._pending_text = None
            self.input_edit.setReadOnly(False)
            self.input_edit.blockSignals(True)  # the textChanged debounce is not wanted here
            try:
                self.input_edit.setPlainText(text)
            finally:
                self.input_edit.blockSignals(False)
        else:
            self._pending_text = as_typed(text)  # what the box will hold, and encode
            self.input_edit.setReadOnly(True)  # until the text's document arrives
        self._encode_now()

    def open_text_file(self, path: str) -> bool:
        """Load a UTF-8 text file (or .gz) into the input; on failure, an error box and no
        change."""
        name = os.path.basename(path)

        def read() -> tuple[int, bytes]:
            size = os.path.getsize(path)
            # gzip unpacked, as by every other reader of texts (and `bpe-desktop encode`)
            return size, b"" if size > MAX_FILE_BYTES else read_text_bytes(path,
                                                                           MAX_FILE_BYTES + 1)

        try:
            # In a worker: a pipe with no writer or a stalled network file must not freeze
            # the window, and the user may cancel it (Esc).
            size, data = run_modal(self, f"Reading {name}…", read, cancellable=True)
        except Cancelled:
            release_pipe_reader(path)
            return False
        except OSError as exc:
            dialogs.show_error(self, "Cannot open text", f"{path}: {exc.strerror or exc}")
            return False
        except CorpusError as exc:  # a damaged .gz
            dialogs.show_error(self, "Cannot open text", str(exc))
            return False
        if size > MAX_FILE_BYTES or len(data) > MAX_FILE_BYTES:
            has = (f"has {size / 2**20:.1f} MB" if size > MAX_FILE_BYTES
                   else f"unpacks to more than {MAX_FILE_BYTES >> 20} MB")
            dialogs.show_error(
                self, "Text too large",
                f"{path} {has}; the Encode panel shows texts up to {MAX_FILE_BYTES >> 20} MB. "
                "Encode larger files with the command line: bpe-desktop encode.")
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

    def is_busy(self) -> bool:
        """Whether a text is being encoded (or the model prepared) in the background."""
        return self._jobs.busy

    def shutdown(self) -> None:
        """Stop background work and wait for its threads (the window is closing)."""
        self._jobs.shutdown()
        self._decode_jobs.shutdown()
        self._handoff.clear()

    def closeEvent(self, event) -> None:  # noqa: N802 (Qt override)
        self.shutdown()  # a panel shown on its own (tests): no thread may outlive it
        super().closeEvent(event)

    def showEvent(self, event) -> None:  # noqa: N802 (Qt override)
        super().showEvent(event)
        if self._model is not None and self._tok is None and not self._jobs.busy:
            self._encode_now()  # a large model set while hidden: prepare it now

    # -- read-only state (tests and the main window) ---------------------------------------

    @property
    def mode(self) -> str:
        return self.mode_combo.currentData()

    @property
    def ids(self) -> list[int]:
        """The ids of the whole text last encoded (empty without a model or on an error;
        while a long text is encoded, still the previous text's)."""
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

    # -- layout -----------------------------------------------------------------------------

    def _build(self) -> None:
        self.hint_label = QLabel("Train or open a model to encode text with it.")
        self.hint_label.setStyleSheet("font-weight: bold;")
        self.open_button = QPushButton("Open te&xt…")
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
        # BPE-dropout samples of the text, drawn again after each encoding of it
        self.dropout_box = DropoutSamplesBox(self._current_text)
        self.encoded.connect(self.dropout_box.text_changed)
        right.addWidget(self.dropout_box)
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
        follow_text_direction(self.input_edit)
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
        self.busy_bar = QProgressBar()
        self.busy_bar.setRange(0, 0)  # an indicator without a percentage
        self.busy_bar.setMaximumWidth(120)
        self.busy_bar.setTextVisible(False)
        self.busy_label = QLabel()
        busy = QHBoxLayout()
        busy.addWidget(self.busy_bar)
        busy.addWidget(self.busy_label, 1)
        self.busy_bar.hide()
        self.busy_label.hide()
        layout = QVBoxLayout(box)
        layout.addLayout(busy)
        layout.addWidget(self.piece_view, 1)
        layout.addWidget(self.shown_label)
        layout.addWidget(self.piece_label)
        layout.addLayout(self._build_stats())
        return box

    def _build_ids(self) -> QWidget:
        box = QGroupBox("Ids")
        self.ids_edit = QPlainTextEdit()
        self.ids_edit.setReadOnly(True)
        self.ids_edit.setFont(monospace())
        self.ids_edit.setMinimumHeight(40)
        self.copy_button = QPushButton("&Copy ids")
        self.copy_button.setToolTip("Copy the ids of the whole text, space separated")
        self.copy_button.clicked.connect(self._copy_ids)
        self.to_decoder_button = QPushButton("Edit i&n decoder")
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

    def _current_text(self) -> str:
        return self._pending_text if self._pending_text is not None else self._input_text()

    def _word_gap(self) -> str:
        cfg = self._model.config
        return THIN_SPACE if cfg.byte_level or cfg.boundary == "bow-prefix" else " "

    @Slot()
    def _schedule_encode(self) -> None:
        self._version += 1
        # Longer texts wait longer, so typing into a big text is not interrupted per key.
        size = self.input_edit.document().characterCount()
        self._timer.start(DEBOUNCE_MS + min(850, size // 2000))

    @Slot()
    def _encode_now(self) -> None:
        self._timer.stop()
        self._showing.cancel()  # a result still being shown in steps is out of date now
        text = self._current_text()
        idle = self._tok is None and not text and not self.isVisible()
        if (self._model is None and self._pending_text is None) or idle:
            # Nothing to show; a hidden panel with no text prepares a large model when it
            # is first shown (the Vocabulary tab may be building its tokenizer meanwhile).
            self._jobs.discard()
            self._encoding = None
            self._show_error("")
            self._show_encoding()
            self.encoded.emit()
            return
        if self._tok is None or self._pending_text is not None or len(text) > ASYNC_CHARS:
            self._jobs.submit(encode_job(EncodeRequest(
                self._model, text, self.mode, self._version, self._pending_text is not None,
                self._word_gap() if self._model is not None else " ", PieceStyle.current(),
                self._drawn), QCoreApplication.instance().thread(), self._handoff))
            self._busy_timer.start(BUSY_DELAY_MS)
            return
        self._jobs.discard()  # a long text's result must not replace this one
        self._encoding = None
        self._show_error("")
        try:
            self._encoding = encode_text(self._tok, text, self.mode, SHOW_LIMIT,
                                         drawn=self._drawn)
        except BpeError as exc:
            self._show_error(f"Cannot encode this text: {exc}")
        except Exception as exc:  # noqa: BLE001 - a slot must never raise
            log.exception("encoding failed")
            self._show_error(f"Encoding failed: {exc}")
        self._show_encoding()
        self.encoded.emit()

    @Slot(object)
    def _on_encoded(self, result: EncodeResult) -> None:
        request = result.request
        if request.model is not self._model:
            return
        if result.model_error:
            dialogs.show_error(self, "Cannot encode with this model", result.model_error)
            self.set_model(None)
            return
        if result.tokenizer is not None and self._tok is None:
            self._tok = result.tokenizer
            self._load_word()  # a word typed while the model was being prepared
        steps = []
        if result.input_document is not None and self._pending_text is request.text:
            steps.append(lambda: self._install_input(result.input_document))
        if request.version == self._version and request.mode == self.mode:
            steps += [lambda: self._show_result(result), self.encoded.emit]
        # (else the text changed since: its own encode is on the way)
        self._show_in_steps(steps)

    def _show_result(self, result: EncodeResult) -> None:
        self._encoding = result.encoding
        self._show_error(result.error)
        self._show_encoding(result.pieces, result.ids_text)

    def _show_in_steps(self, steps: list) -> None:
        """Run the first of ``steps`` now and the others one per pass (see
        ``ui.common.passes``), unless another encode starts meanwhile."""
        self._showing.cancel()
        if steps:
            self._showing.later(*steps[1:])  # queued first: the first step may drop them
            steps[0]()

    @Slot(object)
    def _on_encode_failed(self, error: JobError) -> None:
        self._show_error(f"Encoding failed: {error.message}")
        self.encoded.emit()

    def _install_input(self, document: QTextDocument) -> None:
        """Show the document built for the text given to set_text."""
        document.setDocumentLayout(QPlainTextDocumentLayout(document))
        document.setDefaultFont(self.input_edit.font())
        document.setParent(self.input_edit)  # deleted when the next one replaces it
        follow_document(document)
        self.input_edit.blockSignals(True)  # it is encoded already
        try:
            self.input_edit.setDocument(document)
        finally:
            self.input_edit.blockSignals(False)
        self._pending_text = None
        self.input_edit.setReadOnly(False)

    @Slot(bool)
    def _on_busy(self, busy: bool) -> None:
        if busy:
            self._busy_timer.start(BUSY_DELAY_MS)
        else:
            self._handoff.clear()  # no job runs: what a result uses, the result holds
            self._update_busy(False)

    def _update_busy(self, busy: bool) -> None:
        if busy:
            if self._tok is None and self._model is not None:
                what = "Preparing the model…"
            else:
                what = f"Encoding {len(self._current_text()):,} characters…"
            self.busy_label.setText(what)
        else:
            self._busy_timer.stop()
        self.busy_bar.setVisible(busy)
        self.busy_label.setVisible(busy)

    def _show_error(self, message: str) -> None:
        self.error_label.setText(message)
        self.error_label.setVisible(bool(message))

    def _show_encoding(self, pieces: PieceDocument | None = None, ids_text: str = "") -> None:
        enc = self._encoding
        if enc is None or self._model is None:
            self.piece_view.show_items([])
            self.ids_edit.clear()
            for label in self.stat_labels.values():
                label.setText("–")
            for label in (self.shown_label, self.compare_label, self.round_trip_label):
                self._set_label(label, "")
            return
        gap = self._word_gap()
        if pieces is not None:
            self.piece_view.show_document(pieces, enc.items, gap)
        elif _changed(self.piece_view.items, enc.items) or self.piece_view.word_gap != gap:
            self.piece_view.show_items(enc.items, word_gap=gap)
        total = len(enc.ids)
        shown = len(enc.items)
        self._set_label(self.shown_label, f"Showing the first {shown:,} of {total:,} pieces; "
                        "statistics and ids cover the whole text." if shown < total else "")
        self.ids_edit.setPlainText(ids_text or shown_ids_text(enc))
        self._show_stats(enc.stats)
        rt = enc.round_trip
        self._set_label(self.round_trip_label, rt.message, OK_STYLE if rt.exact else ERROR_STYLE)

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
        self.status_message.emit(f"Copied {counted(len(ids), 'id')}")

    @Slot()
    def _ids_to_decoder(self) -> None:
        self.decode_edit.setPlainText(format_id_lines(self.ids))

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
                      f"({isolated_if_rtl(display_piece(info.left, self._model.config))} + "
                      f"{isolated_if_rtl(display_piece(info.right, self._model.config))})")
        self.piece_label.setText(f"Piece {index + 1:,}: {isolated_if_rtl(item.text)}  ·  "
                                 f"id {item.id}  ·  {origin}")
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

def _changed(old: list[PieceItem], new: list[PieceItem]) -> bool:
    # Re-drawing thousands of pieces takes a noticeable moment: skip it when nothing changed.
    return old != new
