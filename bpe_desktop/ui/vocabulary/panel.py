"""The Vocabulary tab: the token table with its filter bar, token details and plots.

Left: the filter bar and the table (a VocabTableView over :class:`VocabTableModel`,
which sorts and filters itself). Right: the selected token (merge tree and the training
words that use it) and the plots.

A large model's table, word segmentations and plots take about a second and a half to
build (100,000 tokens), so :meth:`VocabPanel.set_model` builds them in a worker thread
(:mod:`vocab_loading`) and the panel says "Loading vocabulary…" meanwhile; the filter bar
stays usable and its settings apply when the table arrives. The table arrives first, the
training words and plots after; ``ready`` is emitted when all of it is in. Small models
(the toy example) are built at once, in ``set_model``.

What the user types in the filter bar is filtered in a second worker for a large table
(:mod:`filtering`): a newer keystroke supersedes an older one, the GUI thread only swaps
the resulting rows in, and ``filtered`` is emitted then.
"""

from __future__ import annotations

import io
import os
from pathlib import Path

from PySide6.QtCore import QByteArray, QModelIndex, Qt, Signal, Slot
from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from bpe_desktop.core import BPEModel

from bpe_desktop.core import release
from bpe_desktop.core.chunked import INLINE_WORK, model_work
from bpe_desktop.core.evaluation.vocabulary import INTERMEDIATE_SHARE
from bpe_desktop.core.formatting import counted
from bpe_desktop.core.safe_write import write_files
from bpe_desktop.views.vocab_loading import LoadedTable, LoadedWords, load_table, load_words
from bpe_desktop.views.vocab_table import (
    COL_PIECE,
    KIND_NAMES,
    MERGED,
    SPECIAL,
    TokenUsage,
)
from bpe_desktop.ui.common import dialogs
from bpe_desktop.ui.common.background import LatestJob
from bpe_desktop.ui.common.settings import Settings
from bpe_desktop.ui.common.workers import JobError
from bpe_desktop.ui.vocabulary.filtering import TableFilter
from bpe_desktop.ui.vocabulary.loading import loading_job
from bpe_desktop.ui.vocabulary.merge_tree_view import MAX_WORDS, MergeTreeView, TokenWordsView
from bpe_desktop.ui.vocabulary.plots import PLOTS, VocabPlots
from bpe_desktop.ui.vocabulary.table_model import VocabTableModel
from bpe_desktop.ui.vocabulary.table_view import VocabTableView

_ERROR_STYLE = "QLineEdit { border: 2px solid #d9480f; }"
MAX_LENGTH = 9999
LOADING = "Loading vocabulary…"


