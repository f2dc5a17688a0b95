"""Golden tests: the seeds' worked examples, reproduced through the public API.

Every training case runs twice, on the engine (``bpe_desktop.core.train``) and on the
naive pure-Python reference (``tests/reference_bpe.py``), against the same expected values,
so the reference is checked independently of the engine and vice versa.
"""

from __future__ import annotations

import pytest

from bpe_desktop.core import Corpus, TrainConfig, train
from tests import reference_bpe as ref
from tests.core.golden import IMPLS, SEED000, SEED000_WORDS, run

# -- seed 000 -------------------------------------------------------------------------------

SEED000_MERGES = [
    ("e", "s", 9),
    ("es", "t", 9),
    ("est", "</w>", 9),
    ("l", "o", 7),
    ("lo", "w", 7),
    ("n", "e", 6),
    ("ne", "w", 6),
    ("new", "est</w>", 6),
    ("low", "</w>", 5),
    ("e", "r", 4),
]
# The "vocabulary:" line printed before iteration i is the state after i merges.
SEED000_STATES = [
    SEED000,
    {"l o w </w>": 5, "l o w e r </w>": 2, "n e w es t </w>": 6, "w i d es t </w>": 3,
     "h a p p i e r </w>": 2},
    {"l o w </w>": 5, "l o w e r </w>": 2, "n e w est </w>": 6, "w i d est </w>": 3,
     "h a p p i e r </w>": 2},
    {"l o w </w>": 5, "l o w e r </w>": 2, "n e w est</w>": 6, "w i d est</w>": 3,
     "h a p p i e r </w>": 2},
    {"lo w </w>": 5, "lo w e r </w>": 2, "n e w est</w>": 6, "w i d est</w>": 3,
     "h a p p i e r </w>": 2},
    {"low </w>": 5, "low e r </w>": 2, "n e w est</w>": 6, "w i d est</w>": 3,
     "h a p p i e r </w>": 2},
    {"low </w>": 5, "low e r </w>": 2, "ne w est</w>": 6, "w i d est</w>": 3,
     "h a p p i e r </w>": 2},
    {"low </w>": 5, "low e r </w>": 2, "new est</w>": 6, "w i d est</w>": 3,
     "h a p p i e r </w>": 2},
    {"low </w>": 5, "low e r </w>": 2, "newest</w>": 6, "w i d est</w>": 3,
     "h a p p i e r </w>": 2},
    {"low</w>": 5, "low e r </w>": 2, "newest</w>": 6, "w i d est</w>": 3,
     "h a p p i e r </w>": 2},
    # final vocabulary
    {"low</w>": 5, "low er </w>": 2, "newest</w>": 6, "w i d est</w>": 3,
     "h a p p i er </w>": 2},
]


@pytest.mark.parametrize("impl", IMPLS)
def test_seed000_ten_merges(impl):
    merges, vocab, alphabet = run(impl, SEED000_WORDS, merges=10)
    assert merges == SEED000_MERGES
    assert vocab == SEED000_STATES[-1]
    assert alphabet == ["</w>", "a", "d", "e", "h", "i", "l", "n", "o", "p", "r", "s", "t", "w"]


@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize("k", range(len(SEED000_STATES)))
def test_seed000_printed_states(impl, k):
    merges, vocab, _ = run(impl, SEED000_WORDS, merges=k)
    assert merges == SEED000_MERGES[:k]
    assert vocab == SEED000_STATES[k]


def test_seed000_bpe_codes_and_encoding():
    model = train(Corpus.from_word_counts(SEED000_WORDS), TrainConfig(merges=10)).model
    codes = {(m.left, m.right): rank for rank, m in enumerate(model.merges)}
    assert codes == {("e", "s"): 0, ("es", "t"): 1, ("est", "</w>"): 2, ("l", "o"): 3,
                     ("lo", "w"): 4, ("n", "e"): 5, ("ne", "w"): 6, ("new", "est</w>"): 7,
                     ("low", "</w>"): 8, ("e", "r"): 9}
    tok = model.tokenizer()
    assert tok.encode_as_pieces("lowest") == ["low", "est</w>"]
    # The reference's seed-000 loop agrees, from the seed's own list('lowest') + '</w>'.
    assert ref.encode_word(list("lowest") + ["</w>"], codes) == ["low", "est</w>"]
    # Seed 000's step-by-step: the first merge applied to 'lowest' is ('e', 's').
    steps = tok.merge_steps("lowest")
    assert steps[0].pieces == ("l", "o", "w", "e", "s", "t", "</w>")
    assert steps[1].pair == ("e", "s") and steps[1].pieces == ("l", "o", "w", "es", "t", "</w>")
    assert steps[-1].pieces == ("low", "est</w>")


