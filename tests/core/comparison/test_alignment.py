"""Word-by-word cuts, boundary agreement, identical words, tokens per line: by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from bpe_desktop.core import BPEModel, Corpus, Merge, TrainConfig, train
from bpe_desktop.core.comparison import align, compare
from bpe_desktop.core.errors import ConfigError, CorpusError
from bpe_desktop.core.evaluation import TextSample
from bpe_desktop.core.formats import export_model, import_model
from bpe_desktop.core.pieces import BYTE_CHARS

BOTCHAN = Path(__file__).resolve().parents[3] / "bpe_desktop/resources/examples/botchan.txt"
TEXT = ["lowest newer", "widest low lowest"]


@pytest.fixture(scope="module")
def toy() -> BPEModel:
    """The seeds' toy vocabulary, ten merges: e s, es t, est </w>, l o, lo w, n e, ne w,
    new est</w>, low </w>, e r."""
    return train(Corpus.from_word_counts({"low": 5, "lower": 2, "newest": 6, "widest": 3,
                                          "happier": 2}), TrainConfig(merges=10)).model


def test_two_truncations_agree_as_computed_by_hand(toy):
    full, short = toy, toy.truncated(3)
    alignment = align([("full", full), ("short", short)], TEXT)
    cuts = {w.word: ([c.pieces for c in w.cuts]) for w in alignment.words}
    # full: low|est  new|er  w|i|d|est  low      short: l|o|w|est  n|e|w|e|r  w|i|d|est  l|o|w
    assert cuts["lowest"] == [("low", "est"), ("l", "o", "w", "est")]
    assert cuts["newer"] == [("new", "er"), ("n", "e", "w", "e", "r")]
    assert cuts["low"] == [("low",), ("l", "o", "w")]
    s = alignment.pair(0, 1)
    # running words: lowest ×2, newer, widest, low
    # hits: lowest {3}∩{1,2,3} = 1 (×2), newer {3}∩{1,2,3,4} = 1, widest 3, low 0 -> 6
    # B's cuts: 3×2 + 4 + 3 + 2 = 15; A's cuts: 1×2 + 1 + 3 + 0 = 6
    assert (s.words, s.skipped, s.hits, s.predicted, s.gold) == (5, 0, 6, 15, 6)
    assert s.precision == pytest.approx(6 / 15)
    assert s.recall == 1.0
    assert s.f1 == pytest.approx(2 * 0.4 / 1.4)
    assert s.identical_share == pytest.approx(1 / 5)  # only "widest"
    # tokens per line, in context: low est</w> new er </w> = 5; w i d est</w> low</w>
    # low est</w> = 7; short: l o w est</w> n e w e r </w> = 10, 4 + 4 + 4 = 12
    assert alignment.line_tokens == [[5, 7], [10, 12]]
    assert (s.tokens_a, s.tokens_b) == (12, 22)
    # the other way round, precision and recall swap
    back = alignment.pair(1, 0)
    assert (back.precision, back.recall) == (s.recall, s.precision)


def test_hover_tokens_carry_id_and_rank(toy):
    alignment = align([("full", toy), ("short", toy.truncated(3))], ["newer"])
    tokens = alignment.words[0].cuts[0].tokens
    assert [t.piece for t in tokens] == ["new", "er", "</w>"]
    assert [t.id for t in tokens] == [toy.piece_to_id(p) for p in ("new", "er", "</w>")]
    assert [t.rank for t in tokens] == [6, 9, None]  # ne+w is merge 6, e+r merge 9


def test_byte_level_cuts_inside_a_character_match_only_at_the_same_byte():
    plain = BPEModel(TrainConfig.preset("gpt2"), BYTE_CHARS, ())
    merged = BPEModel(TrainConfig.preset("gpt2"), BYTE_CHARS, (Merge("Ã", "©"),))
    alignment = align([("plain", plain), ("merged", merged), ("again", plain)], ["é"])
    # plain cuts é's two bytes apart (byte offset 1, inside the character); merged does not
    mixed, same = alignment.pair(0, 1), alignment.pair(0, 2)
    assert (mixed.hits, mixed.predicted, mixed.gold) == (0, 0, 1)
    assert (mixed.precision, mixed.recall, mixed.identical_share) == (0.0, 0.0, 0.0)
    assert (same.hits, same.predicted, same.gold) == (1, 1, 1)
    assert same.f1 == 1.0 and same.identical_share == 1.0


def test_words_whose_length_differs_are_skipped(toy):
    nfkc = train(Corpus.from_texts(["ﬁne fine"]), TrainConfig(merges=3, normalize="nfkc")).model
    plain = train(Corpus.from_texts(["ﬁne fine"]), TrainConfig(merges=3)).model
    s = align([("nfkc", nfkc), ("plain", plain)], ["ﬁne fine"]).pair(0, 1)
    assert (s.words, s.skipped) == (2, 1)  # "ﬁne" is 4 code points under NFKC, 3 as is


def test_model_against_its_own_export_agrees_fully(tmp_path):
    model = train(Corpus.from_files([str(BOTCHAN)]),
                  TrainConfig.preset("subword-nmt", vocab_size=600)).model
    export_model(model, "hf", tmp_path / "tokenizer.json")
    again = import_model("hf", tmp_path / "tokenizer.json")
    lines = BOTCHAN.read_text(encoding="utf-8").splitlines()[:400]
    result = compare([("ours", model), ("hf", again)], lines)
    pair, overlap = result.pairs[0], result.overlaps[0]
    assert pair.words > 3000 and pair.predicted > 1000
    assert (pair.precision, pair.recall, pair.f1, pair.identical_share) == (1.0, 1.0, 1.0, 1.0)
    assert pair.tokens_a == pair.tokens_b
    summary = overlap.summary()
    assert summary["only_a"] == summary["only_b"] == 0 and summary["both"] > 400
    # the metrics table is the evaluation's, per tokenizer
    assert result.stats[0] == TextSample.from_lines(model, lines).stats(model)
    assert result.stats[0].summary() == result.stats[1].summary()


def test_json_holds_pairs_and_overlap_counts(toy):
    result = compare([("full", toy), ("short", toy.truncated(3)), ("none", toy.truncated(0))],
                     TEXT)
    data = result.to_json()
    assert [t["name"] for t in data["tokenizers"]] == ["full", "short", "none"]
    assert [(p["a"], p["b"]) for p in data["pairs"]] == [
        ("full", "short"), ("full", "none"), ("short", "none")]
    first = data["pairs"][0]
    assert first["agreement_precision"] == pytest.approx(0.4)
    assert first["agreement_recall"] == 1.0
    assert first["identical_words"] == pytest.approx(0.2)
    assert (first["tokens_a"], first["tokens_b"]) == (12, 22)
    assert first["overlap"] == {"both": 15, "only_a": 6, "only_b": 0}


def test_bad_requests_are_refused(toy, tmp_path):
    with pytest.raises(ConfigError, match="2 to 4"):
        compare([("a", toy)], TEXT)
    with pytest.raises(ConfigError, match="must differ"):
        compare([("a", toy), ("a", toy)], TEXT)
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"fine\nnot \xff utf-8\n")
    from bpe_desktop.core.comparison import read_text_lines

    with pytest.raises(CorpusError, match=r"bad.txt line 2"):
        read_text_lines([bad])


def test_unknown_and_byte_fallback_tokens_spell_the_word_they_cut():
    letters = tuple("aenpuz") + ("</w>",)
    # A: "unéa" -> un <unk> a </w>: the <unk> is é, cuts {2, 3}
    plain = BPEModel(TrainConfig(), letters, (Merge("u", "n", 9),))
    # B: un <0xC3> <0xA9> a </w>: cuts {2, 3} and one between é's bytes (byte offset 3)
    fallback = BPEModel(TrainConfig(byte_fallback=True).with_byte_tokens(), letters,
                        (Merge("u", "n", 9),))
    # C (fused unknowns): "unééa" -> un <unk> a </w>, the <unk> standing for "éé": {2, 4}
    fused = BPEModel(TrainConfig(fuse_unk=True), letters, (Merge("u", "n", 9),))
    alignment = align([("plain", plain), ("fallback", fallback), ("fused", fused)],
                      ["unéa unééa"])
    s = alignment.pair(0, 1)
    # unéa: hits 2 of B's 3 cuts and A's 2; unééa: A {2,3,4}, B {2,3,4} + 2 inside
    assert (s.words, s.skipped, s.hits, s.predicted, s.gold) == (2, 0, 5, 8, 5)
    fused_pair = alignment.pair(0, 2)
    # unéa: {2,3} both; unééa: A {2,3,4}, C {2,4}
    assert (fused_pair.skipped, fused_pair.hits, fused_pair.predicted, fused_pair.gold) == \
        (0, 4, 4, 5)
    assert alignment.words[1].cuts[2].pieces == ("un", "éé", "a")
