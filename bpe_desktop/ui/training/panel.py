"""The Training panel: corpus files, options, Train/Cancel, live progress, plot and log."""

from __future__ import annotations

import logging
import time

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QGroupBox,
    QHBoxLayout,
    QMenu,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QSplitter,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from bpe_desktop.core import BpeError, BPEModel, Corpus, CorpusError, TrainConfig, TrainResult
from bpe_desktop.views.eta import StageEta, stage_eta
from bpe_desktop.views.option_messages import form_message
from bpe_desktop.core.formatting import (
    describe_config,
    describe_stage,
    format_bytes,
    format_seconds,
)
from bpe_desktop.core.languages import needs_languages
from bpe_desktop.core.morfessor_source import SegmenterProgress
from bpe_desktop.core.multilingual import describe_languages
from bpe_desktop.core.text_files import skipped_message, without_empty_files
from bpe_desktop.ui.common import dialogs
from bpe_desktop.ui.common.enabled_states import enable_with_selection
from bpe_desktop.ui.common.live_status import ProgressBar, StatusLine
from bpe_desktop.ui.common.passes import StepsInPasses
from bpe_desktop.ui.common.settings import Settings
from bpe_desktop.ui.common.single_dialog import SingleDialog
from bpe_desktop.ui.common.workers import JobError, JobRunner
from bpe_desktop.ui.training.corpus_list import CorpusList
from bpe_desktop.ui.training.examples import Example, examples
from bpe_desktop.ui.training.jobs import (MemoryChecked, TrainingUpdate, memory_job,
                                          replaceable, training_job)
from bpe_desktop.ui.training.language_plot import LanguageCurves
from bpe_desktop.ui.training.options import TrainingOptions
from bpe_desktop.ui.training.plot import MergeCountPlot
from bpe_desktop.ui.training.run_log import finished_log, no_merges_reason, outcome_log
from bpe_desktop.ui.training.segmentation import SegmentationDialog
from bpe_desktop.ui.training.start_from import ExtendOutcome, StartFrom, extend_job

log = logging.getLogger(__name__)

#: The options group box's own margins around its scroll area (px, both sides).
OPTIONS_MARGIN = 24