def test_seed000_vocabulary_and_ids():
    model = train(Corpus.from_word_counts(SEED000_WORDS), TrainConfig(merges=10)).model
    # <unk> first (id 0), then the alphabet in code-point order, then the merge results.
    assert model.pieces == (
        "<unk>", "</w>", "a", "d", "e", "h", "i", "l", "n", "o", "p", "r", "s", "t", "w",
        "es", "est", "est</w>", "lo", "low", "ne", "new", "newest</w>", "low</w>", "er",
    )


SEED000_ALL_MERGES = SEED000_MERGES + [
    ("er", "</w>", 4), ("w", "i", 3), ("wi", "d", 3), ("wid", "est</w>", 3),
    ("low", "er</w>", 2), ("h", "a", 2), ("ha", "p", 2), ("hap", "p", 2), ("happ", "i", 2),
    ("happi", "er</w>", 2),
]


@pytest.mark.parametrize("impl", IMPLS)
def test_seed000_runs_until_no_pair_is_left(impl):
    merges, vocab, _ = run(impl, SEED000_WORDS)
    assert merges == SEED000_ALL_MERGES
    assert vocab == {"low</w>": 5, "lower</w>": 2, "newest</w>": 6, "widest</w>": 3,
                     "happier</w>": 2}


@pytest.mark.parametrize("impl", IMPLS)
def test_min_frequency_stops_at_the_first_rarer_pair(impl):
    words = SEED000_WORDS + [("xy", 1)]
    merges, vocab, _ = run(impl, words)  # min_frequency 2: a pair seen once is never merged
    assert merges == SEED000_ALL_MERGES
    assert vocab["x y </w>"] == 1
    merges, vocab, _ = run(impl, words, min_frequency=1)
    assert merges == SEED000_ALL_MERGES + [("x", "y", 1), ("xy", "</w>", 1)]
    merges, _, _ = run(impl, words, min_frequency=4)  # count == min_frequency is merged
    assert merges == SEED000_ALL_MERGES[:11]
    merges, _, _ = run(impl, words, min_frequency=10)
    assert merges == []


@pytest.mark.parametrize("impl", IMPLS)
def test_seed000_vocab_size_stop(impl):
    # 1 special + 14 alphabet symbols: vocab_size 20 leaves room for 5 merged tokens.
    merges, _, _ = run(impl, SEED000_WORDS, vocab_size=20)
    assert merges == SEED000_MERGES[:5]
    merges, _, _ = run(impl, SEED000_WORDS, vocab_size=15)
    assert merges == []
    merges, _, _ = run(impl, SEED000_WORDS, vocab_size=3)
    assert merges == []


# -- seed 001 -------------------------------------------------------------------------------

