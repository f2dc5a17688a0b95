"""A constrained model against its unconstrained counterpart: same corpus and size,
both evaluated alike, the gold words cut differently; what has no counterpart is an
error saying why."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from bpe_desktop.core import ConfigError, Corpus, TrainConfig, train
from bpe_desktop.core.comparison.unconstrained import (
    compare_with_unconstrained,
    unconstrained_config,
)
from bpe_desktop.core.evaluation import EvaluationRequest, evaluate, read_gold

DATA = Path(__file__).resolve().parents[2] / "data"
GOLD = DATA / "morph" / "eng.word.dev.tsv"
TEXT = DATA / "tinyshakespeare.txt"


@pytest.fixture(scope="module")
def corpus_file(tmp_path_factory):
    """Shakespeare plus the gold words, so that the boundaries cut some corpus words."""
    path = tmp_path_factory.mktemp("corpus") / "text.txt"
    words = " ".join(w.word for w in read_gold(GOLD).words)
    path.write_text(TEXT.read_text(encoding="utf-8")[:200_000] + (words + "\n") * 3,
                    encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def constrained(corpus_file):
    corpus = Corpus.from_files([str(corpus_file)])
    return train(corpus, TrainConfig(vocab_size=900, lowercase=True,
                                     gold_boundaries=(str(GOLD),))).model


def test_the_counterpart_has_the_same_corpus_and_size_and_no_constraints(constrained):
    config = unconstrained_config(constrained)
    assert config.vocab_size == constrained.vocab_size and config.merges is None
    assert config.gold_boundaries == () and config.lowercase
    assert config.replace(gold_boundaries=constrained.config.gold_boundaries,
                          vocab_size=constrained.config.vocab_size) == constrained.config


def test_comparison_evaluates_both_and_lists_changed_words(constrained, corpus_file):
    gold = read_gold(GOLD)
    request = EvaluationRequest(gold=[gold], texts=["the king is dead, long live the king"])
    gain = compare_with_unconstrained(constrained, request)
    plain = train(Corpus.from_files([str(corpus_file)]), unconstrained_config(constrained)).model
    assert gain.unconstrained_model.merges == plain.merges
    expected = evaluate(plain, request).morphology[gold.name]
    rows = {name: (a, b) for name, a, b in gain.rows()}
    assert rows[f"{gold.name}: boundary F1"] == (
        evaluate(constrained, request).morphology[gold.name].f1, expected.f1)
    assert "texts: tokens per word (fertility)" in rows
    ours, theirs = constrained.tokenizer(), plain.tokenizer()
    changed = {c.word for c in gain.changed}
    assert changed
    for w in gold.words:
        differs = ours.encode_as_pieces(w.word) != theirs.encode_as_pieces(w.word)
        assert (w.word in changed) == differs


def test_models_without_a_counterpart_say_why(constrained, tmp_path):
    plain = train(Corpus.from_texts(["low lower"] * 3), TrainConfig(merges=3)).model
    with pytest.raises(ConfigError, match="without linguistic constraints"):
        unconstrained_config(plain)
    typed = train(Corpus.from_word_counts({"undo": 3, "redo": 2}),
                  TrainConfig(merges=3, gold_boundaries=(str(GOLD),))).model
    with pytest.raises(ConfigError, match="does not name its corpus files"):
        compare_with_unconstrained(typed, EvaluationRequest(texts=["undo"]))
    segmented = train(Corpus.from_texts(["un@@do re@@do"] * 3),
                      TrainConfig(merges=3, separator="@@")).model
    with pytest.raises(ConfigError, match="pre-segmented"):
        unconstrained_config(segmented)


def test_a_multilingual_model_is_compared_with_the_same_balanced_languages(corpus_file):
    from bpe_desktop.core.multilingual import train_multilingual
    from tests.shared_data import corpus_path

    config = TrainConfig(vocab_size=900, lowercase=True, gold_boundaries=(str(GOLD),),
                         lang=(f"en={corpus_file}", f"de={corpus_path('ud_german.txt')}"),
                         temperature=3.0)
    model = train_multilingual(config).model
    gain = compare_with_unconstrained(model, EvaluationRequest(gold=[read_gold(GOLD)]))
    plain = train_multilingual(unconstrained_config(model)).model
    assert gain.unconstrained_model.merges == plain.merges


def test_a_corpus_read_with_invalid_utf8_as_replacement_is_read_so_again(tmp_path):
    path = tmp_path / "latin1.txt"
    words = " ".join(w.word for w in read_gold(GOLD).words)
    path.write_bytes(TEXT.read_bytes()[:50_000] + b"\ncaf\xe9 au lait\n"
                     + (words + "\n").encode() * 3)
    config = TrainConfig(vocab_size=400, gold_boundaries=(str(GOLD),))
    model = train(Corpus.from_files([str(path)], errors="replace"), config).model
    request = EvaluationRequest(gold=[read_gold(GOLD)], texts=["the king is dead"])
    gain = compare_with_unconstrained(model, request)
    plain = train(Corpus.from_files([str(path)], errors="replace"),
                  unconstrained_config(model)).model
    assert gain.unconstrained_model.merges == plain.merges
    assert "\ufffd" in plain.alphabet


def test_the_comparison_scores_the_gold_through_the_character_map(tmp_path):
    """The Evaluate panel's character map applies to both columns and to the changed words,
    so the constrained column shows what Evaluate itself shows."""
    text = tmp_path / "text.txt"
    text.write_text("unhappy happy unhappiness walked walking talked talking unkind kind\n" * 4,
                    encoding="utf-8")
    train_gold = tmp_path / "train.tsv"
    train_gold.write_text("unhappy\tun happy\nwalked\twalk ed\n", encoding="utf-8")
    held = tmp_path / "held.tsv"  # written with I for i, as some gold files spell
    held.write_text("talkIng\ttalk Ing\nunkInd\tun kInd\n", encoding="utf-8")
    model = train(Corpus.from_files([str(text)]),
                  TrainConfig(vocab_size=40, gold_boundaries=(str(train_gold),))).model
    request = EvaluationRequest(gold=[read_gold(held)], character_map={"I": "i"})
    gain = compare_with_unconstrained(model, request)
    assert gain.constrained.morphology["held.tsv"] == \
        evaluate(model, request).morphology["held.tsv"]
    assert gain.unconstrained.morphology["held.tsv"] == \
        evaluate(gain.unconstrained_model, request).morphology["held.tsv"]
    assert gain.unconstrained.morphology["held.tsv"].hits > 0  # the mapped words were scored
    assert {c.word for c in gain.changed} <= {"talking", "unkind"}


def test_a_corpus_file_changed_since_training_is_named_not_trained_on(tmp_path):
    """The counterpart must learn from the text the constrained model learned from: a file
    whose content differs from the SHA-256 the model records would compare two corpora."""
    text = tmp_path / "text.txt"
    text.write_text("unhappy undo redo walked walking\n" * 5, encoding="utf-8")
    gold = tmp_path / "gold.tsv"
    gold.write_text("unhappy\tun happy\nundo\tun do\n", encoding="utf-8")
    model = train(Corpus.from_files([str(text)]),
                  TrainConfig(vocab_size=30, gold_boundaries=(str(gold),))).model
    request = EvaluationRequest(gold=[read_gold(gold)])
    text.write_text("unhappy undo redo walked walking\n" * 5 + "talking talked\n",
                    encoding="utf-8")
    with pytest.raises(ConfigError, match=r"text\.txt has changed since the model was "
                                          r"trained \(its SHA-256 differs\)"):
        compare_with_unconstrained(model, request)
    text.unlink()
    with pytest.raises(ConfigError, match=r"text\.txt: the model.s corpus file is no longer there"):
        compare_with_unconstrained(model, request)


def test_a_corpus_file_given_relative_to_another_folder_is_found_from_anywhere(
        tmp_path, monkeypatch):
    (tmp_path / "trained").mkdir()
    monkeypatch.chdir(tmp_path / "trained")
    Path("text.txt").write_text("unhappy undo redo walked walking\n" * 5, encoding="utf-8")
    Path("gold.tsv").write_text("unhappy\tun happy\nundo\tun do\n", encoding="utf-8")
    model = train(Corpus.from_files(["text.txt"]),
                  TrainConfig(vocab_size=30, gold_boundaries=("gold.tsv",))).model
    request = EvaluationRequest(gold=[read_gold("gold.tsv")])
    monkeypatch.chdir(tmp_path)  # (the window runs in any folder)
    assert model.corpus.files[0].path == str(tmp_path / "trained" / "text.txt")
    gain = compare_with_unconstrained(model, request)
    assert gain.unconstrained_model.corpus.files == model.corpus.files
    # A model that names it relatively (kept in a project by an earlier version) says
    # where it was looked for.
    relative = model.with_provenance(corpus=replace(model.corpus, files=(
        replace(model.corpus.files[0], path="text.txt"),)))
    with pytest.raises(ConfigError) as raised:
        compare_with_unconstrained(relative, request)
    assert str(raised.value) == (
        "text.txt: the model's corpus file is no longer there (the model names it relative "
        f"to the folder it was trained in; read from {tmp_path}), so the unconstrained "
        "model cannot be trained on it")
