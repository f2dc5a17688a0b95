"""Vocabulary overlap with markers normalised; the CSV file."""

from __future__ import annotations

import csv

import pytest

from bpe_desktop.core import BPEModel, Corpus, Merge, TrainConfig, train
from bpe_desktop.core.comparison import normalized_piece, vocabulary_overlap
from bpe_desktop.core.config import BYTE_PIECES
from bpe_desktop.core.pieces import BYTE_CHARS


@pytest.fixture(scope="module")
def toy() -> BPEModel:
    return train(Corpus.from_word_counts({"low": 5, "lower": 2, "newest": 6, "widest": 3,
                                          "happier": 2}), TrainConfig(merges=10)).model


def test_markers_and_bytes_are_compared_as_text():
    eow = BPEModel(TrainConfig(boundary="eow-suffix"), ("t", "h", "e", "e</w>"), ())
    bow = BPEModel(TrainConfig.preset("sentencepiece"), tuple("▁the"), ())
    gpt2 = BPEModel(TrainConfig.preset("gpt2"), BYTE_CHARS, ())
    assert normalized_piece("the</w>", eow) == "the"
    assert normalized_piece("▁the", bow) == "the"
    assert normalized_piece("the", bow) == "the"
    assert normalized_piece("Ġthe", gpt2) == "the"
    assert normalized_piece("Ã©", gpt2) == "é"  # two bytes of one character
    assert normalized_piece("Ã", gpt2) == "<0xC3>"  # half of it
    assert normalized_piece("▁", bow) is None and normalized_piece("Ġ", gpt2) is None
    assert normalized_piece("</w>", BPEModel(TrainConfig(), ("a", "</w>"), ())) is None


def test_byte_fallback_tokens_are_left_out_as_special_tokens_are():
    letters, merges = ("a", "b", "</w>"), (Merge("a", "b"),)
    # training keeps the 256 byte tokens among the special tokens; an import of the same
    # tokenizer (sentencepiece, tokenizer.json) among its ordinary pieces
    trained = BPEModel(TrainConfig(byte_fallback=True).with_byte_tokens(), letters, merges)
    imported = BPEModel(TrainConfig(byte_fallback=True), letters + BYTE_PIECES, merges)
    overlap = vocabulary_overlap(("trained", trained), ("imported", imported))
    # a, b and ab in both; </w> alone stands for nothing
    assert overlap.summary() == {"both": 3, "only_a": 0, "only_b": 0}


def test_truncation_overlap_by_hand(toy):
    overlap = vocabulary_overlap(("full", toy), ("short", toy.truncated(3)))
    # 13 letters (l o w e r n s t i d h a p) and es, est in both; the marker </w> alone
    # stands for nothing; only in full: lo low ne new newest er
    assert overlap.summary() == {"both": 15, "only_a": 6, "only_b": 0}
    assert sorted(r.text for r in overlap.of("only_a")) == sorted(
        ["lo", "low", "ne", "new", "newest", "er"])
    est = next(r for r in overlap.rows if r.text == "est")
    assert est.pieces_a == ("est", "est</w>") and est.pieces_b == ("est", "est</w>")
    low = next(r for r in overlap.rows if r.text == "low")
    assert low.pieces_a == ("low", "low</w>") and low.pieces_b == ()


def test_sentencepiece_against_gpt2_style_pieces():
    bow = BPEModel(TrainConfig.preset("sentencepiece"), tuple("▁ab"),
                   (Merge("▁", "a"), Merge("▁a", "b")))
    gpt2 = BPEModel(TrainConfig.preset("gpt2"), BYTE_CHARS,
                    (Merge("Ġ", "a"), Merge("Ġa", "b"), Merge("b", "b")))
    overlap = vocabulary_overlap(("spm", bow), ("gpt2", gpt2))
    both = {r.text for r in overlap.of("both")}
    assert {"a", "b", "ab"} <= both  # ▁a/Ġa, ▁ab/Ġab
    assert overlap.count("only_a") == 0
    assert "bb" in {r.text for r in overlap.of("only_b")}
    # the 256 bytes: 2 shared letters, Ġ alone stands for nothing
    assert overlap.count("only_b") == 256 - 3 + 1


def test_csv_lists_the_chosen_categories(toy, tmp_path):
    overlap = vocabulary_overlap(("full", toy), ("short", toy.truncated(3)))
    path = tmp_path / "overlap.csv"
    overlap.to_csv(path, categories=("only_a",))
    with open(path, encoding="utf-8", newline="") as fh:
        rows = list(csv.reader(fh))
    assert rows[0] == ["text", "in", "pieces_a", "pieces_b"]
    assert {r[0] for r in rows[1:]} == {"lo", "low", "ne", "new", "newest", "er"}
    assert ["low", "only_a", "low low</w>", ""] in rows
    overlap.to_csv(path)
    with open(path, encoding="utf-8", newline="") as fh:
        assert len(list(csv.reader(fh))) == 1 + 21


def test_csv_keeps_a_carriage_return_inside_its_field(tmp_path):
    """A piece holding a carriage return (an imported vocabulary) stays one field of one
    row: a bare one was read as the end of the row."""
    with_cr = BPEModel(TrainConfig(), ("a", "\r", "b"), (Merge("a", "\r"),))
    plain = BPEModel(TrainConfig(), ("a", "b"), ())
    path = tmp_path / "overlap.csv"
    vocabulary_overlap(("cr", with_cr), ("plain", plain)).to_csv(path)
    with open(path, encoding="utf-8", newline="") as fh:
        rows = list(csv.reader(fh))
    assert rows[1:] == [["a", "both", "a", "a"], ["b", "both", "b", "b"],
                        ["\r", "only_a", "\r", ""], ["a\r", "only_a", "a\r", ""]]