SEED001 = {"l o w </w>": 5, "l o w e r </w>": 2, "w i d e s t </w>": 3, "n e w e s t </w>": 6}
SEED001_WORDS = ref.parse_seed_vocabulary(SEED001)
# The 14 states the seed printed (the 14th is cut off after "'widest</"), then the one
# after the merge the seed made before max() failed on an empty pair table.
SEED001_STATES = [
    {"l o w </w>": 5, "l o w e r </w>": 2, "w i d es t </w>": 3, "n e w es t </w>": 6},
    {"l o w </w>": 5, "l o w e r </w>": 2, "w i d est </w>": 3, "n e w est </w>": 6},
    {"l o w </w>": 5, "l o w e r </w>": 2, "w i d est</w>": 3, "n e w est</w>": 6},
    {"lo w </w>": 5, "lo w e r </w>": 2, "w i d est</w>": 3, "n e w est</w>": 6},
    {"low </w>": 5, "low e r </w>": 2, "w i d est</w>": 3, "n e w est</w>": 6},
    {"low </w>": 5, "low e r </w>": 2, "w i d est</w>": 3, "ne w est</w>": 6},
    {"low </w>": 5, "low e r </w>": 2, "w i d est</w>": 3, "new est</w>": 6},
    {"low </w>": 5, "low e r </w>": 2, "w i d est</w>": 3, "newest</w>": 6},
    {"low</w>": 5, "low e r </w>": 2, "w i d est</w>": 3, "newest</w>": 6},
    {"low</w>": 5, "low e r </w>": 2, "wi d est</w>": 3, "newest</w>": 6},
    {"low</w>": 5, "low e r </w>": 2, "wid est</w>": 3, "newest</w>": 6},
    {"low</w>": 5, "low e r </w>": 2, "widest</w>": 3, "newest</w>": 6},
    {"low</w>": 5, "lowe r </w>": 2, "widest</w>": 3, "newest</w>": 6},
    {"low</w>": 5, "lower </w>": 2, "widest</w>": 3, "newest</w>": 6},
    {"low</w>": 5, "lower</w>": 2, "widest</w>": 3, "newest</w>": 6},
]
SEED001_MERGES = [
    ("e", "s", 9), ("es", "t", 9), ("est", "</w>", 9), ("l", "o", 7), ("lo", "w", 7),
    ("n", "e", 6), ("ne", "w", 6), ("new", "est</w>", 6), ("low", "</w>", 5),
    ("w", "i", 3), ("wi", "d", 3), ("wid", "est</w>", 3),
    ("low", "e", 2), ("lowe", "r", 2), ("lower", "</w>", 2),
]


@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize("k", range(1, len(SEED001_STATES) + 1))
def test_seed001_printed_states(impl, k):
    merges, vocab, _ = run(impl, SEED001_WORDS, merges=k)
    assert merges == SEED001_MERGES[:k]
    assert vocab == SEED001_STATES[k - 1]
    # The seed's printed line is a dict repr: word order is first-seen order.
    assert list(vocab) == list(SEED001_STATES[k - 1])


def test_seed001_truncated_line_is_consistent():
    printed = "{'low</w>': 5, 'lower </w>': 2, 'widest</"
    assert repr(SEED001_STATES[13]).startswith(printed)


@pytest.mark.parametrize("impl", IMPLS)
def test_seed001_full_run_stops_when_no_pair_is_left(impl):
    # num_merges=20 in the seed; it crashed on max() of an empty table: we just stop.
    merges, vocab, _ = run(impl, SEED001_WORDS, merges=20)
    assert merges == SEED001_MERGES
    assert vocab == SEED001_STATES[-1]
    merges, vocab, _ = run(impl, SEED001_WORDS)  # no limit, min_frequency 2
    assert merges == SEED001_MERGES
    merges, vocab, _ = run(impl, SEED001_WORDS, min_frequency=1)
    assert merges == SEED001_MERGES


# -- seed 004 -------------------------------------------------------------------------------

SEED004 = {"l o w </w>": 5, "f a r t h e s t </w>": 5, "n e w e r </w>": 5,
           "w i d e r </w>": 5}
SEED004_WORDS = ref.parse_seed_vocabulary(SEED004)
SEED004_STATES = [
    {"l o w </w>": 5, "f a r t h e s t </w>": 5, "n e w er </w>": 5, "w i d er </w>": 5},
    {"l o w </w>": 5, "f a r t h e s t </w>": 5, "n e w er</w>": 5, "w i d er</w>": 5},
    {"lo w </w>": 5, "f a r t h e s t </w>": 5, "n e w er</w>": 5, "w i d er</w>": 5},
    {"low </w>": 5, "f a r t h e s t </w>": 5, "n e w er</w>": 5, "w i d er</w>": 5},
    {"low</w>": 5, "f a r t h e s t </w>": 5, "n e w er</w>": 5, "w i d er</w>": 5},
]
SEED004_MERGES = [("e", "r", 10), ("er", "</w>", 10), ("l", "o", 5), ("lo", "w", 5),
                  ("low", "</w>", 5)]


@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize("k", range(1, 6))
def test_seed004_printed_states(impl, k):
    merges, vocab, _ = run(impl, SEED004_WORDS, merges=k)
    assert merges == SEED004_MERGES[:k]
    assert vocab == SEED004_STATES[k - 1]


def test_seed004_lower():
    model = train(Corpus.from_word_counts(SEED004_WORDS), TrainConfig(merges=5)).model
    assert model.tokenizer().encode_as_pieces("lower") == ["low", "er</w>"]
