"""The engine stores word symbols in 16 bits when every token a run can make fits
(at most 65,534), else in 32: both stores train the same merges.

Greedy BPE makes the same merges in the same order whatever the target size, so a run
to a small vocabulary (16-bit store) must be a prefix of a run to a vocabulary above the
16-bit limit (32-bit store) on the same text."""

from __future__ import annotations

import pytest

from bpe_desktop.core import Corpus, TrainConfig, train
from tests.shared_data import corpus_path


@pytest.mark.parametrize("preset", ["default", "gpt2", "subword-nmt"])
def test_the_narrow_and_wide_stores_make_the_same_merges(preset):
    corpus = Corpus.from_files([corpus_path("ud_english")])

    def merges(vocab_size: int):
        config = TrainConfig.preset(preset, vocab_size=vocab_size) if preset != "default" \
            else TrainConfig(vocab_size=vocab_size)
        return [(m.left, m.right, m.count) for m in train(corpus, config).model.merges]

    narrow, wide = merges(2_000), merges(70_000)
    assert len(wide) > len(narrow) > 1_000
    assert wide[: len(narrow)] == narrow
