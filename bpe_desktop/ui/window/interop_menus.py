"""File ▸ Import and File ▸ Export: other tools' formats, run as background jobs.

Every export, import and recount runs in a :class:`JobRunner` worker, so a large model
never freezes the window. After an export the file is reloaded with the library that
reads it (when installed) and segmentations are compared on lines of the model's own
corpus; the result is shown ("verified on 1,000 lines with tokenizers 0.22: 100%").
A format that cannot express the model is refused before anything is written, with
the reason and the training settings that would make it exportable. A model extended
from a ``tokenizer.json`` or sentencepiece file, exported in that format, rewrites that
file (:mod:`bpe_desktop.core.adapted_output`) so nothing the import missed is lost.
"""

from __future__ import annotations

import gzip
import itertools
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal, Slot
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu

from bpe_desktop.core import BpeError, BPEModel, Corpus, Progress, formats
from bpe_desktop.core.adapted_output import (
    REWRITTEN_FORMATS,
    TRANSFORMERS_FOLDER,
    verify_transformers_folder,
    write_model,
)
from bpe_desktop.core.chunked import Superseded
from bpe_desktop.core.formats import Verification, reach
from bpe_desktop.ui.common import dialogs
from bpe_desktop.ui.common.background import LatestJob, WhenIdle
from bpe_desktop.ui.common.workers import JobError, JobRunner
from bpe_desktop.views.write_errors import next_step, write_failure

if TYPE_CHECKING:
    from bpe_desktop.ui.window.host import WindowHost

VERIFY_LINES = 1000
#: Lines read per wanted sample line before a file is given up on (mostly blank files).
_SCAN_FACTOR = 4


def sample_lines(model: BPEModel, limit: int = VERIFY_LINES) -> list[str]:
    """Non-empty lines of the model's training corpus (or its stored words) for verifying.

    Runs in the export worker: it reads files. Word-count tables are not running text,
    so for them (and when the corpus files are gone) the model's stored words are used;
    byte-level models are verified on running text only, since their words carry the
    spaces that precede them.
    """
    lines: list[str] = []
    info = model.corpus
    if info is not None and info.kind == "files":
        for f in info.files:
            lines.extend(_read_lines(f.path, limit - len(lines)))
            if len(lines) >= limit:
                return lines
    if model.config.byte_level:
        return lines
    return lines + [word for word, _ in model.words[: limit - len(lines)]]


def _read_lines(path: str, limit: int) -> list[str]:
    opener = gzip.open if path.endswith(".gz") else open
    out: list[str] = []
    try:
        with opener(path, "rt", encoding="utf-8", errors="replace") as handle:
            for line in itertools.islice(handle, limit * _SCAN_FACTOR):
                line = line.rstrip("\r\n")
                if line.strip():
                    out.append(line)
                    if len(out) >= limit:
                        break
    except (OSError, EOFError):  # moved, unreadable or a damaged .gz: verify on what we have
        pass
    return out


def _label(fmt: str) -> str:
    return formats.FORMATS[fmt].label.rstrip("…")


@dataclass(frozen=True)
class ExportDone:
    fmt: str
    written: tuple[str, ...]
    #: The peer's verdict, or why there is none (no peer, not installed, no sample).
    verification: Verification | str | None
    #: What the written file does differently on text the model does not cover.
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class ImportDone:
    fmt: str
    path: str
    model: BPEModel


@dataclass(frozen=True)
class RecountDone:
    paths: tuple[str, ...]
    model: BPEModel


