"""The main window: six panels, menus and shortcuts, the open model and its file, the open
project (see :mod:`.projects`)."""

from __future__ import annotations

import os

from PySide6.QtCore import Qt, Slot
from PySide6.QtGui import QAction, QActionGroup, QCloseEvent, QKeySequence
from PySide6.QtWidgets import QLabel, QMainWindow, QMenu, QTabWidget, QWidget

from bpe_desktop.core import BpeError, TrainResult
from bpe_desktop.core.languages import language_paths
from bpe_desktop.core.parity_dev import dev_set_files
from bpe_desktop.ui.codec.panel import CodecPanel
from bpe_desktop.ui.common import dialogs, theme
from bpe_desktop.ui.common.icons import action_icon, panel_icon
from bpe_desktop.ui.common.modal_work import Cancelled, finish_abandoned, run_modal
from bpe_desktop.ui.common.settings import Settings
from bpe_desktop.ui.common.single_dialog import SingleDialog
from bpe_desktop.ui.compare import ComparePanel
from bpe_desktop.ui.evaluate import EvaluatePanel
from bpe_desktop.ui.history import HistoryPanel
from bpe_desktop.ui.training.panel import TrainingPanel
from bpe_desktop.ui.vocabulary.panel import VocabPanel
from bpe_desktop.ui.window.autosave import Autosave, offer_recovery
from bpe_desktop.ui.window.document import ModelDocument
from bpe_desktop.ui.window.help_dialogs import HELP_PAGES, show_about, show_help, show_quick_start
from bpe_desktop.ui.window.interop_menus import InteropMenus
from bpe_desktop.ui.window.panel_menus import build_panel_menus
from bpe_desktop.ui.window.projects import ProjectControl
from bpe_desktop.ui.window.status_bar import ElidingStatusBar
from bpe_desktop.ui.window.trim_dialog import TrimDialog
from bpe_desktop.ui.window.zoom import TextZoom
from bpe_desktop.views.write_errors import write_failure

APP_NAME = "BPE Desktop"
MODEL_FILTER = "BPE Desktop models (*.json);;All files (*)"


