"""File ▸ Import and File ▸ Export: other tools' formats, run as background jobs.

After an export the file is reloaded with the receiving library (when installed) and
segmentations are compared on lines of the model's own corpus; the result is shown
("verified on 1,000 lines with tokenizers 0.22: 100%").
"""

from __future__ import annotations

import itertools
import os
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Slot
from PySide6.QtWidgets import QMenu

from bpe_desktop.core import BpeError, Corpus
from bpe_desktop.ui import dialogs
from bpe_desktop.ui.workers import JobError, JobRunner

try:  # the exporters ship with the core; keep the menus usable if a build lacks them
    from bpe_desktop.core import formats
except ImportError:  # pragma: no cover
    formats = None

if TYPE_CHECKING:
    from bpe_desktop.ui.main_window import MainWindow

VERIFY_LINES = 1000


def sample_lines(model, limit: int = VERIFY_LINES) -> list[str]:
    """Non-empty lines from the model's corpus files (or its stored words) for verifying."""
    lines: list[str] = []
    files = model.corpus.files if model.corpus else ()
    for f in files:
        if not os.path.isfile(f.path) or f.path.endswith(".gz"):
            continue
        try:
            with open(f.path, encoding="utf-8", errors="replace") as handle:
                for line in itertools.islice(handle, limit * 4):
                    line = line.strip("\r\n")
                    if line.strip():
                        lines.append(line)
                    if len(lines) >= limit:
                        return lines
        except OSError:
            continue
    if model.config.pretokenizer == "gpt2" or len(lines) >= limit:
        return lines
    return lines + [w for w, _ in model.words[: limit - len(lines)]]


class InteropMenus(QObject):
    """Owns the Import and Export submenus of the main window and their jobs."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.runner = JobRunner(self)
        self.runner.finished.connect(self._on_done)
        self.runner.failed.connect(self._on_failed)
        self.import_menu = QMenu("&Import", window)
        self.export_menu = QMenu("&Export", window)
        self._fill()

    def _fill(self) -> None:
        self.export_menu.addAction("Vocabulary &table (CSV)…", self._export_table)
        self.export_menu.addSeparator()
        if formats is None:
            self.import_menu.addAction("No import formats in this build").setEnabled(False)
            return
        for info in formats.FORMATS.values():
            self.export_menu.addAction(info.label, lambda i=info: self.export(i.name))
            if info.can_import:
                self.import_menu.addAction(info.label, lambda i=info: self.ask_import(i.name))
        self.import_menu.addSeparator()
        self.recount_action = self.import_menu.addAction(
            "&Recount current model on a corpus…", self.ask_recount)

    # -- export ---------------------------------------------------------------------------

    def _export_table(self) -> None:
        path = dialogs.ask_save_path(self.window, "Export vocabulary table", "export",
                                     "CSV files (*.csv)", "vocabulary.csv")
        if path:
            try:
                self.window.vocab.export_table_csv(path)
            except OSError as exc:
                dialogs.show_error(self.window, "Export failed", f"{path}: {exc.strerror or exc}")

    def export(self, fmt: str, path: str | None = None) -> bool:
        model = self.window.document.model
        if model is None or self.runner.running:
            return False
        info = formats.FORMATS[fmt]
        problem = formats.export_problem(model, fmt)
        if problem:
            dialogs.show_error(self.window, f"Cannot export as {info.label.rstrip('…')}", problem)
            return False
        if path is None:
            if info.writes_folder:
                path = dialogs.ask_folder(self.window, f"Folder for {info.label}", "export")
            else:
                path = dialogs.ask_save_path(self.window, f"Export {info.label}", "export",
                                             info.file_filter, info.default_name)
        if not path:
            return False
        sample = sample_lines(model) if info.peer else []

        def job(report, cancel):
            written = formats.export_model(model, fmt, path)
            verification = None
            if info.peer and sample:
                try:
                    verification = formats.verify_export(model, fmt, written, sample)
                except BpeError as exc:  # e.g. the peer library is not installed
                    verification = str(exc)
            return ("export", written, verification)

        self.runner.start(job)
        self.window.statusBar().showMessage(f"Exporting {info.label.rstrip('…')}…")
        return True

    # -- import ---------------------------------------------------------------------------

    def ask_import(self, fmt: str) -> None:
        info = formats.FORMATS[fmt]
        if info.writes_folder:
            path = dialogs.ask_folder(self.window, f"Import {info.label}", "import")
        else:
            paths = dialogs.ask_open_paths(self.window, f"Import {info.label}", "import",
                                           f"{info.file_filter};;All files (*)")
            path = paths[0] if paths else None
        if path:
            self.import_path(fmt, path)

    def import_path(self, fmt: str, path: str) -> bool:
        if self.runner.running or not self.window.maybe_save():
            return False
        self.runner.start(lambda report, cancel: ("import", formats.import_model(fmt, path), path))
        return True

    def ask_recount(self) -> None:
        model = self.window.document.model
        if model is None or self.runner.running:
            return
        paths = dialogs.ask_open_paths(self.window, "Corpus to recount on", "corpus",
                                       "Text files (*.txt *.gz);;All files (*)", multiple=True)
        if paths:
            corpus = Corpus.from_files(paths)
            self.runner.start(lambda report, cancel: (
                "recount", formats.recount(model, corpus, cancel=cancel), paths))

    # -- results --------------------------------------------------------------------------

    @Slot(object)
    def _on_done(self, result) -> None:
        kind = result[0]
        if kind == "export":
            _, written, verification = result
            where = ", ".join(str(p) for p in written)
            if verification is None:
                text = f"Exported to {where}."
            elif isinstance(verification, str):
                text = f"Exported to {where}.\nNot verified: {verification}"
            else:
                text = f"Exported to {where}.\n{verification.summary()}"
            self.last_message = text
            dialogs.show_info(self.window, "Export finished", text)
            self.window.statusBar().showMessage(text.replace("\n", " "), 10000)
        elif kind == "import":
            _, model, path = result
            self.window.document.set_imported(model)
            self.window.statusBar().showMessage(
                f"Imported {path}: {model.vocab_size:,} tokens, {len(model.merges):,} merges", 10000)
        elif kind == "recount":
            _, model, paths = result
            self.window.document.set_imported(model)
            self.window.statusBar().showMessage(f"Counts recomputed on {len(paths)} file(s)", 10000)

    @Slot(object)
    def _on_failed(self, error: JobError) -> None:
        details = None if isinstance(error.exception, (BpeError, OSError)) else error.details
        dialogs.show_error(self.window, "Import/export failed", error.message, details)

    def shutdown(self) -> None:
        self.runner.shutdown()
