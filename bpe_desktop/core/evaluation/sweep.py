"""Metrics against vocabulary size, from one trained model.

A BPE model's first k merges are the model training would have learned with k merges,
so one model gives every smaller vocabulary. The sweep evaluates
``model.truncated(k)`` at each chosen k; the text is cut into pre-tokens once (they
do not depend on the merges) and the gold words are encoded per k, so a point costs one
encoding of the distinct words, not of the text. The metrics at k are by construction
those of the truncated model (a test checks it).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from bpe_desktop.core.errors import TrainingCancelled
from bpe_desktop.core.evaluation.gold import GoldSet
from bpe_desktop.core.evaluation.morphology import MorphologyResult, evaluate_morphology
from bpe_desktop.core.evaluation.parity import ParallelTexts, ParityResult, evaluate_parity
from bpe_desktop.core.evaluation.segments import Segmenter
from bpe_desktop.core.evaluation.text_stats import TextSample, TextStats
from bpe_desktop.core.model import BPEModel

#: Points of a sweep unless asked otherwise.
DEFAULT_SWEEP_POINTS = 20


@dataclass(frozen=True)
class SweepPoint:
    merges: int
    vocab_size: int
    morphology: dict[str, MorphologyResult] = field(default_factory=dict)
    text: TextStats | None = None
    parity: ParityResult | None = None


def max_sweep_points(model: BPEModel) -> int:
    """The most vocabulary sizes a sweep of ``model`` can have: 0 to all its merges."""
    return model.merge_count + 1


def sweep_merge_counts(model: BPEModel, points: int = DEFAULT_SWEEP_POINTS) -> list[int]:
    """Merge counts whose vocabulary sizes are log-spaced from the alphabet (0 merges)
    to the full model; each the fewest merges reaching its size, duplicates dropped.

    There are only ``merges + 1`` distinct merge counts, so more points than that are
    taken as that many (the targets are built before duplicates go)."""
    total = model.merge_count
    points = min(points, max_sweep_points(model))
    if points < 2 or total == 0:
        return sorted({0, total})
    low, high = model.vocab_size_at(0), model.vocab_size_at(total)
    targets = [low * (high / low) ** (i / (points - 1)) if low > 0 else
               high * i / (points - 1) for i in range(points)]
    sizes = [model.vocab_size_at(k) for k in range(total + 1)]
    out, k = [], 0
    for target in targets:
        goal = min(high, math.ceil(target - 1e-9))
        while k < total and sizes[k] < goal:
            k += 1
        if not out or out[-1] != k:
            out.append(k)
    if out[-1] != total:
        out.append(total)
    return out


class _IncrementalText:
    """A text sample's ids at growing merge counts, re-encoding only what can change.

    Encoding with k merges runs the merge loop with the merges of rank < k; until no
    pair of rank < k' (k' < k) is left it makes the same choices as with k' merges, so it
    passes through the k'-segmentation and continues only if that segmentation holds a
    pair of rank in [k', k). Pre-tokens without such a pair keep their ids.
    """

    def __init__(self, model: BPEModel, sample: TextSample) -> None:
        self.sample = sample
        ids = model.piece_ids
        size = model.vocab_size
        keys = np.array([ids[m.left] * size + ids[m.right] for m in model.merges],
                        dtype=np.int64)
        order = np.argsort(keys, kind="stable")  # equal pairs: the lowest rank first
        self._keys, self._ranks, self._size = keys[order], order, size
        self._flat: np.ndarray | None = None
        self._lengths: np.ndarray | None = None
        self._merges = 0
        self._same_ids = True  # whether the ids held mean the full model's pieces

    def stats(self, small: BPEModel, merges: int, same_ids: bool) -> TextStats:
        tok = small.tokenizer()
        if (self._flat is None or not same_ids or not self._same_ids
                or merges < self._merges):
            self._flat, self._lengths = tok.encode_batch_flat(self.sample.pretokens)
        else:
            changed = self._changed(merges)
            if len(changed):
                self._replace(changed, *tok.encode_batch_flat(
                    [self.sample.pretokens[i] for i in changed.tolist()]))
        self._merges, self._same_ids = merges, same_ids
        return self.sample.stats_of(small, self._flat, self._lengths)

    def _changed(self, merges: int) -> np.ndarray:
        """Pre-tokens holding a pair of rank in [previous merges, merges)."""
        flat = self._flat.astype(np.int64)
        owner = np.repeat(np.arange(len(self._lengths)), self._lengths)
        inside = owner[:-1] == owner[1:]
        keys = flat[:-1][inside] * self._size + flat[1:][inside]
        at = np.searchsorted(self._keys, keys)
        at[at == len(self._keys)] = 0
        found = self._keys[at] == keys if len(self._keys) else np.zeros(len(keys), bool)
        rank = np.where(found, self._ranks[at] if len(self._keys) else 0, -1)
        hit = (rank >= self._merges) & (rank < merges)
        return np.unique(owner[:-1][inside][hit])

    def _replace(self, changed: np.ndarray, ids: np.ndarray, lengths: np.ndarray) -> None:
        old_lengths, old_flat = self._lengths, self._flat
        new_lengths = old_lengths.copy()
        new_lengths[changed] = lengths
        old_starts = np.concatenate(([0], np.cumsum(old_lengths)[:-1]))
        new_starts = np.concatenate(([0], np.cumsum(new_lengths)[:-1]))
        flat = np.empty(int(new_lengths.sum()), dtype=old_flat.dtype)
        owner = np.repeat(np.arange(len(old_lengths)), old_lengths)
        keep = np.ones(len(old_lengths), bool)
        keep[changed] = False
        kept = keep[owner]
        positions = np.arange(len(old_flat))[kept]
        flat[positions - old_starts[owner[kept]] + new_starts[owner[kept]]] = old_flat[kept]
        within = np.arange(len(ids)) - np.repeat(np.cumsum(lengths) - lengths, lengths)
        flat[np.repeat(new_starts[changed], lengths) + within] = ids
        self._flat, self._lengths = flat, new_lengths


def run_sweep(model: BPEModel, merge_counts: Sequence[int], *,
              gold: Sequence[GoldSet] = (), text: TextSample | None = None,
              parallel: ParallelTexts | None = None, parity_mode: str = "document",
              details: bool = False,
              on_point: Callable[[int, SweepPoint], None] | None = None,
              cancelled: Callable[[], bool] | None = None) -> list[SweepPoint]:
    """Evaluate ``model.truncated(k)`` for each k; ``on_point(i, point)`` after each."""
    out = []
    caches: dict[str, dict] = {g.name: {} for g in gold}
    texts = _IncrementalText(model, text) if text is not None else None
    segmenter = Segmenter(model)
    specials = model.config.special_tokens
    for i, k in enumerate(merge_counts):
        if cancelled is not None and cancelled():
            raise TrainingCancelled("evaluation cancelled")
        small = model.truncated(k)
        # ids keep their pieces unless a special token had to move
        same_ids = small.config.special_tokens == specials
        point = SweepPoint(
            merges=k, vocab_size=small.vocab_size,
            morphology={g.name: evaluate_morphology(
                small, g, details=details, cache=caches[g.name] if same_ids else None,
                segmenter=segmenter if same_ids else None) for g in gold},
            text=texts.stats(small, k, same_ids) if texts is not None else None,
            parity=evaluate_parity(small, parallel, parity_mode) if parallel else None)
        out.append(point)
        if on_point is not None:
            on_point(i, point)
    return out
