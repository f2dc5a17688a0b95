"""Intermediate tokens (merged tokens the final segmentation hardly uses), on seed 000's
toy vocabulary, worked out by hand."""

from __future__ import annotations

import numpy as np

from bpe_desktop.core import Corpus, TrainConfig, train
from bpe_desktop.core.evaluation.vocabulary import intermediate_mask

SEED_WORDS = (("low", 5), ("lower", 2), ("newest", 6), ("widest", 3))


def test_intermediate_tokens_of_seed_000():
    model = train(Corpus.from_word_counts(SEED_WORDS), TrainConfig(merges=10)).model
    final = np.array(model.final_counts)
    merged = np.zeros(model.vocab_size, bool)
    count = np.full(model.vocab_size, -1)
    for m in model.merges:
        merged[model.piece_ids[m.result]] = True
        count[model.piece_ids[m.result]] = m.count
    mask = intermediate_mask(merged, count, final)
    # es, est (9 when merged), lo (7), ne, new (6): never used at the end;
    # low (7 when merged, 2 at the end: 29%) and wi (3 and 3) are kept
    assert {model.pieces[i] for i in np.flatnonzero(mask)} == {"es", "est", "lo", "ne", "new"}
    assert not intermediate_mask(merged, count, final, share=0.0).any()


def test_without_counts_only_unused_tokens_are_intermediate():
    merged = np.array([False, True, True])
    assert intermediate_mask(merged, np.array([-1, -1, -1]), np.array([0, 0, 4])).tolist() == [
        False, True, False]