class TrainingPanel(QWidget):
    #: A finished run (TrainResult); the main window makes it the current model.
    trained = Signal(object)
    failed = Signal(object)  # JobError
    cancelled = Signal()
    #: Each progress update after it reached the GUI (TrainingUpdate).
    progressed = Signal(object)
    running_changed = Signal(bool)
    #: The Train button was pressed: the main window decides (unsaved model?) and calls start().
    train_requested = Signal()
    #: After a parity-aware run, the user asks to compare it with plain BPE:
    #: (the model, whether its languages' files are word-count tables, how the run read
    #: invalid UTF-8).
    compare_plain_requested = Signal(object, bool, str)
    status_message = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        #: The window's current model, and the one whose merge counts the plot shows.
        self._model: BPEModel | None = None
        self._plotted: BPEModel | None = None
        self.runner = JobRunner(self)
        self.runner.progressed.connect(self._on_progress)
        self.runner.finished.connect(self._on_finished)
        self.runner.failed.connect(self._on_failed)
        self.runner.cancelled.connect(self._on_cancelled)
        self._eta = StageEta()
        self._started_at = 0.0
        #: The corpus and options of the run being started or running.
        self._run: tuple[Corpus, TrainConfig] | None = None
        #: The last parity-aware run's model and whether it read word-count tables.
        self._parity_run: tuple[BPEModel, bool, str] | None = None
        #: What the language plot showed before the running training (its snapshot).
        self._kept_curves: tuple | None = None
        #: What a started run does after the pass that answered the click, one step per
        #: event-loop pass: locking the form repaints every option.
        self._after_start = StepsInPasses(self)
        #: The last run's Morfessor segmentation (word -> morphs), if it ran.
        self.segmentation: dict[str, tuple[str, ...]] = {}
        self._segmentation_window: SingleDialog[SegmentationDialog] = SingleDialog()
        self._build()
        self._restore_defaults()

    # -- layout ---------------------------------------------------------------------------

    def _build(self) -> None:
        self.corpus = CorpusList()
        self.corpus.message.connect(self.log)
        self.corpus.changed.connect(self._update_buttons)
        self.add_files_button = QPushButton("Add files…")
        self.add_files_button.setToolTip("Choose corpus files (plain text or .gz)")
        self.add_files_button.clicked.connect(self.ask_add_files)
        self.add_folder_button = QPushButton("Add folder…")
        self.add_folder_button.setToolTip("Add every text file in a folder and its subfolders")
        self.add_folder_button.clicked.connect(self.ask_add_folder)
        self.remove_button = QPushButton("Remove")
        self.remove_button.clicked.connect(self.corpus.remove_selected)
        enable_with_selection(self.remove_button, self.corpus)
        self.examples_button = QToolButton()
        self.examples_button.setText("Examples")
        self.examples_button.setToolTip("Load an example corpus with matching options")
        self.examples_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QMenu(self.examples_button)
        for ex in examples():
            menu.addAction(ex.label, lambda ex=ex: self.load_example(ex))
        self.examples_button.setMenu(menu)
        file_buttons = QHBoxLayout()
        for w in (self.add_files_button, self.add_folder_button, self.remove_button):
            file_buttons.addWidget(w)
        file_buttons.addStretch(1)
        file_buttons.addWidget(self.examples_button)
        corpus_box = QGroupBox("Corpus")
        corpus_layout = QVBoxLayout(corpus_box)
        corpus_layout.addWidget(self.corpus)
        corpus_layout.addLayout(file_buttons)

        self.options = TrainingOptions()
        self.options.changed.connect(self._save_defaults)
        self.options.word_counts.toggled.connect(self.corpus.set_word_counts)
        options_scroll = QScrollArea()
        options_scroll.setWidgetResizable(True)
        # Narrower than the form needs (a small window, large desktop fonts): a scroll bar,
        # never combo arrows or check box labels cut off on the right.
        options_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        options_scroll.setWidget(self.options)
        options_box = QGroupBox("Options")
        QVBoxLayout(options_box).addWidget(options_scroll)

        self.start_from = StartFrom()
        self.start_from.changed.connect(self._sync_form)
        left = QSplitter(Qt.Orientation.Vertical)
        left.addWidget(corpus_box)
        left.addWidget(self.start_from)
        left.addWidget(options_box)
        left.setStretchFactor(2, 2)

        self.train_button = QPushButton("Train")
        self.train_button.setToolTip("Learn a model from the corpus (F5)")
        self.train_button.setDefault(True)
        self.train_button.clicked.connect(self.train_requested)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setToolTip("Stop training; the current model stays (Esc)")
        self.cancel_button.clicked.connect(self.cancel)
        # Both change ten times a second while training: widgets that neither re-lay out
        # the window nor paint in a pass of their own (live_status).
        self.progress_bar = ProgressBar()
        self.progress_bar.setRange(0, 1000)
        self.progress_bar.setTextVisible(True)
        self.stage_label = StatusLine("Ready.")
        self.segmentation_button = QPushButton("Segmentation…")
        self.segmentation_button.setToolTip(
            "Review, edit and save the Morfessor segmentation of the last run, to reuse it "
            "as gold boundaries")
        self.segmentation_button.setEnabled(False)
        self.segmentation_button.clicked.connect(self.show_segmentation)
        run_row = QHBoxLayout()
        run_row.addWidget(self.train_button)
        run_row.addWidget(self.cancel_button)
        run_row.addWidget(self.progress_bar, 1)
        run_row.addWidget(self.segmentation_button)
        self.compare_plain_button = QPushButton("Compare with plain BPE")
        self.compare_plain_button.setToolTip(
            "Train plain BPE on the same corpora, settings and vocabulary size, and compare "
            "it with this parity-aware model on the development set (Compare panel)")
        self.compare_plain_button.hide()  # shown after a parity-aware run
        self.compare_plain_button.clicked.connect(self._ask_compare_plain)
        run_row.addWidget(self.compare_plain_button)

        self.plot = MergeCountPlot()
        self.language_plot = LanguageCurves()  # shown for parity-aware runs
        self.language_plot.hide()
        self.log_view = QPlainTextEdit()
        self.log_view.setReadOnly(True)
        self.log_view.setMaximumBlockCount(5000)
        self.log_view.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.log_view.setPlaceholderText("Training messages appear here.")

        right_top = QWidget()
        right_layout = QVBoxLayout(right_top)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.addLayout(run_row)
        right_layout.addWidget(self.stage_label)
        plots = QHBoxLayout()
        plots.addWidget(self.plot, 1)
        plots.addWidget(self.language_plot, 1)
        right_layout.addLayout(plots, 1)
        right = QSplitter(Qt.Orientation.Vertical)
        right.addWidget(right_top)
        right.addWidget(self.log_view)
        right.setStretchFactor(0, 3)
        right.setStretchFactor(1, 1)

        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(left)
        split.addWidget(right)
        split.setStretchFactor(1, 1)
        # The options' column as wide as its form needs (at least 480 px of 1,200).
        need = (self.options.minimumSizeHint().width()
                + options_scroll.verticalScrollBar().sizeHint().width()
                + 2 * options_scroll.frameWidth() + OPTIONS_MARGIN)
        split.setSizes([max(480, need), 720])
        layout = QVBoxLayout(self)
        layout.addWidget(split)
        self._update_buttons()

    # -- corpus ---------------------------------------------------------------------------

    def ask_add_files(self) -> None:
        paths = dialogs.ask_open_paths(self, "Add corpus files", "corpus",
                                       "Text files (*.txt *.text *.gz *.tsv *.tok);;All files (*)",
                                       multiple=True)
        if paths:
            self.corpus.add_paths(paths)

    def ask_add_folder(self) -> None:
        folder = dialogs.ask_folder(self, "Add a corpus folder", "corpus")
        if folder:
            self.corpus.add_paths([folder])

    def example(self, key: str) -> Example:
        return next(ex for ex in examples() if ex.key == key)

    def load_example(self, example: Example) -> None:
        if self.running:
            return
        self.corpus.clear_files()
        self.corpus.add_paths(list(example.files))
        self.options.set_config(example.config)
        self.options.word_counts.setChecked(example.word_counts)
        self.options.preset.setCurrentIndex(0)  # the papers' settings
        self.start_from.choice.setCurrentIndex(0)  # an example trains a new vocabulary
        self.log(f"Example loaded: {example.label}. Press Train (F5).")

    # -- running --------------------------------------------------------------------------

    @property
    def encoding_errors(self) -> str:
        """How the current (or last) training reads invalid UTF-8: as the form says, or
        ``replace`` once the user chose to go on with replacement characters."""
        return self._run[0].errors if self._run is not None else \
            self.options.errors.currentData()

    @property
    def running(self) -> bool:
        return self.runner.running

    def corpus_ready(self) -> bool:
        """Whether the corpus list can be trained on; if not, the reason is shown (before
        anything else is asked: the window checks this before offering to save)."""
        if (refusal := self.corpus.refusal()) is not None:
            dialogs.show_error(self, *refusal)
            return False
        return True

    def form_config(self) -> TrainConfig:
        """The options with the corpus list's languages and weights, as Train runs them
        (one labelled language trains as its files); raises BpeError."""
        lang, weight = self.corpus.language_entries()
        config = self.options.config(lang=lang, weight=weight)
        return config if needs_languages(config) else config.replace(lang=(), weight=())

    def start(self) -> bool:
        """Validate and start training; False (with the reason shown) if it cannot start.

        A run first estimates, in the worker, the memory it will need (it reads a sample
        of the corpus, which may sit on a slow disk); if that is more than the computer
        has free, the user decides whether to go on.
        """
        if self.running or not self.corpus_ready():
            return False
        paths = self.corpus.paths()
        try:
            kept, skipped = without_empty_files(paths)
        except BpeError as exc:  # every file is empty
            dialogs.show_error(self, "Empty corpus", str(exc))
            return False
        try:
            config = self.form_config()
            corpus = Corpus.from_files(kept, word_counts=self.options.word_counts.isChecked(),
                                       errors=self.options.errors.currentData())
        except BpeError as exc:
            dialogs.show_error(self, "Invalid training options", form_message(exc))
            return False
        if skipped:  # one empty file in a folder of texts does not stop a run
            message = skipped_message(skipped)
            self.log(message[:1].upper() + message[1:])
        paths = kept
        self._started_at = time.monotonic()
        extension = self.start_from.request()
        if self.start_from.extending:
            return self._start_extension(extension, corpus)
        self._run = (corpus, config)
        self.plot.clear_counts()  # its step axis is set with the first progress
        self._start_language_plot(config)
        self.stage_label.setText("Estimating the memory needed…")
        self.progress_bar.setRange(0, 0)
        message = (f"Training on {len(paths)} file(s), "
                   f"{format_bytes(self.corpus.total_size())}: {describe_config(config)}")
        self.runner.start(memory_job(paths, config, corpus.file_format == "word-counts"))
        self._set_running(True)
        # Answered: the rest follows one step per pass; locking the form (it repaints every
        # option) first. If the run ends before, the steps run then.
        self._after_start.later(self._sync_form, self._save_defaults, lambda: self.log(message))
        return True

    def _start_language_plot(self, config: TrainConfig) -> None:
        # The curves of the model that stays are kept, should this run fail or be cancelled.
        self._kept_curves = self.language_plot.snapshot()
        self.language_plot.clear_curves()
        self.language_plot.setVisible(bool(config.parity_dev))
        self.language_plot.set_documents(config.parity_dev_documents)

    def _start_extension(self, request, corpus: Corpus) -> bool:
        """Extend the chosen tokenizer on the corpus (Start from: an existing tokenizer)."""
        if request is None:
            dialogs.show_error(self, "No tokenizer", "Choose the tokenizer to start from "
                               "(Start from: an existing tokenizer…).")
            return False
        if (problem := self.start_from.options_problem()) is not None:
            dialogs.show_error(self, "Invalid new ids", problem)
            return False
        self._run = None  # not a training run: no training to repeat should it fail
        self.plot.clear_counts()
        self.stage_label.setText("Extending the tokenizer…")
        self.progress_bar.setRange(0, 0)
        self.runner.start(extend_job(request, corpus))
        self._set_running(True)
        self._after_start.later(self._sync_form, self._save_defaults, lambda: self.log(
            f"Extending {request.source} on {len(corpus.paths)} file(s)."))
        return True

    def _launch(self) -> None:
        corpus, config = self._run
        self._eta = StageEta()  # a new run's times start from zero
        self.runner.start(training_job(corpus, config))

    def _on_memory_checked(self, checked: MemoryChecked) -> None:
        estimate = checked.estimate
        if estimate is not None and estimate.warning:
            self.log(f"Memory: {estimate.warning}")
            if not dialogs.ask_yes_no(self, "Not enough free memory",
                                      f"{estimate.warning}\n\nTrain anyway?"):
                self._on_cancelled()
                return
        self._launch()

    @Slot()
    def cancel(self) -> None:
        if self.running:
            self.runner.cancel()
            self.stage_label.setText("Cancelling…")

    def shutdown(self) -> None:
        """Cancel any run and wait for its thread (the window is closing)."""
        self.runner.shutdown()
        self.corpus.shutdown()
        self._set_running(False)

    def _set_running(self, running: bool) -> None:
        self._update_buttons(running)
        if not running:  # (a run that starts locks the form itself: see start)
            self._after_start.finish()
            self._sync_form()
        self.running_changed.emit(running)

    def _update_buttons(self, running: bool | None = None) -> None:
        running = self.running if running is None else running
        self.train_button.setEnabled(not running)
        self.cancel_button.setEnabled(running)
        self.corpus.setAcceptDrops(not running)
        self.examples_button.setEnabled(not running)

    def _sync_form(self) -> None:
        """The options are locked while a run is going (it has read them already)."""
        self.options.setEnabled(not self.running and not self.start_from.extending)
        self.start_from.setEnabled(not self.running)

    # -- results (GUI thread) ---------------------------------------------------------------

    @Slot(object)
    def _on_progress(self, update: TrainingUpdate | SegmenterProgress) -> None:
        if isinstance(update, SegmenterProgress):
            self.progress_bar.setRange(0, 1000)
            self.progress_bar.setValue(int(update.fraction * 1000))
            self.stage_label.setText(
                f"Morfessor: {update.stage}, {update.words_done:,} of "
                f"{update.words_total:,} words ({format_seconds(update.elapsed)})")
            return
        p = update.progress
        if p.stage == "merging":
            expected = p.merges_target
        else:
            expected = self._run[1].merge_limit if self._run else None
        if expected:
            self.plot.expect_merges(expected)
        self.plot.add_counts(update.new_counts)
        self.language_plot.add_point(p.merges_done, p.tokens_per_line())
        fraction = p.fraction
        if fraction is None:
            self.progress_bar.setRange(0, 0)  # busy indicator
        else:
            self.progress_bar.setRange(0, 1000)
            self.progress_bar.setValue(int(fraction * 1000))
        self.stage_label.setText(describe_stage(p, stage_eta(self._eta, p)))
        self.progressed.emit(update)

    @Slot(object)
    def _on_finished(self, result: TrainResult | MemoryChecked) -> None:
        if isinstance(result, MemoryChecked):
            self._on_memory_checked(result)
            return
        self._set_running(False)
        if isinstance(result, ExtendOutcome):
            self.progress_bar.setRange(0, 1000)
            self.progress_bar.setValue(1000)
            self.stage_label.setText(f"Done: vocabulary {result.model.vocab_size:,}.")
            lines = outcome_log(result)
            for line in lines:
                self.log(line)
            self.status_message.emit(lines[0])  # the summary, not the last detail line
            self.trained.emit(result)
            return
        model = result.model
        if not model.merge_count:
            self._refuse_empty(result)
            return
        self.progress_bar.setRange(0, 1000)
        self.progress_bar.setValue(1000)
        self._plot_model(model)
        t = result.timings
        self.stage_label.setText(
            f"Done: {model.merge_count:,} merges, vocabulary {model.vocab_size:,}, "
            f"in {t['total']:.2f} s.")
        for line in finished_log(result):
            self.log(line)
        if result.languages is not None:
            report = result.languages
            self.corpus.show_shares(report.codes, report.shares(False), report.shares(True))
            for line in describe_languages(report):
                self.log(line)
            self.language_plot.complete(model.merge_count, report)
        self.segmentation = dict(result.segmentation)
        self.segmentation_button.setEnabled(bool(self.segmentation))
        tables = self._run is not None and self._run[0].file_format == "word-counts"
        errors = self._run[0].errors if self._run is not None else "strict"
        self._parity_run = (model, tables, errors) if model.config.parity_dev else None
        self.compare_plain_button.setVisible(self._parity_run is not None)
        self.trained.emit(result)

    def _ask_compare_plain(self) -> None:
        if self._parity_run is not None:
            self.compare_plain_requested.emit(*self._parity_run)

    def show_segmentation(self) -> SegmentationDialog | None:
        """The last run's Morfessor segmentation in a table (the open one, with its edits,
        for the same run); a saved file can be used as gold boundaries right away."""
        if not (segmentation := self.segmentation):
            return None
        return self._segmentation_window.show(
            lambda: self._segmentation_dialog(segmentation), lambda d: d.source is segmentation)

    def _segmentation_dialog(self, segmentation) -> SegmentationDialog:
        dialog = SegmentationDialog(segmentation, self)
        dialog.saved.connect(self._use_saved_segmentation)
        return dialog

    def _use_saved_segmentation(self, path: str) -> None:
        self.log(f"Segmentation saved to {path}.")
        if dialogs.ask_yes_no(self, "Use the segmentation",
                              "Train from now on with this file as gold boundaries (instead "
                              "of running Morfessor again)?"):
            config = self.options.config()
            self.options.set_config(config.replace(
                gold_boundaries=(*config.gold_boundaries, path), morfessor=False,
                morfessor_annotations=()))
            self.options.changed.emit()

    def _refuse_empty(self, result: TrainResult) -> None:
        """A run that learned no merge gives no tokenizer: say why, keep the model."""
        self._reset_progress("No merges learned; the current model is unchanged.")
        reason = no_merges_reason(result.model)
        self.log(f"No merges learned: {reason}")
        dialogs.show_error(self, "No merges learned",
                           f"Training learned no merges: {reason}\nThe current model is "
                           "unchanged.")
        self.failed.emit(JobError(ValueError("no merges learned"), reason))

    @Slot(object)
    def _on_failed(self, error: JobError) -> None:
        self._set_running(False)
        action = "Training" if self._run is not None else "Extending the tokenizer"
        self._reset_progress(f"{action} failed; the current model is unchanged.")
        self.log(f"Error: {error.message}")
        if self._run is None:  # an extension: nothing to run again
            dialogs.show_error(self, "Extending failed", error.message, error.details_if_bug)
            self.failed.emit(error)
            return
        corpus, config = self._run
        if replaceable(error.exception, config) and corpus.errors == "strict":
            if self._ask_replacement(error.exception):
                # The same files and options, this run only; its memory was checked.
                self._run = (corpus.with_errors("replace"), config)
                self._start_language_plot(config)
                self._started_at = time.monotonic()
                self._launch()
                self._set_running(True)
                self._sync_form()  # after a question: no click to answer first
            else:
                self.failed.emit(error)
            return
        dialogs.show_error(self, "Training failed", error.message, error.details_if_bug)
        self.failed.emit(error)

    def _ask_replacement(self, exc: CorpusError) -> bool:
        """Invalid UTF-8: whether to train again reading bad bytes as �."""
        go_on = dialogs.ask_action(
            self, "Invalid bytes in the corpus",
            f"{exc}\n\nBPE Desktop can train anyway, reading every invalid byte of the "
            "corpus files as the replacement character �. The current model stays until "
            "that training finishes.",
            "Continue with replacement characters")
        if go_on:
            self.log("Training again, reading invalid UTF-8 as replacement characters (�).")
        return go_on

    @Slot()
    def _on_cancelled(self) -> None:
        self._set_running(False)
        self._reset_progress("Cancelled; the current model is unchanged.")
        self.log(f"Cancelled after {time.monotonic() - self._started_at:.1f} s.")
        self.cancelled.emit()

    def _reset_progress(self, text: str) -> None:
        self.progress_bar.setRange(0, 1000)
        self.progress_bar.setValue(0)
        self.stage_label.setText(text)
        self._plotted = None
        self._plot_model(self._model)  # a failed or cancelled run's curve is not kept
        if self._kept_curves is not None:
            self.language_plot.restore(self._kept_curves)
            self._kept_curves = None
        self.language_plot.setVisible(self._parity_run is not None)

    def set_model(self, model: BPEModel | None) -> None:
        """The window's current model, whose merge counts (and language curves) show."""
        self._model = model
        if not self.running:
            self._plot_model(model)
            if self._parity_run is not None and model is not self._parity_run[0]:
                self._parity_run = None
                self.compare_plain_button.hide()
                self.language_plot.hide()

    def _plot_model(self, model: BPEModel | None) -> None:
        if model is self._plotted and model is not None:
            return
        self._plotted = model
        counts = model.merge_counts() if model is not None else []
        self.plot.set_counts(counts[counts >= 0] if model is not None else [])
        if model is not None and model.merge_count:
            self.plot.fit_to_data()

    def log(self, text: str) -> None:
        stamp = time.strftime("%H:%M:%S")
        self.log_view.appendPlainText(f"[{stamp}] {text}")
        if "\n" not in text:  # a report of aligned lines is read in the log, not in one line
            self.status_message.emit(text)

    # -- persistence of the form ------------------------------------------------------------

    def _restore_defaults(self) -> None:
        saved = Settings().training_defaults()
        if saved:
            self.options.from_dict(saved)

    def _save_defaults(self) -> None:
        Settings().set_training_defaults(self.options.to_dict())
