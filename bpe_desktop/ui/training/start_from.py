"""Training panel: "Start from" — a new vocabulary, or an existing tokenizer to extend.

The tokenizer's format is detected when it is chosen (off the GUI thread it is only
read once the run starts); the number of new merges or the target size, what to do with
characters it cannot represent, the :class:`ExtendOptions` (one editor each, made from
their declaration) and held-out texts for the before/after report are set here. The run itself (load, extend, report) happens in the panel's worker.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QWidget,
)

from bpe_desktop.core.adapted_output import format_label
from bpe_desktop.core.errors import BpeError
from bpe_desktop.core.extend_options import ExtendOptions
from bpe_desktop.core.formats.detect import OWN_FORMAT, detect_format
from bpe_desktop.core.options import option_specs
from bpe_desktop.ui.common import dialogs

NEW_VOCABULARY = "a new vocabulary"
EXISTING = "an existing tokenizer…"
#: File-dialog filter for every readable tokenizer.
TOKENIZER_FILTER = ("Tokenizers (*.json *.model *.tiktoken *.codes *.txt *.yttm);;"
                    "All files (*)")


@dataclass(frozen=True)
class ExtendRequest:
    """What an extension run needs from the form."""

    source: str
    fmt: str
    merges: int | None
    vocab_size: int | None
    held_out: tuple[str, ...]
    #: The ExtendOptions fields, as the form holds them.
    options: ExtendOptions = field(default_factory=ExtendOptions)


class StartFrom(QGroupBox):
    """The "Start from" box; ``changed`` when the choice or the tokenizer changes."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Start from", parent)
        self.source_path: str | None = None
        self.source_format: str | None = None
        self.held_out: list[str] = []
        self.choice = QComboBox()
        self.choice.addItems([NEW_VOCABULARY, EXISTING])
        self.choice.setToolTip("Train a vocabulary from scratch, or continue training an "
                               "existing tokenizer on the corpus (every id it has is kept)")
        self.choice.currentIndexChanged.connect(self._on_choice)
        self.source_label = QLabel("No tokenizer chosen")
        self.source_label.setWordWrap(True)
        self.choose_button = QPushButton("Choose…")
        self.choose_button.clicked.connect(self.ask_source)
        self.stop_mode = QComboBox()
        self.stop_mode.addItems(["New merges", "Target size"])
        self.stop_value = QSpinBox()
        self.stop_value.setRange(1, 2**31 - 1)
        self.stop_value.setValue(2000)
        self.stop_value.setGroupSeparatorShown(True)
        self.held_out_label = QLabel("none")
        self.held_out_button = QPushButton("Held-out texts…")
        self.held_out_button.setToolTip("Texts of the new and of the original language for the "
                               "before/after report")
        self.held_out_button.clicked.connect(self.ask_held_out)
        self._form = form = QFormLayout(self)
        form.addRow(_buddy_label("Start fro&m:", self.choice), self.choice)
        row = QHBoxLayout()
        row.addWidget(self.source_label, 1)
        row.addWidget(self.choose_button)
        # A row that is a layout gets no buddy from addRow: the label names the control
        # its letter reaches.
        form.addRow(_buddy_label("To&kenizer:", self.choose_button), row)
        stop = QHBoxLayout()
        stop.addWidget(self.stop_mode)
        stop.addWidget(self.stop_value, 1)
        form.addRow(_buddy_label("Le&arn:", self.stop_mode), stop)
        #: The rows that only an extension uses (hidden with their labels otherwise).
        self.detail_rows: list = [row, stop]
        #: An editor per ExtendOptions field, made from its declaration.
        self.option_edits: dict[str, QLineEdit | QComboBox] = {}
        for name, spec in option_specs(ExtendOptions).items():
            edit = _editor(spec, getattr(ExtendOptions(), name))
            edit.setToolTip(spec.help[:1].upper() + spec.help[1:] + ".")
            form.addRow(_buddy_label(spec.label, edit), edit)
            self.option_edits[name] = edit
            self.detail_rows.append(edit)
        held = QHBoxLayout()
        held.addWidget(self.held_out_label, 1)
        held.addWidget(self.held_out_button)
        form.addRow(_buddy_label("Report o&n:", self.held_out_button), held)
        self.detail_rows.append(held)
        self._on_choice()

    @property
    def extending(self) -> bool:
        return self.choice.currentText() == EXISTING

    def _on_choice(self) -> None:
        for row in self.detail_rows:
            self._form.setRowVisible(row, self.extending)
        self.changed.emit()

    def ask_source(self) -> None:
        paths = dialogs.ask_open_paths(self, "Start from an existing tokenizer", "tokenizer",
                                       TOKENIZER_FILTER)
        if paths:
            self.set_source(paths[0])

    def set_source(self, path: str) -> bool:
        """Choose the tokenizer at ``path``; False (with the reason shown) when its
        format cannot be told."""
        try:
            fmt = detect_format(path)
        except (BpeError, OSError) as exc:
            dialogs.show_error(self, "Not a tokenizer", str(exc))
            return False
        self.source_path, self.source_format = path, fmt
        self.source_label.setText(f"{os.path.basename(path)} ({format_label(fmt)})")
        self.source_label.setToolTip(path)
        self.changed.emit()
        return True

    def ask_held_out(self) -> None:
        paths = dialogs.ask_open_paths(self, "Held-out texts", "corpus",
                                       "Text files (*.txt *.gz);;All files (*)",
                                       multiple=True)
        if paths:
            self.set_held_out(paths)

    def set_held_out(self, paths: list[str]) -> None:
        self.held_out = list(paths)
        self.held_out_label.setText(", ".join(os.path.basename(p) for p in paths) or "none")

    def options_problem(self) -> str | None:
        """Why the new ids are misspelt (or their file unreadable), or None; whether they
        are free is known once the worker has loaded the tokenizer."""
        from bpe_desktop.core.new_ids import new_ids_from

        try:
            new_ids_from(self.option_edits["new_ids"].text())
        except BpeError as exc:
            return str(exc)
        return None

    def request(self) -> ExtendRequest | None:
        """The extension asked for, or None when training from scratch."""
        if not self.extending or self.source_path is None:
            return None
        by_size = self.stop_mode.currentIndex() == 1
        value = self.stop_value.value()
        options = ExtendOptions(**{name: _value(edit)
                                   for name, edit in self.option_edits.items()})
        return ExtendRequest(self.source_path, self.source_format or OWN_FORMAT,
                             None if by_size else value, value if by_size else None,
                             tuple(self.held_out), options)


