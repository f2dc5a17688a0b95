"""File ▸ Trim vocabulary…: shrink the open model to what target texts need.

Trimming, checking and writing run in a worker (a large model and long texts take
seconds); the dialog stays responsive and can be cancelled only by closing it, which
keeps whatever was there: files are written atomically, and only after the trimmed
model segmented the target text exactly as before.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from PySide6.QtCore import Signal, Slot
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from bpe_desktop.core.adapted_output import (
    OWN_FORMAT,
    TRANSFORMERS_FOLDER,
    fitting_formats,
    format_label,
    model_files,
    write_model,
)
from bpe_desktop.core.comparison import read_text_lines
from bpe_desktop.core.formats import export_notes
from bpe_desktop.core.model import BPEModel
from bpe_desktop.core.trim import TrimResult, id_map_clash, trim, write_id_map
from bpe_desktop.ui.common import dialogs
from bpe_desktop.ui.common.workers import JobError, JobRunner
from bpe_desktop.views.write_errors import write_failure


@dataclass(frozen=True)
class TrimDone:
    """A trim whose files are written, with the choices that made it (what History
    records)."""
    result: TrimResult
    written: tuple[str, ...]
    targets: tuple[str, ...]
    out_format: str
    output: str
    id_map: str
    keep_alphabet: bool
    keep_specials: bool
    #: What the written file does differently from BPE Desktop (formats.export_notes).
    notes: tuple[str, ...] = ()


class TrimDialog(QDialog):
    #: The trimmed model (TrimResult), once its files are written.
    trimmed = Signal(object)
    #: The same trim as a :class:`TrimDone`.
    trim_done = Signal(object)

    def __init__(self, model: BPEModel, parent: QWidget | None = None, *,
                 source: tuple[str, str] | None = None) -> None:
        """``source``: (file, format) the model was imported from; written in that format,
        the trimmed model is that file rewritten (what the import could not express, such
        as a tokenizer.json's post-processor, kept), as ``bpe-desktop trim`` does."""
        super().__init__(parent)
        self.setWindowTitle("Trim vocabulary")
        self.model = model
        self.source = source
        self.targets: list[str] = []
        self.runner = JobRunner(self)
        self.runner.finished.connect(self._on_done)
        self.runner.failed.connect(self._on_failed)
        self.targets_label = QLabel("none")
        pick = QPushButton("Choose…")
        pick.clicked.connect(self.ask_targets)
        self.keep_alphabet = QCheckBox("Keep every base character (byte-level: always)")
        self.keep_alphabet.setChecked(True)
        self.keep_specials = QCheckBox("Keep the special tokens")
        self.keep_specials.setChecked(True)
        self.format = QComboBox()
        for fmt in fitting_formats(model, source[1] if source else None):
            self.format.addItem(format_label(fmt), fmt)
        if source is not None and self.format.findData(source[1]) >= 0:
            # the source's own format first
            self.format.setCurrentIndex(self.format.findData(source[1]))
        self.output = QLineEdit()
        self.output.setPlaceholderText("where to write the trimmed model")
        self.id_map = QLineEdit()
        self.id_map.setPlaceholderText("map.json (a .csv is written beside it)")
        for edit in (self.output, self.id_map):  # wide enough to read a chosen path
            edit.setMinimumWidth(edit.fontMetrics().averageCharWidth() * 48)
        form = QFormLayout()
        row = QHBoxLayout()
        row.addWidget(self.targets_label, 1)
        row.addWidget(pick)
        form.addRow("Target texts:", row)
        form.addRow(self.keep_alphabet)
        form.addRow(self.keep_specials)
        form.addRow("Format:", self.format)
        form.addRow("Model file:", self._with_button(self.output, self.ask_output,
                                                     "Choose the model file"))
        form.addRow("Id map:", self._with_button(self.id_map, self.ask_id_map,
                                                 "Choose the id map file"))
        self.status = QLabel(f"{model.vocab_size:,} tokens now.")
        self.status.setWordWrap(True)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.trim_button = self.buttons.addButton("Trim",
                                                  QDialogButtonBox.ButtonRole.ApplyRole)
        self.trim_button.clicked.connect(self.start)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.status)
        layout.addWidget(self.buttons)

    def _with_button(self, edit: QLineEdit, slot, name: str) -> QHBoxLayout:
        row = QHBoxLayout()
        row.addWidget(edit, 1)
        button = QPushButton("…")
        button.setToolTip(name)
        button.setAccessibleName(name)  # (it reads "…")
        button.clicked.connect(slot)
        row.addWidget(button)
        return row

    def ask_targets(self) -> None:
        paths = dialogs.ask_open_paths(self, "Target texts", "corpus",
                                       "Text files (*.txt *.gz);;All files (*)", multiple=True)
        if paths:
            self.set_targets(paths)

    def set_targets(self, paths: list[str]) -> None:
        self.targets = list(paths)
        self.targets_label.setText(", ".join(os.path.basename(p) for p in paths) or "none")

    def ask_output(self) -> None:
        path = dialogs.ask_save_path(self, "Trimmed model", "export", "All files (*)")
        if path:
            self.output.setText(path)

    def ask_id_map(self) -> None:
        path = dialogs.ask_save_path(self, "Id map", "export", "JSON (*.json);;CSV (*.csv)",
                                     "map.json")
        if path:
            self.id_map.setText(path)

    @property
    def running(self) -> bool:
        return self.runner.running

    def start(self) -> bool:
        """Trim and write; False (with the reason shown) when something is missing."""
        missing = [name for name, ok in (("target texts", self.targets),
                                         ("a model file", self.output.text().strip()),
                                         ("an id map file", self.id_map.text().strip()))
                   if not ok]
        if missing:
            dialogs.show_error(self, "Cannot trim", "Choose " + ", ".join(missing) + ".")
            return False
        if self.running:
            return False
        model, targets = self.model, list(self.targets)
        source_path, source_format = self.source or (None, None)
        fmt, out, id_map = self.format.currentData(), self.output.text(), self.id_map.text()
        why = id_map_clash(id_map, model_files(fmt, out),
                           [*targets, *_source_files(source_path, source_format)])
        if why:
            dialogs.show_error(self, "Cannot trim", why)
            return False
        keep_alphabet, keep_specials = (self.keep_alphabet.isChecked(),
                                        self.keep_specials.isChecked())

        def job(report, cancel) -> TrimDone:
            # as every reader of texts: .gz unpacked, a bad byte named by file and line
            lines = read_text_lines(targets)
            result = trim(model, lines, keep_alphabet=keep_alphabet,
                          keep_specials=keep_specials)
            if cancel.cancelled:  # closed meanwhile: nothing is written
                return None
            written = write_model(result.model, fmt, out, source=model,
                                  source_path=source_path, source_format=source_format)
            written += write_id_map(result, id_map)
            notes = () if fmt == "model" else tuple(export_notes(
                result.model, "hf" if fmt == TRANSFORMERS_FOLDER else fmt))
            return TrimDone(result, tuple(map(str, written)), tuple(targets), fmt, out, id_map,
                            keep_alphabet, keep_specials, notes)

        self.trim_button.setEnabled(False)
        self.status.setText("Trimming…")
        self.runner.start(job)
        return True

    @Slot(object)
    def _on_done(self, done: TrimDone) -> None:
        self.trim_button.setEnabled(True)
        r = done.result
        self.status.setText(f"Kept {len(r.id_map):,} of {r.source_size:,} tokens "
                            f"({r.dropped:,} dropped); the target texts segment exactly as "
                            f"before. Wrote {', '.join(done.written)}."
                            + "".join(f" Note: {n[:1].upper()}{n[1:]}." for n in done.notes))
        self.trimmed.emit(r)
        self.trim_done.emit(done)

    @Slot(object)
    def _on_failed(self, error: JobError) -> None:
        self.trim_button.setEnabled(True)
        self.status.setText("Nothing was written.")
        exc = error.exception  # reading errors are CorpusErrors: an OSError is a write's
        dialogs.show_error(self, "Cannot trim", write_failure(exc.filename, exc)
                           if isinstance(exc, OSError) and exc.filename else error.message)

    def done(self, code: int) -> None:  # noqa: D401 (Qt override)
        self.runner.shutdown()
        super().done(code)


def _source_files(path: str | None, fmt: str | None) -> list:
    """The files the trimmed model's source was read from (none for a model not read
    from a file)."""
    if path is None:
        return []
    if fmt in (None, OWN_FORMAT):
        return [path]
    from bpe_desktop.core.formats import import_files

    return import_files(fmt, path)