class VocabPanel(QWidget):
    """Browse the current model's vocabulary."""

    #: Short texts for the status bar.
    status_message = Signal(str)
    #: The model given to set_model is fully shown (table, training words, plots); emitted
    #: on the GUI thread, also for set_model(None) and for models loaded at once.
    ready = Signal()
    #: The filter bar's settings were applied to the table (or refused: an invalid regex).
    filtered = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._model: BPEModel | None = None
        self._usage: TokenUsage | None = None
        self._token: int | None = None
        self._loading = False  # the table or the words of self._model are still coming
        self._words_loading = False
        self._table: LoadedTable | None = None  # the current model's, once it is there
        self.table_model = VocabTableModel(self)
        self._jobs = LatestJob(self)
        self._jobs.progressed.connect(self._on_table_loaded)
        self._jobs.finished.connect(self._on_loaded)
        self._jobs.failed.connect(self._on_load_failed)
        self._filter = TableFilter(self.table_model, self)
        self._filter.applied.connect(self._after_filter)
        self._filter.failed.connect(self._on_filter_failed)
        self.splitter = splitter = QSplitter(Qt.Orientation.Horizontal, self)
        splitter.addWidget(self._build_table_side())
        splitter.addWidget(self._build_details_side())
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        splitter.splitterMoved.connect(self._remember_splitter)
        self._splitter_placed = False  # sized on the first show, from settings or columns
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(splitter)
        self._connect()
        self.set_model(None)

    # -- building ----------------------------------------------------------------------------

    def _build_table_side(self) -> QWidget:
        side = QWidget(self)
        self.filter_edit = QLineEdit(side)
        self.filter_edit.setPlaceholderText("Filter tokens (Ctrl+F)")
        self.filter_edit.setClearButtonEnabled(True)
        self.filter_edit.setToolTip(_FILTER_TIP)
        self.regex_check = QCheckBox("Rege&x", side)
        self.regex_check.setToolTip("Match a regular expression in the piece as shown")
        self.case_check = QCheckBox("&Aa", side)
        self.case_check.setToolTip("Case-sensitive")
        self.case_check.setAccessibleName("Case-sensitive")  # (it reads "Aa")
        self.min_length = _length_box(side, "min", "Shortest token to show (characters)")
        self.max_length = _length_box(side, "max", "Longest token to show (characters)")
        self.intermediate_check = QCheckBox("&Intermediate", side)
        self.intermediate_check.setToolTip(
            "Only merged tokens the final segmentation of the training words rarely uses "
            f"(under {INTERMEDIATE_SHARE:.0%} of their count when merged): steps towards "
            "longer tokens")
        self.new_check = QCheckBox("&New", side)
        self.new_check.setToolTip("Only the tokens the extension added (they follow every "
                                  "id the tokenizer had)")
        self.new_check.hide()
        self.new_from: int | None = None
        self.count_label = QLabel(side)
        self.error_label = QLabel(side)
        self.error_label.setStyleSheet("color: #d9480f;")
        self.error_label.setWordWrap(True)
        self.error_label.hide()
        self.export_table_button = QPushButton("Export ta&ble…", side)
        self.busy_bar = QProgressBar(side)
        self.busy_bar.setRange(0, 0)  # an indicator without a percentage
        self.busy_bar.setMaximumWidth(120)
        self.busy_bar.setTextVisible(False)
        self.busy_bar.hide()
        bar = QHBoxLayout()
        bar.addWidget(self.filter_edit, 1)
        for w in (self.regex_check, self.case_check, QLabel("Length", side), self.min_length,
                  QLabel("–", side), self.max_length, self.intermediate_check,
                  self.new_check):
            bar.addWidget(w)
        footer = QHBoxLayout()
        footer.addWidget(self.count_label)
        footer.addWidget(self.busy_bar)
        footer.addStretch(1)
        footer.addWidget(self.export_table_button)
        self.table = VocabTableView(self.table_model, side)
        # Tab goes from the filter row to the table, then to the button under it (the
        # button, made first, came before the table).
        QWidget.setTabOrder(self.table, self.export_table_button)
        layout = QVBoxLayout(side)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(bar)
        layout.addWidget(self.error_label)
        layout.addWidget(self.table, 1)
        layout.addLayout(footer)
        return side

    def table_width_needed(self) -> int:
        """Width of the table side that shows every column whole beside the scroll bar."""
        table = self.table
        columns = sum(table.column_widths().values())
        return (columns + table.verticalScrollBar().sizeHint().width()
                + 2 * table.frameWidth() + 2)

    def showEvent(self, event) -> None:  # noqa: N802 (Qt override)
        super().showEvent(event)
        if not self._splitter_placed:
            self._splitter_placed = True
            self._place_splitter()

    def _place_splitter(self) -> None:
        """The user's last split, else the table as wide as its columns (room allowing)."""
        state = Settings().value(SPLITTER_KEY)
        if isinstance(state, QByteArray) and self.splitter.restoreState(state):
            return
        table_side, details_side = (self.splitter.widget(i) for i in range(2))
        total = self.splitter.width() - self.splitter.handleWidth()
        wanted = max(self.table_width_needed(), table_side.minimumSizeHint().width())
        # The details keep a third at least: a merge tree and segmentations squeezed to
        # their minimum cannot be read, while the table scrolls sideways.
        details = max(details_side.minimumSizeHint().width(), total // 3)
        left = max(0, min(wanted, total - details))
        self.splitter.setSizes([left, total - left])

    @Slot()
    def _remember_splitter(self) -> None:
        Settings().set_value(SPLITTER_KEY, self.splitter.saveState())

    def _build_details_side(self) -> QWidget:
        self.details = QTabWidget(self)
        token = QWidget(self.details)
        self.token_label = QLabel(token)
        self.token_label.setWordWrap(True)
        self.token_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.merge_tree = MergeTreeView(token)
        self.words_label = QLabel(token)
        self.words_view = TokenWordsView(token)
        splitter = QSplitter(Qt.Orientation.Vertical, token)
        splitter.addWidget(self.merge_tree)
        words = QWidget(splitter)
        words_layout = QVBoxLayout(words)
        words_layout.setContentsMargins(0, 0, 0, 0)
        words_layout.addWidget(self.words_label)
        words_layout.addWidget(self.words_view, 1)
        splitter.addWidget(words)
        layout = QVBoxLayout(token)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.token_label)
        layout.addWidget(splitter, 1)
        self.details.addTab(token, "Token")

        plots_page = QWidget(self.details)
        self.plots = VocabPlots(plots_page)
        self.export_plot_button = QPushButton("Export &plot…", plots_page)
        plots_layout = QVBoxLayout(plots_page)
        plots_layout.setContentsMargins(0, 0, 0, 0)
        plots_layout.addWidget(self.plots, 1)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(self.export_plot_button)
        plots_layout.addLayout(row)
        self.details.addTab(plots_page, "Plots")
        return self.details

    def _connect(self) -> None:
        self.filter_edit.textChanged.connect(self._apply_filter)
        self.regex_check.toggled.connect(self._apply_filter)
        self.case_check.toggled.connect(self._apply_filter)
        self.min_length.valueChanged.connect(self._apply_filter)
        self.intermediate_check.toggled.connect(self._apply_filter)
        self.new_check.toggled.connect(self._apply_filter)
        self.max_length.valueChanged.connect(self._apply_filter)
        self.table.selectionModel().currentRowChanged.connect(self._on_current_row)
        self.export_table_button.clicked.connect(self._ask_export_table)
        self.export_plot_button.clicked.connect(self._ask_export_plot)

    # -- the API the main window uses ------------------------------------------------------

    def set_model(self, model: BPEModel | None) -> None:
        """Show ``model`` (None: an empty panel). Filter and sort settings are kept.

        A large model loads in the background: :meth:`is_loading` is True and ``ready``
        follows once it is shown.
        """
        self._jobs.discard()
        # What the panel built for the replaced model is freed on the release thread (see
        # VocabTableModel.set_columns).
        replaced = (self._table, self._usage)
        if self._filter.busy:  # what was typed applies to the new model
            self._filter.discard()
            self.table_model.set_columns(None, None, None)
            self._apply_filter()  # at once: there are no rows
        self._model = model
        self._table = None
        self._usage = None
        self._token = None
        release.retire(replaced)
        del replaced
        if model is None or model_work(model) <= INLINE_WORK:
            self._set_loading(False, False)
            if model is None:
                self.table_model.set_columns(None, None, None)
                self.plots.set_model(None, None, None)
                self._after_table()
            else:
                self._load_now()
            self.ready.emit()
            return
        self._set_loading(True, True)
        self.table_model.set_columns(None, None, None)
        self.plots.set_loading(LOADING)
        self._after_table()
        self._jobs.submit(loading_job(model, self.table_model.filter_spec(),
                                       self._sort_key()))

    def is_loading(self) -> bool:
        """Whether the current model is still being loaded (``ready`` follows)."""
        return self._loading

    def shutdown(self) -> None:
        """Stop loading and filtering and wait for the worker threads (the window is
        closing)."""
        self._jobs.shutdown()
        self._filter.shutdown()

    def closeEvent(self, event) -> None:  # noqa: N802 (Qt override)
        self.shutdown()  # a panel shown on its own (tests): no thread may outlive it
        super().closeEvent(event)

    def focus_filter(self) -> None:
        self.filter_edit.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.filter_edit.selectAll()

    def export_table_csv(self, path: str) -> None:
        """Write the visible rows, in view order, as UTF-8 CSV, atomically (raises OSError).

        While the model is loading, it is loaded here first (so the rows are there), and
        a filter still being computed is computed here."""
        self._finish_loading()
        self._filter.finish()
        text = io.StringIO(newline="")
        self.table_model.write_csv(text)
        write_files([(Path(path), text.getvalue().encode("utf-8"))])  # atomic: a failed
        # export leaves an earlier file as it was

    def export_plot(self, which: str, path: str) -> None:
        """Write plot ``which`` (merges, zipf, lengths) as .png or .svg (by extension);
        while the model is loading, it is loaded here first."""
        self._finish_loading()
        self.plots.export(which, path)

    # -- more API (tests, other panels) ----------------------------------------------------

    def current_token(self) -> int | None:
        """Id of the token whose details are shown."""
        return self._token

    def select_token(self, token: int) -> bool:
        """Select ``token``'s row (False when it is filtered out). While the model is
        loading, its table is loaded here first (wait for ``ready`` to avoid that), and a
        filter still being computed is computed here (wait for ``filtered``)."""
        self._finish_loading(words=False)
        self._filter.finish()
        row = self.table_model.row_of(token)
        if row is None:
            return False
        index = self.table_model.index(row, COL_PIECE)
        self.table.setCurrentIndex(index)
        self.table.scrollTo(index)
        return True

    # -- loading -----------------------------------------------------------------------------

    def _sort_key(self) -> tuple[int, bool]:
        column, order = self.table_model.sort_order()
        return column, order == Qt.SortOrder.DescendingOrder

    def _load_now(self) -> None:
        """Load what is missing of the current model here, on the GUI thread (small
        models, or a caller that cannot wait)."""
        if self._table is None:
            self._on_table_loaded(load_table(self._model, self.table_model.filter_spec(),
                                             self._sort_key()))
        self._on_words_loaded(load_words(self._table))

    def _finish_loading(self, *, words: bool = True) -> None:
        """Stop loading in the background and load the rest here (``words``: the words
        and plots too, not only the table)."""
        if not self._loading or (not words and self._table is not None):
            return
        self._jobs.discard()
        self._load_now()
        self.ready.emit()

    def _set_loading(self, table: bool, words: bool) -> None:
        self._loading = table or words
        self._words_loading = words
        self.busy_bar.setVisible(self._loading)
        enabled = self._model is not None and not table
        self.export_table_button.setEnabled(enabled)
        self.export_plot_button.setEnabled(enabled and not words)

    @Slot(object)
    def _on_table_loaded(self, table: LoadedTable) -> None:
        if table.model is not self._model:
            return
        self._table = table
        self.table_model.set_columns(table.model, table.columns, table.text_filter, table.mask)
        self._set_loading(False, self._words_loading)
        self._after_table()

    def _on_words_loaded(self, words: LoadedWords) -> None:
        self._usage = words.usage
        self.table_model.set_final(words.final)
        self._update_count()
        self.plots.set_data(words.model, self.table_model.columns, words.plots)
        self._set_loading(False, False)
        self._show_token(self._token)  # the words of a selected token are there now

    @Slot(object)
    def _on_loaded(self, words: LoadedWords) -> None:
        if words.model is self._model:
            self._on_words_loaded(words)
            self.ready.emit()

    @Slot(object)
    def _on_load_failed(self, error: JobError) -> None:
        self._set_loading(False, False)
        self.count_label.setText("The vocabulary could not be shown.")
        self.status_message.emit(f"Could not show the vocabulary: {error.message}")
        self.ready.emit()

    def _after_table(self) -> None:
        """A table (or none) arrived: no token selected yet, the count up to date."""
        self._show_token(None)
        self._update_count()

    # -- filtering ---------------------------------------------------------------------------

    def is_filtering(self) -> bool:
        """Whether a filter is being computed in the background (``filtered`` follows)."""
        return self._filter.busy

    def _apply_filter(self) -> None:
        self._filter.apply(dict(
            text=self.filter_edit.text(), regex=self.regex_check.isChecked(),
            case_sensitive=self.case_check.isChecked(),
            min_length=self.min_length.value() or None,
            max_length=self.max_length.value() or None,
            new_from=self.new_from if self.new_check.isChecked() else None,
            intermediate=self.intermediate_check.isChecked()))

    def set_new_from(self, first_new_id: int | None) -> None:
        """Mark the ids from ``first_new_id`` on as *new* (an extended tokenizer's added
        tokens) and offer the filter on them; None: nothing is new."""
        self.new_from = first_new_id
        self.new_check.setVisible(first_new_id is not None)
        if first_new_id is None and self.new_check.isChecked():
            self.new_check.setChecked(False)  # re-filters
        elif self.new_check.isChecked():
            self._apply_filter()

    def is_new(self, token_id: int) -> bool:
        return self.new_from is not None and token_id >= self.new_from

    @Slot()
    def _after_filter(self) -> None:
        """The filter was applied or refused: its error, the selection, the count."""
        error = self.table_model.filter_error
        self._show_filter_error(error)
        if error is None and self._token is not None:
            self._reselect(self._token)
        self._update_count()
        self.filtered.emit()

    @Slot(str)
    def _on_filter_failed(self, message: str) -> None:
        self.status_message.emit(f"Could not filter the vocabulary: {message}")
        self.filtered.emit()

    def _show_filter_error(self, error: str | None) -> None:
        self.filter_edit.setStyleSheet(_ERROR_STYLE if error else "")
        self.filter_edit.setToolTip(error or _FILTER_TIP)
        self.error_label.setText(error or "")
        self.error_label.setVisible(bool(error))
        if error:
            self.status_message.emit(error)

    def _reselect(self, token: int) -> None:
        # A reset drops the selection; put it back if the token is still shown, and
        # keep its details either way (they stay true while the model is the same).
        row = self.table_model.row_of(token)
        if row is None:
            return
        self.table.setCurrentIndex(self.table_model.index(row, COL_PIECE))

    def _update_count(self) -> None:
        if self._loading and self.table_model.columns is None:
            self.count_label.setText(LOADING)
            return
        shown, total = self.table_model.rowCount(), self.table_model.total_count()
        self.count_label.setText(f"{shown:,} of {total:,} tokens")

    # -- the selected token ------------------------------------------------------------------

    def _on_current_row(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if current.isValid():
            token = self.table_model.token_id(current.row())
            if token != self._token:  # not a row moved by a sort or restored after a filter
                self._show_token(token)

    def _show_token(self, token: int | None) -> None:
        self._token = token
        model, columns = self._model, self.table_model.columns
        if model is None or token is None or columns is None:
            if model is None:
                text = "No model"
            elif columns is None:
                text = LOADING
            else:
                text = "Select a token to see how it was built."
            self.token_label.setText(text)
            self.merge_tree.show_token(None, None, False)
            self.words_view.show_token(None, None, None, None)
            self.words_label.setText("")
            return
        special = columns.kind[token] == SPECIAL
        self.token_label.setText(_token_summary(columns, token)
                                 + (" · new" if self.is_new(token) else ""))
        self.merge_tree.show_token(model, token, bool(special))
        if self._words_loading and model.word_count and not special:
            self.words_view.show_token(None, None, None, None)
            self.words_label.setText("Finding the training words that use it…")
            return
        usage = self._usage if model.word_count and not special else None
        self.words_view.show_token(model, columns, usage, token)
        self.words_label.setText(self._words_summary(special, usage))

    def _words_summary(self, special: bool, usage: TokenUsage | None) -> str:
        if special:
            return "Special tokens are never produced by merging."
        if usage is None:
            return "This model keeps no training words."
        total = self.words_view.total
        if not total:
            return ("No kept training word ends up with this token "
                    "(it may only be a step towards longer tokens).")
        shown = f" (the {MAX_WORDS:,} most frequent shown)" if total > MAX_WORDS else ""
        noun = "word uses" if total == 1 else "words use"
        return f"{total:,} training {noun} this token{shown}:"

    # -- export buttons ----------------------------------------------------------------------

    def _ask_export_table(self) -> None:
        path = dialogs.export_to_chosen_file(self, "Export vocabulary table",
                                             "CSV files (*.csv)", "vocabulary.csv",
                                             self.export_table_csv)
        if path:
            self.status_message.emit(
                f"Exported {counted(self.table_model.rowCount(), 'token')} to "
                f"{os.path.basename(path)}")

    def _ask_export_plot(self) -> None:
        which = self.plots.current_plot()
        path = dialogs.export_to_chosen_file(
            self, "Export plot", "PNG image (*.png);;SVG image (*.svg)", f"{which}.png",
            lambda chosen: self.export_plot(which, chosen))
        if path:
            self.status_message.emit(
                f"Exported the {PLOTS[which]} plot to {os.path.basename(path)}")


#: Where the table/details split the user chose is kept (QSettings key).
SPLITTER_KEY = "vocabulary/splitter"

_FILTER_TIP = ("Show tokens containing this text: as shown (␣ for a space), as text, or as "
               "the raw piece. With Regex: a regular expression searched in the piece as "
               "shown.")


def _length_box(parent: QWidget, label: str, tip: str) -> QSpinBox:
    box = QSpinBox(parent)
    box.setRange(0, MAX_LENGTH)
    box.setSpecialValueText(label)  # 0 means no bound
    box.setToolTip(tip)
    return box


def _token_summary(columns, token: int) -> str:
    """One line about the token: its piece, id, kind and bytes."""
    kind = KIND_NAMES[columns.kind[token]]
    text = (f"<b>{_html(columns.display[token])}</b> — id {token}, {kind}, "
            f"{columns.chars[token]} characters, {columns.nbytes[token]} bytes")
    if columns.kind[token] == MERGED:
        text += f", merge rank {columns.rank[token]}"
    return text


def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
