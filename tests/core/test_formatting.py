"""Numbers, a training configuration and a progress report, written for people."""

from __future__ import annotations

import pytest

from bpe_desktop.core.config import TrainConfig
from bpe_desktop.core.formatting import (
    describe_config,
    describe_progress,
    describe_stage,
    format_bytes,
    format_count,
    format_duration,
)
from bpe_desktop.core.training import Progress


@pytest.mark.parametrize("n, text", [(0, "0 bytes"), (1, "1 byte"), (999, "999 bytes"),
                                     (1000, "1.0 kB"), (12_400_000, "12.4 MB"),
                                     (2 * 1024**3, "2.1 GB"), (3 * 10**12, "3.0 TB"),
                                     (1_234 * 10**12, "1,234.0 TB")])
def test_format_bytes_decimal_units(n, text):
    assert format_bytes(n) == text


@pytest.mark.parametrize("seconds, text", [(0, "0:00"), (7.9, "0:07"), (754, "12:34"),
                                           (3723, "1:02:03"), (-5, "0:00")])
def test_format_duration_reads_like_a_clock(seconds, text):
    assert format_duration(seconds) == text


def test_format_count_groups_thousands():
    assert format_count(1234567) == "1,234,567" and format_count(12) == "12"


def test_describe_config_names_the_stop_then_the_word_and_merge_options():
    config = TrainConfig(vocab_size=8000, pretokenizer="letters", boundary="eow-suffix",
                         ties="lexicographic", min_frequency=3)
    assert describe_config(config) == ("vocabulary 8,000, words: letters, boundary: "
                                       "eow-suffix, ties: lexicographic, minimum count 3")
    assert describe_config(TrainConfig(merges=1500)).startswith("1,500 merges, words: ")
    assert describe_config(TrainConfig(vocab_size=None, merges=None)).startswith(
        "until no pair repeats, ")


def test_describe_config_ends_with_the_languages_and_how_they_are_balanced():
    base = "200 merges, words: whitespace, boundary: eow-symbol, ties: first-seen, " \
           "minimum count 2"
    langs = ("en=a.txt", "de=b.txt", "en=c.txt")
    assert describe_config(TrainConfig(merges=200, lang=langs)) == \
        base + ", languages: en, de"
    assert describe_config(TrainConfig(merges=200, lang=langs, weight=("en=1", "de=2"))) == \
        base + ", languages: en, de (weights en=1, de=2)"
    config = TrainConfig(merges=200, lang=langs, temperature=2.5,
                         parity_dev=("en=dev.en", "de=dev.de"), parity_window=100,
                         parity_measure="tokens-per-character", parity_dev_documents=True)
    assert describe_config(config) == base + (
        ", languages: en, de (temperature 2.5; parity-aware on en=dev.en, de=dev.de, "
        "measure tokens-per-character, window 100, whole documents)")


def _progress(stage="merging", bytes_done=0, bytes_total=0, words=0, merges_done=0,
              merges_target=None, pair=None, count=None, elapsed=0.0) -> Progress:
    return Progress(stage, bytes_done, bytes_total, words, merges_done, merges_target,
                    pair, count, elapsed)


def test_describe_progress_while_merging():
    p = _progress(merges_done=50, merges_target=200, pair=("l", "o"), count=1234,
                  elapsed=4.0)
    assert describe_progress(p, 12.0) == "merging    25%  50/200 merges  'l' + 'o' (1,234)  " \
                                         "0:04  ETA 0:12"
    assert describe_progress(p, 12.0, bar_width=8) == (
        "merging   [##......]  25%  50/200 merges  'l' + 'o' (1,234)  0:04  ETA 0:12")


def test_describe_progress_without_target_count_or_eta():
    p = _progress(merges_done=7, pair=("a", "b"), elapsed=61.0)
    assert describe_progress(p) == "merging   7 merges  'a' + 'b'  1:01"


def test_describe_progress_while_reading_shows_bytes_and_words():
    p = _progress(stage="reading", bytes_done=5_000_000, bytes_total=10_000_000,
                  words=12_345, elapsed=2.0)
    assert describe_progress(p, 2.0) == ("reading    50%  5.0 MB/10.0 MB  12,345 words  0:02  "
                                         "ETA 0:02")


def test_describe_progress_has_no_eta_once_finished():
    p = _progress(merges_done=200, merges_target=200, elapsed=9.0)
    assert describe_progress(p, 0.0) == "merging   100%  200/200 merges  0:09"


def test_the_training_panels_status_line_in_words():
    p = _progress(merges_done=50, merges_target=200, pair=("l", "o"), count=1234)
    assert describe_stage(p, 12.0) == \
        "Merging pairs: 50 of 200 merges — last: l + o (1,234) — about 12 s left"
    assert describe_stage(_progress(merges_done=7, pair=("a", "b"))) == \
        "Merging pairs: 7 merges — last: a + b"
    reading = _progress(stage="reading", bytes_done=5_000_000, bytes_total=10_000_000,
                        words=12_345)
    assert describe_stage(reading) == "Reading and counting words: 5.0 MB of 10.0 MB, 12,345 words"
