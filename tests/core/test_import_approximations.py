"""An import's notes on where it encodes text otherwise than its source stay with the
model (``BPEModel.approximations``, the model file's ``corpus.approximations``): through
saving and loading, truncation, recounting and extension; facts that leave the encoding
alone (a codes version) are only in the description."""

from __future__ import annotations

import json

import pytest

from bpe_desktop.core import Corpus, TrainConfig, train
from bpe_desktop.core.extend import extend
from bpe_desktop.core.formats import import_model, recount
from bpe_desktop.core.model_file import dumps, loads, model_from_dict
from tests.approximate_import import NOTE, approximate_model
from tests.core.model_file.helpers import load_error, small_model, valid_dict

TEXT = "low lowab ab\nlow low ab lowab\n"


@pytest.fixture
def imported(tmp_path):
    return approximate_model(tmp_path)


def test_the_import_keeps_its_note_and_the_description_still_says_it(imported):
    assert imported.approximations == (NOTE,)
    assert imported.description == ("Imported from tokenizer.json (Hugging Face "
                                    f"tokenizer.json). {NOTE}.")


def test_the_notes_survive_the_model_file_read_by_the_engine_and_by_python(imported):
    text = dumps(imported, created="2025-01-31T12:00:00Z")
    assert json.loads(text)["corpus"]["approximations"] == [NOTE]
    by_engine = loads(text)
    assert by_engine.engine_model() is not None
    assert by_engine.approximations == (NOTE,)
    assert model_from_dict(json.loads(text)).approximations == (NOTE,)


def test_a_model_without_notes_writes_no_key_and_reads_none():
    model = small_model()
    assert model.approximations == ()
    assert "approximations" not in json.loads(dumps(model))["corpus"]
    assert loads(dumps(model)).approximations == ()
    assert small_model(corpus=None).approximations == ()


def test_truncation_recounting_and_extension_keep_the_notes(tmp_path, imported):
    text = tmp_path / "t.txt"
    text.write_text(TEXT, encoding="utf-8")
    assert imported.truncated(1).approximations == (NOTE,)
    assert loads(dumps(imported)).truncated(1).approximations == (NOTE,)
    assert recount(imported, Corpus.from_files([str(text)])).approximations == (NOTE,)
    grown = extend(imported, Corpus.from_files([str(text)]), merges=1, min_frequency=1)
    assert grown.model.approximations == (NOTE,)


def test_a_trained_model_has_no_notes():
    model = train(Corpus.from_word_counts({"low": 5, "ab": 2}), TrainConfig(merges=2)).model
    assert model.approximations == ()


def test_a_remark_that_leaves_the_encoding_alone_is_no_approximation(tmp_path):
    codes = tmp_path / "bpe.codes"
    codes.write_text("#version: 0.2\nl o\nlo w</w>\n", encoding="utf-8")
    model = import_model("subword-nmt", codes)
    assert "codes version 0.2" in model.description
    assert model.approximations == (
        "a character that is in no merge encodes as '<unk>' here, whereas subword-nmt "
        "passes it through unchanged",)


@pytest.mark.parametrize("value, where, problem", [
    ("a note", "corpus.approximations", "expected a list, found a string"),
    (["a note", ""], "corpus.approximations[1]", "the string is empty"),
    ([3], "corpus.approximations[0]", "expected a string, found a whole number"),
])
def test_bad_notes_in_a_file_are_named(value, where, problem):
    data = valid_dict()
    data["corpus"]["approximations"] = value
    error = load_error(data)
    assert error.where == where
    assert str(error) == f"{where}: {problem}"