class MainWindow(QMainWindow):
    TRAINING, VOCABULARY, CODEC, EVALUATE, COMPARE, HISTORY = range(6)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("mainWindow")
        self.settings = Settings()
        self.document = ModelDocument(self)
        self._trim_window: SingleDialog[TrimDialog] = SingleDialog()

        self.training = TrainingPanel()
        self.vocab = VocabPanel()
        self.codec = CodecPanel()
        self.evaluate = EvaluatePanel()
        self.compare = ComparePanel()
        self.history = HistoryPanel()
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        self.tabs.addTab(self.training, panel_icon("training"), "&Training")
        # No panel's letter is a menu's (Alt+E, Alt+V open Edit, View); a Training field that
        # shares one (too few letters for both) is reached by pressing it again
        self.tabs.addTab(self.vocab, panel_icon("vocabulary"), "Vocabular&y")
        self.tabs.addTab(self.codec, panel_icon("encode"), "Encode / &Decode")
        self.tabs.addTab(self.evaluate, panel_icon("evaluate"), "Eva&luate")
        self.tabs.addTab(self.compare, panel_icon("compare"), "C&ompare")
        self.tabs.addTab(self.history, panel_icon("history"), "Hi&story")
        self.setCentralWidget(self.tabs)

        self.model_label = QLabel()
        self.setStatusBar(ElidingStatusBar(self))
        self.statusBar().addPermanentWidget(self.model_label)
        for panel in (self.training, self.vocab, self.codec, self.evaluate, self.compare,
                      self.history):
            panel.status_message.connect(self._show_status)

        self.document.model_changed.connect(self._on_model_changed)
        self.document.state_changed.connect(self._update_title)
        self.training.train_requested.connect(self.train)
        self.training.trained.connect(self._on_trained)
        self.training.compare_plain_requested.connect(self._compare_with_plain)
        self.training.running_changed.connect(self._on_running_changed)
        # Esc also stops the evaluation or comparison of the panel in view
        for runner in (self.evaluate.runner, self.evaluate.unconstrained_button.runner,
                       self.compare.runner):
            runner.started.connect(self._update_cancel)
            runner.stopped.connect(self._update_cancel)
        self.tabs.currentChanged.connect(self._update_cancel)
        self.evaluate.use_model.connect(self.document.set_imported)

        self.interop = InteropMenus(self)
        self.codec.dropout_box.export_requested.connect(
            lambda p: self.interop.export("hf", dropout=p))
        self.interop.running_changed.connect(self._on_running_changed)
        self.interop.retrain_requested.connect(self.retrain_with)
        self.autosave = Autosave(self.document, self, busy=self.background_busy)
        self.autosave.failed.connect(self._show_status)
        self.zoom = TextZoom(self)
        self.projects = ProjectControl(self)
        self.projects.open_at_start()
        self._build_menus()
        self._restore_window()
        self._on_model_changed(None)
        self._update_title()
        self.setAcceptDrops(True)

    # -- menus ----------------------------------------------------------------------------

    def _action(self, text: str, slot, shortcut=None, tip: str = "") -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        if tip:
            action.setStatusTip(tip)
        action.triggered.connect(slot)
        self.addAction(action)  # shortcuts work whichever panel has focus
        return action

    def _build_menus(self) -> None:
        bar = self.menuBar()
        file = bar.addMenu("&File")
        self.new_action = self._action("&New", self.new_model, QKeySequence.StandardKey.New,
                                       "Close the current model")
        self.open_action = self._action("&Open model…", self.ask_open_model,
                                        QKeySequence.StandardKey.Open, "Open a model file")
        self.recent_menu = QMenu("Open &Recent", self)
        self.recent_menu.aboutToShow.connect(self._fill_recent_menu)
        self.save_action = self._action("&Save", self.save, QKeySequence.StandardKey.Save,
                                        "Save the model")
        self.save_as_action = self._action("Save &As…", self.save_as,
                                           QKeySequence.StandardKey.SaveAs,
                                           "Save the model under a new name")
        self.quit_action = self._action("&Quit", self.close, QKeySequence.StandardKey.Quit)
        self.quit_action.setMenuRole(QAction.MenuRole.QuitRole)
        file.addAction(self.new_action)
        file.addAction(self.open_action)
        file.addMenu(self.recent_menu)
        file.addSeparator()
        file.addAction(self.save_action)
        file.addAction(self.save_as_action)
        file.addSeparator()
        file.addMenu(self.interop.import_menu)
        file.addMenu(self.interop.export_menu)
        self.trim_action = self._action("&Trim vocabulary…", self.ask_trim, None,
                                        "Keep only the tokens target texts need, with an "
                                        "old-id to new-id map")
        file.addAction(self.trim_action)
        file.addSeparator()
        file.addAction(self.projects.new_action)
        file.addAction(self.projects.open_action)
        file.addMenu(self.projects.recent_menu)
        file.addAction(self.projects.report_action)
        file.addSeparator()
        file.addAction(self.quit_action)

        edit = bar.addMenu("&Edit")
        self.find_action = self._action("&Find token…", self.find_token,
                                        QKeySequence.StandardKey.Find,
                                        "Filter the vocabulary table")
        edit.addAction(self.find_action)

        # Run: the jobs, then each panel's buttons (panel_menus), each with its panel.
        run_menu = bar.addMenu("&Run")
        self.train_action = self._action("&Train", self.train, Qt.Key.Key_F5,
                                         "Learn a model from the corpus")
        self.cancel_action = self._action("&Cancel", self.cancel_job, Qt.Key.Key_Escape,
                                          "Stop the running training, import or recount, or "
                                          "the evaluation or comparison in view")
        self.cancel_action.setEnabled(False)
        run_menu.addAction(self.train_action)
        run_menu.addAction(self.cancel_action)
        run_menu.addSeparator()
        self.panel_menus = build_panel_menus(self, run_menu)

        view = bar.addMenu("&View")
        for index in range(self.tabs.count()):  # each with its tab's own mnemonic
            view.addAction(self._action(self.tabs.tabText(index), lambda _=False, i=index:
                                        self.tabs.setCurrentIndex(i), f"Ctrl+{index + 1}"))
        view.addSeparator()
        # Text and table fonts, for scripts read more easily larger (bpe_desktop.ui.window.zoom)
        self.zoom_in_action = self._action("Zoom &in", lambda: self.zoom.zoom_in(),
                                           QKeySequence.StandardKey.ZoomIn)
        self.zoom_out_action = self._action("Zoom o&ut", lambda: self.zoom.zoom_out(),
                                            QKeySequence.StandardKey.ZoomOut)
        view.addAction(self.zoom_in_action)
        view.addAction(self.zoom_out_action)
        view.addAction(self._action("&Reset zoom", lambda: self.zoom.reset(), "Ctrl+0"))
        appearance = view.addMenu("&Appearance")
        group = QActionGroup(self)
        current = self.settings.value("view/appearance", "system")
        for mode, label in (("system", "Follow the &system"), ("light", "&Light"),
                            ("dark", "&Dark")):
            action = QAction(label, self, checkable=True)
            action.setChecked(mode == current)
            action.triggered.connect(lambda _=False, m=mode: self.set_appearance(m))
            group.addAction(action)
            appearance.addAction(action)

        help_menu = bar.addMenu("&Help")
        quick_start = self._action("&Quick start", lambda: show_quick_start(self),
                                   QKeySequence.StandardKey.HelpContents)
        help_menu.addAction(quick_start)
        # Every page is in the menu: the pages and tooltips refer to them ("Help ▸ Evaluation").
        for page, title in list(HELP_PAGES.items())[1:]:
            help_menu.addAction(self._action(title, lambda _=False, p=page: show_help(self, p)))
        help_menu.addSeparator()
        about = self._action("&About BPE Desktop", lambda: show_about(self))
        about.setMenuRole(QAction.MenuRole.AboutRole)
        help_menu.addAction(about)

        for action, icon in ((self.open_action, "open"), (self.save_action, "save"),
                             (self.train_action, "train"), (self.cancel_action, "cancel"),
                             (self.interop.export_menu, "export"),
                             (self.interop.import_menu, "import"), (quick_start, "help")):
            action.setIcon(action_icon(icon))

    def _fill_recent_menu(self) -> None:
        self.recent_menu.clear()
        recent = self.settings.recent_files()
        for i, path in enumerate(recent):
            action = self.recent_menu.addAction(f"&{i + 1} {os.path.basename(path)}")
            action.setStatusTip(path)
            action.setToolTip(path)
            action.triggered.connect(lambda _=False, p=path: self.open_recent(p))
        if not recent:
            self.recent_menu.addAction("No recent models").setEnabled(False)
        self.recent_menu.addSeparator()
        self.recent_menu.addAction("&Clear menu", self.settings.clear_recent_files)

    # -- the model and its file -----------------------------------------------------------

    #: What replaces or closes an unsaved model, completing "Save it before …?".
    BEFORE_CLOSING = "closing"
    BEFORE_NEW = "closing it"
    BEFORE_OPENING = "opening another model replaces it"
    BEFORE_TRAINING = "training a new one replaces it"
    BEFORE_IMPORTING = "the imported model replaces it"
    BEFORE_RECOVERING = "the recovered model replaces it"

    def is_training(self) -> bool:
        return self.training.running

    def background_busy(self) -> bool:
        # One thing at a time: two workers running Python beside the GUI thread make it
        # wait for both in turn.
        return (self.vocab.is_loading() or self.codec.is_busy() or self.autosave.writing
                or self.interop.checks_running)

    def export_vocabulary_table(self, path: str) -> None:
        self.vocab.export_table_csv(path)

    def maybe_save(self, before: str) -> bool:
        """Before the model is replaced or the window closes: True to go on.

        ``before`` (one of the BEFORE_* phrases) says what is about to happen.
        """
        if self.document.model is None or not self.document.dirty:
            return True
        answer = dialogs.ask_save_changes(self, f"The model “{self.document.display_name}”",
                                          before)
        if answer == "save":
            return self.save()
        return answer == "discard"

    @Slot()
    def new_model(self) -> None:
        if self.maybe_save(self.BEFORE_NEW):
            self.document.new()

    @Slot()
    def ask_open_model(self) -> None:
        if not self.maybe_save(self.BEFORE_OPENING):
            return
        paths = dialogs.ask_open_paths(self, "Open model", "model", MODEL_FILTER)
        if paths:
            self.open_path(paths[0])

    def open_recent(self, path: str) -> None:
        if self.maybe_save(self.BEFORE_OPENING):
            self.open_path(path)

    def open_path(self, path: str) -> bool:
        """Open a model file (read in a worker thread, the window painting meanwhile); a
        bad file shows what is wrong and changes nothing, as does cancelling."""
        name = os.path.basename(path)
        try:
            model = self.document.open(path, run=lambda work: run_modal(
                self, f"Opening {name}…", work, cancellable=True))
        except Cancelled:
            self._show_status(f"Opening {name} was cancelled.")
            return False
        except (BpeError, OSError) as exc:
            if isinstance(exc, BpeError) and self._offer_import(path):
                return False
            dialogs.show_error(self, "Cannot open model", _error_text(exc, path))
            if isinstance(exc, FileNotFoundError):
                self.settings.remove_recent_file(os.path.abspath(path))
            return False
        self.settings.add_recent_file(path)
        self._show_status(f"Opened {path}: {model.vocab_size:,} tokens, "
                          f"{model.merge_count:,} merges")
        return True

    def _offer_import(self, path: str) -> bool:
        """Another tool's tokenizer opened as a model: say what it is and offer to import
        it. True when it was recognised (and imported, or the user declined)."""
        from bpe_desktop.core.formats import FORMATS
        from bpe_desktop.core.formats.recognise import recognise_tokenizer_file

        fmt = recognise_tokenizer_file(path)
        if fmt is None:
            return False
        label = FORMATS[fmt].label.replace("&", "").rstrip("…")
        if dialogs.ask_action(self, "Open model", f"{os.path.basename(path)} is a {label}, "
                              "not a BPE Desktop model file. Import it as a new, unsaved "
                              "model?", "Import"):
            self.interop.import_path(fmt, path)
        return True

    @Slot()
    def save(self) -> bool:
        if self.document.model is None:
            return False
        if not self.document.path:
            return self.save_as()
        return self._save_to(self.document.path)

    @Slot()
    def save_as(self) -> bool:
        if self.document.model is None:
            return False
        suggested = self.document.suggested_file_name()
        path = dialogs.ask_save_path(self, "Save model as", "model", MODEL_FILTER, suggested)
        return self._save_to(path) if path else False

    def _save_to(self, path: str) -> bool:
        name = os.path.basename(path)
        try:
            saved = self.document.save(path, run=lambda work: run_modal(
                self, f"Saving {name}…", work))
        except (BpeError, OSError, ValueError) as exc:
            dialogs.show_error(self, "Cannot save model", write_failure(path, exc)
                               if isinstance(exc, OSError) and exc.strerror else
                               f"{exc}\nThe previous file, if any, is unchanged.")
            return False
        self.settings.add_recent_file(saved)
        self._show_status(f"Saved {saved}")
        return True

    # -- training ---------------------------------------------------------------------------

    @Slot()
    def train(self) -> bool:
        if self.training.running or self.interop.running:
            return False
        self.tabs.setCurrentWidget(self.training)
        if not self.training.corpus_ready() or not self.maybe_save(self.BEFORE_TRAINING):
            return False
        return self.training.start()

    @Slot(object)
    def retrain_with(self, config) -> bool:
        """Train again with ``config`` (Export ▸ Retrain with the HF-compatible boundary)."""
        if self.training.running or self.interop.running:
            return False
        self.training.options.set_custom_config(config)
        return self.train()

    @Slot(object)
    def _on_trained(self, result: TrainResult) -> None:
        extended = getattr(result, "result", None)  # an extension (ExtendOutcome)
        # Known before the export checks that the new model starts: its source's own file
        # can be rewritten in its format.
        self.interop.adapted_from = None if extended is None else (
            result.model, extended.source, result.source_path, result.source_format)
        self.document.set_trained(result)
        config = result.model.config
        if config.parity_dev and not config.parity_dev[0].lower().endswith(".tsv"):
            # Evaluate's parity chart starts from the development set the run balanced
            self.evaluate.use_parallel_texts(
                dev_set_files(config.parity_dev, list(language_paths(config))),
                "document" if config.parity_dev_documents else "lines")
        if extended is not None and self.document.model is result.model:
            # the first new token (named ids may leave reserved ones before it)
            self.vocab.set_new_from(min(extended.new_ids, default=extended.source.vocab_size))

    @Slot(object, bool, str)
    def _compare_with_plain(self, model, word_counts: bool, errors: str) -> None:
        """Training ▸ Compare with plain BPE: Compare trains and shows the pair."""
        self.tabs.setCurrentWidget(self.compare)
        self.compare.compare_with_plain(model, "parity-aware BPE", word_counts, errors)

    def ask_trim(self) -> TrimDialog | None:
        """File ▸ Trim vocabulary…: the dialog for the open model (non-modal); a trimmed
        model becomes the current, unsaved one."""
        if self.document.model is None:
            return None
        model, imported = self.document.model, self.interop.imported_from
        source = imported[1:] if imported and imported[0] is model else None
        # The file History records as the trimmed model (None: no file holds it).
        saved = source or ((self.document.path, "model")
                           if self.document.path and not self.document.dirty else None)

        def trimmed(result, written_to: str) -> None:
            if self.document.model is model:
                self.document.set_imported(result.model)
            else:  # trained or opened while it trimmed: that model is not replaced unasked
                self._show_status(f"The trimmed model is in {written_to}; it was not opened, "
                                  "as another model has been opened since.")

        def make() -> TrimDialog:
            dialog = TrimDialog(model, self, source=source)
            dialog.trimmed.connect(lambda r: trimmed(r, dialog.output.text()))
            dialog.trim_done.connect(lambda done: self.projects.record_trim(done, saved))
            return dialog

        # The open dialog stays while it trims or still trims the open model.
        return self._trim_window.show(make, lambda d: d.running or d.model is model)

    @Slot()
    def cancel_job(self) -> None:
        if self.training.running:
            self.training.cancel()
        elif self.interop.running:
            self.interop.cancel()
        elif (panel := self._panel_job_in_view()) is not None:
            panel.cancel()

    def _panel_job_in_view(self) -> EvaluatePanel | ComparePanel | None:
        """The Evaluate or Compare panel, when it is in view and running its job."""
        panel = self.tabs.currentWidget()
        if panel in (self.evaluate, self.compare) and panel.is_running():
            return panel
        return None

    @Slot()
    def _update_cancel(self) -> None:
        self.cancel_action.setEnabled(self.training.running or self.interop.running
                                      or self._panel_job_in_view() is not None)

    @Slot(bool)
    def _on_running_changed(self, _running: bool) -> None:
        """While a job may replace the model, nothing else may replace it (the flag
        says only which job changed; both are looked at)."""
        busy = self.training.running or self.interop.running
        self.train_action.setEnabled(not busy)
        self.training.train_button.setEnabled(not busy)
        self._update_cancel()
        for action in (self.new_action, self.open_action, self.recent_menu.menuAction()):
            action.setEnabled(not busy)
        self.interop.import_menu.setEnabled(not busy)

    # -- panels ---------------------------------------------------------------------------

    @Slot(object)
    def _on_model_changed(self, model) -> None:
        self.training.set_model(model)
        self.vocab.set_new_from(None)  # an extension marks its new tokens after this
        self.vocab.set_model(model)
        self.codec.set_model(model)
        self.evaluate.set_model(model)
        self.compare.set_model(model, self.document.display_name)
        has_model = model is not None
        for action in (self.save_action, self.save_as_action):
            action.setEnabled(has_model)
        self.interop.export_menu.setEnabled(has_model)
        self.trim_action.setEnabled(has_model)
        self.interop.recount_action.setEnabled(has_model)
        if model is None:
            self.model_label.setText("No model — train one or open a file")
        else:
            self.model_label.setText(f"{model.vocab_size:,} tokens · {model.merge_count:,} merges"
                                     f" · {model.config.pretokenizer}/{model.config.boundary}")

    @Slot()
    def find_token(self) -> None:
        self.tabs.setCurrentWidget(self.vocab)
        self.vocab.focus_filter()

    def _update_title(self) -> None:
        self.setWindowTitle(f"{self.document.display_name}[*] — {APP_NAME}")
        self.setWindowModified(self.document.dirty)
        self.setWindowFilePath(self.document.path or "")

    def _show_status(self, text: str) -> None:
        self.statusBar().showMessage(text, 8000)

    def set_appearance(self, mode: str) -> None:
        self.settings.set_value("view/appearance", mode)
        theme.apply_appearance(mode)

    # -- window ---------------------------------------------------------------------------

    def _restore_window(self) -> None:
        geometry, state = self.settings.window_state()
        if geometry is None or not self.restoreGeometry(geometry):
            self.resize(1200, 780)
        if state is not None:
            self.restoreState(state)
        tab = self.settings.value("window/tab", 0)
        try:
            self.tabs.setCurrentIndex(int(tab))
        except (TypeError, ValueError):
            pass

    def first_run_hint(self) -> None:
        """Once the window is shown at startup: offer back a model a crash left unsaved,
        and on the very first start load the Botchan example so one click trains something."""
        offer_recovery(self)
        if self.settings.first_run_done():
            return
        self.settings.set_first_run_done()
        self.tabs.setCurrentWidget(self.training)
        self.training.load_example(self.training.example("botchan"))
        self.training.log("Welcome to BPE Desktop! An example corpus is loaded: press Train "
                          "(F5) to learn your first tokenizer. Help ▸ Quick start explains more.")

    def close_discarding(self) -> bool:
        """Close without asking about unsaved work (smoke tests and screenshots)."""
        self._discard_on_close = True
        return self.close()

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 (Qt override)
        if not getattr(self, "_discard_on_close", False) and not self.maybe_save(
                self.BEFORE_CLOSING):
            event.ignore()
            return
        self.training.shutdown()  # cancels a running training and waits for its thread
        self.interop.shutdown()
        if self._trim_window.dialog is not None:
            self._trim_window.dialog.reject()  # a running trim is cancelled, waited for
        self.projects.shutdown()
        self.autosave.close()  # saved, or discarded knowingly: the copy is not needed
        for panel in (self.vocab, self.codec, self.evaluate, self.compare):
            shutdown = getattr(panel, "shutdown", None)
            if shutdown is not None:
                shutdown()
        finish_abandoned()  # a model file whose opening was cancelled
        self.settings.set_window_state(self.saveGeometry(), self.saveState())
        self.settings.set_value("window/tab", self.tabs.currentIndex())
        self.settings.sync()
        event.accept()

    # -- drop a model file on the window to open it -------------------------------------------

    def dragEnterEvent(self, event) -> None:  # noqa: N802
        urls = event.mimeData().urls()
        if len(urls) == 1 and urls[0].toLocalFile().endswith(".json"):
            event.acceptProposedAction()

    def dropEvent(self, event) -> None:  # noqa: N802
        path = event.mimeData().urls()[0].toLocalFile()
        if self.training.running or self.interop.running:
            self._show_status("Wait for the running job to finish before opening a model.")
            return
        if self.maybe_save(self.BEFORE_OPENING):
            self.open_path(path)


def _error_text(exc: BaseException, path: str) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return f"{exc.filename or path}: {exc.strerror}"
    return str(exc)
