"""The window's project: File ▸ New/Open/Recent project and Export report, recording
every training, evaluation and comparison the panels run, and the History panel's
requests (open a run's model, compare, report; training again is :mod:`.rerun`'s).

On start the last project opens, or a default one in the user's data folder, so no run
is ever lost for want of a choice. A project that cannot be opened is named with the
reason and the previous one stays open.
"""

from __future__ import annotations

import dataclasses
import os
import sqlite3
from concurrent.futures import Future
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer, Slot
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu

from bpe_desktop.core import BpeError
from bpe_desktop.core.project import Project, ProjectError
from bpe_desktop.core.project.check import check_pages
from bpe_desktop.core.project.commands import (
    UNSAVED_MODEL,
    command_record,
    extend_arguments,
    train_arguments,
    trim_arguments,
)
from bpe_desktop.core.project.relocation import moved_model_file
from bpe_desktop.core.project.rerun import model_file_changed
from bpe_desktop.core.project.recording import (
    model_config_entries,
    source_inputs,
    training_inputs,
    training_side_inputs,
    trim_record,
)
from bpe_desktop.core.project.run_model import read_run_model, run_model_source
from bpe_desktop.core.project.metrics import (
    comparison_metrics,
    evaluation_metrics,
    extension_metrics,
    training_metrics,
    trim_metrics,
)
from bpe_desktop.ui.common import dialogs
from bpe_desktop.ui.common.modal_work import run_modal
from bpe_desktop.ui.common.scheduling import ENGINE_NICENESS as CHECK_NICENESS
from bpe_desktop.ui.common.scheduling import lower_this_thread
from bpe_desktop.ui.common.workers import JobRunner
from bpe_desktop.ui.history.panel import default_project_path
from bpe_desktop.ui.history.recorder import ProjectRecorder
from bpe_desktop.ui.history.table_model import read_runs
from bpe_desktop.ui.training.start_from import ExtendOutcome
from bpe_desktop.ui.window.rerun import RunAgain
from bpe_desktop.views.write_errors import write_failure

if TYPE_CHECKING:
    from bpe_desktop.ui.window.main_window import MainWindow

PROJECT_FILTER = "BPE Desktop projects (*.bpeproj);;All files (*)"
REPORT_FILTER = "HTML report (*.html);;PDF report (*.pdf)"
_LAST, _RECENT, _MAX_RECENT = "projects/last", "projects/recent", 8
#: How often the open project's file is checked for a rename or move (a stat call).
MOVE_CHECK_MS = 1000


def corpus_inputs(labelled: list[tuple[str, str]],
                  paths: list[str]) -> list[tuple[str, str, str]]:
    """The run's corpus files as History records them: each with its row's language, so
    the project knows a corpus's language as it does from `train --lang`."""
    languages = dict(labelled)
    return [("corpus", p, languages.get(p, "")) for p in paths]


