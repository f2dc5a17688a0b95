"""Boundary precision/recall/F1, MorphScore and exact share: hand-computed cases."""

from __future__ import annotations

from pathlib import Path

import pytest

from bpe_desktop.core import BPEModel, Corpus, Merge, TrainConfig, train
from bpe_desktop.core.config import BYTE_PIECES
from bpe_desktop.core.evaluation import (
    Segmenter,
    evaluate_morphology,
    parse_gold,
    read_gold,
)
from bpe_desktop.core.evaluation.morphology import choose_analysis
from tests.core.evaluation.toy_models import bow_model, byte_model, eow_model

DATA = Path(__file__).resolve().parents[2] / "data" / "morph"
BOTCHAN = Path(__file__).resolve().parents[3] / "bpe_desktop/resources/examples/botchan.txt"


def _cuts(model: BPEModel, word: str):
    seg = Segmenter(model).segment(model.tokenizer().encode(word))
    return seg.pieces, set(seg.boundaries), seg.inside


def test_markers_and_unknown_tokens():
    m = eow_model()
    # un ha pp y</w>: the marker is removed from the last piece
    assert _cuts(m, "unhappy") == (("un", "ha", "pp", "y"), {2, 4, 6}, 0)
    # un <unk> <unk> p </w>: each unknown is one character, the bare marker nothing
    assert _cuts(m, "unzip") == (("un", "\ufffd", "\ufffd", "p"), {2, 3, 4}, 0)
    assert _cuts(m, "un") == (("un",), set(), 0)


def test_bow_marker_pieces():
    m = bow_model()
    assert _cuts(m, "abc") == (("a", "b", "c"), {1, 2}, 0)  # ▁a b c
    assert _cuts(m, "bca") == (("b", "c", "a"), {1, 2}, 0)  # ▁ b c a: bare ▁ is nothing


def test_byte_level_boundaries_inside_a_character():
    m = byte_model()
    assert _cuts(m, "éa") == (("é", "a"), {1}, 0)  # Ã© a: é's two bytes merged
    # n a Ã ¯ v e: the cut between ï's two bytes is predicted but never a hit
    _, cuts, inside = _cuts(m, "naïve")
    assert (cuts, inside) == ({1, 2, 3, 4}, 1)
    r = evaluate_morphology(m, parse_gold("naïve\tna ï ve\n", fmt="surface"))
    assert (r.hits, r.predicted, r.gold) == (2, 5, 2)
    assert r.details[0].spurious == {1, 4} and not r.details[0].exact


def test_scores_by_hand():
    gold = parse_gold("unhappy\tun happy\nhappy\thappy\nunzip\tun zip\nun\tun\n", fmt="surface")
    r = evaluate_morphology(eow_model(), gold)
    # predicted: {2,4,6} {2,4} {2,3,4} {}; gold: {2} {} {2} {}
    assert (r.hits, r.predicted, r.gold) == (2, 8, 2)
    assert r.precision == 0.25 and r.recall == 1.0
    assert r.f1 == pytest.approx(2 * 0.25 * 1.0 / 1.25)
    # MorphScore: words split in >= 2 pieces: unhappy 1/1, happy 0 (split, no gold
    # boundary: MorphScore's own code counts it wrong), unzip 1/1; "un" is unsplit
    assert r.morphscore == pytest.approx(2 / 3)
    assert r.exact == 0.25 and r.unsplit == 1  # "un": one piece, no gold boundary
    assert (r.words, r.evaluated, r.skipped) == (4, 4, 0)
    first = r.details[0]
    assert (first.hits, first.missed, first.spurious) == ({2}, set(), {4, 6})


def test_morphscore_averages_per_word():
    # unhappy: gold {2,5} (un hap py), predicted {2,4,6}: 1/2; dad: gold {1}, predicted {1,2}: 1/1
    gold = parse_gold("unhappy\tun hap py\ndad\td ad\n", fmt="surface")
    r = evaluate_morphology(eow_model(), gold)
    assert r.morphscore == pytest.approx((0.5 + 1.0) / 2)
    assert (r.hits, r.predicted, r.gold) == (2, 5, 3)


def test_undefined_scores_are_zero():
    r = evaluate_morphology(eow_model(), parse_gold("un\tun\n", fmt="surface"))
    assert (r.precision, r.recall, r.f1, r.morphscore, r.exact) == (0.0, 0.0, 0.0, 0.0, 1.0)


