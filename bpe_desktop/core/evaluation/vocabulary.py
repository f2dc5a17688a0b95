"""Which tokens the final segmentation uses: final frequencies and intermediate tokens.

A token's **final frequency** is how often it occurs when the training words are
encoded with the whole model (each word weighted by its count) — not the pair's count
when it was merged: "ab" merged 500 times may later be absorbed into "abc" and occur
only 3 times in the end. Training counts them over every training word and the model file
keeps them (``final_counts``); for a model without them (an import, a truncated model, an
older file) they are counted over the kept training words (``keep_words``), exact when it
keeps them all.

An **intermediate** token (the "junk" Picky BPE and Scaffold-BPE remove) is a merged
token whose final frequency is below :data:`INTERMEDIATE_SHARE` of its count when it
was merged (or 0 when the model records no counts): it mostly served as a step towards
longer tokens.
"""

from __future__ import annotations

import numpy as np

from bpe_desktop.core.model import BPEModel

#: Below this share of its merge count, a merged token counts as intermediate.
INTERMEDIATE_SHARE = 0.1


def final_frequencies(model: BPEModel) -> np.ndarray | None:
    """Each token's count in the final segmentation of the training words (int64, indexed
    by id): the trainer's count over every word when the model has it, else over the kept
    training words; None when it has neither."""
    if model.final_counts is not None:
        return np.array(model.final_counts, dtype=np.int64)
    if not model.words:
        return None
    cfg = model.config
    words = [w for w, _ in model.words]
    if cfg.byte_level:  # kept words are stored in their byte-level spelling
        from bpe_desktop.core.pieces import surface_text

        words = [surface_text(w, cfg) for w in words]
    ids, lengths = model.tokenizer().encode_batch_flat(words)
    counts = np.array([c for _, c in model.words], dtype=np.int64)
    return np.bincount(ids.astype(np.int64), weights=np.repeat(counts, lengths),
                       minlength=model.vocab_size).round().astype(np.int64)


def final_frequencies_exact(model: BPEModel) -> bool:
    """Whether the final frequencies cover every training word (the trainer's count, or
    kept training words that are all of them)."""
    if model.final_counts is not None:
        return True
    return model.corpus is not None and len(model.words) >= model.corpus.distinct_words


def intermediate_mask(merged: np.ndarray, merge_count: np.ndarray, final: np.ndarray,
                      share: float = INTERMEDIATE_SHARE) -> np.ndarray:
    """Which tokens are intermediate (see the module docstring). ``merged``: bool per id;
    ``merge_count``: the count when merged, -1 unknown; ``final``: final frequencies."""
    known = merge_count >= 0
    rare = np.where(known, final < share * np.where(known, merge_count, 0), final == 0)
    return merged & rare