class InteropMenus(QObject):
    """Owns the Import and Export submenus of the main window and their jobs."""

    #: A job started (True) or ended (False): the window locks what would conflict.
    running_changed = Signal(bool)
    #: An export, import or recount ended well (its ExportDone/ImportDone/RecountDone).
    done = Signal(object)
    #: A job failed (JobError) after its error was shown.
    failed = Signal(object)
    #: "Retrain with the HF-compatible boundary": the configuration to train with.
    retrain_requested = Signal(object)

    def __init__(self, window: WindowHost) -> None:
        super().__init__(window)
        self.window = window
        self.runner = JobRunner(self)
        self.runner.progressed.connect(self._on_progress)
        self.runner.finished.connect(self._on_done)
        self.runner.failed.connect(self._on_failed)
        self.runner.cancelled.connect(self._on_cancelled)
        self.runner.stopped.connect(lambda: self.running_changed.emit(False))
        #: (extended model, source model, source file, its format) of the last extension.
        self.adapted_from: tuple[BPEModel, BPEModel, str, str] | None = None
        #: (model, its file, the file's format) of the last import: what a trim of that
        #: model writes back into (File ▸ Trim vocabulary…).
        self.imported_from: tuple[BPEModel, str, str] | None = None
        #: The running job's error title and what a failure leaves as it was.
        self._job_title = ""
        self._kept = ""
        #: The last result message shown (also in the status bar).
        self.last_message = ""
        self._writes = False
        #: The files the running export has written (whole) so far.
        self._export_written: list[str] = []
        self.import_menu = QMenu("&Import", window)
        self.export_menu = QMenu("&Export", window)
        self.export_actions: dict[str, QAction] = {}
        #: Which formats the current model cannot take, decided in the background (the
        #: checks walk every merge: hundreds of ms for a 100,000-token model).
        self._export_checks = LatestJob(self)
        self._export_checks.finished.connect(self._show_export_problems)
        self._export_checks.failed.connect(self._on_check_failed)
        self._checks_due = WhenIdle(window.background_busy, self)
        self._problems_model: BPEModel | None = None
        self._problems: dict[str, str | None] = {}
        self._fill()

    def _fill(self) -> None:
        self.export_menu.addAction("Vocabulary &table (CSV)…", self.ask_export_table)
        self.export_menu.addSeparator()
        for info in formats.FORMATS.values():
            self.export_actions[info.name] = self.export_menu.addAction(
                info.label, lambda i=info: self.export(i.name))
            if info.name == "hf":
                self.transformers_action = self.export_menu.addAction(
                    "transformers folder (AutoTokenizer)…", self.export_transformers)
                # Offered where the papers' separate </w> alone closes tokenizer.json.
                self.retrain_hf_action = self.export_menu.addAction(
                    "    Retrain with the Hugging Face-compatible boundary (</w> glued)",
                    self.retrain_for_hf)
                self.retrain_hf_action.setVisible(False)
            if info.can_import:
                self.import_menu.addAction(info.label, lambda i=info: self.ask_import(i.name))
        self.import_menu.addSeparator()
        self.recount_action = self.import_menu.addAction(
            "&Recount current model on a corpus…", self.ask_recount)
        self.export_menu.setToolTipsVisible(True)
        self.window.document.model_changed.connect(self._explain_exports)

    @Slot()
    def _explain_exports(self) -> None:
        """A format the current model cannot take is disabled, its tooltip and status tip
        saying why (the formats module's own check, so the rules live in one place). The
        checks run in a worker; until they end every entry is offered, and
        :meth:`export` checks again before anything is written."""
        model = self.window.document.model
        self._problems_model, self._problems = None, {}
        self._show_problems({})
        if model is None:
            self._checks_due.cancel()
            self._export_checks.discard()
            return
        fmts = tuple(self.export_actions)
        rewritten = {f for f in fmts if self._rewritten_source(model, f, {}) is not None}

        def job(report, cancel) -> tuple[BPEModel, dict[str, str | None]]:
            problems = {}
            for fmt in fmts:
                if cancel.cancelled:
                    raise Superseded
                problems[fmt] = None if fmt in rewritten else formats.export_problem(model, fmt)
            return model, problems

        self._export_checks.discard()  # an older model's result must not arrive meanwhile
        self._checks_due.request(lambda: self._export_checks.submit(job))

    @property
    def checking_exports(self) -> bool:
        """Whether the export entries still wait for the current model's checks."""
        return self._checks_due.pending or self._export_checks.busy

    @property
    def checks_running(self) -> bool:
        """The export checks run now (not merely wait for their turn)."""
        return self._export_checks.busy

    @Slot(object)
    def _show_export_problems(self, result) -> None:
        model, problems = result
        if model is self.window.document.model:
            self._problems_model, self._problems = model, problems
            self._show_problems(problems)

    @Slot(object)
    def _on_check_failed(self, error: JobError) -> None:
        # An unexpected error in a check: the entries stay offered, and export() runs the
        # same check again (and reports it) when one is chosen.
        self.window.statusBar().showMessage(
            f"Could not check the export formats: {error.message}", 8000)

    def _show_problems(self, problems: dict[str, str | None]) -> None:
        for fmt, action in self.export_actions.items():
            problem = problems.get(fmt)
            tip = f"Not possible for this model: {problem}" if problem else ""
            action.setEnabled(problem is None)
            action.setStatusTip(tip)
            action.setToolTip(tip or action.text().replace("&", "").rstrip("…"))
        hf = self.export_actions["hf"]  # the folder holds a tokenizer.json
        self.transformers_action.setEnabled(hf.isEnabled())
        self.transformers_action.setStatusTip(hf.statusTip())
        self.transformers_action.setToolTip(hf.statusTip() or "tokenizer.json, "
                                            "tokenizer_config.json and special_tokens_map"
                                            ".json, which transformers.AutoTokenizer loads")
        model = self.window.document.model
        offer = bool(problems.get("hf")) and model is not None and \
            reach.blocked_by_boundary(model.config)
        self.retrain_hf_action.setVisible(offer)
        self.retrain_hf_action.setToolTip(
            f"Train again with the same options and boundary '{reach.HF_BOUNDARY}' (</w> "
            "glued to the last character, as Hugging Face reads it)" if offer else "")

    def retrain_for_hf(self) -> None:
        """Ask the window to train again with the boundary tokenizer.json can hold."""
        model = self.window.document.model
        if model is not None:
            self.retrain_requested.emit(model.config.replace(boundary=reach.HF_BOUNDARY))

    def _export_problem(self, model: BPEModel, fmt: str) -> str | None:
        """The background check's verdict when it is for ``model``, else the check now."""
        if model is self._problems_model and fmt in self._problems:
            return self._problems[fmt]
        if self._rewritten_source(model, fmt, {}) is not None:
            return None  # the source's own file can say what an export could not
        return formats.export_problem(model, fmt)

    @property
    def running(self) -> bool:
        return self.runner.running

    def cancel(self) -> None:
        self.runner.cancel()

    def shutdown(self) -> None:
        self._checks_due.cancel()
        self._export_checks.shutdown()
        self.runner.shutdown()

    def _start(self, title: str, status: str, job, *,
               kept: str = "The open model is unchanged.", writes: bool = False) -> None:
        """``writes``: the job writes files (its system errors are a write's)."""
        self._job_title, self._kept, self._writes = title, kept, writes
        self._export_written = []
        self.runner.start(job)
        self.running_changed.emit(True)
        self.window.statusBar().showMessage(status)

    def _busy(self) -> bool:
        if self.runner.running:
            self.window.statusBar().showMessage(
                "Wait for the running import or export to finish (Esc cancels it).", 5000)
            return True
        return False

    # -- export ---------------------------------------------------------------------------

    def ask_export_table(self) -> None:
        if self.window.document.model is None:
            return
        path = dialogs.ask_save_path(self.window, "Export vocabulary table", "export",
                                     "CSV files (*.csv)", "vocabulary.csv")
        if path:
            self.export_table(path)

    def export_table(self, path: str) -> bool:
        """The table's visible rows, in view order (quick: it is the view's own data)."""
        try:
            self.window.export_vocabulary_table(path)
        except OSError as exc:
            dialogs.show_error(self.window, "Export failed", write_failure(path, exc))
            return False
        self._report(f"Vocabulary table exported to {path}.")
        return True

    def export(self, fmt: str, path: str | None = None, *, dropout: float | None = None
               ) -> bool:
        """Export the current model as ``fmt``, asking for ``path`` when not given
        (``dropout``: the BPE-dropout value an ``hf`` file carries).

        Refuses (with the reason and a remedy) a model the format cannot express, before
        asking for a file, so nothing is ever written for it.
        """
        model = self.window.document.model
        if model is None or self._busy():
            return False
        info = formats.FORMATS[fmt]
        problem = self._export_problem(model, fmt)
        if problem:
            dialogs.show_error(self.window, "Cannot export",
                               f"This model cannot be exported as {_label(fmt)}: {problem}.")
            return False
        if path is None:
            if info.writes_folder:
                path = dialogs.ask_folder(self.window, f"Folder for {_label(fmt)}", "export")
            else:
                path = dialogs.ask_save_path(self.window, f"Export {_label(fmt)}", "export",
                                             info.file_filter, info.default_name)
        if not path:
            return False
        options = {} if dropout is None else {"dropout": dropout}
        if info.optional_file:
            option, question = info.optional_file
            options[option] = dialogs.ask_yes_no(self.window, f"Export {_label(fmt)}",
                                                 question)
            problem = formats.export_problem(model, fmt, **options)
            if problem:
                dialogs.show_error(self.window, "Cannot export", f"This model cannot be "
                                   f"exported as {_label(fmt)}: {problem}.")
                return False

        rewritten = self._rewritten_source(model, fmt, options)
        written_now: list[str] = []  # read by _on_cancelled, once the job has ended

        def job(report, cancel) -> ExportDone | None:
            if cancel.cancelled:
                return None  # nothing written
            if rewritten is not None:  # the extended source's own file, patched
                source, source_path = rewritten
                written = tuple(str(p) for p in write_model(
                    model, fmt, path, source=source, source_path=source_path,
                    source_format=fmt))
            else:
                written = tuple(str(p) for p in formats.export_model(model, fmt, path,
                                                                     **options))
            notes = tuple(formats.export_notes(model, fmt))
            written_now.extend(written)
            if info.peer is None:
                return ExportDone(fmt, written, None, notes)
            return _verified(fmt, written, notes, model, lambda sample: formats.verify_export(
                model, fmt, written, sample))

        self._start("Export failed", f"Exporting {_label(fmt)}…", job,
                    kept="Files written before are unchanged (each is replaced whole or "
                         "not at all).", writes=True)
        self._export_written = written_now
        return True

    def export_transformers(self, folder: str | None = None) -> bool:
        """Export the current model as a transformers folder (its tokenizer.json is the
        extended source's, patched, as for *Hugging Face tokenizer.json*), asking for the
        folder when not given; verified with transformers on lines of the corpus."""
        model = self.window.document.model
        if model is None or self._busy():
            return False
        problem = self._export_problem(model, "hf")
        if problem:
            dialogs.show_error(self.window, "Cannot export", "This model cannot be exported "
                               f"as a transformers folder: {problem}.")
            return False
        folder = folder or dialogs.ask_folder(self.window, "Folder for the transformers "
                                              "files", "export")
        if not folder:
            return False
        source, source_path = self._rewritten_source(model, "hf", {}) or (None, None)
        written_now: list[str] = []  # read by _on_cancelled, once the job has ended

        def job(report, cancel) -> ExportDone | None:
            if cancel.cancelled:
                return None  # nothing written
            written = tuple(str(p) for p in write_model(
                model, TRANSFORMERS_FOLDER, folder, source=source, source_path=source_path,
                source_format="hf"))
            written_now.extend(written)
            notes = tuple(formats.export_notes(model, "hf"))
            return _verified(TRANSFORMERS_FOLDER, written, notes, model,
                             lambda sample: verify_transformers_folder(model, folder, sample))

        self._start("Export failed", "Exporting a transformers folder…", job,
                    kept="Files written before are unchanged (each is replaced whole or "
                         "not at all).", writes=True)
        self._export_written = written_now
        return True

    def _rewritten_source(self, model, fmt: str, options: dict):
        """(source model, its file) when ``model`` was extended from a tokenizer.json or
        sentencepiece file and is exported in that format with no export options: that
        file is then rewritten, keeping what the import could not express."""
        if self.adapted_from is None or options:
            return None
        extended, source, source_path, source_format = self.adapted_from
        if extended is not model or source_format != fmt or fmt not in REWRITTEN_FORMATS:
            return None
        return source, source_path

    # -- import ---------------------------------------------------------------------------

    def ask_import(self, fmt: str) -> None:
        if self._busy():
            return
        info = formats.FORMATS[fmt]
        if info.writes_folder:
            path = dialogs.ask_folder(self.window, f"Import {_label(fmt)} (choose the folder)",
                                      "import")
        else:
            paths = dialogs.ask_open_paths(self.window, f"Import {_label(fmt)}", "import",
                                           f"{info.file_filter};;All files (*)")
            path = paths[0] if paths else None
        if path:
            self.import_path(fmt, path)

    def import_path(self, fmt: str, path: str) -> bool:
        """Read another tool's tokenizer; it opens as a new, unsaved model."""
        if self._busy() or self.window.is_training() or not self.window.maybe_save(
                self.window.BEFORE_IMPORTING):
            return False
        def job(report, cancel) -> ImportDone:
            model = formats.import_model(fmt, path)
            model.piece_ids  # computed here, not on the GUI thread when the panels take over
            return ImportDone(fmt, path, model)

        self._start("Import failed", f"Importing {path}…", job)
        return True

    # -- recount --------------------------------------------------------------------------

    def ask_recount(self) -> None:
        if self.window.document.model is None or self._busy():
            return
        paths = dialogs.ask_open_paths(self.window, "Corpus to recount on", "corpus",
                                       "Text files (*.txt *.text *.gz);;All files (*)",
                                       multiple=True)
        if paths:
            self.recount(paths)

    def recount(self, paths: list[str]) -> bool:
        """Replay the current model's merges over ``paths`` to fill in their counts."""
        model = self.window.document.model
        if model is None or self._busy() or self.window.is_training():
            return False
        corpus = Corpus.from_files(paths)

        def job(report, cancel) -> RecountDone:
            counted = formats.recount(model, corpus, progress=report, cancel=cancel)
            return RecountDone(tuple(paths), counted)

        self._start("Recount failed", f"Recounting on {len(paths)} file(s)…", job)
        return True

    # -- results (GUI thread) ----------------------------------------------------------------

    @Slot(object)
    def _on_progress(self, p: Progress) -> None:
        if p.stage == "merging" and p.merges_target:
            text = f"Recounting: merge {p.merges_done:,} of {p.merges_target:,}"
        else:
            text = f"Recounting: reading the corpus, {p.words:,} words"
        self.window.statusBar().showMessage(text + " (Esc cancels)")

    @Slot(object)
    def _on_done(self, result) -> None:
        if isinstance(result, ExportDone):
            self._export_done(result)
        elif isinstance(result, ImportDone):
            self.imported_from = (result.model, result.path, result.fmt)
            self.window.document.set_imported(result.model)
            model = result.model
            # the import's notes (what differs from the source tool), as the CLI prints
            self._report(f"Imported {result.path}: {model.vocab_size:,} tokens, "
                         f"{model.merge_count:,} merges (not saved yet).\n"
                         f"{model.description}")
        elif isinstance(result, RecountDone):
            self.window.document.set_edited(result.model)
            self._report(f"Counts recomputed on {len(result.paths)} file(s) "
                         f"({result.model.corpus.total_words:,} words).")
        self.done.emit(result)

    def _export_done(self, result: ExportDone) -> None:
        where = ", ".join(result.written)
        verification = result.verification
        notes = "".join(f"\nNote: {n[:1].upper()}{n[1:]}." for n in result.notes)
        if verification is None:
            self._report(f"Exported to {where}.{notes}")
            dialogs.show_info(self.window, "Export finished", self.last_message)
            return
        if isinstance(verification, str):
            text = f"Exported to {where}.\nNot verified: {verification}"
        else:
            summary = verification.summary()
            text = f"Exported to {where}.\n{summary[:1].upper()}{summary[1:]}."
            if verification.differs:
                text += f"\nFirst difference: {verification.mismatch_text()}"
        text += notes
        self._report(text)
        if isinstance(verification, Verification) and verification.agreed < verification.lines:
            dialogs.show_error(self.window, "Export differs from BPE Desktop", text)
        else:
            dialogs.show_info(self.window, "Export finished", text)

    def _report(self, text: str) -> None:
        self.last_message = text
        self.window.statusBar().showMessage(text.replace("\n", " "), 15000)

    @Slot(object)
    def _on_failed(self, error: JobError) -> None:
        exc = error.exception
        message = _error_text(exc) if error.by_input else error.message
        self.window.statusBar().showMessage(f"{self._job_title}: {message}", 15000)
        then = (" " + next_step(exc) if self._writes and isinstance(exc, OSError)
                and exc.strerror else "")
        dialogs.show_error(self.window, self._job_title,
                           f"{message}\n{self._kept}{then}",
                           error.details_if_bug)
        self.failed.emit(error)

    @Slot()
    def _on_cancelled(self) -> None:
        written = self._export_written
        if written:  # Esc came after the files were replaced: only their check stopped
            self._report(f"Exported to {', '.join(written)}; the check of the export was "
                         "cancelled.")
            return
        self.window.statusBar().showMessage("Cancelled; the open model is unchanged.", 8000)


def _verified(fmt: str, written: tuple[str, ...], notes: tuple[str, ...], model: BPEModel,
              verify) -> ExportDone:
    """The export, with ``verify``'s verdict on sample lines of the model's corpus (or
    why there is none)."""
    sample = sample_lines(model)
    if not sample:
        return ExportDone(fmt, written, "there is no sample text (the training corpus is "
                                        "not available)", notes)
    try:
        verification = verify(sample)
    except BpeError as exc:  # e.g. the peer library is not installed
        verification = str(exc)
    return ExportDone(fmt, written, verification, notes)


def _error_text(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return f"{exc.filename}: {exc.strerror}" if exc.filename else exc.strerror
    return str(exc)
