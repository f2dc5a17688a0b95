"""BPE-dropout: p = 0 is ordinary encoding, p = 1 the initial symbols, seeds reproduce,
more dropout means more tokens, and every sample decodes to the text (hypothesis)."""

from __future__ import annotations

import statistics
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bpe_desktop.core import Corpus, TrainConfig, train
from bpe_desktop.core.errors import ConfigError, EncodeError
from bpe_desktop.core.tokenizer import MAX_SEED

BOTCHAN = Path(__file__).resolve().parents[2] / "bpe_desktop/resources/examples/botchan.txt"
SETTINGS = {"deadline": None, "derandomize": True,
            "suppress_health_check": [HealthCheck.too_slow]}
PRESETS = ("sennrich", "subword-nmt", "gpt2", "sentencepiece")
LINES = BOTCHAN.read_text(encoding="utf-8").splitlines()
#: Words of the training text, plus characters no preset saw (unknown, or bytes).
WORDS = sorted({w for line in LINES[:400] for w in line.split()}) + ["héllo", "ünïcode"]


@pytest.fixture(scope="module", params=PRESETS)
def model(request):
    return train(Corpus.from_files([str(BOTCHAN)]),
                 TrainConfig.preset(request.param, merges=400)).model


texts = st.lists(st.sampled_from(WORDS), min_size=1, max_size=12).map(" ".join)
seeds = st.integers(0, MAX_SEED)


@settings(max_examples=40, **SETTINGS)
@given(text=texts, seed=seeds)
def test_zero_dropout_is_ordinary_encoding(model, text, seed):
    tok = model.tokenizer()
    assert tok.encode(text, dropout=0.0, seed=seed) == tok.encode(text)
    assert tok.encode_as_pieces(text, dropout=0.0, seed=seed) == tok.encode_as_pieces(text)


@settings(max_examples=40, **SETTINGS)
@given(text=texts, seed=seeds)
def test_full_dropout_gives_the_initial_symbols(model, text, seed):
    symbols = model.truncated(0).tokenizer().encode(text)  # no merges: the alphabet
    assert model.tokenizer().encode(text, dropout=1.0, seed=seed) == symbols


@settings(max_examples=40, **SETTINGS)
@given(text=texts, seed=seeds, p=st.floats(0.0, 1.0))
def test_a_seed_fixes_the_sample_and_every_sample_decodes(model, text, seed, p):
    tok = model.tokenizer()
    sample = tok.encode(text, dropout=p, seed=seed)
    assert tok.encode(text, dropout=p, seed=seed) == sample
    assert tok.decode(sample) == tok.decode(tok.encode(text))
    if tok.unk_id() not in sample:
        assert tok.decode(sample) == text
    # the pieces and the word view draw the same sample
    pieces = tok.encode_as_pieces(text, dropout=p, seed=seed)
    assert tok.decode_pieces(pieces) == tok.decode(tok.encoding(text))
    assert [i for _, ids in tok.encode_words(text, dropout=p, seed=seed) for i in ids] == sample


@settings(max_examples=15, **SETTINGS)
@given(low=st.floats(0.0, 0.7), gap=st.floats(0.25, 0.3))
def test_mean_token_count_grows_with_dropout(model, low, gap):
    tok = model.tokenizer()
    text = " ".join(LINES[10:14])
    mean = lambda p: statistics.mean(len(tok.encode(text, dropout=p, seed=s))
                                     for s in range(60))
    assert mean(low) < mean(min(1.0, low + gap))


def test_samples_differ_between_seeds(model):
    tok = model.tokenizer()
    samples = {tuple(tok.encode(LINES[10], dropout=0.3, seed=s)) for s in range(20)}
    assert len(samples) > 5


def test_unseeded_samples_vary_and_bad_values_are_refused(model):
    tok = model.tokenizer()
    assert len({tuple(tok.encode(LINES[10], dropout=0.5)) for _ in range(10)}) > 1
    for bad in (-0.1, 1.5, float("nan"), "0.2", True):
        with pytest.raises(EncodeError, match="dropout"):
            tok.encode("abc", dropout=bad)
    for bad in (-1, MAX_SEED + 1, 1.5):
        with pytest.raises(EncodeError, match="seed"):
            tok.encode("abc", dropout=0.5, seed=bad)
    with pytest.raises(ConfigError, match="greedy"):
        tok.encode("abc", mode="greedy", dropout=0.5, seed=1)
