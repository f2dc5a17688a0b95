"""Golden tests of pre-tokenizers, the two encoding modes (merge rank and greedy longest
match) and decoding, on the engine and, where training is involved, on the reference."""

from __future__ import annotations

import pytest

from bpe_desktop.core import Corpus, TrainConfig, train
from tests import reference_bpe as ref
from tests.core.golden import IMPLS, SEED000_WORDS, run

# -- pre-tokenizers, encoding modes, decoding -------------------------------------------------


def test_letters_pretokenizer():
    text = "Hello, world!! It's e-mail 42 cafe\u0301 nai\u0308ve."
    result = train(Corpus.from_texts([text]),
                   TrainConfig(pretokenizer="letters", merges=0))
    words = [(s.word, s.count) for s in result.word_segmentations()]
    assert words == [
        ("Hello", 1), (",", 1), ("world", 1), ("!", 2), ("It", 1), ("'", 1), ("s", 1),
        ("e", 1), ("-", 1), ("mail", 1), ("4", 1), ("2", 1), ("cafe\u0301", 1),
        ("nai\u0308ve", 1), (".", 1),
    ]
    assert result.seed_vocabulary()["w o r l d </w>"] == 1
    assert result.seed_vocabulary()["c a f e \u0301 </w>"] == 1
    # and the tokenizer cuts text the same way
    tok = result.model.tokenizer()
    assert [w for w, _ in tok.encode_words("It's!")] == ["It", "'", "s", "!"]


def test_whitespace_pretokenizer_word_order_and_counts():
    texts = ["low lower\tnewest\n", "  newest widest\u3000low", "happier\r\nnewest"]
    result = train(Corpus.from_texts(texts), TrainConfig(merges=0))
    assert [(s.word, s.count) for s in result.word_segmentations()] == [
        ("low", 2), ("lower", 1), ("newest", 3), ("widest", 1), ("happier", 1)]


@pytest.mark.parametrize("impl", IMPLS)
def test_greedy_case_training(impl):
    # (b,c) is learned before (a,b): merges mode gives a|bc</w>, greedy takes 'ab' first.
    merges, _, _ = run(impl, [("bc", 3), ("ab", 2)], merges=3)
    assert merges == [("b", "c", 3), ("bc", "</w>", 3), ("a", "b", 2)]
    if impl == "reference":
        res = ref.train([("bc", 3), ("ab", 2)], merges=3)
        syms = ref.initial_symbols("abc", "eow-symbol")
        assert ref.encode_word(syms, res.ranks) == ["a", "bc</w>"]
        assert ref.greedy_longest_match(syms, res.tokens) == ["ab", "c", "</w>"]


def test_greedy_vs_merges_engine():
    model = train(Corpus.from_word_counts([("bc", 3), ("ab", 2)]), TrainConfig(merges=3)).model
    tok = model.tokenizer()
    assert tok.encode_as_pieces("abc") == ["a", "bc</w>"]
    assert tok.encode_as_pieces("abc", mode="greedy") == ["ab", "c", "</w>"]
    assert tok.encode_as_pieces("abc bc", mode="greedy") == ["ab", "c", "</w>", "bc</w>"]
    # an unknown character: <unk> in both modes
    assert tok.encode_as_pieces("aqb") == ["a", "<unk>", "b", "</w>"]
    assert tok.encode_as_pieces("aqb", mode="greedy") == ["a", "<unk>", "b", "</w>"]
    # the greedy mode is exactly the reference's longest match over the ordinary tokens
    ordinary = set(model.pieces) - {"<unk>"}
    for word in ["abc", "bcab", "cab", "abcbc", "bbc", "a", "c"]:
        syms = ref.initial_symbols(word, "eow-symbol")
        assert tok.encode_as_pieces(word, mode="greedy") == ref.greedy_longest_match(
            syms, ordinary)
        assert tok.encode_as_pieces(word) == ref.encode_word(
            syms, {(m.left, m.right): i for i, m in enumerate(model.merges)})


@pytest.mark.parametrize("boundary", ["eow-symbol", "eow-suffix"])
def test_decode_round_trip_eow(boundary):
    result = train(Corpus.from_word_counts(SEED000_WORDS), TrainConfig(boundary=boundary))
    tok = result.model.tokenizer()
    text = "low  lower\nnewest\twidest happier   lowest wider"
    for mode in ("merges", "greedy"):
        ids = tok.encode(text, mode=mode)
        assert tok.decode(ids) == "low lower newest widest happier lowest wider"
    assert tok.decode(tok.encode("newest")) == "newest"
    assert tok.decode([]) == ""
