"""What the golden tests share: training with either implementation, and seed 000's
example vocabulary (the seeds' worked examples are in test_seeds_golden.py)."""

from __future__ import annotations

from bpe_desktop.core import Corpus, TrainConfig, train
from tests import reference_bpe as ref

IMPLS = ("reference", "engine")


def run(impl: str, word_counts, **options):
    """Train with one implementation; return (merges as tuples, seed vocabulary, alphabet)."""
    config = TrainConfig(**options)
    if impl == "engine":
        result = train(Corpus.from_word_counts(word_counts), config)
        merges = [(m.left, m.right, m.count) for m in result.model.merges]
        return merges, result.seed_vocabulary(), list(result.model.alphabet)
    result = ref.train_with_config(word_counts, config)
    return [tuple(m) for m in result.merges], result.seed_vocabulary(), result.alphabet


SEED000 = {
    "l o w </w>": 5,
    "l o w e r </w>": 2,
    "n e w e s t </w>": 6,
    "w i d e s t </w>": 3,
    "h a p p i e r </w>": 2,
}
SEED000_WORDS = ref.parse_seed_vocabulary(SEED000)
