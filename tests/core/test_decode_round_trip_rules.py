"""What decode(encode(text)) gives back, stated as rules and checked on random texts of
many scripts (hypothesis): Latin with combining marks, Cyrillic, Greek, Arabic, Hebrew,
Devanagari, CJK, Thai, emoji with skin tones and ZWJ, digits, and white space of every
kind (tabs, lone carriage returns, no-break and ideographic spaces, runs of spaces).

The rules are the ones Help ▸ Quick start ("What decoding gives back") states:

* byte-level models give every text back exactly, in both modes and every dropout sample;
* other models give back the words the pre-tokenizer cut, joined by single spaces (with a
  word marker) or by nothing (without one): ``whitespace`` cuts at every Unicode space,
  ``space`` at U+0020 and line breaks, ``sentencepiece`` at U+0020, ``\\n`` and ``\\r``;
* lower-casing and normalization apply first; a truncated model follows its model's rule;
* with byte fallback a character never seen comes back exactly; without it, as ``<unk>``.
"""

from __future__ import annotations

import re
import unicodedata

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bpe_desktop.core import Corpus, TrainConfig, train

SETTINGS = {"deadline": None, "derandomize": True, "max_examples": 150,
            "suppress_health_check": [HealthCheck.too_slow, HealthCheck.function_scoped_fixture]}

#: Letters of many scripts (each a few code points, so words mix scripts and marks).
LETTERS = ["a", "e\u0301", "é", "ж", "Я", "λ", "ά", "ب", "ة", "ש", "ָ", "न", "ि", "字", "人",
           "ก", "่", "👍🏽", "👨\u200d👩", "7", "1", ".", "!", "\u200f"]
SPACES = [" ", "  ", "\t", "\r", "\u00a0", "\u3000", "\u2009"]
#: Characters no model here is trained on.
UNSEEN = ["ꙮ", "𝔘", "☃"]

#: Every character a model here saw: each letter between spaces, and each space inside a
#: word (where a pre-tokenizer keeps it in the word, as ``space`` keeps a tab).
TRAINING_TEXT = " ".join(LETTERS * 3 + [a + b for a in LETTERS for b in LETTERS]
                         + [a + s + b for s in SPACES for a in ("", "a") for b in ("", "a")])

texts = st.lists(st.sampled_from(LETTERS + SPACES), max_size=30).map("".join)
unseen_texts = st.lists(st.sampled_from(LETTERS + SPACES + UNSEEN), max_size=30).map("".join)

#: Where each pre-tokenizer cuts words (the characters that come back as one space).
WORD_SEPARATORS = {
    "whitespace": None,  # str.split(): every Unicode space (none of U+001C..U+001F here)
    "space": re.compile("[ \n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]+"),
    "sentencepiece": re.compile("[ \n\r]+"),
}


def words(text: str, pretokenizer: str) -> list[str]:
    separator = WORD_SEPARATORS[pretokenizer]
    return text.split() if separator is None else [w for w in separator.split(text) if w]


#: Models trained once for the tests that take no fixture (hypothesis reruns a test body).
_models: dict = {}


def trained(config: TrainConfig):
    return train(Corpus.from_texts([TRAINING_TEXT]), config).model


@pytest.fixture(scope="module")
def byte_level():
    return trained(TrainConfig.preset("gpt2", merges=150))


@pytest.fixture(scope="module", params=["sennrich", "subword-nmt", "sentencepiece",
                                        "eow-suffix", "bow-prefix"])
def marked(request):
    if request.param in ("eow-suffix", "bow-prefix"):
        return trained(TrainConfig(boundary=request.param, merges=150, min_frequency=1))
    return trained(TrainConfig.preset(request.param, merges=150, min_frequency=1))


@settings(**SETTINGS)
@given(text=unseen_texts, mode=st.sampled_from(["merges", "greedy"]), seed=st.integers(0, 99))
def test_byte_level_models_give_every_text_back(byte_level, text, mode, seed):
    tok = byte_level.tokenizer()
    assert tok.decode(tok.encode(text, mode=mode)) == text
    assert tok.decode(tok.encode(text, dropout=0.4, seed=seed)) == text
    assert tok.decode_pieces(tok.encode_as_pieces(text, mode=mode)) == text


@settings(**SETTINGS)
@given(text=texts, mode=st.sampled_from(["merges", "greedy"]))
def test_other_models_give_the_words_back_joined_by_single_spaces(marked, text, mode):
    tok = marked.tokenizer()
    expected = " ".join(words(text, marked.config.pretokenizer))
    assert tok.decode(tok.encode(text, mode=mode)) == expected
    assert tok.decode_pieces(tok.encode_as_pieces(text, mode=mode)) == expected


@settings(**SETTINGS)
@given(text=texts)
def test_without_a_word_marker_the_words_run_together(text):
    model = _models.setdefault("none", trained(TrainConfig(boundary="none", merges=150,
                                                           min_frequency=1)))
    tok = model.tokenizer()
    assert tok.decode(tok.encode(text)) == "".join(text.split())


@settings(**SETTINGS)
@given(text=texts, merges=st.integers(0, 150))
def test_a_truncated_vocabulary_follows_its_models_rule(text, merges):
    model = _models.setdefault("default", trained(TrainConfig(merges=150, min_frequency=1)))
    tok = model.truncated(merges).tokenizer()
    assert tok.decode(tok.encode(text)) == " ".join(text.split())


@settings(**SETTINGS)
@given(text=texts)
def test_lowercase_and_normalization_come_first(text):
    model = _models.setdefault("folded", trained(TrainConfig(
        lowercase=True, normalize="nfkc", merges=150, min_frequency=1,
        initial_alphabet="".join(sorted(set(unicodedata.normalize("NFKC", TRAINING_TEXT))))
    )))
    tok = model.tokenizer()
    folded = unicodedata.normalize("NFKC", text).lower()
    assert tok.decode(tok.encode(text)) == " ".join(folded.split())


@settings(**SETTINGS)
@given(text=unseen_texts)
def test_unseen_characters_come_back_as_bytes_or_as_unk(text):
    fallback = _models.setdefault("fallback", trained(TrainConfig.preset(
        "sentencepiece", merges=150, byte_fallback=True, fuse_unk=False)))
    tok = fallback.tokenizer()
    assert tok.decode(tok.encode(text)) == " ".join(words(text, "sentencepiece"))

    plain = _models.setdefault("default", trained(TrainConfig(merges=150, min_frequency=1)))
    tok = plain.tokenizer()
    expected = " ".join(text.split())
    for character in UNSEEN:
        expected = expected.replace(character, "<unk>")
    assert tok.decode(tok.encode(text)) == expected