def _buddy_label(text: str, buddy: QWidget) -> QLabel:
    label = QLabel(text)
    label.setBuddy(buddy)
    return label


def _editor(spec, default: str) -> QLineEdit | QComboBox:
    """A menu of the option's choices, or a text field."""
    if spec.choices:
        menu = QComboBox()
        for value, label in spec.choices.items():
            menu.addItem(label, value)
        menu.setCurrentIndex(menu.findData(default))
        return menu
    edit = QLineEdit(default)
    edit.setPlaceholderText(spec.placeholder)
    return edit


def _value(editor: QLineEdit | QComboBox) -> str:
    return editor.currentData() if isinstance(editor, QComboBox) else editor.text()


@dataclass(frozen=True)
class ExtendOutcome:
    """A finished extension: the result (its ``model`` becomes current) and the reports."""

    result: object  # ExtendResult
    reports: tuple
    #: The source's file and format: an export in that format rewrites it (keeping what
    #: the import could not express) instead of writing a new one.
    source_path: str = ""
    source_format: str = ""

    @property
    def model(self):
        return self.result.model

    @property
    def timings(self):
        """Seconds per stage, as a training result's (what History records)."""
        return self.result.timings


def extend_job(request: ExtendRequest, corpus):
    """The worker's function: load the source, extend it, report on the held-out texts."""

    def job(report, cancel):
        from bpe_desktop.core.adaptation_report import held_out_report
        from bpe_desktop.core.comparison import read_text_lines
        from bpe_desktop.core.extend import extend
        from bpe_desktop.core.formats.detect import load_tokenizer
        from bpe_desktop.core.new_ids import new_ids_from

        source, _ = load_tokenizer(request.source, request.fmt)
        # Read first, as every reader of texts reads (.gz unpacked, a bad byte named by
        # file and line): a bad held-out text must not cost the extension's work.
        held_out = [(path, read_text_lines([path])) for path in request.held_out]
        result = extend(source, corpus, merges=request.merges, vocab_size=request.vocab_size,
                        unknown=request.options.unknown,
                        new_ids=new_ids_from(request.options.new_ids), cancel=cancel)
        reports = [held_out_report(source, result.model, lines, os.path.basename(path))
                   for path, lines in held_out]
        result.model.piece_ids  # computed here, not on the GUI thread
        return ExtendOutcome(result, tuple(reports), request.source, request.fmt)

    return job
