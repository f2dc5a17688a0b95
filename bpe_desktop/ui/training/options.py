"""The training options form, built from TrainConfig's option declarations.

Each :class:`~bpe_desktop.core.config.TrainConfig` field gets an editor chosen by its
declaration (a menu for choices, a spin box for a range, a check box for a switch, a text
field otherwise) with the declared label, tooltip and range; the vocabulary size and the
number of merges share one "Stop at" row. Only the corpus options (word-count tables,
invalid UTF-8) and the presets menu are written here: they are not training options.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPlainTextEdit,
    QSpinBox,
    QToolButton,
    QWidget,
)

from bpe_desktop.core import ConfigError, TrainConfig
from bpe_desktop.core.config import (
    BOUNDARY_OF_PRETOKENIZER,
    PRESET_TITLES,
    format_special,
    parse_special,
)
from bpe_desktop.core.formats.reach import reach_sentence
from bpe_desktop.core.options import OptionSpec, option_specs

#: Preset names as the menu shows them -> core preset keys.
PRESET_LABELS = {title: key for key, title in PRESET_TITLES.items()}
CUSTOM = "Custom"
EXHAUST = "exhaust"
#: QSpinBox holds 32-bit ints: larger limits are cut to this in the form only.
SPIN_MAX = 2**31 - 1

SPECS = option_specs(TrainConfig)
STOP_FIELDS = tuple(name for name, spec in SPECS.items() if spec.group == "stop")
STOP_LABELS = {**{name: SPECS[name].plain_label for name in STOP_FIELDS},
               EXHAUST: "Until no pair repeats"}

TIPS = {
    "preset": "A starting point matching a well-known tool. Changing an option below (not "
              "the stopping rule or the vocabulary size) makes it Custom.",
    "stop": " ".join(SPECS[name].help for name in STOP_FIELDS),
    "word_counts": "Each line of the corpus files is 'word<TAB>count' (a frequency list) "
                   "instead of running text. Several tables are summed; .gz is read as "
                   "is. For a corpus too large for this computer, count it with "
                   "'bpe-desktop count' (on a Dask cluster with --dask) using the same "
                   "preset, then train here from the table: the merges are the same.",
    "errors": "What to do with bytes that are not valid UTF-8: stop with an error naming "
              "the file and position, or replace them with � and go on.",
}


@dataclasses.dataclass
class _Editor:
    """One widget with how to read, write and watch it."""

    widget: QWidget
    get: Callable[[], Any]
    put: Callable[[Any], None]
    signal: Any
    #: What the form shows when it is more than the widget (a field with its button).
    row: Any = None


#: Groups whose options a preset leaves as they are (they describe the run, the
#: linguistic constraints or the languages' balance, not the tool being imitated).
KEPT_BY_PRESETS = ("run", "constraints", "languages")
CONSTRAINTS_TITLE = "<b>Linguistic constraints</b>"
LANGUAGES_TITLE = "<b>Languages</b>"
#: Under it the options of reading the corpus and of the run (none about languages).
READING_TITLE = "<b>Reading and running</b>"


def _file_list(spec: OptionSpec) -> _Editor:
    """Files as one text field (names separated by ';') and a button adding some."""
    line = QLineEdit()
    line.setToolTip(spec.help)
    line.setPlaceholderText(spec.placeholder)
    browse = QToolButton()
    browse.setText("…")
    browse.setToolTip("Add files")
    browse.setAccessibleName(f"Add files to {spec.plain_label}")  # (it reads "…")
    row = QHBoxLayout()
    row.addWidget(line, 1)
    row.addWidget(browse)

    def get() -> tuple[str, ...]:
        return tuple(p.strip() for p in line.text().split(";") if p.strip())

    def add() -> None:
        names, _ = QFileDialog.getOpenFileNames(line, spec.plain_label)
        if names:
            line.setText("; ".join((*get(), *names)))

    browse.clicked.connect(add)
    return _Editor(line, get, lambda v: line.setText("; ".join(v)), line.textChanged, row)


def _string_list(spec: OptionSpec) -> _Editor:
    """Strings one a line in a small text box, and a button adding those of a file."""
    from bpe_desktop.core.errors import BpeError
    from bpe_desktop.core.protected import read_protected

    text = QPlainTextEdit()
    text.setToolTip(spec.help)
    text.setPlaceholderText(spec.placeholder)
    text.setFixedHeight(text.fontMetrics().lineSpacing() * 4)
    text.setTabChangesFocus(True)  # a string holds no tab; Tab moves on to the next field
    load = QToolButton()
    load.setText("…")
    load.setToolTip("Add the strings of a file (one a line)")
    load.setAccessibleName(f"Add the strings of a file to {spec.plain_label}")
    row = QHBoxLayout()
    row.addWidget(text, 1)
    row.addWidget(load, 0, Qt.AlignmentFlag.AlignTop)

    def get() -> tuple[str, ...]:
        # Typed twice is meant once (a file's strings are also kept once).
        return tuple(dict.fromkeys(s for s in text.toPlainText().split("\n") if s.strip()))

    def put(strings) -> None:
        text.setPlainText("\n".join(strings))

    def add() -> None:
        name, _ = QFileDialog.getOpenFileName(text, spec.plain_label)
        if not name:
            return
        try:
            strings = read_protected(name)
        except BpeError as exc:
            QMessageBox.warning(text, spec.plain_label, str(exc))
            return
        put(dict.fromkeys((*get(), *strings)))

    load.clicked.connect(add)
    return _Editor(text, get, put, text.textChanged, row)


def _combo(choices: dict[str, str], tip: str) -> QComboBox:
    box = QComboBox()
    for key, label in choices.items():
        box.addItem(label, key)
    box.setToolTip(tip)
    return box


def _select(box: QComboBox, key: Any) -> None:
    index = box.findData(key)
    if index >= 0:
        box.setCurrentIndex(index)


def _editor(name: str, spec: OptionSpec, default: Any) -> _Editor:
    """The editor the declaration asks for."""
    if spec.choices:
        box = _combo(dict(spec.choices), spec.help)
        return _Editor(box, box.currentData, lambda v: _select(box, v),
                       box.currentIndexChanged)
    if isinstance(default, bool):
        check = QCheckBox(spec.label)
        check.setToolTip(spec.help)
        return _Editor(check, check.isChecked, check.setChecked, check.toggled)
    if isinstance(default, float):
        spin = QDoubleSpinBox()
        spin.setDecimals(4)
        spin.setRange(spec.minimum, spec.maximum)
        spin.setSingleStep(spec.step)
        if spec.zero_means and spec.minimum == 0:
            spin.setSpecialValueText(spec.zero_means)
        spin.setToolTip(spec.help)
        return _Editor(spin, lambda: round(spin.value(), 6), spin.setValue, spin.valueChanged)
    if spec.maximum is not None:
        spin = QSpinBox()
        spin.setRange(int(spec.minimum), int(min(spec.maximum, SPIN_MAX)))
        spin.setGroupSeparatorShown(True)
        if spec.zero_means:
            spin.setSpecialValueText(spec.zero_means)
        spin.setToolTip(spec.help)
        return _Editor(spin, spin.value, spin.setValue, spin.valueChanged)
    if name == "protected":
        return _string_list(spec)
    if isinstance(default, tuple) and name != "special_tokens":
        return _file_list(spec)
    line = QLineEdit()
    line.setToolTip(spec.help)
    line.setPlaceholderText(spec.placeholder)
    if name == "special_tokens":
        return _Editor(line, lambda: tuple(parse_special(t) for t in line.text().split()),
                       lambda v: line.setText(" ".join(format_special(t) for t in v)),
                       line.textChanged)
    return _Editor(line, line.text, line.setText, line.textChanged)


class TrainingOptions(QWidget):
    """The options form; :meth:`config` builds the TrainConfig (or raises ConfigError).

    Each option's editor is also an attribute named after the option
    (``form.min_frequency``), as are ``preset``, ``stop``, ``stop_value``,
    ``word_counts`` and ``errors``.
    """

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._applying = False
        form = QFormLayout(self)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)

        self.preset = QComboBox()
        self.preset.addItems([*PRESET_LABELS, CUSTOM])
        self.preset.setToolTip(TIPS["preset"] + "\n\n" + "\n".join(
            f"{title}: {reach_sentence(TrainConfig.preset(key))}"
            for key, title in PRESET_TITLES.items()))
        for i, key in enumerate(PRESET_LABELS.values()):
            self.preset.setItemData(i, reach_sentence(TrainConfig.preset(key)),
                                    Qt.ItemDataRole.ToolTipRole)
        form.addRow("&Preset:", self.preset)
        # What the chosen options close: told before training, not at File > Export.
        self.reach_label = QLabel()
        self.reach_label.setObjectName("export_reach")
        self.reach_label.setWordWrap(True)
        form.addRow("", self.reach_label)

        self.stop = _combo(STOP_LABELS, TIPS["stop"])
        self.stop_value = QSpinBox()
        stop_specs = [SPECS[name] for name in STOP_FIELDS]
        self.stop_value.setRange(max(1, min(int(s.minimum) for s in stop_specs)),
                                 min(SPIN_MAX, max(int(s.maximum) for s in stop_specs)))
        self.stop_value.setGroupSeparatorShown(True)
        self.stop_value.setValue(8000)
        self.stop_value.setToolTip(TIPS["stop"])
        row = QHBoxLayout()
        row.addWidget(self.stop, 1)
        row.addWidget(self.stop_value, 1)
        stop_label = QLabel("Stop &at:")  # a layout row needs an explicit buddy for its mnemonic
        stop_label.setBuddy(self.stop)
        form.addRow(stop_label, row)

        self._editors: dict[str, _Editor] = {}
        defaults = TrainConfig()
        # Declaration order, but the run options (threads, kept words) last.
        for name, spec in sorted(SPECS.items(), key=lambda item: item[1].group == "run"):
            if spec.group == "stop":
                continue
            if spec.group == "run" and not hasattr(self, "word_counts"):
                self._add_corpus_options(form)
            if spec.group == "corpus":
                continue  # languages and weights are the corpus list's columns
            if spec.group == "languages" and not hasattr(self, "languages_title"):
                self.languages_title = QLabel(LANGUAGES_TITLE)
                self.languages_title.setToolTip(
                    "Label the corpus files with their languages (the Language column) "
                    "to balance them or to train parity-aware (Help ▸ Training options).")
                form.addRow(self.languages_title)
            if spec.group == "constraints" and not hasattr(self, "constraints_title"):
                self.constraints_title = QLabel(CONSTRAINTS_TITLE)
                self.constraints_title.setToolTip(
                    "Boundaries inside words that no merge crosses, and BPE-knockout "
                    "(Help ▸ Evaluation explains each method).")
                form.addRow(self.constraints_title)
            editor = self._editors[name] = _editor(name, spec, getattr(defaults, name))
            setattr(self, name, editor.widget)
            if isinstance(editor.widget, QCheckBox):
                form.addRow("", editor.widget)
            else:
                # A row that is a layout (a field with its button) gets no buddy from
                # addRow: without one the mnemonic would show as '&' and reach nothing.
                label = QLabel(spec.label)
                label.setBuddy(editor.widget)
                form.addRow(label, editor.row or editor.widget)

        self.pretokenizer.currentIndexChanged.connect(self._on_pretokenizer)
        self.set_config(TrainConfig(vocab_size=8000))
        self.preset.currentTextChanged.connect(self._on_preset)
        self.stop.currentIndexChanged.connect(self._on_stop_kind)
        for signal in self._option_signals():
            signal.connect(self._on_edited)
        for signal in (self.stop.currentIndexChanged, self.stop_value.valueChanged):
            signal.connect(self._on_stop_edited)
        self.changed.connect(self._show_reach)
        self._show_reach()

    def _add_corpus_options(self, form: QFormLayout) -> None:
        self.reading_title = QLabel(READING_TITLE)
        form.addRow(self.reading_title)
        self.word_counts = QCheckBox("&Corpus files are word<TAB>count lists")
        self.word_counts.setToolTip(TIPS["word_counts"])
        form.addRow("", self.word_counts)
        self.errors = _combo({"strict": "Stop and show where", "replace": "Replace with �"},
                             TIPS["errors"])
        form.addRow("Invalid UTF-&8:", self.errors)

    def _option_signals(self):
        # Threads and kept words change no result, and the stopping rule (vocabulary size)
        # is not part of a preset: they leave the preset as it is.
        return tuple(e.signal for name, e in self._editors.items()
                     if SPECS[name].group != "run")

    def _on_pretokenizer(self) -> None:
        # Words that carry their own space marker (Ġ, ▁) allow one boundary style only.
        forced = BOUNDARY_OF_PRETOKENIZER.get(self.pretokenizer.currentData())
        if forced is not None:
            _select(self.boundary, forced)
        self.boundary.setEnabled(forced is None)

    # -- reading and writing the form -----------------------------------------------------

    def config(self, **corpus_options) -> TrainConfig:
        """The options as a TrainConfig, with the corpus list's ``corpus_options`` (its
        languages and weights); raises ConfigError with a readable message."""
        values = {name: editor.get() for name, editor in self._editors.items()}
        values.update(corpus_options)
        specials = values["special_tokens"]
        stop = self.stop.currentData()
        if stop == "vocab_size" and self.stop_value.value() <= len(specials):
            raise ConfigError(
                f"a vocabulary size of {self.stop_value.value():,} leaves no room for "
                f"characters and subwords: the {len(specials)} special token(s) alone take "
                f"{len(specials)} id(s). Choose a larger vocabulary size.")
        for name in STOP_FIELDS:
            values[name] = self.stop_value.value() if stop == name else None
        return TrainConfig(**values)

    def set_config(self, config: TrainConfig) -> None:
        self._applying = True
        try:
            stop = next((n for n in STOP_FIELDS if getattr(config, n) is not None), EXHAUST)
            _select(self.stop, stop)
            if stop != EXHAUST:
                self.stop_value.setValue(max(1, getattr(config, stop)))
            self.stop_value.setEnabled(stop != EXHAUST)
            for name, editor in self._editors.items():
                editor.put(getattr(config, name))
        finally:
            self._applying = False
        self._show_reach()

    def apply_preset(self, key: str) -> None:
        """Load a core preset, keeping the current stopping rule and the run options."""
        stop = self.stop.currentData()
        overrides: dict[str, Any] = {}
        if stop != EXHAUST:
            overrides[stop] = self.stop_value.value()
        try:
            config = TrainConfig.preset(key, **overrides)
        except ConfigError:  # e.g. the vocabulary is too small for the preset's specials
            config = TrainConfig.preset(key)
        kept = {name: editor.get() for name, editor in self._editors.items()
                if SPECS[name].group in KEPT_BY_PRESETS}
        self.set_config(config)
        # Put back as the form held them, not through a TrainConfig: the languages'
        # options form one only with the corpus list's languages.
        self._applying = True
        try:
            for name, value in kept.items():
                self._editors[name].put(value)
        finally:
            self._applying = False
        self._show_reach()
        self._show_preset(key)

    def _state(self) -> dict[str, QWidget]:
        """Every widget whose raw state is remembered, by settings key."""
        return {"stop": self.stop, "stop_value": self.stop_value,
                **{name: e.widget for name, e in self._editors.items()},
                "word_counts": self.word_counts, "errors": self.errors}

    def to_dict(self) -> dict[str, Any]:
        """The form for QSettings (also valid when the options do not form a config)."""
        out: dict[str, Any] = {"preset": self.preset.currentText()}
        for key, widget in self._state().items():
            if isinstance(widget, QComboBox):
                out[key] = widget.currentData()
            elif isinstance(widget, QCheckBox):
                out[key] = widget.isChecked()
            elif isinstance(widget, QLineEdit):
                out[key] = widget.text()
            elif isinstance(widget, QPlainTextEdit):
                out[key] = widget.toPlainText()
            else:
                out[key] = widget.value()
        return out

    def from_dict(self, data: dict[str, Any]) -> None:
        """Restore :meth:`to_dict` output; unknown or ill-typed entries are ignored."""
        self._applying = True
        try:
            for key, widget in self._state().items():
                value = data.get(key)
                if isinstance(widget, QComboBox) and isinstance(value, str):
                    _select(widget, value)
                elif isinstance(widget, QCheckBox) and isinstance(value, bool):
                    widget.setChecked(value)
                elif isinstance(widget, QLineEdit) and isinstance(value, str):
                    widget.setText(value)
                elif isinstance(widget, QPlainTextEdit) and isinstance(value, str):
                    widget.setPlainText(value)
                elif isinstance(widget, QDoubleSpinBox) and isinstance(value, (int, float)) \
                        and not isinstance(value, bool):
                    widget.setValue(float(value))
                elif isinstance(widget, QSpinBox) and isinstance(value, int) \
                        and not isinstance(value, bool):
                    widget.setValue(value)
            self.stop_value.setEnabled(self.stop.currentData() != EXHAUST)
            preset = data.get("preset")
            if isinstance(preset, str) and self.preset.findText(preset) >= 0:
                self.preset.blockSignals(True)
                self.preset.setCurrentText(preset)
                self.preset.blockSignals(False)
        finally:
            self._applying = False
        self._show_reach()

    # -- reactions ------------------------------------------------------------------------

    def _on_preset(self, label: str) -> None:
        key = PRESET_LABELS.get(label)
        if key is not None and not self._applying:
            self.apply_preset(key)
            self.changed.emit()

    def _show_preset(self, key: str) -> None:
        self._show_preset_label(PRESET_TITLES[key])

    def _on_stop_kind(self) -> None:
        self.stop_value.setEnabled(self.stop.currentData() != EXHAUST)

    def _on_stop_edited(self, *_args) -> None:
        if not self._applying:
            self.changed.emit()

    def _on_edited(self, *_args) -> None:
        if self._applying:
            return
        self._show_preset_label(CUSTOM)
        self.changed.emit()

    def set_custom_config(self, config: TrainConfig) -> None:
        """Load ``config`` as the user's own options (the preset shows Custom)."""
        self.set_config(config)
        self._show_preset_label(CUSTOM)
        self.changed.emit()

    def set_recorded_config(self, config: TrainConfig, preset: str) -> None:
        """Load a recorded run's options under the preset it was recorded with (a core
        key; '' or an unknown one: Custom), so its run again is recorded with it too."""
        self.set_config(config)
        self._show_preset_label(PRESET_TITLES.get(preset, CUSTOM))

    def _show_preset_label(self, label: str) -> None:
        self.preset.blockSignals(True)
        self.preset.setCurrentText(label)
        self.preset.blockSignals(False)

    def _show_reach(self) -> None:
        # Judged without the languages' options: they change no format's verdict, and
        # they form a configuration only with the corpus list's languages.
        defaults = TrainConfig()
        try:
            config = self.config(**{name: getattr(defaults, name)
                                    for name, spec in SPECS.items()
                                    if spec.group == "languages"})
        except ConfigError:
            self.reach_label.setText("")
            return
        self.reach_label.setText(reach_sentence(config))
