"""``evaluate`` and ``compare`` say when a model only approximates the tokenizer it was
imported from: a ``warning:`` line per such model on standard error, and its notes in
``--json`` (``approximations``), also after the import was saved as a model file."""

from __future__ import annotations

import json

import pytest

from bpe_desktop.core import Corpus, TrainConfig, save_model, train
from tests.approximate_import import NOTE, approximate_model, write_tokenizer_json
from tests.cli.support import run


def _warning(name) -> str:
    return (f"bpe-desktop: warning: {name}: its figures describe an approximation of the "
            f"imported tokenizer, not the tokenizer itself: {NOTE}\n")


@pytest.fixture
def models(tmp_path):
    """(the import saved as a model file, a trained model file, a text)."""
    imported, plain, text = tmp_path / "imported.json", tmp_path / "plain.json", tmp_path / "t.txt"
    save_model(approximate_model(tmp_path), imported)
    save_model(train(Corpus.from_word_counts({"low": 5, "lowab": 2, "ab": 3}),
                     TrainConfig(merges=4)).model, plain)
    text.write_text("low lowab 12\nab xyz low\n", encoding="utf-8")
    return imported, plain, text


def test_evaluate_warns_about_a_saved_approximate_import(capsys, models):
    imported, _, text = models
    status, out, err = run(capsys, "evaluate", "-m", imported, "--text", text, "--json")
    assert status == 0
    assert err == _warning(imported)
    data = json.loads(out)
    assert list(data)[:3] == ["vocab_size", "merges", "approximations"]
    assert data["approximations"] == [NOTE]
    # and the readable output too
    status, out, err = run(capsys, "evaluate", "-m", imported, "--text", text)
    assert status == 0 and out.startswith("model: 9 tokens, 3 merges\n")
    assert err == _warning(imported)


def test_evaluate_warns_about_an_import_read_directly(capsys, tmp_path, models):
    _, _, text = models
    source = write_tokenizer_json(tmp_path)
    status, out, err = run(capsys, "evaluate", "-m", source, "--format", "hf", "--text",
                           text, "--json")
    assert status == 0 and err == _warning(source)
    assert json.loads(out)["approximations"] == [NOTE]


def test_evaluate_of_a_model_without_notes_warns_of_nothing(capsys, models):
    _, plain, text = models
    status, out, err = run(capsys, "evaluate", "-m", plain, "--text", text, "--json")
    assert status == 0 and err == ""
    assert json.loads(out)["approximations"] == []


def test_compare_warns_about_each_approximate_model_only(capsys, models):
    imported, plain, text = models
    status, out, err = run(capsys, "compare", "-m", plain, "-m", imported, "--text", text,
                           "--json")
    assert status == 0
    assert err == _warning("imported.json")
    tokenizers = json.loads(out)["tokenizers"]
    assert [(t["name"], t["approximations"]) for t in tokenizers] == [
        ("plain.json", []), ("imported.json", [NOTE])]
    status, out, err = run(capsys, "compare", "-m", plain, "-m", imported, "--text", text)
    assert status == 0 and out.startswith("Tokenizers\n") and err == _warning("imported.json")


def test_compare_of_models_without_notes_warns_of_nothing(capsys, models, tmp_path):
    _, plain, text = models
    status, out, err = run(capsys, "compare", "-m", plain, "-m", plain, "--text", text,
                           "--json")
    assert status == 0 and err == ""
    assert [t["approximations"] for t in json.loads(out)["tokenizers"]] == [[], []]
