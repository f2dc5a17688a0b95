"""Every TrainConfig field is reachable from the command line, the Training panel's form,
the model file and the help page, and the value lists are the engine's own."""

from __future__ import annotations

import dataclasses
import json

import pytest

from bpe_desktop import cli
from bpe_desktop.cli.options import flag_of
from bpe_desktop.core import Corpus, TrainConfig, _native, model_file, train
from bpe_desktop.core.config import (
    BOUNDARIES,
    NORMALIZATIONS,
    PRETOKENIZERS,
    SPECIAL_ROLES,
    TIE_BREAKS,
    SpecialToken,
    format_special,
)
from bpe_desktop.core.options import option_specs
from bpe_desktop.paths import resource_path

FIELDS = [f.name for f in dataclasses.fields(TrainConfig)]

#: A configuration in which every field differs from its default.
UNUSUAL = TrainConfig(
    vocab_size=777, min_frequency=3, pretokenizer="letters", boundary="eow-suffix",
    ties="lexicographic", normalize="nfkc", lowercase=True, character_coverage=0.75,
    initial_alphabet="äö", special_tokens=(SpecialToken("<pad>", 0, "pad"),
                                           SpecialToken("<unk>", 1, "unk")),
    threads=1, keep_words=123, fuse_unk=True, byte_fallback=True,
    gold_boundaries=("g1.tsv", "g2.tsv"),
    separator="ŋ", morfessor=True, morfessor_annotations=("a.tsv",), morfessor_keep_frequent=9,
    morfessor_keep_share=0.5,
    knockout=("k.tsv",),
    knockout_rounds=3, protected=("New York", "C++"),
    lang=("fi=ud_finnish.txt", "tr=ud_turkish.txt", "fi=more_finnish/"),
    weight=("fi=1", "tr=2.5"),
    parity_dev=("fi=dev.fi", "tr=dev.tr"),
    parity_dev_documents=True,
    parity_measure="tokens-per-character",
    parity_window=100,
)
#: Temperature sampling is the alternative to weights.
SAMPLED = UNUSUAL.replace(weight=(), temperature=3.0)
#: Options the Training panel takes from its corpus list's columns, not from the form.
CORPUS_LIST_FIELDS = [name for name, spec in option_specs(TrainConfig).items()
                      if spec.group == "corpus"]


def test_the_unusual_config_differs_in_every_field_but_the_other_stop():
    default = TrainConfig()
    same = [n for n in FIELDS if getattr(UNUSUAL, n) == getattr(default, n)]
    assert same == ["merges", "temperature"]  # alternatives to vocab_size and weight
    assert SAMPLED.temperature != default.temperature


def test_every_field_is_declared_with_label_and_help():
    specs = option_specs(TrainConfig)
    assert list(specs) == FIELDS
    for name, spec in specs.items():
        assert spec.label and len(spec.help) > 20, name


def test_value_lists_are_the_engines():
    values = _native.engine().OPTION_VALUES
    assert PRETOKENIZERS == tuple(values["pretokenizer"])
    assert BOUNDARIES == tuple(values["boundary"])
    assert TIE_BREAKS == tuple(values["ties"])
    assert NORMALIZATIONS == tuple(values["normalize"])
    assert SPECIAL_ROLES == tuple(values["role"])
    specs = option_specs(TrainConfig)
    assert tuple(specs["ties"].choices) == TIE_BREAKS
    assert specs["vocab_size"].maximum == _native.engine().MAX_VOCAB
    assert specs["threads"].maximum == _native.engine().MAX_THREADS


@pytest.mark.parametrize("config", [UNUSUAL, UNUSUAL.replace(vocab_size=None, merges=55),
                                    SAMPLED])
def test_every_field_is_reachable_from_the_command_line(config, tmp_path):
    args = ["train", "corpus.txt", "-o", "m.json"]
    for name in FIELDS:
        value = getattr(config, name)
        if value is None or value == ():
            continue
        if name == "protected":  # one string a line in a file
            strings = tmp_path / "protected.txt"
            strings.write_text("\n".join(value) + "\n", encoding="utf-8")
            args += [flag_of(name), str(strings)]
        elif name == "special_tokens":
            for token in value:
                args += [flag_of(name), format_special(token)]
        elif isinstance(value, bool):
            args += [flag_of(name)] if value else []
        elif isinstance(value, tuple):
            args += [flag_of(name), *value]
        else:
            args += [flag_of(name), str(value)]
    parsed = cli.build_parser().parse_args(args)
    assert cli.config_from_args(parsed) == config


def test_every_flag_is_documented_in_train_help(capsys):
    assert cli.main(["train", "--help"]) == 0
    text = capsys.readouterr().out
    for name in FIELDS:
        assert flag_of(name) in text, name


def test_every_field_is_reachable_from_the_form(qtbot):
    from bpe_desktop.ui.training.options import STOP_FIELDS, TrainingOptions

    form = TrainingOptions()
    qtbot.addWidget(form)
    for config in (UNUSUAL, UNUSUAL.replace(vocab_size=None, merges=55), SAMPLED):
        form.set_config(config)
        assert form.config(lang=config.lang, weight=config.weight) == config
    assert CORPUS_LIST_FIELDS == ["lang", "weight"]  # tests/ui/test_training_languages.py
    assert sorted([*STOP_FIELDS, *form._editors, *CORPUS_LIST_FIELDS]) == sorted(FIELDS)


def test_every_field_is_saved_in_the_model_file(tmp_path):
    config = UNUSUAL.replace(vocab_size=None, merges=3,
                             special_tokens=(SpecialToken("<unk>", 0, "unk"),))
    config = config.with_byte_tokens()  # as training makes it (byte_fallback is on)
    # trained without the constraint sources (their files do not exist), saved with them
    plain = config.replace(gold_boundaries=(), separator="", morfessor=False,
                           morfessor_annotations=(), knockout=())
    model = train(Corpus.from_texts(["low lower lowest newer"] * 3), plain).model
    model = dataclasses.replace(model, config=config)
    path = tmp_path / "m.json"
    model_file.save_model(model, path)
    saved = json.loads(path.read_text(encoding="utf-8"))["config"]
    stored = [name for name, spec in option_specs(TrainConfig).items() if spec.stored]
    assert sorted(saved) == sorted(stored) and set(FIELDS) - set(stored) == {"threads"}
    assert model_file.load_model(path).config == model.config.replace(threads=0)


def test_every_field_is_explained_in_the_help_page():
    text = resource_path("help", "training-options.md").read_text(encoding="utf-8")
    for name in FIELDS:
        assert f"`{name}`" in text, name
