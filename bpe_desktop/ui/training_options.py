"""Every training option of the engine, with presets and tooltips in a linguist's words."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QSpinBox,
    QWidget,
)

from bpe_desktop.core import ConfigError, TrainConfig
from bpe_desktop.core.config import BOUNDARY_OF_PRETOKENIZER, format_special, parse_special

#: Preset names as the menu shows them -> core preset keys.
PRESET_LABELS = {
    "Sennrich et al. 2016 (as in the papers)": "sennrich",
    "subword-nmt": "subword-nmt",
    "GPT-2 byte-level": "gpt2",
    "sentencepiece-style": "sentencepiece",
}
CUSTOM = "Custom"

STOP_LABELS = {
    "vocab_size": "Vocabulary size",
    "merges": "Number of merges",
    "exhaust": "Until no pair repeats",
}

_PRETOKENIZERS = {
    "whitespace": "Split at any whitespace",
    "space": "Split at spaces only (subword-nmt)",
    "letters": "Runs of letters; punctuation separate",
    "gpt2": "GPT-2 byte-level",
    "sentencepiece": "sentencepiece (▁ marks word starts)",
}
_BOUNDARIES = {
    "eow-symbol": "</w> as its own symbol (the papers)",
    "eow-suffix": "</w> glued to the last character",
    "bow-prefix": "▁ before each word",
    "none": "No marker",
}
_TIES = {
    "first-seen": "Pair seen first in the corpus",
    "lexicographic": "Greatest pair alphabetically (subword-nmt)",
    "codepoint": "Smallest symbol ids (Hugging Face)",
}
_NORMALIZE = {"none": "None", "nfc": "NFC (compose accents)",
              "nfkc": "NFKC (also fold compatibility forms)"}

TIPS = {
    "preset": "A starting point matching a well-known tool. Changing any option below makes "
              "it Custom.",
    "stop": "When learning stops: at a vocabulary size (special tokens + characters + "
            "learned subwords), after a number of merges, or when no pair of symbols "
            "occurs often enough any more.",
    "min_frequency": "A pair of symbols must occur at least this many times in the corpus to "
                     "be merged. 2 means a pair seen only once is never learned.",
    "pretokenizer": "How text is cut into words before learning. Subwords never cross a "
                    "word boundary.\n• whitespace: words are separated by any spaces, tabs "
                    "or line breaks.\n• spaces only: tabs and other spaces stay inside words "
                    "(like subword-nmt).\n• letters: runs of letters are words; each "
                    "punctuation mark is a word of its own.\n• GPT-2 byte-level: GPT-2's "
                    "rules; works on UTF-8 bytes, so no character is ever unknown.\n"
                    "• sentencepiece: words keep their leading space as ▁.",
    "boundary": "How the end or start of a word is marked, so that 'est' at the end of "
                "'newest' can be learned apart from 'est' inside 'estimate'.",
    "ties": "Which pair is merged when two pairs are equally frequent. The result is "
            "always deterministic; pick the rule of the tool you want to match.",
    "normalize": "Unicode normalization applied to the text first, so that the same "
                 "letter written in two ways (é as one character or e + accent) counts "
                 "as one.",
    "lowercase": "Fold all text to lower case before learning (and when encoding).",
    "character_coverage": "Keep only the most frequent characters that together cover "
                          "this share of the text; rarer characters become the unknown "
                          "token. 1.0 keeps every character.",
    "initial_alphabet": "Characters that must be in the vocabulary even if the corpus "
                        "lacks them (type them one after another).",
    "special_tokens": "Reserved tokens with fixed ids, never formed by merging, as "
                      "PIECE:ID or PIECE:ID:ROLE separated by spaces (roles: unk, pad, "
                      "bos, eos, user). <unk> stands for characters outside the vocabulary.",
    "threads": "Processor cores used for reading and counting the corpus (0 = all). The "
               "result is the same for any number.",
    "keep_words": "How many of the most frequent corpus words are stored in the model, so "
                  "the Vocabulary browser can show words that contain a token.",
    "word_counts": "Each line of the corpus files is 'word<TAB>count' (a frequency list) "
                   "instead of running text. Several tables are summed; .gz is read as "
                   "is. For a corpus too large for this computer, count it with "
                   "'bpe-desktop count' (on a Dask cluster with --dask) using the same "
                   "preset, then train here from the table: the merges are the same.",
    "errors": "What to do with bytes that are not valid UTF-8: stop with an error naming "
              "the file and position, or replace them with � and go on.",
}


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


class TrainingOptions(QWidget):
    """The options form; :meth:`config` builds the TrainConfig (or raises ConfigError)."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._applying = False
        form = QFormLayout(self)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)

        self.preset = QComboBox()
        self.preset.addItems([*PRESET_LABELS, CUSTOM])
        self.preset.setToolTip(TIPS["preset"])
        form.addRow("&Preset:", self.preset)

        self.stop = _combo(STOP_LABELS, TIPS["stop"])
        self.stop_value = QSpinBox()
        self.stop_value.setRange(1, 2_000_000_000)
        self.stop_value.setGroupSeparatorShown(True)
        self.stop_value.setValue(8000)
        self.stop_value.setToolTip(TIPS["stop"])
        row = QHBoxLayout()
        row.addWidget(self.stop, 1)
        row.addWidget(self.stop_value, 1)
        stop_label = QLabel("&Stop at:")  # a layout row needs an explicit buddy for its mnemonic
        stop_label.setBuddy(self.stop)
        form.addRow(stop_label, row)

        self.min_frequency = QSpinBox()
        self.min_frequency.setRange(1, 1_000_000_000)
        self.min_frequency.setToolTip(TIPS["min_frequency"])
        form.addRow("&Minimum pair count:", self.min_frequency)

        self.pretokenizer = _combo(_PRETOKENIZERS, TIPS["pretokenizer"])
        form.addRow("&Words:", self.pretokenizer)
        self.boundary = _combo(_BOUNDARIES, TIPS["boundary"])
        form.addRow("Word &boundary:", self.boundary)
        self.ties = _combo(_TIES, TIPS["ties"])
        form.addRow("&Ties:", self.ties)
        self.normalize = _combo(_NORMALIZE, TIPS["normalize"])
        form.addRow("&Normalization:", self.normalize)
        self.lowercase = QCheckBox("Lower-case the text")
        self.lowercase.setToolTip(TIPS["lowercase"])
        form.addRow("", self.lowercase)

        self.character_coverage = QDoubleSpinBox()
        self.character_coverage.setDecimals(4)
        self.character_coverage.setRange(0.0001, 1.0)
        self.character_coverage.setSingleStep(0.0005)
        self.character_coverage.setToolTip(TIPS["character_coverage"])
        form.addRow("Character &coverage:", self.character_coverage)

        self.initial_alphabet = QLineEdit()
        self.initial_alphabet.setPlaceholderText("e.g. äöüß")
        self.initial_alphabet.setToolTip(TIPS["initial_alphabet"])
        form.addRow("Always &include:", self.initial_alphabet)

        self.special_tokens = QLineEdit()
        self.special_tokens.setToolTip(TIPS["special_tokens"])
        form.addRow("Special to&kens:", self.special_tokens)

        self.word_counts = QCheckBox("Corpus files are word<TAB>count lists")
        self.word_counts.setToolTip(TIPS["word_counts"])
        form.addRow("", self.word_counts)
        self.errors = _combo({"strict": "Stop and show where", "replace": "Replace with �"},
                             TIPS["errors"])
        form.addRow("Invalid &UTF-8:", self.errors)

        self.threads = QSpinBox()
        self.threads.setRange(0, 1024)
        self.threads.setSpecialValueText("all cores")
        self.threads.setToolTip(TIPS["threads"])
        form.addRow("T&hreads:", self.threads)
        self.keep_words = QSpinBox()
        self.keep_words.setRange(0, 10_000_000)
        self.keep_words.setGroupSeparatorShown(True)
        self.keep_words.setToolTip(TIPS["keep_words"])
        form.addRow("Words kept for &browsing:", self.keep_words)

        self.pretokenizer.currentIndexChanged.connect(self._on_pretokenizer)
        self.set_config(TrainConfig(vocab_size=8000))
        self.preset.currentTextChanged.connect(self._on_preset)
        self.stop.currentIndexChanged.connect(self._on_stop_kind)
        for signal in self._option_signals():
            signal.connect(self._on_edited)

    def _option_signals(self):
        return (self.stop.currentIndexChanged, self.stop_value.valueChanged,
                self.min_frequency.valueChanged, self.pretokenizer.currentIndexChanged,
                self.boundary.currentIndexChanged, self.ties.currentIndexChanged,
                self.normalize.currentIndexChanged, self.lowercase.toggled,
                self.character_coverage.valueChanged, self.initial_alphabet.textChanged,
                self.special_tokens.textChanged)

    def _on_pretokenizer(self) -> None:
        # Words that carry their own space marker (Ġ, ▁) allow one boundary style only.
        forced = BOUNDARY_OF_PRETOKENIZER.get(self.pretokenizer.currentData())
        if forced is not None:
            _select(self.boundary, forced)
        self.boundary.setEnabled(forced is None)

    # -- reading and writing the form -----------------------------------------------------

    def config(self) -> TrainConfig:
        """The options as a TrainConfig; raises ConfigError with a readable message."""
        specials = tuple(parse_special(t) for t in self.special_tokens.text().split())
        stop = self.stop.currentData()
        if stop == "vocab_size" and self.stop_value.value() <= len(specials):
            raise ConfigError(
                f"a vocabulary size of {self.stop_value.value():,} leaves no room for "
                f"characters and subwords: the {len(specials)} special token(s) alone take "
                f"{len(specials)} id(s). Choose a larger vocabulary size.")
        return TrainConfig(
            vocab_size=self.stop_value.value() if stop == "vocab_size" else None,
            merges=self.stop_value.value() if stop == "merges" else None,
            min_frequency=self.min_frequency.value(),
            pretokenizer=self.pretokenizer.currentData(),
            boundary=self.boundary.currentData(),
            ties=self.ties.currentData(),
            normalize=self.normalize.currentData(),
            lowercase=self.lowercase.isChecked(),
            character_coverage=round(self.character_coverage.value(), 6),
            initial_alphabet=self.initial_alphabet.text(),
            special_tokens=specials,
            threads=self.threads.value(),
            keep_words=self.keep_words.value(),
        )

    def set_config(self, config: TrainConfig) -> None:
        self._applying = True
        try:
            if config.vocab_size is not None:
                _select(self.stop, "vocab_size")
                self.stop_value.setValue(config.vocab_size)
            elif config.merges is not None:
                _select(self.stop, "merges")
                self.stop_value.setValue(max(1, config.merges))
            else:
                _select(self.stop, "exhaust")
            self.stop_value.setEnabled(self.stop.currentData() != "exhaust")
            self.min_frequency.setValue(config.min_frequency)
            _select(self.pretokenizer, config.pretokenizer)
            _select(self.boundary, config.boundary)
            _select(self.ties, config.ties)
            _select(self.normalize, config.normalize)
            self.lowercase.setChecked(config.lowercase)
            self.character_coverage.setValue(config.character_coverage)
            self.initial_alphabet.setText(config.initial_alphabet)
            self.special_tokens.setText(" ".join(format_special(t) for t in config.special_tokens))
            self.threads.setValue(config.threads)
            self.keep_words.setValue(config.keep_words)
        finally:
            self._applying = False

    def apply_preset(self, key: str) -> None:
        """Load a core preset, keeping the current stopping rule."""
        stop = self.stop.currentData()
        value = self.stop_value.value()
        overrides: dict[str, Any] = {}
        if stop == "vocab_size":
            overrides["vocab_size"] = value
        elif stop == "merges":
            overrides["merges"] = value
        try:
            config = TrainConfig.preset(key, **overrides)
        except ConfigError:  # e.g. the vocabulary is too small for the preset's specials
            config = TrainConfig.preset(key)
        self.set_config(config.replace(threads=self.threads.value(),
                                       keep_words=self.keep_words.value()))
        self._show_preset(key)

    def to_dict(self) -> dict[str, Any]:
        """The form for QSettings (also valid when the options do not form a config)."""
        return {
            "preset": self.preset.currentText(),
            "stop": self.stop.currentData(),
            "stop_value": self.stop_value.value(),
            "min_frequency": self.min_frequency.value(),
            "pretokenizer": self.pretokenizer.currentData(),
            "boundary": self.boundary.currentData(),
            "ties": self.ties.currentData(),
            "normalize": self.normalize.currentData(),
            "lowercase": self.lowercase.isChecked(),
            "character_coverage": self.character_coverage.value(),
            "initial_alphabet": self.initial_alphabet.text(),
            "special_tokens": self.special_tokens.text(),
            "word_counts": self.word_counts.isChecked(),
            "errors": self.errors.currentData(),
            "threads": self.threads.value(),
            "keep_words": self.keep_words.value(),
        }

    def from_dict(self, data: dict[str, Any]) -> None:
        """Restore :meth:`to_dict` output; unknown or ill-typed entries are ignored."""
        self._applying = True
        try:
            for name in ("stop", "pretokenizer", "boundary", "ties", "normalize", "errors"):
                if isinstance(data.get(name), str):
                    _select(getattr(self, name), data[name])
            for name in ("stop_value", "min_frequency", "threads", "keep_words"):
                if isinstance(data.get(name), int) and not isinstance(data.get(name), bool):
                    getattr(self, name).setValue(data[name])
            if isinstance(data.get("character_coverage"), (int, float)):
                self.character_coverage.setValue(float(data["character_coverage"]))
            for name in ("lowercase", "word_counts"):
                if isinstance(data.get(name), bool):
                    getattr(self, name).setChecked(data[name])
            for name in ("initial_alphabet", "special_tokens"):
                if isinstance(data.get(name), str):
                    getattr(self, name).setText(data[name])
            self.stop_value.setEnabled(self.stop.currentData() != "exhaust")
            preset = data.get("preset")
            if isinstance(preset, str) and self.preset.findText(preset) >= 0:
                self.preset.blockSignals(True)
                self.preset.setCurrentText(preset)
                self.preset.blockSignals(False)
        finally:
            self._applying = False

    # -- reactions ------------------------------------------------------------------------

    def _on_preset(self, label: str) -> None:
        key = PRESET_LABELS.get(label)
        if key is not None and not self._applying:
            self.apply_preset(key)
            self.changed.emit()

    def _show_preset(self, key: str) -> None:
        label = next(k for k, v in PRESET_LABELS.items() if v == key)
        self.preset.blockSignals(True)
        self.preset.setCurrentText(label)
        self.preset.blockSignals(False)

    def _on_stop_kind(self) -> None:
        self.stop_value.setEnabled(self.stop.currentData() != "exhaust")

    def _on_edited(self, *_args) -> None:
        if self._applying:
            return
        self.preset.blockSignals(True)
        self.preset.setCurrentText(CUSTOM)
        self.preset.blockSignals(False)
        self.changed.emit()
