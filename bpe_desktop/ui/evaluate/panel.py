"""The Evaluate panel: from "I have a gold file" to "this vocabulary size segments best".

Inputs (remembered): gold files, texts (files or pasted), translations with their
reference, the number of vocabulary sizes to sweep. Evaluate runs the core's
:func:`~bpe_desktop.core.evaluation.evaluate` in a worker thread (progress, Cancel);
results come back as tables, a per-word table with coloured boundaries, a parity bar
chart and metric curves over vocabulary size, where *Use this size* hands the cut model
to the main window (``use_model``).
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from bpe_desktop.core import BPEModel
from bpe_desktop.core.evaluation import (
    DEFAULT_SWEEP_POINTS,
    GOLD_FORMATS,
    PARITY_MODES,
    EvaluationReport,
    EvaluationRequest,
    evaluate,
    read_gold,
)
from bpe_desktop.core.evaluation.sweep import max_sweep_points
from bpe_desktop.core.evaluation.tables import (
    GOLD_HEADERS,
    MORPHOLOGY_HEADERS,
    PARITY_HEADERS,
    gold_notes,
    gold_rows,
    morphology_rows,
    parity_rows,
    text_table,
)
from bpe_desktop.core.file_labels import distinguishing_labels
from bpe_desktop.ui.codec.piece_view import StepView
from bpe_desktop.ui.common import dialogs
from bpe_desktop.ui.common.approximation_warning import ApproximationWarning, above
from bpe_desktop.ui.common.enabled_states import enable_with_rows
from bpe_desktop.ui.common.live_status import ProgressBar
from bpe_desktop.ui.common.settings import Settings
from bpe_desktop.ui.common.text_direction import follow_text_direction
from bpe_desktop.ui.common.workers import JobError, JobRunner
from bpe_desktop.ui.evaluate.character_map import CharacterMapEditor
from bpe_desktop.ui.evaluate.file_lists import FileList
from bpe_desktop.ui.common.plot_export import export_plot
from bpe_desktop.ui.evaluate.plots import ParityChart, SweepPlots
from bpe_desktop.ui.evaluate.result_tables import HtmlDelegate, result_table
from bpe_desktop.ui.evaluate.table_models import (
    BOUNDARY_COLORS,
    TEXT_LABELS,
    RowsModel,
    WordTableModel,
    sweep_table,
)
from bpe_desktop.ui.evaluate.unconstrained import UnconstrainedButton
from bpe_desktop.views.word_table import WordTable, word_table, word_tables

TEXT_FILTER = "Text files (*.txt *.tsv);;All files (*)"
# All files first: Morpho Challenge's gold files have no extension (formats are
# recognised from the lines).
GOLD_FILTER = "All files (*);;Gold segmentations (*.tsv *.txt *.csv)"
AUTO_FORMAT = "recognise automatically"
#: The most vocabulary sizes the form offers (a model with fewer merges offers fewer).
SWEEP_SPIN_MAX = 200


class EvaluatePanel(QWidget):
    status_message = Signal(str)
    #: "Use this size": the model cut to the chosen vocabulary size (a new, unsaved model).
    use_model = Signal(object)
    #: An evaluation finished and its results are shown.
    evaluated = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._model: BPEModel | None = None
        self.report: EvaluationReport | None = None
        self._word_tables: dict[str, WordTable] = {}  # the report's, by gold file
        self._evaluated_model: BPEModel | None = None
        self._handed_over: BPEModel | None = None  # the model "Use this size" made
        self.runner = JobRunner(self)
        self.runner.progressed.connect(self._on_progress)
        self.runner.finished.connect(self._on_finished)
        self.runner.failed.connect(self._on_failed)
        self.runner.cancelled.connect(lambda: self._set_status("Evaluation cancelled."))
        self.runner.stopped.connect(lambda: self._set_running(False))
        self._build()
        self._show_report(None)
        self.set_model(None)

    # -- public API -------------------------------------------------------------------------

    def set_model(self, model: BPEModel | None) -> None:
        """Evaluate ``model`` from now on; results of another model are cleared."""
        if self.runner.running:
            self.runner.shutdown()
        if self.unconstrained_button.runner.running:
            self.unconstrained_button.shutdown()
        self._model = model
        # more sizes than merge counts (0 to all merges) would only repeat points
        most = SWEEP_SPIN_MAX if model is None else min(SWEEP_SPIN_MAX, max_sweep_points(model))
        self.sweep_points.setMaximum(max(2, most))
        if model is not None and model is self._handed_over and self.report is not None:
            # "Use this size": the curves stay, the current-size mark moves
            self.sweep_plots.set_points(self.report.sweep, model.vocab_size)
            self._on_size_selected()
            return
        self._handed_over = None
        if self.report is not None:  # (clearing views already clear costs a repaint)
            self._show_report(None)
        self._update_enabled()
        self._set_status("" if model else "Train or open a model to evaluate it.")

    def use_parallel_texts(self, paths: list[str], mode: str) -> None:
        """Take these translations (a parity-aware run's development set) for the parity
        chart, in ``mode`` ("document" or "lines")."""
        self.parallel_files.clear()
        self.parallel_files.add_paths(paths)
        self.parity_mode_combo.setCurrentText(mode)

    def request(self) -> EvaluationRequest:
        """What the inputs ask for (gold files are parsed by the job)."""
        pasted = self.pasted_edit.toPlainText()
        return EvaluationRequest(
            text_files=self.text_files.paths(), texts=[pasted] if pasted.strip() else [],
            parallel_files=self.parallel_files.paths(),
            reference=self.reference_combo.currentData() or None,
            parity_mode=self.parity_mode_combo.currentText(),
            sweep=self.sweep_points.value() if self.sweep_check.isChecked() else 0,
            character_map=self.character_map.mapping())

    def start(self) -> None:
        """Run the evaluation in the background."""
        if self._model is None or self.runner.running:
            return
        model, request = self._model, self.request()
        gold_paths = self.gold_files.paths()
        fmt = self.gold_format_combo.currentData()
        if not (gold_paths or request.has_text or request.parallel_files):
            self._set_status("Add a gold file, a text or translations first.")
            return
        if gold_paths and (problem := self.character_map.problem()):
            self._set_status(problem)
            return

        def job(report, cancel):
            report(("reading gold files", 0, 1))
            request.gold = [read_gold(p, fmt) for p in gold_paths]
            result = evaluate(model, request, cancelled=lambda: cancel.cancelled,
                              progress=lambda stage, done, total: report((stage, done, total)))
            return result, word_tables(result)

        self._evaluated_model = model
        self.runner.start(job)
        self._set_running(True)

    def is_running(self) -> bool:
        """An evaluation or a comparison with the unconstrained model is running."""
        return self.runner.running or self.unconstrained_button.runner.running

    def cancel(self) -> None:
        """Stop the evaluation, or the comparison with the unconstrained model."""
        self.runner.cancel()
        self.unconstrained_button.cancel()

    def shutdown(self) -> None:
        self.runner.shutdown()
        self.unconstrained_button.shutdown()

    def select_size(self, index: int) -> None:
        """Choose the sweep's point ``index`` (marked in the plots; Use this size)."""
        self.sizes_view.selectRow(index)

    def use_selected_size(self) -> None:
        point = self._selected_point()
        if point is None or self._evaluated_model is None:
            return
        self._handed_over = self._evaluated_model.truncated(point.merges)
        self.use_model.emit(self._handed_over)
        self.status_message.emit(f"Now using the first {point.merges:,} merges "
                                 f"({point.vocab_size:,} tokens); save it to keep it.")

    def export_csv(self, which: str, path: str) -> None:
        """Write a result table as CSV: summary (morphology), text, words, parity, sizes."""
        self._table_models()[which].to_csv(path)

    def _table_models(self) -> dict[str, RowsModel]:
        return {"summary": self.morphology_model, "gold": self.gold_model,
                "text": self.text_model, "words": self.word_model,
                "parity": self.parity_model, "sizes": self.sizes_model}

    def export_plot(self, which: str, path: str) -> None:
        """Write a plot as PNG or SVG: ``parity`` or one of the sweep's curves."""
        widget = self.parity_chart if which == "parity" else self.sweep_plots.widgets[which]
        export_plot(widget, path)

    # -- building -----------------------------------------------------------------------------

    def _build(self) -> None:
        #: The Export buttons of the result tabs, by table and by plot ("sizes": the
        #: curve chosen beside it), for the menu (bpe_desktop.ui.window.panel_menus).
        self.csv_buttons: dict[str, QPushButton] = {}
        self.plot_buttons: dict[str, QPushButton] = {}
        inputs = QGroupBox("What to evaluate")
        form = QFormLayout(inputs)
        self.gold_files = FileList("gold_files", "Add gold segmentations", GOLD_FILTER)
        self.gold_format_combo = QComboBox()
        self.gold_format_combo.addItem(AUTO_FORMAT, None)
        for fmt in GOLD_FORMATS:
            self.gold_format_combo.addItem(fmt, fmt)
        saved = Settings().value("evaluate/gold_format", "")
        if saved in GOLD_FORMATS:
            self.gold_format_combo.setCurrentIndex(GOLD_FORMATS.index(saved) + 1)
        self.gold_format_combo.currentIndexChanged.connect(
            lambda: Settings().set_value("evaluate/gold_format",
                                         self.gold_format_combo.currentData() or ""))
        self.character_map = CharacterMapEditor()
        self.text_files = FileList("text_files", "Add evaluation texts", TEXT_FILTER)
        self.pasted_edit = QPlainTextEdit()
        follow_text_direction(self.pasted_edit)
        self.pasted_edit.setPlaceholderText("…or paste text here")
        self.pasted_edit.setMaximumHeight(60)
        self.parallel_files = FileList("parallel_files", "Add translations of one text",
                                       TEXT_FILTER)
        self.parallel_files.changed.connect(self._fill_references)
        self.reference_combo = QComboBox()
        self.reference_combo.currentIndexChanged.connect(self._remember_reference)
        self.parity_mode_combo = QComboBox()
        self.parity_mode_combo.addItems(PARITY_MODES)
        self.parity_mode_combo.setToolTip("document: whole texts; lines: line-aligned files")
        self.sweep_check = QCheckBox("Compare vocabulary si&zes")
        self.sweep_check.setChecked(Settings().value("evaluate/sweep", "true") in (True, "true"))
        self.sweep_check.toggled.connect(lambda on: Settings().set_value("evaluate/sweep", on))
        self.sweep_points = QSpinBox()
        self.sweep_points.setRange(2, SWEEP_SPIN_MAX)
        self.sweep_points.setValue(DEFAULT_SWEEP_POINTS)
        self.sweep_points.setSuffix(" sizes")
        sweep_row = QHBoxLayout()
        sweep_row.addWidget(self.sweep_check)
        sweep_row.addWidget(self.sweep_points)
        sweep_row.addStretch(1)
        form.addRow("Gold segmentations:", self.gold_files)
        form.addRow("Gold format:", self.gold_format_combo)
        form.addRow("Character mapping:", self.character_map)
        form.addRow("Texts:", self.text_files)
        form.addRow("", self.pasted_edit)
        form.addRow("Translations:", self.parallel_files)
        parity_row = QHBoxLayout()
        parity_row.addWidget(QLabel("reference"))
        parity_row.addWidget(self.reference_combo, 1)
        parity_row.addWidget(QLabel("mode"))
        parity_row.addWidget(self.parity_mode_combo)
        form.addRow("", parity_row)
        form.addRow("", sweep_row)

        self.evaluate_button = QPushButton("Evaluate")
        self.evaluate_button.setDefault(True)
        self.evaluate_button.setShortcut("Ctrl+Return")
        self.evaluate_button.setToolTip("Evaluate the model on the inputs above (Ctrl+Enter)")
        self.evaluate_button.clicked.connect(self.start)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setToolTip("Stop the evaluation (Esc)")
        self.cancel_button.clicked.connect(self.cancel)
        self.progress = ProgressBar()  # a value per evaluated file (live_status)
        self.progress.setTextVisible(True)
        self.status_label = QLabel()
        self.status_label.setWordWrap(True)
        run_row = QHBoxLayout()
        run_row.addWidget(self.evaluate_button)
        run_row.addWidget(self.cancel_button)
        run_row.addWidget(self.progress, 1)
        self.unconstrained_button = UnconstrainedButton(self)
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.addWidget(inputs)
        left_layout.addLayout(run_row)
        left_layout.addWidget(self.unconstrained_button)
        left_layout.addWidget(self.status_label)
        left_layout.addStretch(1)

        self.approximation_warning = ApproximationWarning()
        self.results = QTabWidget()
        self.results.addTab(self._build_summary(), "Summary")
        self.results.addTab(self._build_words(), "Words")
        self.results.addTab(self._build_parity(), "Parity")
        self.results.addTab(self._build_sizes(), "Vocabulary size")
        # The inputs scroll in a short window instead of setting the window's least height.
        left_scroll = QScrollArea()
        left_scroll.setWidgetResizable(True)
        left_scroll.setFrameShape(QFrame.Shape.NoFrame)
        left_scroll.setWidget(left)
        left_scroll.setMinimumWidth(left.minimumSizeHint().width())
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(left_scroll)
        splitter.addWidget(above(self.approximation_warning, self.results))
        splitter.setStretchFactor(1, 1)
        layout = QVBoxLayout(self)
        layout.addWidget(splitter)
        # An export is enabled while its table has rows; a plot's data are its table's.
        for which, button in self.csv_buttons.items():
            enable_with_rows(button, self._table_models()[which])
        enable_with_rows(self.plot_buttons["parity"], self.parity_model)
        enable_with_rows(self.plot_buttons["sizes"], self.sizes_model)
        self._fill_references()
        self._set_running(False)

    def _export_buttons(self, csv_which: str, plot_which: str | None = None) -> QHBoxLayout:
        row = QHBoxLayout()
        row.addStretch(1)
        csv_button = self.csv_buttons[csv_which] = QPushButton("Export CSV…")
        csv_button.clicked.connect(lambda: self._ask_export_csv(csv_which))
        row.addWidget(csv_button)
        if plot_which is not None:
            plot_button = self.plot_buttons[plot_which] = QPushButton("Export plot…")
            plot_button.clicked.connect(lambda: self._ask_export_plot(plot_which))
            row.addWidget(plot_button)
        return row

    def _build_summary(self) -> QWidget:
        self.morphology_model = RowsModel(MORPHOLOGY_HEADERS, self)
        self.gold_model = RowsModel(GOLD_HEADERS, self)
        self.text_model = RowsModel(("measure", "value"), self)
        page = QWidget()
        layout = QVBoxLayout(page)
        layout.addWidget(QLabel("<b>Morphology</b> (boundaries against the gold files)"))
        self.morphology_view = result_table(self.morphology_model)
        layout.addWidget(self.morphology_view)
        layout.addLayout(self._export_buttons("summary"))
        layout.addWidget(QLabel("<b>Gold files</b> (do their words match the training text?)"))
        self.gold_warning = QLabel()
        self.gold_warning.setObjectName("gold_warning")
        self.gold_warning.setWordWrap(True)
        self.gold_warning.setStyleSheet(f"color: {BOUNDARY_COLORS['missed']}")
        layout.addWidget(self.gold_warning)
        self.gold_view = result_table(self.gold_model)
        # a few gold files: the rows they need, the rest of the page for the text table
        self.gold_view.setMaximumHeight(self.gold_view.fontMetrics().height() * 9)
        layout.addWidget(self.gold_view)
        self.gold_notes = QLabel()
        self.gold_notes.setWordWrap(True)
        layout.addWidget(self.gold_notes)
        layout.addWidget(QLabel("<b>Text</b>"))
        self.text_view = result_table(self.text_model, sortable=False)
        layout.addWidget(self.text_view)
        layout.addLayout(self._export_buttons("text"))
        return page

    def _build_words(self) -> QWidget:
        self.word_model = WordTableModel(self)
        self.gold_combo = QComboBox()
        self.gold_combo.currentIndexChanged.connect(self._show_words)
        self.only_missed = QCheckBox("Only words with &missed boundaries")
        self.only_missed.toggled.connect(self.word_model.set_only_missed)
        legend = QLabel(" ".join(
            f"<b style='color:{BOUNDARY_COLORS[k]}'>{'|' if k != 'missed' else '¦'}</b> {k}"
            for k in ("hit", "missed", "spurious")))
        top = QHBoxLayout()
        top.addWidget(self.gold_combo)
        top.addWidget(self.only_missed)
        top.addStretch(1)
        top.addWidget(legend)
        self.words_view = result_table(self.word_model)
        self.words_view.setItemDelegateForColumn(2, HtmlDelegate(self.words_view))
        self.words_view.selectionModel().selectionChanged.connect(self._on_word_selected)
        self.step_view = StepView()
        self.step_view.setMaximumHeight(160)
        page = QWidget()
        layout = QVBoxLayout(page)
        layout.addLayout(top)
        layout.addWidget(self.words_view, 1)
        layout.addWidget(QLabel("Merge steps of the selected word:"))
        layout.addWidget(self.step_view)
        layout.addLayout(self._export_buttons("words"))
        return page

    def _build_parity(self) -> QWidget:
        self.parity_model = RowsModel(PARITY_HEADERS, self)
        self.parity_chart = ParityChart()
        page = QWidget()
        layout = QVBoxLayout(page)
        layout.addWidget(self.parity_chart, 2)
        layout.addWidget(result_table(self.parity_model), 1)
        layout.addLayout(self._export_buttons("parity", "parity"))
        return page

    def _build_sizes(self) -> QWidget:
        self.sizes_model = RowsModel(("vocabulary size", "merges"), self)
        self.sweep_plots = SweepPlots()
        self.sweep_plots.point_clicked.connect(self.select_size)
        self.sizes_view = result_table(self.sizes_model, sortable=False)
        self.sizes_view.selectionModel().selectionChanged.connect(self._on_size_selected)
        self.use_size_button = QPushButton("&Use this size")
        self.use_size_button.setToolTip("Make the model cut to the chosen size the open "
                                        "model (unsaved); every panel follows it")
        self.use_size_button.clicked.connect(self.use_selected_size)
        self.plot_choice = QComboBox()
        self.plot_choice.addItems(list(self.sweep_plots.widgets))
        row = self._export_buttons("sizes")
        row.insertWidget(0, self.use_size_button)
        plot_button = self.plot_buttons["sizes"] = QPushButton("Export plot…")
        plot_button.clicked.connect(lambda: self._ask_export_plot(self.plot_choice.currentText()))
        row.addWidget(self.plot_choice)
        row.addWidget(plot_button)
        page = QWidget()
        layout = QVBoxLayout(page)
        layout.addWidget(self.sweep_plots, 3)
        layout.addWidget(self.sizes_view, 1)
        layout.addLayout(row)
        return page

    # -- running --------------------------------------------------------------------------------

    def _set_running(self, running: bool) -> None:
        self.progress.setVisible(running)
        if running:
            self.progress.setRange(0, 0)
            self._set_status("Evaluating…")
        self._update_enabled()

    def _update_enabled(self) -> None:
        self.evaluate_button.setEnabled(self._model is not None and not self.runner.running)
        self.cancel_button.setEnabled(self.runner.running
                                      or self.unconstrained_button.runner.running)
        self.unconstrained_button.update_enabled()

    @Slot(object)
    def _on_progress(self, payload) -> None:
        stage, done, total = payload
        if total > 1:
            self.progress.setRange(0, total)
            self.progress.setValue(done)
        self.progress.setFormat(f"{stage} %v/%m" if total > 1 else stage)

    @Slot(object)
    def _on_finished(self, outcome: tuple[EvaluationReport, dict[str, WordTable]]) -> None:
        report, self._word_tables = outcome
        self._show_report(report)
        warned = sum(1 for g in report.gold.values() if g.warning)
        self._set_status(f"Evaluated {report.vocab_size:,} tokens, {report.merges:,} merges."
                         + (f" ⚠ {warned} gold file{'s' if warned > 1 else ''} may not match "
                            "the training text (see Summary)." if warned else ""))
        self.evaluated.emit()

    @Slot(object)
    def _on_failed(self, error: JobError) -> None:
        if error.by_input:
            self._set_status(f"Evaluation failed: {error.message}")
        dialogs.show_error(self, "Cannot evaluate" if error.by_input else "Evaluation failed",
                           error.message, error.details_if_bug)

    def _set_status(self, text: str) -> None:
        self.status_label.setText(text)
        if text:
            self.status_message.emit(text)

    # -- showing results ----------------------------------------------------------------------

    def _show_report(self, report: EvaluationReport | None) -> None:
        self.report = report
        if report is None:
            self._word_tables = {}
        self.approximation_warning.show_models([("", report.approximations)] if report else [])
        self.morphology_model.set_rows(morphology_rows(report.morphology) if report else [])
        self.gold_model.set_rows(gold_rows(report.gold) if report else [])
        golds = report.gold.values() if report else []
        self.gold_warning.setText("\n".join(f"⚠ {g.warning}" for g in golds if g.warning))
        self.gold_notes.setText("\n".join(n for g in golds for n in gold_notes(g)
                                          if not n.startswith("⚠")))
        headers, rows = text_table(report) if report and report.text else (["measure"], [])
        self.text_model.headers = headers
        self.text_model.set_rows([[TEXT_LABELS[r[0]], *r[1:]] for r in rows])
        self.parity_model.set_rows(parity_rows(report.parity) if report else [])
        self.parity_chart.set_parity(report.parity if report else None)
        self.gold_combo.blockSignals(True)
        self.gold_combo.clear()
        self.gold_combo.addItems(list(report.morphology) if report else [])
        self.gold_combo.blockSignals(False)
        self._show_words()
        points = report.sweep if report else []
        headers, rows = sweep_table(points)
        self.sizes_model.headers = headers
        self.sizes_model.set_rows(rows)
        self.sweep_plots.set_points(points, report.vocab_size if report else None)
        current = next((i for i, p in enumerate(points) if report and
                        p.merges == report.merges), None)
        if current is not None:
            self.select_size(current)
        self._on_size_selected()

    def _show_words(self) -> None:
        name = self.gold_combo.currentText()
        table = self._word_tables.get(name) if self.report else None
        self.word_model.set_table(table or word_table([]))
        self.step_view.show_steps([], 0, None, None)

    def _on_word_selected(self, *_args) -> None:
        rows = self.words_view.selectionModel().selectedRows()
        model = self._evaluated_model
        if not rows or model is None:
            self.step_view.show_steps([], 0, None, None)
            return
        word = self.word_model.result_at(rows[0].row()).word
        steps = model.tokenizer().merge_steps(word)
        unk = model.config.special("unk")
        self.step_view.show_steps(steps, len(steps) - 1, model.config,
                                  unk.piece if unk else None)

    def _selected_point(self):
        rows = self.sizes_view.selectionModel().selectedRows()
        if not rows or self.report is None or not self.report.sweep:
            return None
        return self.report.sweep[rows[0].row()]

    def _on_size_selected(self, *_args) -> None:
        point = self._selected_point()
        self.use_size_button.setEnabled(point is not None and self.report is not None
                                        and point.merges != self.report.merges)
        self.sweep_plots.mark_chosen(self.report.sweep.index(point) if point else None)

    # -- references and exports ------------------------------------------------------------------

    def _fill_references(self) -> None:
        saved = Settings().value("evaluate/reference", "")
        self.reference_combo.blockSignals(True)
        self.reference_combo.clear()
        paths = self.parallel_files.paths()  # distinct: the list keeps each file once
        # named as the parity table names them (de/udhr.txt, fr/udhr.txt where names repeat)
        for label, path in zip(distinguishing_labels(paths), paths):
            self.reference_combo.addItem(label, path)
        index = self.reference_combo.findData(saved)
        self.reference_combo.setCurrentIndex(max(0, index))
        self.reference_combo.blockSignals(False)

    def _remember_reference(self) -> None:
        Settings().set_value("evaluate/reference", self.reference_combo.currentData() or "")

    def _ask_export_csv(self, which: str) -> None:
        path = dialogs.export_to_chosen_file(
            self, "Export table as CSV", "CSV files (*.csv)", f"evaluation-{which}.csv",
            lambda chosen: self.export_csv(which, chosen))
        if path:
            self.status_message.emit(f"Saved {path}")

    def _ask_export_plot(self, which: str) -> None:
        path = dialogs.export_to_chosen_file(
            self, "Export plot", "PNG image (*.png);;SVG image (*.svg)", f"{which}.png",
            lambda chosen: self.export_plot(which, chosen))
        if path:
            self.status_message.emit(f"Saved {path}")
