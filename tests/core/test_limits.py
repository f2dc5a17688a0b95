"""Every number and text a training configuration takes is checked when it is made.

A bad value is a ConfigError whose message names the setting, the value given and what
is allowed; values at the edges of the ranges are accepted and train.
"""

from __future__ import annotations

import math

import pytest

from bpe_desktop.core import Corpus, SpecialToken, TrainConfig, train
from bpe_desktop.core.config import MAX_COUNT, MAX_SPECIAL_ID, MAX_THREADS, MAX_VOCAB
from bpe_desktop.core.errors import ConfigError

RANGES = {
    "vocab_size": (1, MAX_VOCAB),
    "merges": (0, MAX_VOCAB),
    "min_frequency": (1, MAX_COUNT),
    "threads": (0, MAX_THREADS),
    "keep_words": (0, MAX_VOCAB),
}


def _error(**kwargs) -> str:
    with pytest.raises(ConfigError) as info:
        TrainConfig(**kwargs)
    return str(info.value)


@pytest.mark.parametrize("name", list(RANGES))
def test_whole_numbers_out_of_range(name):
    low, high = RANGES[name]
    for value in (low - 1, high + 1, -(2**70), 2**70):
        assert _error(**{name: value}) == (
            f"{name} must be at least {low} and at most {high}; got {value}")


@pytest.mark.parametrize("name", list(RANGES))
@pytest.mark.parametrize("value", ["8000", 8000.0, True, None, [1]])
def test_whole_numbers_of_the_wrong_type(name, value):
    if value is None and name in ("vocab_size", "merges"):
        return  # None means "no limit" for these two
    low, high = RANGES[name]
    assert _error(**{name: value}) == (
        f"{name} must be a whole number (at least {low} and at most {high}); got {value!r}")


@pytest.mark.parametrize("value", [0, 0.0, -0.5, 1.0000001, 2, math.nan, math.inf, "1", True])
def test_character_coverage(value):
    assert _error(character_coverage=value) == (
        f"character_coverage must be in (0, 1]: more than 0 and at most 1; got {value!r}")


@pytest.mark.parametrize("name, value, words", [
    ("pretokenizer", "bytes", "pretokenizer must be one of whitespace, space, letters, gpt2, "
                              "gpt4, llama3, gpt4o, sentencepiece; got 'bytes'"),
    ("boundary", None, "boundary must be one of eow-symbol, eow-suffix, bow-prefix, none; "
                       "got None"),
    ("ties", "random", "ties must be one of first-seen, lexicographic, codepoint; got 'random'"),
    ("normalize", "NFC", "normalize must be one of none, nfc, nfkc; got 'NFC'"),
    ("lowercase", "yes", "lowercase must be true or false; got 'yes'"),
    ("initial_alphabet", 5, "initial_alphabet must be a string of characters; got 5"),
    ("initial_alphabet", "ab\ud800", "initial_alphabet contains U+D800, a lone surrogate"),
])
def test_choices_and_texts(name, value, words):
    assert words in _error(**{name: value})


def test_the_largest_special_id():
    assert SpecialToken("<unk>", MAX_SPECIAL_ID, "unk").id == MAX_SPECIAL_ID


@pytest.mark.parametrize("piece, id, role, words", [
    ("", 0, "unk", "a special token needs a non-empty piece; got ''"),
    (None, 0, "unk", "a special token needs a non-empty piece; got None"),
    ("<x\udc80>", 0, "user", "special token '<x\\udc80>' contains U+DC80, a lone surrogate"),
    ("<s>", -1, "bos", f"special token '<s>': id must be a whole number from 0 to "
                       f"{MAX_SPECIAL_ID}; got -1"),
    ("<s>", MAX_SPECIAL_ID + 1, "bos", f"got {MAX_SPECIAL_ID + 1}"),
    ("<s>", "0", "bos", "got '0'"),
    ("<s>", 0, "start", "role must be one of pad, unk, bos, eos, user; got 'start'"),
])
def test_special_tokens(piece, id, role, words):
    with pytest.raises(ConfigError) as info:
        SpecialToken(piece, id, role)
    assert words in str(info.value)


def test_special_ids_must_fit_the_vocabulary():
    assert TrainConfig(vocab_size=5, special_tokens=(SpecialToken("<unk>", 4, "unk"),))
    assert _error(vocab_size=5, special_tokens=(SpecialToken("<unk>", 5, "unk"),)) == (
        "special token '<unk>' has id 5, outside a vocabulary of 5")


def test_the_edges_of_every_range_are_accepted_and_train():
    corpus = Corpus.from_texts(["low lower lowest low"])
    edges = [
        {"vocab_size": MAX_VOCAB, "min_frequency": MAX_COUNT},  # nothing is that frequent
        {"merges": 0, "keep_words": 0},
        {"merges": MAX_VOCAB, "keep_words": MAX_VOCAB, "threads": MAX_THREADS},
        {"vocab_size": 1, "special_tokens": (SpecialToken("<unk>", 0, "unk"),)},
        {"character_coverage": 5e-324, "threads": 1},
    ]
    for options in edges:
        config = TrainConfig(**options)
        result = train(corpus, config)
        assert len(result.model.merges) <= (config.merges if config.merges is not None
                                            else MAX_VOCAB)
    # the model keeps every word when keep_words is the largest allowed
    assert len(train(corpus, TrainConfig(keep_words=MAX_VOCAB)).model.words) == 3


@pytest.mark.parametrize("boundary", ["eow-symbol", "eow-suffix", "bow-prefix"])
def test_gpt2_words_take_no_second_boundary_marker(boundary):
    # Its words carry their leading space as Ġ: a marker as well made decoding add
    # spaces (eow-symbol, bow-prefix) or encoding differ from training (eow-suffix).
    with pytest.raises(ConfigError, match="gpt2 pre-tokenizer.*boundary 'none'"):
        TrainConfig(pretokenizer="gpt2", boundary=boundary)
    assert TrainConfig(pretokenizer="gpt2", boundary="none").byte_level
