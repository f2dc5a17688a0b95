"""The Compare panel: 2–4 tokenizers on the same text, side by side.

Tokenizers: the open model, saved model files and every importable format. Compare runs
the core's :func:`~bpe_desktop.core.comparison.compare` in a worker thread (Cancel);
results: the words aligned one per row (cells cut differently from the first tokenizer
highlighted, identical words can be hidden, hovering a cell lists its tokens with id and
rank), the pair summaries and the evaluation's metrics side by side, a scatter plot of
tokens per line, the vocabulary overlap lists of a pair (CSV export), and for a model
trained parity-aware, *Plain vs parity-aware*: its plain counterpart trained in the
worker and both compared on the development set, each language's cost side by side.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListWidget,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QSplitter,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from bpe_desktop.core import BPEModel

from bpe_desktop.core import release
from bpe_desktop.core.comparison import (
    MAX_TOKENIZERS,
    MIN_TOKENIZERS,
    MODEL_FORMAT,
    Comparison,
    compare,
    open_model,
    read_text_lines,
)
from bpe_desktop.core.comparison.parity_pair import language_costs
from bpe_desktop.core.evaluation.text_stats import text_lines
from bpe_desktop.core.formatting import counted
from bpe_desktop.core.formats import FORMATS
from bpe_desktop.core.formats.recognise import recognise_tokenizer_file
from bpe_desktop.core.parity_dev import DevSet
from bpe_desktop.ui.common import dialogs
from bpe_desktop.ui.common.approximation_warning import ApproximationWarning, above
from bpe_desktop.ui.common.enabled_states import enable_with_rows, enable_with_selection
from bpe_desktop.ui.common.plain_copy import copy_without_isolates
from bpe_desktop.ui.common.text_direction import follow_text_direction
from bpe_desktop.ui.common.workers import JobError, JobRunner
from bpe_desktop.ui.compare.languages import (
    PLAIN_NAME,
    LanguageCostsView,
    PlainVsParity,
    plain_vs_parity_job,
)
from bpe_desktop.ui.compare.plots import LineTokensScatter
from bpe_desktop.ui.compare.table_models import (
    PAIR_HEADERS,
    AlignedWordsModel,
    OverlapModel,
    metrics_table,
    overlap_categories,
    pair_rows,
)
from bpe_desktop.ui.evaluate.table_models import RowsModel

TEXT_FILTER = "Text files (*.txt *.tsv);;All files (*)"
MODEL_FILTER = "BPE Desktop models (*.json);;All files (*)"
CURRENT_NAME = "current model"


@dataclass
class Source:
    """A tokenizer to compare: a model in memory, or a file read when comparing."""

    name: str
    model: BPEModel | None = None
    path: str | None = None
    fmt: str = MODEL_FORMAT

    def load(self) -> BPEModel:
        if self.model is not None:
            return self.model
        fmt = self.fmt
        if fmt == MODEL_FORMAT:  # a tokenizer.json added as a model file is read as one,
            fmt = recognise_tokenizer_file(self.path) or fmt  # as File ▸ Open offers
        return open_model(self.path, fmt)


class ComparePanel(QWidget):
    status_message = Signal(str)
    #: A comparison finished and its results are shown.
    compared = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._current: BPEModel | None = None
        self._current_name = CURRENT_NAME
        self.sources: list[Source] = []
        self.text_path: str | None = None
        self.comparison: Comparison | None = None
        #: The parallel set of the last Plain vs parity-aware (each later comparison shows
        #: the language costs on it too) and what it is, for the Languages tab.
        self.parallel: DevSet | None = None
        self._parallel_source = ""
        self.runner = JobRunner(self)
        self.runner.progressed.connect(lambda stage: self.progress.setFormat(stage))
        self.runner.finished.connect(self._on_finished)
        self.runner.failed.connect(self._on_failed)
        self.runner.cancelled.connect(lambda: self._set_status("Comparison cancelled."))
        self.runner.stopped.connect(lambda: self._set_running(False))
        self._build()
        self.set_model(None)

    # -- public API -------------------------------------------------------------------------

    def set_model(self, model: BPEModel | None, name: str | None = None) -> None:
        """The main window's open model (``name``: what the window calls it), offered by
        *Add current model*. Entries added before keep the model they were added with:
        a comparison must not silently change one side when another model is opened."""
        self._current = model
        self._current_name = name or CURRENT_NAME
        self._refresh_sources()

    def add_current(self) -> bool:
        """Add a snapshot of the open model, named after it (models are immutable)."""
        if self._current is None or self._holds_current():
            return False
        name = os.path.splitext(self._current_name)[0]
        return self.add_source(Source(self._unique(name), model=self._current))

    def _holds_current(self) -> bool:
        return any(s.model is self._current for s in self.sources)

    def add_model(self, name: str, model: BPEModel) -> bool:
        return self.add_source(Source(self._unique(name), model=model))

    def add_file(self, path: str, fmt: str = MODEL_FORMAT) -> bool:
        """Add a model file (``model``) or any importable format's file; read on Compare."""
        name = os.path.basename(os.path.normpath(path)) or path
        return self.add_source(Source(self._unique(name), path=path, fmt=fmt))

    def add_source(self, source: Source) -> bool:
        if len(self.sources) >= MAX_TOKENIZERS:
            self._set_status(f"At most {MAX_TOKENIZERS} tokenizers can be compared.")
            return False
        self.sources.append(source)
        self._refresh_sources()
        return True

    def remove_source(self, index: int) -> None:
        if 0 <= index < len(self.sources):
            del self.sources[index]
            self._refresh_sources()

    def set_text(self, text: str) -> None:
        self.text_path = None
        self.text_edit.setPlainText(text)
        self._show_text_file()

    def set_text_file(self, path: str | None) -> None:
        """Compare on a file's lines (instead of the typed text); None: the typed text."""
        self.text_path = path
        self._show_text_file()

    def compare_with_plain(self, model: BPEModel | None = None, name: str | None = None,
                           word_counts: bool | None = None,
                           errors: str | None = None) -> bool:
        """Train the plain counterpart of a parity-aware ``model`` (default: the open
        model) in the worker, then compare both on its development set; the two become
        the panel's tokenizers. ``word_counts``: whether its languages' files are
        word-count tables (None: recognised by their header); ``errors``: how its run read
        invalid UTF-8 ("strict" or "replace"; None: as the model records). False if it
        cannot start."""
        if self.runner.running:
            return False
        model = model if model is not None else self._current
        if model is None or not model.config.parity_dev:
            self._set_status("Plain vs parity-aware needs a model trained parity-aware "
                             "(with a development set).")
            return False
        name = os.path.splitext(name or self._current_name)[0]
        if name == PLAIN_NAME:
            name = f"{name} (parity-aware)"
        self.runner.start(plain_vs_parity_job(model, name, word_counts, errors))
        self._set_running(True)
        return True

    def start(self) -> None:
        if self.runner.running:
            return
        if len(self.sources) < MIN_TOKENIZERS:
            self._set_status(f"Add at least {MIN_TOKENIZERS} tokenizers first.")
            return
        sources, path, parallel = list(self.sources), self.text_path, self.parallel
        typed = self.text_edit.toPlainText()
        if path is None and not typed.strip():
            self._set_status("Type a text or open a text file first.")
            return

        def job(report, cancel):
            report("reading the tokenizers", force=True)
            models = [(s.name, s.load()) for s in sources]
            try:
                report("reading the text", force=True)
                lines = read_text_lines([path]) if path is not None else text_lines(typed)
                report("comparing", force=True)
                result = compare(models, lines, cancelled=lambda: cancel.cancelled)
                if parallel is not None:
                    result.language_costs = language_costs(models, parallel)
                return result
            finally:
                # Models read from files here are freed in slices, not in one long hold
                # of the GIL as this job ends (see core.release).
                for source, (_, model) in zip(sources, models):
                    if source.model is None:
                        release.retire(model)

        self.runner.start(job)
        self._set_running(True)

    def is_running(self) -> bool:
        return self.runner.running

    def cancel(self) -> None:
        self.runner.cancel()

    def shutdown(self) -> None:
        self.runner.shutdown()

    def set_hide_identical(self, hide: bool) -> None:
        self.hide_identical_check.setChecked(hide)

    def export_overlap_csv(self, path: str) -> None:
        self.overlap_model.to_csv(path)

    # -- building -----------------------------------------------------------------------------

    def _build(self) -> None:
        tokenizers = QGroupBox(f"Tokenizers ({MIN_TOKENIZERS}–{MAX_TOKENIZERS}; the first is A)")
        self.source_list = QListWidget()
        self.source_list.setMaximumHeight(110)
        self.add_current_button = QPushButton("Add &current model")
        self.add_current_button.clicked.connect(self.add_current)
        self.add_file_button = QPushButton("Add model f&ile…")
        self.add_file_button.clicked.connect(self._ask_add_file)
        self.format_combo = QComboBox()
        for name, info in FORMATS.items():
            if info.can_import:
                self.format_combo.addItem(info.label.rstrip("…"), name)
        self.import_button = QPushButton("I&mport…")
        self.import_button.setToolTip("Add a tokenizer written by another tool, in the "
                                      "format chosen on the left")
        self.import_button.clicked.connect(self._ask_import)
        self.plain_button = QPushButton("Plain vs parity-a&ware")
        self.plain_button.setToolTip(
            "For a model trained parity-aware: train plain BPE on the same corpora with "
            "the same settings and vocabulary size, and compare both on the development "
            "set, with each language's token cost (Languages tab)")
        self.plain_button.clicked.connect(lambda: self.compare_with_plain())
        self.remove_button = QPushButton("Remove")
        self.remove_button.clicked.connect(
            lambda: self.remove_source(self.source_list.currentRow()))
        enable_with_selection(self.remove_button, self.source_list)
        row1, row2 = QHBoxLayout(), QHBoxLayout()
        row1.addWidget(self.add_current_button)
        row1.addWidget(self.add_file_button)
        row1.addWidget(self.remove_button)
        row2.addWidget(self.format_combo, 1)
        row2.addWidget(self.import_button)
        row2.addWidget(self.plain_button)
        box = QVBoxLayout(tokenizers)
        box.addWidget(self.source_list)
        box.addLayout(row1)
        box.addLayout(row2)

        text_box = QGroupBox("Text")
        self.text_edit = QPlainTextEdit()
        follow_text_direction(self.text_edit)
        self.text_edit.setPlaceholderText("Type or paste text here, or open a text file")
        self.open_text_button = QPushButton("Open te&xt file…")
        self.open_text_button.clicked.connect(self._ask_text_file)
        self.clear_file_button = QPushButton("&Use typed text")
        self.clear_file_button.clicked.connect(lambda: self.set_text_file(None))
        self.text_file_label = QLabel()
        self.text_file_label.setWordWrap(True)
        file_row = QHBoxLayout()
        file_row.addWidget(self.open_text_button)
        file_row.addWidget(self.clear_file_button)
        tb = QVBoxLayout(text_box)
        tb.addWidget(self.text_edit, 1)
        tb.addLayout(file_row)
        tb.addWidget(self.text_file_label)

        self.compare_button = QPushButton("Compare")
        self.compare_button.setDefault(True)
        self.compare_button.setShortcut("Ctrl+Return")
        self.compare_button.setToolTip("Compare the tokenizers on the text (Ctrl+Enter)")
        self.compare_button.clicked.connect(self.start)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setToolTip("Stop the comparison (Esc)")
        self.cancel_button.clicked.connect(self.cancel)
        self.progress = QProgressBar()
        self.progress.setRange(0, 0)
        self.status_label = QLabel()
        self.status_label.setWordWrap(True)
        run_row = QHBoxLayout()
        run_row.addWidget(self.compare_button)
        run_row.addWidget(self.cancel_button)
        run_row.addWidget(self.progress, 1)
        left = QWidget()
        ll = QVBoxLayout(left)
        ll.addWidget(tokenizers)
        ll.addWidget(text_box, 1)
        ll.addLayout(run_row)
        ll.addWidget(self.status_label)

        self.approximation_warning = ApproximationWarning()
        self.results = QTabWidget()
        self.results.addTab(self._build_words(), "Words")
        self.results.addTab(self._build_summary(), "Summary")
        self.results.addTab(self._build_vocabulary(), "Vocabulary")
        self.languages = LanguageCostsView()
        self.results.addTab(self.languages, "Languages")
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(left)
        splitter.addWidget(above(self.approximation_warning, self.results))
        splitter.setStretchFactor(1, 1)
        layout = QVBoxLayout(self)
        layout.addWidget(splitter)
        self._show_text_file()
        self._set_running(False)

    def _build_words(self) -> QWidget:
        self.words_model = AlignedWordsModel(self)
        self.words_view = _table(self.words_model)
        self.hide_identical_check = QCheckBox("Hide ide&ntical")
        self.hide_identical_check.setToolTip("Hide the words every tokenizer cuts alike")
        self.hide_identical_check.toggled.connect(self.words_model.set_hide_identical)
        self.words_label = QLabel()
        page = QWidget()
        layout = QVBoxLayout(page)
        top = QHBoxLayout()
        top.addWidget(self.hide_identical_check)
        top.addStretch(1)
        top.addWidget(self.words_label)
        layout.addLayout(top)
        layout.addWidget(self.words_view, 1)
        layout.addWidget(_hint("Highlighted: cut differently from the first tokenizer. "
                               "Hover a cell for each token's id and merge rank."))
        return page

    def _build_summary(self) -> QWidget:
        self.pair_model = RowsModel(PAIR_HEADERS, self)
        self.metrics_model = RowsModel(("measure",), self)
        self.pair_combo = QComboBox()
        self.pair_combo.currentIndexChanged.connect(self._show_pair)
        self.scatter = LineTokensScatter()
        page = QWidget()
        layout = QVBoxLayout(page)
        layout.addWidget(_hint("<b>Pairs</b> (B's boundaries against A's; overlap of "
                               "the vocabularies)"))
        layout.addWidget(_table(self.pair_model), 1)
        layout.addWidget(QLabel("<b>Text statistics</b> (as in Evaluate)"))
        layout.addWidget(_table(self.metrics_model), 2)
        row = QHBoxLayout()
        row.addWidget(QLabel("<b>Tokens per line</b> for the pair"))
        row.addWidget(self.pair_combo, 1)
        layout.addLayout(row)
        layout.addWidget(self.scatter, 3)
        return page

    def _build_vocabulary(self) -> QWidget:
        self.overlap_model = OverlapModel(self)
        self.overlap_pair_combo = QComboBox()
        self.overlap_pair_combo.currentIndexChanged.connect(self._show_overlap)
        self.category_combo = QComboBox()
        for key, label in overlap_categories():
            self.category_combo.addItem(label, key)
        self.category_combo.currentIndexChanged.connect(
            lambda: self.overlap_model.set_category(self.category_combo.currentData()))
        self.overlap_label = QLabel()
        self.export_button = QPushButton("Export CSV…")
        self.export_button.clicked.connect(self._ask_export_csv)
        enable_with_rows(self.export_button, self.overlap_model)
        page = QWidget()
        layout = QVBoxLayout(page)
        top = QHBoxLayout()
        top.addWidget(self.overlap_pair_combo, 1)
        top.addWidget(self.category_combo)
        top.addWidget(self.export_button)
        layout.addLayout(top)
        layout.addWidget(self.overlap_label)
        layout.addWidget(_table(self.overlap_model), 1)
        layout.addWidget(_hint("Pieces are compared as the text they stand for: ▁x, "
                               "x</w> and GPT-2's Ġx are all x."))
        return page

    # -- slots --------------------------------------------------------------------------------

    @Slot(object)
    def _on_finished(self, comparison: Comparison | PlainVsParity) -> None:
        if isinstance(comparison, PlainVsParity):
            comparison = self._take_plain_vs_parity(comparison)
        self.comparison = comparison
        self.approximation_warning.show_models(zip(comparison.names,
                                                   comparison.approximations))
        self.languages.show_costs(comparison.language_costs, self._parallel_source)
        self.words_model.set_comparison(comparison)
        self.pair_model.set_rows(pair_rows(comparison))
        headers, rows = metrics_table(comparison)
        self.metrics_model.headers = headers
        self.metrics_model.set_rows(rows)
        labels = [f"{p.a} → {p.b}" for p in comparison.pairs]
        for combo in (self.pair_combo, self.overlap_pair_combo):
            combo.blockSignals(True)
            combo.clear()
            combo.addItems(labels)
            combo.blockSignals(False)
        self._show_pair(0)
        self._show_overlap(0)
        words = len(comparison.alignment.occurrences)
        self.words_label.setText(f"{counted(words, 'word')}, "
                                 f"{len(comparison.alignment.words):,} distinct")
        self._set_status(f"Compared {len(comparison.names)} tokenizers on "
                         f"{counted(words, 'word')}.")
        self.compared.emit()

    @Slot(object)
    def _take_plain_vs_parity(self, outcome: PlainVsParity) -> Comparison:
        """The pair becomes the panel's tokenizers and the development set its text."""
        self.sources = [Source(PLAIN_NAME, model=outcome.plain),
                        Source(outcome.comparison.names[1], model=outcome.parity)]
        self._refresh_sources()
        self.set_text("\n".join(line for code in outcome.dev.codes
                                 for line in outcome.dev.texts[code]))
        self.parallel = outcome.dev
        files = ", ".join(outcome.dev.files.values())
        self._parallel_source = f"the development set: {files}"
        self.results.setCurrentWidget(self.languages)
        return outcome.comparison

    @Slot(object)
    def _on_failed(self, error: JobError) -> None:
        if error.by_input:
            self._set_status(f"Comparison failed: {error.message}")
        dialogs.show_error(self, "Cannot compare" if error.by_input else "Comparison failed",
                           error.message, error.details_if_bug)

    def _show_pair(self, index: int) -> None:
        c = self.comparison
        if c is None or not 0 <= index < len(c.pairs):
            self.scatter.clear_counts()
            return
        i, j = c.pair_indices[index]
        self.scatter.set_counts(c.names[i], c.names[j], c.alignment.line_tokens[i],
                                c.alignment.line_tokens[j])

    def _show_overlap(self, index: int) -> None:
        c = self.comparison
        overlap = c.overlaps[index] if c is not None and 0 <= index < len(c.overlaps) else None
        self.overlap_model.set_overlap(overlap)
        if overlap is None:
            self.overlap_label.setText("")
            return
        s = overlap.summary()
        self.overlap_label.setText(f"{s['both']:,} in both, {s['only_a']:,} only in "
                                   f"{overlap.a}, {s['only_b']:,} only in {overlap.b}")

    def _ask_add_file(self) -> None:
        for path in dialogs.ask_open_paths(self, "Add model files", "model", MODEL_FILTER,
                                           multiple=True):
            self.add_file(path)

    def _ask_import(self) -> None:
        fmt = self.format_combo.currentData()
        info = FORMATS[fmt]
        for path in dialogs.ask_open_paths(self, f"Add {info.label.rstrip('…')}", "import",
                                           f"{info.file_filter};;All files (*)"):
            self.add_file(os.path.dirname(path) if info.writes_folder else path, fmt)

    def _ask_text_file(self) -> None:
        paths = dialogs.ask_open_paths(self, "Open a text to compare on", "text", TEXT_FILTER)
        if paths:
            self.set_text_file(paths[0])

    def _ask_export_csv(self) -> None:
        category = self.category_combo.currentData()
        path = dialogs.export_to_chosen_file(self, "Export the list as CSV",
                                             "CSV files (*.csv)", f"vocabulary-{category}.csv",
                                             self.export_overlap_csv)
        if path:
            self._set_status(f"Wrote {path}")

    # -- helpers ------------------------------------------------------------------------------

    def _unique(self, name: str) -> str:
        taken = {s.name for s in self.sources}
        candidate, n = name, 2
        while candidate in taken:
            candidate, n = f"{name} ({n})", n + 1
        return candidate

    def _refresh_sources(self) -> None:
        self.source_list.clear()
        for k, s in enumerate(self.sources):
            where = "" if s.path is None else f" — {s.path}" + (
                f" ({s.fmt})" if s.fmt != MODEL_FORMAT else "")
            self.source_list.addItem(f"{'ABCD'[k]}: {s.name}{where}")
        full = len(self.sources) >= MAX_TOKENIZERS
        self.add_current_button.setEnabled(
            not full and self._current is not None and not self._holds_current())
        for b in (self.add_file_button, self.import_button):
            b.setEnabled(not full)
        self._set_running(self.runner.running)

    def _plain_possible(self) -> bool:
        return self._current is not None and bool(self._current.config.parity_dev)

    def _show_text_file(self) -> None:
        path = self.text_path
        self.text_edit.setEnabled(path is None)
        self.clear_file_button.setEnabled(path is not None)
        self.text_file_label.setText("" if path is None else f"Comparing on the lines of {path}")

    def _set_running(self, running: bool) -> None:
        self.compare_button.setEnabled(not running and len(self.sources) >= MIN_TOKENIZERS)
        self.plain_button.setEnabled(not running and self._plain_possible())
        self.cancel_button.setEnabled(running)
        self.progress.setVisible(running)
        if not running:
            self.progress.setFormat("")

    def _set_status(self, text: str) -> None:
        self.status_label.setText(text)
        if text:
            self.status_message.emit(text)


def _hint(text: str) -> QLabel:
    """A label that wraps (so its text never sets the panel's minimum width)."""
    label = QLabel(text)
    label.setWordWrap(True)
    return label


#: A column sized to its contents is at most this wide (px); the user may widen it.
MAX_COLUMN_WIDTH = 420


def _table(model) -> QTableView:
    view = QTableView()
    view.setModel(model)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setTabKeyNavigation(False)  # rows are selected whole: Tab leaves the table
    header = view.horizontalHeader()
    header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    header.setStretchLastSection(True)
    # Widths from the rows in sight and 100 more, not Qt's 1,000: a comparison's tables
    # are refitted each time they are filled or filtered.
    header.setResizeContentsPrecision(100)
    view.verticalHeader().hide()
    copy_without_isolates(view)
    model.modelReset.connect(lambda: _fit_columns(view))
    return view


def _fit_columns(view: QTableView) -> None:
    """Each column as wide as its contents (names in full), up to MAX_COLUMN_WIDTH."""
    view.resizeColumnsToContents()
    header = view.horizontalHeader()
    for column in range(header.count()):
        if header.sectionSize(column) > MAX_COLUMN_WIDTH:
            header.resizeSection(column, MAX_COLUMN_WIDTH)
