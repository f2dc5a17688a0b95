"""The engine equals the pure-Python reference trainer on words long enough (64+ symbols)
to take its long-word path, with and without marker look-alikes in the text."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.core.test_properties import COUNTS, check_against_reference, configs

SETTINGS = dict(deadline=None, derandomize=True, database=None,
                # long words make slow examples; that is the point here
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@st.composite
def long_word_tables(draw, alphabets):
    alphabet = draw(st.sampled_from(alphabets))
    long = draw(st.lists(st.text(alphabet=alphabet, min_size=64, max_size=220),
                         min_size=1, max_size=4, unique=True))
    short = draw(st.lists(st.text(alphabet=alphabet, min_size=1, max_size=8),
                          max_size=4, unique=True))
    words = list(dict.fromkeys(long + short))
    counts = draw(st.lists(st.sampled_from(COUNTS), min_size=len(words), max_size=len(words)))
    return list(zip(words, counts))


@settings(max_examples=200, **SETTINGS)
@given(words=long_word_tables(["ab", "abc", "abcd", "aé字"]), config=configs())
def test_long_words_train_as_the_reference(words, config):
    assert max(len(w) for w, _ in words) >= 64
    check_against_reference(words, config)


@settings(max_examples=100, **SETTINGS)
@given(words=long_word_tables(["ab</w>", "ab\u2581", "w</w>"]),
       config=configs(coverages=(1.0,)))
def test_long_words_with_marker_lookalikes(words, config):
    check_against_reference(words, config)
