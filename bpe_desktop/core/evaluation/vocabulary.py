"""Which tokens the final segmentation uses: final frequencies and intermediate tokens.

A token's **final frequency** is how often it occurs when the training words are
encoded with the whole model (each word weighted by its count) — not the pair's count
when it was merged: "ab" merged 500 times may later be absorbed into "abc" and occur
only 3 times in the end. Training counts them over every training word and the model file
keeps them (``final_counts``); for a model without them (an import, a truncated model, an
older file) the Vocabulary tab counts them over the kept training words (``keep_words``,
:class:`bpe_desktop.views.vocab_table.TokenUsage`), exact when it keeps them all.

An **intermediate** token (the "junk" Picky BPE and Scaffold-BPE remove) is a merged
token whose final frequency is below :data:`INTERMEDIATE_SHARE` of its count when it
was merged (or 0 when the model records no counts): it mostly served as a step towards
longer tokens.
"""

from __future__ import annotations

import numpy as np

#: Below this share of its merge count, a merged token counts as intermediate.
INTERMEDIATE_SHARE = 0.1


def intermediate_mask(merged: np.ndarray, merge_count: np.ndarray, final: np.ndarray,
                      share: float = INTERMEDIATE_SHARE) -> np.ndarray:
    """Which tokens are intermediate (see the module docstring). ``merged``: bool per id;
    ``merge_count``: the count when merged, -1 unknown; ``final``: final frequencies."""
    known = merge_count >= 0
    rare = np.where(known, final < share * np.where(known, merge_count, 0), final == 0)
    return merged & rare