def test_alternatives_most_hits_then_fewest_boundaries():
    # predicted for "happy": ha pp y -> {2, 4}
    gold = parse_gold("happy\thap:X py:Y, ha:X ppy:Y, h:X a:X ppy:Y\n", fmt="morpho-challenge")
    word = gold.words[0]
    assert choose_analysis(word, frozenset({2, 4})) == 1  # 1 hit with 1 boundary beats 1 with 2
    r = evaluate_morphology(eow_model(), gold)
    assert r.details[0].gold_morphs == ("ha", "ppy")
    assert (r.hits, r.predicted, r.gold) == (1, 2, 1)
    assert choose_analysis(word, frozenset({1, 2})) == 2  # two hits win


def test_normalization_that_changes_the_length_skips_the_word():
    model = BPEModel(TrainConfig(normalize="nfkc"), ("f", "i", "x", "</w>"), ())
    gold = parse_gold("ﬁx\tﬁ x\nfix\tfi x\n", fmt="surface")  # NFKC: ﬁ -> fi
    r = evaluate_morphology(model, gold)
    assert (r.words, r.evaluated, r.skipped_normalization, r.skipped) == (2, 1, 1, 1)
    assert (r.hits, r.predicted, r.gold) == (1, 2, 1)
    assert not r.details[0].evaluated


def test_skipped_canonical_words_are_counted():
    gold = parse_gold("unhappy\tun @@happy\nhappier\thappy @@er\n", fmt="sigmorphon")
    r = evaluate_morphology(eow_model(), gold)
    assert (r.words, r.evaluated, r.skipped_not_surface) == (2, 1, 1)


@pytest.mark.parametrize("preset", ["sennrich", "subword-nmt", "gpt2", "sentencepiece"])
def test_real_gold_on_every_boundary_style(preset):
    model = train(Corpus.from_files([str(BOTCHAN)]),
                  TrainConfig.preset(preset, vocab_size=1500)).model
    gold = read_gold(DATA / "eng.word.dev.tsv")
    r = evaluate_morphology(model, gold)
    assert r.evaluated == len(gold.words) and r.words == 300
    assert 0 < r.precision < 1 and 0 < r.recall < 1 and 0 < r.morphscore <= 1
    for d in r.details:  # pieces spell the word, boundaries lie inside it
        if not d.inside:  # (a byte-level cut inside a character splits its bytes)
            assert "".join(d.pieces) == d.word
        assert all(0 < b < len(d.word) for b in d.predicted | d.gold)


def test_a_fused_unknown_token_stands_for_its_run_of_characters():
    # fuse_unk: "unzzp" -> un <unk> p </w>, the one <unk> standing for "zz"
    r = evaluate_morphology(eow_model(fuse_unk=True), parse_gold("unzzp\tun zzp\n",
                                                                 fmt="surface"))
    assert (r.evaluated, r.skipped) == (1, 0)
    assert r.details[0].pieces == ("un", "zz", "p")
    # predicted {2, 4}, gold {2}: 1 hit of 2 predicted, 1 gold
    assert (r.hits, r.predicted, r.gold) == (1, 2, 1)


@pytest.mark.parametrize("imported", [False, True])
def test_byte_fallback_tokens_stand_for_their_bytes(imported):
    letters = tuple("adhnpuy") + ("</w>",)
    if imported:  # an imported model has its byte tokens among its pieces
        model = BPEModel(TrainConfig(byte_fallback=True), letters + BYTE_PIECES,
                         (Merge("u", "n", 9),))
    else:  # training reserves them as special tokens
        model = BPEModel(TrainConfig(byte_fallback=True).with_byte_tokens(), letters,
                         (Merge("u", "n", 9),))
    # "unéa" -> un <0xC3> <0xA9> a </w>: é (2 bytes) is spelled in byte tokens
    r = evaluate_morphology(model, parse_gold("unéa\tun éa\n", fmt="surface"))
    assert (r.evaluated, r.skipped) == (1, 0)
    d = r.details[0]
    # cuts at 2 (un|é) and 3 (é|a), and one between é's two bytes (never a hit)
    assert (d.predicted, d.inside, d.gold) == ({2, 3}, 1, {2})
    assert (r.hits, r.predicted, r.gold) == (1, 3, 1)
    assert r.precision == pytest.approx(1 / 3) and r.recall == 1.0
