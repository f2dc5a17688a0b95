"""Truncating a model to k merges is training with k merges; the sweep at k is exactly
the truncated model's metrics."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from bpe_desktop.core import (
    BPEModel,
    Corpus,
    Merge,
    SpecialToken,
    TrainConfig,
    train,
)
from bpe_desktop.core.errors import ConfigError
from bpe_desktop.core.evaluation import (
    EvaluationRequest,
    ParallelTexts,
    TextSample,
    evaluate,
    evaluate_morphology,
    evaluate_parity,
    read_gold,
    run_sweep,
    sweep_merge_counts,
)

DATA = Path(__file__).resolve().parents[2] / "data"
BOTCHAN = Path(__file__).resolve().parents[3] / "bpe_desktop/resources/examples/botchan.txt"


@pytest.fixture(scope="module")
def model() -> BPEModel:
    return train(Corpus.from_files([str(BOTCHAN)]), TrainConfig(vocab_size=800)).model


def test_truncated_equals_training_with_fewer_merges(model):
    for k in (0, 1, 57, 400):
        retrained = train(Corpus.from_files([str(BOTCHAN)]), TrainConfig(merges=k)).model
        cut = model.truncated(k)
        assert cut.merges == retrained.merges and cut.pieces == retrained.pieces
        assert cut.vocab_size == model.vocab_size_at(k)


def test_truncation_moves_special_tokens_that_no_longer_fit():
    cfg = TrainConfig(special_tokens=(SpecialToken("<unk>", 0, "unk"),
                                      SpecialToken("<eos>", 7, "eos")))
    model = BPEModel(cfg, ("a", "b", "</w>"), (Merge("a", "b"), Merge("ab", "</w>"),
                                                Merge("b", "</w>")))
    assert model.pieces[7] == "<eos>"
    cut = model.truncated(1)  # 2 specials + 3 symbols + "ab": ids 0..5
    assert cut.pieces == ("<unk>", "a", "b", "</w>", "ab", "<eos>")
    with pytest.raises(ConfigError):
        model.truncated(4)


def test_truncating_a_model_with_explicit_ids_keeps_their_order_without_gaps(tmp_path):
    from bpe_desktop.core import load_model, save_model

    # As an extension numbers them: "c" joined the alphabet after the source's merges.
    cfg = TrainConfig(special_tokens=(SpecialToken("<unk>", 0, "unk"),))
    model = BPEModel(cfg, ("a", "b", "</w>", "c"),
                     (Merge("a", "b"), Merge("ab", "</w>"), Merge("c", "</w>")),
                     ids=(1, 2, 3, 6, 4, 5, 7))
    assert model.pieces == ("<unk>", "a", "b", "</w>", "ab", "ab</w>", "c", "c</w>")
    cut = model.truncated(1)
    assert cut.pieces == ("<unk>", "a", "b", "</w>", "ab", "c")
    assert cut.vocab_size == model.vocab_size_at(1) == 6
    tok = cut.tokenizer()
    assert tok.encode_as_pieces("ab c") == ["ab", "</w>", "c", "</w>"]
    assert tok.encode("ab c") == [4, 3, 5, 3]
    save_model(cut, tmp_path / "cut.json")
    assert load_model(tmp_path / "cut.json").pieces == cut.pieces
    assert model.truncated(3).pieces == model.pieces


def test_sweep_points_are_log_spaced_from_alphabet_to_full(model):
    counts = sweep_merge_counts(model, 20)
    sizes = [model.vocab_size_at(k) for k in counts]
    assert counts[0] == 0 and counts[-1] == len(model.merges)
    assert sizes == sorted(set(sizes)) and len(counts) == 20
    ratios = [b / a for a, b in itertools.pairwise(sizes)]
    assert max(ratios) / min(ratios) < 1.2  # geometric steps (rounded to whole tokens)


@pytest.mark.parametrize("preset", ["sennrich", "subword-nmt", "gpt2", "sentencepiece"])
def test_sweep_at_k_equals_the_truncated_model(preset):
    """Text ids are re-encoded only where a new merge applies: still exactly the cut
    model's, for every boundary style (and words in other scripts, with unknowns)."""
    model = train(Corpus.from_files([str(BOTCHAN)]),
                  TrainConfig.preset(preset, vocab_size=900)).model
    gold = read_gold(DATA / "morph" / "eng.word.dev.tsv")
    lines = BOTCHAN.read_text(encoding="utf-8-sig").splitlines()[:800]
    lines += (DATA / "udhr" / "deu.txt").read_text(encoding="utf-8").splitlines()[:40]
    sample = TextSample.from_lines(model, lines)
    udhr = sorted((DATA / "udhr").glob("*.txt"))[:3]
    parallel = ParallelTexts.from_files(udhr, udhr[0])
    counts = sweep_merge_counts(model, 12)
    points = run_sweep(model, counts, gold=[gold], text=sample, parallel=parallel)
    assert [p.merges for p in points] == counts
    for k, point in zip(counts, points):
        cut = model.truncated(k)
        assert point.vocab_size == cut.vocab_size
        assert point.morphology[gold.name] == evaluate_morphology(cut, gold, details=False)
        assert point.text == TextSample.from_lines(cut, lines).stats(cut)
        assert point.parity == evaluate_parity(cut, parallel)


