"""Final frequencies (the final segmentation of the training words) and intermediate
tokens, on seed 000's toy vocabulary, worked out by hand."""

from __future__ import annotations

import numpy as np

from bpe_desktop.core import BPEModel, Corpus, Merge, TrainConfig, train
from bpe_desktop.core.evaluation.vocabulary import (
    final_frequencies,
    final_frequencies_exact,
    intermediate_mask,
)

SEED_WORDS = (("low", 5), ("lower", 2), ("newest", 6), ("widest", 3))


def test_final_frequencies_of_seed_000():
    result = train(Corpus.from_word_counts(SEED_WORDS), TrainConfig(merges=10))
    model = result.model
    # the words end as low</w> (5), low e r </w> (2), newest</w> (6), wi d est</w> (3)
    assert result.seed_vocabulary() == {"low</w>": 5, "low e r </w>": 2, "newest</w>": 6,
                                        "wi d est</w>": 3}
    final = final_frequencies(model)
    used = {model.pieces[i]: int(n) for i, n in enumerate(final) if n}
    assert used == {"low</w>": 5, "low": 2, "e": 2, "r": 2, "</w>": 2, "newest</w>": 6,
                    "wi": 3, "d": 3, "est</w>": 3}
    assert final_frequencies_exact(model)


def test_intermediate_tokens_of_seed_000():
    model = train(Corpus.from_word_counts(SEED_WORDS), TrainConfig(merges=10)).model
    final = final_frequencies(model)
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


def test_model_without_words_has_no_final_frequencies():
    model = BPEModel(TrainConfig(), ("a", "</w>"), (Merge("a", "</w>"),))
    assert final_frequencies(model) is None
