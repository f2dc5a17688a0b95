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
from dataclasses import dataclass, field
from typing import Callable, Sequence

from bpe_desktop.core.errors import TrainingCancelled
from bpe_desktop.core.evaluation.gold import GoldSet
from bpe_desktop.core.evaluation.morphology import MorphologyResult, evaluate_morphology
from bpe_desktop.core.evaluation.parity import ParallelTexts, ParityResult, evaluate_parity
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


def sweep_merge_counts(model: BPEModel, points: int = DEFAULT_SWEEP_POINTS) -> list[int]:
    """Merge counts whose vocabulary sizes are log-spaced from the alphabet (0 merges)
    to the full model; each the fewest merges reaching its size, duplicates dropped."""
    total = len(model.merges)
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


def run_sweep(model: BPEModel, merge_counts: Sequence[int], *,
              gold: Sequence[GoldSet] = (), text: TextSample | None = None,
              parallel: ParallelTexts | None = None, parity_mode: str = "document",
              details: bool = False,
              on_point: Callable[[int, SweepPoint], None] | None = None,
              cancelled: Callable[[], bool] | None = None) -> list[SweepPoint]:
    """Evaluate ``model.truncated(k)`` for each k; ``on_point(i, point)`` after each."""
    out = []
    caches: dict[str, dict] = {g.name: {} for g in gold}
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
                small, g, details=details, cache=caches[g.name] if same_ids else None)
                for g in gold},
            text=text.stats(small) if text is not None else None,
            parity=evaluate_parity(small, parallel, parity_mode) if parallel else None)
        out.append(point)
        if on_point is not None:
            on_point(i, point)
    return out