def test_evaluate_report_json_sections(model, tmp_path):
    text = tmp_path / "held_out.txt"
    text.write_text("the cat sat on the mat\n", encoding="utf-8")
    report = evaluate(model, EvaluationRequest(gold=[read_gold(DATA / "morph" / "ces.word.dev.tsv")],
                                               text_files=[text], sweep=4))
    out = report.to_json()
    assert set(out) == {"approximations", "morphology", "gold", "text", "sweep"}
    assert out["approximations"] == []
    assert set(out["morphology"]["ces.word.dev.tsv"]) >= {
        "words", "evaluated", "skipped", "precision", "recall", "f1", "morphscore", "exact"}
    assert out["text"]["words"] == 6
    assert out["sweep"][-1]["text"] == out["text"]
    assert out["sweep"][-1]["vocab_size"] == model.vocab_size
    assert evaluate(model, EvaluationRequest(texts=["a b"])).to_json().keys() == {
        "approximations", "text"}


def test_sweep_exact_when_a_special_token_moves():
    """An id past the smaller vocabularies (GPT-2's <|endoftext|> style) moves at small
    sizes; the sweep must not reuse ids across that change."""
    cfg = TrainConfig(special_tokens=(SpecialToken("<unk>", 0, "unk"),
                                      SpecialToken("<eos>", 7, "eos")))
    model = BPEModel(cfg, ("a", "b", "</w>"), (Merge("a", "b"), Merge("ab", "</w>"),
                                                Merge("b", "</w>")))
    gold = read_gold_text("ab\ta b\nbab\tb ab\nabab\tab ab\n")
    lines = ["ab b ba abab", "b a"]
    sample = TextSample.from_lines(model, lines)
    points = run_sweep(model, [0, 1, 2, 3], gold=[gold], text=sample)
    for k, point in zip([0, 1, 2, 3], points):
        cut = model.truncated(k)
        assert point.morphology[gold.name] == evaluate_morphology(cut, gold, details=False)
        assert point.text == TextSample.from_lines(cut, lines).stats(cut)


def read_gold_text(text: str):
    from bpe_desktop.core.evaluation import parse_gold

    return parse_gold(text, fmt="surface")


def test_gold_files_need_distinct_names(model):
    from bpe_desktop.core.evaluation import parse_gold

    gold = parse_gold("ab\ta b\n", name="dev.tsv", fmt="surface")
    with pytest.raises(ConfigError, match="distinct file names"):
        evaluate(model, EvaluationRequest(gold=[gold, gold]))
