"""The Vocabulary tab: the token table with its filter bar, token details and plots.

Left: the filter bar and the table (a plain QTableView over :class:`VocabTableModel`,
which sorts and filters itself). Right: the selected token (merge tree and the training
words that use it) and the plots. The training words are segmented once per model, the
first time something needs them.
"""

from __future__ import annotations

import os

from PySide6.QtCore import QModelIndex, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QSplitter,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from bpe_desktop.core import BPEModel
from bpe_desktop.ui import dialogs
from bpe_desktop.ui.merge_tree_view import MAX_WORDS, MergeTreeView, TokenWordsView
from bpe_desktop.ui.vocab_model import (
    COL_BYTES,
    COL_CHARS,
    COL_COUNT,
    COL_ID,
    COL_KIND,
    COL_LEFT,
    COL_PIECE,
    COL_RANK,
    KIND_NAMES,
    MERGED,
    SPECIAL,
    TokenUsage,
    VocabTableModel,
)
from bpe_desktop.ui.vocab_plots import PLOTS, VocabPlots

_ERROR_STYLE = "QLineEdit { border: 2px solid #d9480f; }"
MAX_LENGTH = 9999


class VocabPanel(QWidget):
    """Browse the current model's vocabulary."""

    #: Short texts for the status bar.
    status_message = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._model: BPEModel | None = None
        self._usage: TokenUsage | None = None
        self._token: int | None = None
        self.table_model = VocabTableModel(self)
        splitter = QSplitter(Qt.Orientation.Horizontal, self)
        splitter.addWidget(self._build_table_side())
        splitter.addWidget(self._build_details_side())
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
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
        self.regex_check = QCheckBox("Regex", side)
        self.regex_check.setToolTip("Match a regular expression in the piece as shown")
        self.case_check = QCheckBox("Aa", side)
        self.case_check.setToolTip("Case-sensitive")
        self.min_length = _length_box(side, "min", "Shortest token to show (characters)")
        self.max_length = _length_box(side, "max", "Longest token to show (characters)")
        self.count_label = QLabel(side)
        self.error_label = QLabel(side)
        self.error_label.setStyleSheet("color: #d9480f;")
        self.error_label.setWordWrap(True)
        self.error_label.hide()
        self.export_table_button = QPushButton("Export table…", side)
        bar = QHBoxLayout()
        bar.addWidget(self.filter_edit, 1)
        for w in (self.regex_check, self.case_check, QLabel("Length", side), self.min_length,
                  QLabel("–", side), self.max_length):
            bar.addWidget(w)
        footer = QHBoxLayout()
        footer.addWidget(self.count_label, 1)
        footer.addWidget(self.export_table_button)
        self.table = self._build_table(side)
        layout = QVBoxLayout(side)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(bar)
        layout.addWidget(self.error_label)
        layout.addWidget(self.table, 1)
        layout.addLayout(footer)
        return side

    def _build_table(self, parent: QWidget) -> QTableView:
        table = QTableView(parent)
        table.setObjectName("vocabTable")
        table.setModel(self.table_model)
        table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        table.setAlternatingRowColors(True)
        table.setWordWrap(False)
        # Id order until a header is clicked (enabling sorting sorts by the indicator).
        table.horizontalHeader().setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
        table.setSortingEnabled(True)
        table.verticalHeader().hide()  # the ID column numbers the rows already
        # Fixed row heights: sizing 100,000 rows to their contents would take seconds.
        table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        table.verticalHeader().setDefaultSectionSize(table.fontMetrics().height() + 6)
        table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        table.horizontalHeader().setStretchLastSection(True)
        # Widths from a sample text per column, not from the contents (100,000 rows).
        em = table.fontMetrics().horizontalAdvance("0")
        for column, chars in _COLUMN_CHARS.items():
            table.setColumnWidth(column, (chars + 2) * em)
        return table

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
        self.export_plot_button = QPushButton("Export plot…", plots_page)
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
        self.max_length.valueChanged.connect(self._apply_filter)
        self.table.selectionModel().currentRowChanged.connect(self._on_current_row)
        self.export_table_button.clicked.connect(self._ask_export_table)
        self.export_plot_button.clicked.connect(self._ask_export_plot)

    # -- the API the main window uses ------------------------------------------------------

    def set_model(self, model: BPEModel | None) -> None:
        """Show ``model`` (None: an empty panel). Filter and sort settings are kept."""
        self._model = model
        self._usage = None
        self._token = None
        self.table_model.set_bpe_model(model)
        self.plots.set_model(model, self.table_model.columns,
                             self.token_usage if model is not None else None)
        self._show_token(None)
        self._update_count()
        enabled = model is not None
        self.export_table_button.setEnabled(enabled)
        self.export_plot_button.setEnabled(enabled)

    def focus_filter(self) -> None:
        self.filter_edit.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.filter_edit.selectAll()

    def export_table_csv(self, path: str) -> None:
        """Write the visible rows, in view order, as UTF-8 CSV (raises OSError)."""
        with open(path, "w", encoding="utf-8", newline="") as f:
            self.table_model.write_csv(f)

    def export_plot(self, which: str, path: str) -> None:
        """Write plot ``which`` (merges, zipf, lengths) as .png or .svg (by extension)."""
        self.plots.export(which, path)

    # -- more API (tests, other panels) ----------------------------------------------------

    def current_token(self) -> int | None:
        """Id of the token whose details are shown."""
        return self._token

    def select_token(self, token: int) -> bool:
        """Select ``token``'s row (False when it is filtered out)."""
        row = self.table_model.row_of(token)
        if row is None:
            return False
        index = self.table_model.index(row, COL_PIECE)
        self.table.setCurrentIndex(index)
        self.table.scrollTo(index)
        return True

    def token_usage(self) -> TokenUsage:
        """The current model's training words, segmented (computed once per model)."""
        if self._usage is None:
            if self._model is None:
                raise ValueError("no model")
            self._usage = TokenUsage(self._model)
        return self._usage

    # -- filtering ---------------------------------------------------------------------------

    def _apply_filter(self) -> None:
        keep = self._token
        error = self.table_model.set_filter(
            self.filter_edit.text(), regex=self.regex_check.isChecked(),
            case_sensitive=self.case_check.isChecked(),
            min_length=self.min_length.value() or None,
            max_length=self.max_length.value() or None)
        self._show_filter_error(error)
        if error is None and keep is not None:
            self._reselect(keep)
        self._update_count()

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
            self.token_label.setText("Select a token to see how it was built."
                                     if model is not None else "No model")
            self.merge_tree.show_token(None, None, False)
            self.words_view.show_token(None, None, None, None)
            self.words_label.setText("")
            return
        special = columns.kind[token] == SPECIAL
        self.token_label.setText(_token_summary(columns, token))
        self.merge_tree.show_token(model, token, bool(special))
        usage = self.token_usage() if model.words and not special else None
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
        path = dialogs.ask_save_path(self, "Export vocabulary table", "export",
                                     "CSV files (*.csv)", "vocabulary.csv")
        if not path:
            return
        try:
            self.export_table_csv(path)
        except OSError as exc:
            dialogs.show_error(self, "Export failed", f"Could not write {path}: {exc}")
            return
        self.status_message.emit(
            f"Exported {self.table_model.rowCount():,} tokens to {os.path.basename(path)}")

    def _ask_export_plot(self) -> None:
        which = self.plots.current_plot()
        path = dialogs.ask_save_path(self, "Export plot", "export",
                                     "PNG image (*.png);;SVG image (*.svg)", f"{which}.png")
        if not path:
            return
        try:
            self.export_plot(which, path)
        except (OSError, ValueError) as exc:
            dialogs.show_error(self, "Export failed", f"Could not write {path}: {exc}")
            return
        self.status_message.emit(f"Exported the {PLOTS[which]} plot to {os.path.basename(path)}")


#: Column widths in digits' widths.
_COLUMN_CHARS = {COL_ID: 7, COL_PIECE: 18, COL_KIND: 8, COL_CHARS: 6, COL_BYTES: 6, COL_RANK: 7,
                 COL_COUNT: 11, COL_LEFT: 12}

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
