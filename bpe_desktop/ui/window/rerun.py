"""History's Re-run: a training set up in the Training panel again (its options, files,
languages; an extension's tokenizer and sizes) and run, any other run's recorded command
run again in the background, recorded in the open project.

Nothing runs on files other than the run's: each file it read is checked against its
recorded SHA-256 first (:mod:`bpe_desktop.core.project.rerun`); files moved with the
project are run where they are now, and the new run's log or the status line says so.
"""

from __future__ import annotations

import os
import signal
import sys
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QProcess, Slot
from PySide6.QtWidgets import QComboBox

from bpe_desktop.core import BpeError
from bpe_desktop.core.project.commands import UNSAVED_MODEL, recording_into
from bpe_desktop.core.project.relocation import Relocation
from bpe_desktop.core.project.rerun import (
    file_languages,
    inputs_found,
    recorded_training_config,
)
from bpe_desktop.ui.common import dialogs
from bpe_desktop.ui.common.modal_work import run_modal
from bpe_desktop.ui.training.start_from import EXISTING, NEW_VOCABULARY

if TYPE_CHECKING:
    from bpe_desktop.ui.window.main_window import MainWindow
    from bpe_desktop.ui.window.projects import ProjectControl


class RunAgain(QObject):
    def __init__(self, window: "MainWindow", control: "ProjectControl") -> None:
        super().__init__(control)
        self.window = window
        self.control = control
        self._processes: list[QProcess] = []  # commands of runs run again
        self._moved: Relocation | None = None  # the files of the run being started, moved

    def shutdown(self) -> None:
        for process in self._processes:
            # Stopped as Ctrl-C stops a command: it writes nothing half and records its run
            # as cancelled, as a training in the window is when it closes. Waiting for a
            # long command to finish froze the closing window, which then killed it with
            # its run left "running".
            if os.name == "posix" and process.processId():
                os.kill(process.processId(), signal.SIGINT)
            else:
                process.terminate()
            process.waitForFinished(30_000)

    @Slot(object)
    def rerun(self, details) -> None:
        """A training again in the Training panel (its model becomes the window's); any
        other run by its recorded command, in the background, recorded in this project."""
        w = self.window
        in_panel = details.summary.kind == "train" or bool(
            details.summary.kind == "extend" and details.command
            and UNSAVED_MODEL in details.command["argv"])
        if in_panel and (w.training.running or w.interop.running):
            # not now: its settings would replace the form's, and no run would start
            w._show_status(f"Wait for the running job to finish (Esc cancels it) before "
                           f"running run {details.summary.id} again.")
            return
        details = self._inputs_as_recorded(details)
        if details is None:
            return
        if details.summary.kind != "train" and in_panel:
            self._rerun_extension(details)  # the panel's run, its model not saved
            return
        if details.summary.kind != "train":
            self._rerun_command(details)
            return
        word_counts = bool(details.config.get("word_counts"))
        try:
            config = recorded_training_config(details)
            languages = file_languages(config, word_counts=word_counts)
        except BpeError as exc:
            dialogs.show_error(w, "Cannot re-run", f"Run {details.summary.id}: {exc}")
            return
        w.training.start_from.choice.setCurrentText(NEW_VOCABULARY)  # not an extension
        w.training.options.set_recorded_config(config, details.summary.preset)
        w.training.options.word_counts.setChecked(word_counts)
        self._set_encoding_errors(details.config)
        w.training.corpus.clear_files()
        w.training.corpus.add_paths([i.path for i in details.inputs if i.role == "corpus"])
        w.training.corpus.set_languages(languages, config.weight)
        w.train()
        self._say_where_found(details.summary.id)

    def _inputs_as_recorded(self, details):
        """``details`` to run again, naming its files where they are now, or None: its
        files are all there (else that is shown; moved with the project, they are found)
        and unchanged, or the user runs it anyway on the files as they are now."""
        run_id = details.summary.id
        try:
            details, moved, problems = run_modal(
                self.window, "Checking the run's files…",
                lambda: inputs_found(details, self.control.project.path))
        except (BpeError, OSError) as exc:
            dialogs.show_error(self.window, "Cannot re-run", f"Run {run_id}: {exc}")
            return None
        listed = "\n".join(p.describe() for p in problems[:10]) + \
            ("\n…" if len(problems) > 10 else "")
        if any(p.gone for p in problems):
            dialogs.show_error(self.window, "Cannot re-run",
                               f"Run {run_id} read files that are not where it read them:\n"
                               f"{listed}\n\nPut them back there to run it again.")
            return None
        if problems and not dialogs.ask_yes_no(
                self.window, "Files changed since the run",
                f"Run {run_id} read files whose content has changed since:\n{listed}\n\n"
                "Run it again on the files as they are now (its result may differ)?"):
            return None
        self._moved = moved
        if moved is not None:
            self.window._show_status(
                f"Run {run_id}'s files moved with the project: found in {moved.new} with "
                f"their recorded SHA-256 ({len(moved.found)} file(s)).")
        return details

    def _say_where_found(self, run_id: int) -> None:
        """In the new run's log (the Training panel's), the files found moved."""
        if self._moved is not None and self.window.training.running:
            self.window.training.log(
                f"Run {run_id}'s files were not where it read them; found with their "
                f"recorded SHA-256 where the project is now:\n{self._moved.describe()}")

    def _set_encoding_errors(self, config: dict) -> None:
        """The form's *Invalid UTF-8* as the run read it (strict in runs recorded before)."""
        errors = self.window.training.options.errors
        errors.setCurrentIndex(max(0, errors.findData(config.get("encoding_errors",
                                                                 "strict"))))

    def _rerun_extension(self, details) -> None:
        """An extension the Training panel ran, set up there again and run."""
        t = self.window.training
        config = details.config
        inputs = {role: [i.path for i in details.inputs if i.role == role]
                  for role in ("model", "corpus", "text")}
        start = t.start_from
        start.choice.setCurrentText(EXISTING)
        if not start.set_source(inputs["model"][0]):
            return
        by_size = config.get("vocab_size") is not None
        start.stop_mode.setCurrentIndex(1 if by_size else 0)
        start.stop_value.setValue(config["vocab_size"] if by_size else config["merges"])
        for name, edit in start.option_edits.items():
            if isinstance(edit, QComboBox):
                edit.setCurrentIndex(max(0, edit.findData(config.get(name))))
            else:
                edit.setText(config.get(name) or "")
        start.set_held_out(inputs["text"])
        self._set_encoding_errors(config)
        t.corpus.clear_files()
        t.corpus.add_paths(inputs["corpus"])
        self.window.train()
        self._say_where_found(details.summary.id)

    def _rerun_command(self, details) -> None:
        command = details.command
        if not command or UNSAVED_MODEL in command["argv"]:
            dialogs.show_error(self.window, "Cannot re-run",
                               f"Run {details.summary.id} used a model that was not saved to "
                               "a file; open the model, save it, and run it again.")
            return
        folder = command.get("cwd") or os.getcwd()
        if not os.path.isdir(folder):  # its relative paths would name other files
            dialogs.show_error(self.window, "Cannot re-run",
                               f"Run {details.summary.id} ran in {folder}, which is no longer "
                               "there; its command names files from there.")
            return
        argv = recording_into(command["argv"], self.control.project.path)
        process = QProcess(self)
        process.setWorkingDirectory(folder)
        process.setProcessChannelMode(QProcess.ProcessChannelMode.MergedChannels)
        if getattr(sys, "frozen", False):  # the bundled application is the command
            process.setProgram(sys.executable)
            process.setArguments(argv)
        else:
            process.setProgram(sys.executable)
            process.setArguments(["-m", "bpe_desktop.cli", *argv])
        run_id = details.summary.id
        process.finished.connect(lambda code, _status: self._rerun_done(process, run_id, code))
        # A program that cannot start never finishes: say so, and forget it.
        process.errorOccurred.connect(lambda error: self._rerun_not_started(process, run_id)
                                      if error == QProcess.ProcessError.FailedToStart else None)
        self._processes.append(process)
        process.start()
        where = f", on its files found in {self._moved.new}" if self._moved else ""
        self.window._show_status(
            f"Running run {run_id}'s command again in the background{where}…")

    def _rerun_done(self, process: "QProcess", run_id: int, code: int) -> None:
        output = bytes(process.readAll().data()).decode("utf-8", "replace").strip()
        last = output.splitlines()[-1] if output else ""
        if code == 0:
            self.window._show_status(f"Run {run_id} ran again; the new run is in History.")
        else:
            self.window._show_status(f"Run {run_id} ran again and failed: {last}")
        self._processes.remove(process)
        process.deleteLater()
        self.control.history.on_recorded()

    def _rerun_not_started(self, process: "QProcess", run_id: int) -> None:
        dialogs.show_error(self.window, "Cannot re-run",
                           f"Run {run_id}'s command could not start: {process.errorString()}")
        self._processes.remove(process)
        process.deleteLater()