class ProjectControl(QObject):
    def __init__(self, window: "MainWindow") -> None:
        super().__init__(window)
        self.window = window
        self.history = window.history
        self.project: Project | None = None
        self.recorder = ProjectRecorder(self)
        self.recorder.recorded.connect(self.history.on_recorded)
        self.recorder.failed.connect(window._show_status)
        self.recorder.before_write = self.follow_moved_project
        # A project file renamed or moved in a file manager is followed within a second.
        self.move_watch = QTimer(self)
        self.move_watch.setInterval(MOVE_CHECK_MS)
        self.move_watch.timeout.connect(self.follow_moved_project)
        self.move_watch.start()
        self._training: Future | None = None
        # The recorded training's command and invalid-UTF-8 choice (None: an extension).
        self._training_command: dict | None = None
        self._training_errors: str | None = None
        self.run_again = RunAgain(window, self)
        self.verifier = JobRunner(self)
        self.verifier.failed.connect(self._on_verify_failed)
        self.history.model.failed.connect(self._on_read_failed)
        self._log_start = 0

        self.new_action = QAction("New &project…", window)
        self.new_action.setStatusTip("Start an empty project file for the runs to come")
        self.new_action.triggered.connect(self.ask_new_project)
        self.open_action = QAction("Open pro&ject…", window)
        self.open_action.setStatusTip("Record runs in, and show the history of, a project")
        self.open_action.triggered.connect(self.ask_open_project)
        self.recent_menu = QMenu("Re&cent projects", window)
        self.recent_menu.aboutToShow.connect(self._fill_recent)
        self.report_action = QAction("E&xport report…", window)
        self.report_action.setStatusTip("Write an HTML or PDF report of the runs selected "
                                        "in History (or the latest run)")
        self.report_action.triggered.connect(lambda: self.export_report(None))

        t = window.training
        t.running_changed.connect(self._on_training_running)
        t.trained.connect(self._on_trained)
        t.failed.connect(lambda error: self._end_training("failed", error.message))
        t.cancelled.connect(lambda: self._end_training("cancelled", "cancelled"))
        window.evaluate.evaluated.connect(self._on_evaluated)
        window.compare.compared.connect(self._on_compared)
        h = self.history
        h.open_model_requested.connect(self.open_model)
        h.rerun_requested.connect(self.run_again.rerun)
        h.compare_requested.connect(self.compare)
        h.report_requested.connect(self.export_report)

    # -- which project ---------------------------------------------------------------------

    def open_at_start(self) -> None:
        last = self.window.settings.value(_LAST, "") or ""
        if last and os.path.exists(last) and self.open_project(last, in_worker=False):
            return
        self.open_project(default_project_path(), in_worker=False)

    def open_project(self, path: str, *, in_worker: bool = True) -> bool:
        """Open ``path`` as the project and read History's list of its runs (migrated if
        old, in a worker while the window waits, unless ``in_worker`` is False: at start,
        before it shows). Every page of it is then checked in the background (a second
        for a large file read from disk): a damaged project is named and closed."""
        query = self.history.opening_query()

        def open_it() -> tuple[Project, object]:
            project = Project(path, verify=False)
            try:
                return project, read_runs(project.path, query, conn=project.conn)
            except BaseException:
                project.close()
                raise
        try:
            if in_worker:
                project, runs = run_modal(self.window,
                                          f"Opening {os.path.basename(path)}…", open_it)
            else:
                project, runs = open_it()
        except (ProjectError, OSError) as exc:
            dialogs.show_error(self.window, "Cannot open project",
                               f"{exc}\n\nThe project open before stays open.")
            return False
        previous = self.project
        self.history.set_project(project, runs)
        self.project = project
        self._record_in(project.path)
        if previous is not None:
            previous.close()
        backup = project.backup_path
        note = f"; the file was updated, its previous version kept as {backup}" if backup else ""
        self.window._show_status(f"Project {project.path}{note}")
        self._verify(project.path)
        return True

    def _record_in(self, path: str) -> None:
        """Record runs in the project at ``path`` from now on, and open it next time."""
        self.recorder.set_path(path)
        settings = self.window.settings
        settings.set_value(_LAST, path)
        recent = [p for p in self.recent_projects() if p != path]
        settings.set_value(_RECENT, [path, *recent][:_MAX_RECENT])

    @Slot()
    def follow_moved_project(self) -> None:
        """The open project's file was renamed or moved (a file manager, another
        program): the window's connections let go of it, the last one writes everything
        recorded into it and opens it where it is now; runs under way complete there. A
        file deleted, or moved out of reach, closes the project with that message."""
        project = self.project
        if project is None or not project.has_moved():
            return
        old = project.path
        self.recorder.let_go(old)
        try:
            new = project.follow_move()
        except ProjectError as exc:
            self.history.set_project(None)
            project.close()
            self.project = None
            self.recorder.set_path(None)
            dialogs.show_error(self.window, "Project moved", f"{exc}\n\nNothing more is "
                               "recorded until a project is open (File ▸ Open project…).")
            return
        self.recorder.redirect(old, new)
        self._record_in(new)
        # The same project (its runs, and deletions Undo may bring back), at its new path.
        self.history.project_label.setText(f"Project: {new}")
        self.history.on_recorded()
        self.window._show_status(f"The project file was moved to {new}: runs are "
                                 "recorded there")

    def _verify(self, path: str) -> None:
        self.verifier.shutdown()  # the check of a project no longer open

        def job(_report, _cancel) -> str:
            # Below the GUI thread once its Python is done: the check needs a core for a
            # while, and lets the GIL go throughout.
            check_pages(path, lambda: lower_this_thread(CHECK_NICENESS))
            return path
        self.verifier.start(job)

    def _on_verify_failed(self, error) -> None:
        if self.project is None or not str(error.message).startswith(self.project.path):
            return
        self.history.set_project(None)
        self.project.close()
        self.project = None
        self.recorder.set_path(None)
        dialogs.show_error(self.window, "Damaged project",
                           f"{error.message}\n\nThe project was closed: nothing more is "
                           "recorded in it. Open or create another one (File ▸ Open "
                           "project…, New project…).")

    def _on_read_failed(self, error) -> None:
        """History could not read the runs: a damaged file is closed as the check's
        finding is; anything else (a lock held for too long) is only said."""
        cause = error.exception.__cause__
        if isinstance(cause, sqlite3.DatabaseError) and not isinstance(
                cause, sqlite3.OperationalError):
            self._on_verify_failed(error)
        else:
            self.window._show_status(error.message)

    def recent_projects(self) -> list[str]:
        value = self.window.settings.value(_RECENT, []) or []
        return [value] if isinstance(value, str) else [str(v) for v in value]

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        for i, path in enumerate(self.recent_projects()):
            action = self.recent_menu.addAction(f"&{i + 1} {os.path.basename(path)}")
            action.setStatusTip(path)
            action.triggered.connect(lambda _=False, p=path: self.open_project(p))
        if not self.recent_projects():
            self.recent_menu.addAction("No recent projects").setEnabled(False)

    @Slot()
    def ask_new_project(self) -> None:
        path = dialogs.ask_save_path(self.window, "New project", "project", PROJECT_FILTER,
                                     "Experiments.bpeproj")
        if not path:
            return
        if os.path.exists(path):  # the chooser asked whether to replace it
            for suffix in ("", "-wal", "-shm"):
                if os.path.exists(path + suffix):
                    os.unlink(path + suffix)
        self.open_project(path)

    @Slot()
    def ask_open_project(self) -> None:
        paths = dialogs.ask_open_paths(self.window, "Open project", "project", PROJECT_FILTER)
        if paths:
            self.open_project(paths[0])

    def shutdown(self) -> None:
        self.run_again.shutdown()
        self._end_training("cancelled", "the window was closed during the run")
        self.verifier.shutdown()
        self.recorder.shutdown()
        self.history.shutdown()  # the runs deleted in this window go for good
        if self.project is not None:
            self.project.close()
            self.project = None

    # -- recording the panels' runs --------------------------------------------------------

    @Slot(bool)
    def _on_training_running(self, running: bool) -> None:
        if not running or self._training is not None:
            return  # (a run started again with replacement characters is the same run)
        t = self.window.training
        paths = t.corpus.paths()
        if t.start_from.extending:
            self._start_extension_run(t.start_from.request(), paths)
            return
        try:
            config = t.form_config()
        except BpeError:
            return
        word_counts = t.options.word_counts.isChecked()
        errors = t.options.errors.currentData()
        from bpe_desktop.ui.training.options import PRESET_LABELS

        argv = train_arguments(paths, UNSAVED_MODEL, config, word_counts=word_counts,
                               encoding_errors=errors)
        self._log_start = len(t.log_view.toPlainText())
        self._training_command, self._training_errors = command_record(argv), errors
        self._training = self.recorder.start(
            "train", config={**config.to_dict(), "word_counts": word_counts,
                             "encoding_errors": errors},
            command=self._training_command,
            # Languages of the form's columns: each file its language; else each row's label.
            inputs=[*(training_inputs(config, paths, word_counts=word_counts) if config.lang
                      else corpus_inputs(t.corpus.labelled_paths(), paths)),
                    *training_side_inputs(config)],
            preset=PRESET_LABELS.get(t.options.preset.currentText(), ""))

    def _start_extension_run(self, request, paths: list[str]) -> None:
        """Record an extension (Start from: an existing tokenizer) as `extend` does."""
        if request is None:
            return
        options = dataclasses.asdict(request.options)
        errors = self.window.training.options.errors.currentData()
        config = {"format": request.fmt, "out_format": "model", "merges": request.merges,
                  "vocab_size": request.vocab_size, "min_frequency": 2, **options,
                  "encoding_errors": errors}
        argv = extend_arguments(request.source, request.fmt, paths, UNSAVED_MODEL,
                                merges=request.merges, vocab_size=request.vocab_size,
                                held_out=request.held_out, encoding_errors=errors, **options)
        self._log_start = len(self.window.training.log_view.toPlainText())
        self._training_command = self._training_errors = None
        self._training = self.recorder.start(
            "extend", config=config, command=command_record(argv),
            inputs=[*source_inputs(request.source, request.fmt),
                    *corpus_inputs(self.window.training.corpus.labelled_paths(), paths),
                    *(("text", p) for p in request.held_out)])

    def record_trim(self, done, source: tuple[str, str] | None) -> None:
        """File ▸ Trim vocabulary…'s trim, recorded as ``bpe-desktop trim --project`` does;
        ``source``: the trimmed model's file and format (None: a model not saved)."""
        path, fmt = (os.path.abspath(source[0]), source[1]) if source else (UNSAVED_MODEL,
                                                                            "model")
        options = {"out_format": done.out_format, "drop_alphabet": not done.keep_alphabet,
                   "drop_specials": not done.keep_specials}
        targets = [os.path.abspath(t) for t in done.targets]
        config, inputs = trim_record(path, fmt, targets, **options)
        argv = trim_arguments(path, fmt, targets, done.output, done.id_map, **options)
        started = self.recorder.start("trim", config=config, command=command_record(argv),
                                      inputs=inputs if source else inputs[1:])
        self.recorder.finish(started, "finished", model=done.result.model,
                             model_path=done.output, model_format=done.out_format,
                             metrics=trim_metrics(done.result))

    @Slot(object)
    def _on_trained(self, result) -> None:
        if self._training is None:
            return
        # an extension (Start from) records what `bpe-desktop extend --project` does
        metrics = (extension_metrics(result.result, result.reports)
                   if isinstance(result, ExtendOutcome)
                   else training_metrics(result.model, dict(result.timings)))
        self.recorder.finish(self._training, "finished", model=result.model,
                             metrics=metrics, log_text=self._training_log(),
                             **self._how_it_ran())
        self._training = None

    def _end_training(self, status: str, message: str) -> None:
        if self._training is None:
            return
        self.recorder.finish(self._training, status, message=message,
                             log_text=self._training_log(), **self._how_it_ran())
        self._training = None

    def _how_it_ran(self) -> dict:
        """A training that went on reading invalid UTF-8 as � (the user's answer after it
        started) is recorded so, or Re-run and Copy as command would stop at the bytes."""
        errors = self.window.training.encoding_errors
        if self._training_command is None or errors == self._training_errors:
            return {}
        argv = [*self._training_command["argv"], "--encoding-errors", errors]
        return {"config_added": {"encoding_errors": errors},
                "command": {**self._training_command, "argv": argv}}

    def _training_log(self) -> str:
        return self.window.training.log_view.toPlainText()[self._log_start:].strip()

    @Slot()
    def _on_evaluated(self) -> None:
        e, document = self.window.evaluate, self.window.document
        report = e.report
        if report is None:
            return
        request = e.request()
        gold = e.gold_files.paths()
        gold_format = e.gold_format_combo.currentData() or ""
        config = {"format": "model", "gold_format": gold_format,
                  "parity_mode": request.parity_mode, "sweep": request.sweep}
        model_path = document.path if document.path and not document.dirty else None
        argv = ["evaluate", "-m", model_path or UNSAVED_MODEL]
        for flag, paths in (("--gold", gold), ("--text", request.text_files)):
            for p in paths:
                argv += [flag, os.path.abspath(p)]
        if gold_format:
            argv += ["--gold-format", gold_format]
        if request.parallel_files:
            argv += ["--parallel", *map(os.path.abspath, request.parallel_files),
                     "--reference", os.path.abspath(request.reference or "")]
            argv += ["--parity-mode", request.parity_mode]
        if request.sweep:
            argv += ["--sweep", str(request.sweep)]
        inputs = [*(("gold", g) for g in gold), *(("text", t) for t in request.text_files),
                  *(("parallel", p) for p in request.parallel_files)]
        if model_path:
            inputs.insert(0, ("model", model_path))
        # Pasted text is measured but is no file a command could name.
        command = None if request.texts else command_record(argv)
        added = model_config_entries(document.model) if document.model is not None else {}
        self.recorder.record("evaluate", config=config, command=command, inputs=inputs,
                             metrics=evaluation_metrics(report), config_added=added)

    @Slot()
    def _on_compared(self) -> None:
        c = self.window.compare
        comparison = getattr(c, "comparison", None)
        if comparison is None:
            return
        paths = [s.path for s in c.sources]
        formats = [s.fmt for s in c.sources]
        text = c.text_path
        command = None
        if all(paths) and text:
            argv = ["compare"]
            for p, f in zip(paths, formats):
                argv += ["-m", os.path.abspath(p), "--format", f]
            command = command_record([*argv, "--text", os.path.abspath(text)])
        inputs = [*(("model", p) for p in paths if p), *((("text", text),) if text else ())]
        self.recorder.record("compare", config={"formats": formats}, command=command,
                             inputs=inputs, metrics=comparison_metrics(comparison))

    # -- History's requests ----------------------------------------------------------------

    def _model_sources(self, run_ids: list[int]):
        """Where each run's model is (raises ProjectError). A model file the run recorded
        the SHA-256 of is checked first, in a worker: written over since (the next run
        given the same -o), it holds another run's model."""
        runs = [self.project.run_details(run_id) for run_id in run_ids]
        checked = [d for d in runs if d.model_sha256 and d.model_path
                   and os.path.isfile(d.model_path)]
        missing = [d for d in runs if d.model_path and not os.path.exists(d.model_path)]
        where = self.project.path

        def check() -> tuple[set[int], dict[int, str]]:
            moved = {d.summary.id: moved_model_file(d, where) for d in missing}
            return ({d.summary.id for d in checked if model_file_changed(d)},
                    {run_id: path for run_id, path in moved.items() if path})
        changed, moved = run_modal(self.window, "Checking the model files…", check) \
            if checked or missing else (set(), {})
        return [run_model_source(self.project, run_id, changed, moved)
                for run_id in run_ids]

    def _load_models(self, run_ids: list[int]) -> list[tuple[object, object]] | None:
        """The models runs made (read in a worker), each with where it was found; None
        after an error was shown."""
        try:
            sources = self._model_sources(run_ids)
        except (ProjectError, OSError) as exc:
            dialogs.show_error(self.window, "Model not available", str(exc))
            return None
        return self._read_models(sources)

    def _read_models(self, sources) -> list[tuple[object, object]] | None:
        """(source, model) of each source, read in a worker; None after an error was
        shown."""
        def work():
            return [(source, read_run_model(source)) for source in sources]
        try:
            return run_modal(self.window, "Reading the model…", work)
        except (BpeError, OSError) as exc:
            dialogs.show_error(self.window, "Cannot open model", str(exc))
            return None

    @Slot(int)
    def open_model(self, run_id: int) -> None:
        """The run's model becomes the window's: its BPE Desktop model file opened, or
        the model kept in the project or read from another tool's file, as imported."""
        if self.window.training.running or self.window.interop.running:
            # as File ▸ Open: the running job's model would replace the one opened
            self.window._show_status("Wait for the running job to finish (Esc cancels it) "
                                     "before opening a model.")
            return
        if not self.window.maybe_save(self.window.BEFORE_OPENING):
            return
        try:
            source = self._model_sources([run_id])[0]
        except (ProjectError, OSError) as exc:
            dialogs.show_error(self.window, "Model not available", str(exc))
            return
        if source.own_file:
            self.window.open_path(source.path)
            return
        loaded = self._read_models([source])
        if loaded:
            self.window.document.set_imported(loaded[0][1])
            self.window._show_status(f"Opened the model of run {run_id}, "
                                     f"{source.describe()}")

    @Slot(list)
    def compare(self, run_ids: list[int]) -> None:
        loaded = self._load_models(run_ids)
        if not loaded:
            return
        c = self.window.compare
        while c.sources:
            c.remove_source(0)
        for source, model in loaded:
            c.add_model(f"run {source.run_id}", model)
        self.window.tabs.setCurrentWidget(c)
        self.window._show_status(f"Runs {', '.join(map(str, run_ids))} are in Compare: "
                                 "choose a text and press Compare.")

    @Slot(object)
    def export_report(self, run_ids: list[int] | None) -> None:
        if self.project is None:
            dialogs.show_error(self.window, "Nothing to report",
                               "No project is open (File ▸ Open project…).")
            return
        ids = run_ids or self.history.selected_ids() or self.project.run_ids()[-1:]
        if not ids:
            dialogs.show_error(self.window, "Nothing to report",
                               "No run is recorded in this project yet.")
            return
        path = dialogs.ask_save_path(self.window, "Export report", "report", REPORT_FILTER,
                                     f"report-run-{ids[0]}.html")
        if not path:
            return
        project_path = self.project.path

        def work():
            from bpe_desktop.core.project.report import build_report

            with Project(project_path) as project:
                report = build_report(project, ids)
            if path.lower().endswith(".pdf"):
                from bpe_desktop.ui.history.pdf_report import write_pdf

                write_pdf(report, path)
            else:
                from bpe_desktop.core.project.report_html import write_html

                write_html(report, path)
        try:
            run_modal(self.window, "Writing the report…", work)
        except (BpeError, OSError) as exc:
            dialogs.show_error(self.window, "Cannot write the report",
                               write_failure(path, exc) if isinstance(exc, OSError) else str(exc))
            return
        self.window._show_status(f"Wrote {path}: {len(ids)} run(s)")
