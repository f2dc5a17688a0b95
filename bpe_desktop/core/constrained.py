"""Training with linguistic constraints: the sources of boundaries resolved, then one
training (boundaries) or several (BPE-knockout), the model carrying a report.

Order: gold boundaries and Morfessor's give segmentations of words (a word listed by
both keeps the gold one), the separator marks cuts in the corpus itself; knockout then
forbids pairs round by round, each round training on the same boundaries. Nothing is
kept from a failed or cancelled run.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Callable, Sequence

from bpe_desktop.core.config import TrainConfig
from bpe_desktop.core.constraints import (
    FILE_LIST_OPTIONS,
    ConstraintReport,
    Constraints,
    describe,
    gold_segmentations,
)
from bpe_desktop.core.gold_match import gold_match, spelled_morphs
from bpe_desktop.core.knockout import knocked_out
from bpe_desktop.core.morfessor_source import (
    SegmenterProgress,
    kept_whole,
    morfessor_words,
    train_morfessor,
)


def morfessor_segmentation(corpus, config: TrainConfig, *, on_progress=None, cancel=None,
                           annotations: Sequence[tuple[str, ...]] | None = None,
                           ) -> dict[str, tuple[str, ...]]:
    """Morfessor trained on the corpus's word counts (as ``config`` cuts words),
    semi-supervised with ``config.morfessor_annotations`` when given (``annotations``:
    their segmentations, when already read); the most frequent
    words left whole as ``config.morfessor_keep_frequent`` and
    ``config.morfessor_keep_share`` say (:func:`kept_whole`)."""
    from bpe_desktop.core.counting import engine_count

    table = engine_count(corpus, config, cancel=cancel)
    words = morfessor_words(table.items())
    if annotations is None:
        annotations = gold_segmentations(config.morfessor_annotations)
    annotations = _spelled_gold(annotations, config)
    segmentation = train_morfessor(words, annotations, on_progress=on_progress, cancel=cancel)
    kept = kept_whole(words, config.morfessor_keep_frequent, config.morfessor_keep_share)
    for word, _ in words[:kept]:  # most frequent first
        segmentation[word] = (word,)
    return segmentation


def _spelled_gold(gold: Sequence[tuple[str, ...]],
                  config: TrainConfig) -> list[tuple[str, ...]]:
    """The gold segmentations ``gold`` spelled as ``config``'s model spells text."""
    spelled = (spelled_morphs(m, config.normalize, config.lowercase) for m in gold)
    return [m for m in spelled if m]


def train_constrained(
    corpus,
    config: TrainConfig,
    *,
    on_progress: Callable | None = None,
    cancel=None,
    on_segmenter: Callable[[SegmenterProgress], None] | None = None,
):
    """``training.train`` for a configuration with constraints (see the module notes)."""
    from bpe_desktop.core.training import train

    started = time.perf_counter()
    gold = {name: gold_segmentations(getattr(config, name)) for name in FILE_LIST_OPTIONS
            if getattr(config, name)}
    segmentations = list(gold.get("gold_boundaries", ()))
    segmenter_seconds = 0.0
    segmentation: dict[str, tuple[str, ...]] = {}
    if config.morfessor:
        started = time.perf_counter()
        segmentation = morfessor_segmentation(
            corpus, config, on_progress=on_segmenter, cancel=cancel,
            annotations=gold.get("morfessor_annotations", ()))
        segmenter_seconds = time.perf_counter() - started
        segmentations.extend(m for m in segmentation.values() if len(m) > 1)
    constraints = Constraints(tuple(segmentations), config.separator)

    def once(forbidden: tuple[tuple[str, str], ...]):
        return train(corpus, config, on_progress=on_progress, cancel=cancel,
                     constraints=dataclasses.replace(constraints, forbidden=forbidden))

    result = once(())
    knocked: list[tuple[str, str, int, int, int]] = []
    if config.knockout:
        judged = [("".join(m), m) for m in _spelled_gold(gold["knockout"], config)]
        forbidden: dict[tuple[str, str], None] = {}
        for round_number in range(1, config.knockout_rounds + 1):
            new = [v for v in knocked_out(result.model, judged)
                   if (v.left, v.right) not in forbidden]
            if not new:
                break
            for v in new:
                forbidden[(v.left, v.right)] = None
                knocked.append((v.left, v.right, v.crossings, v.respects, round_number))
            result = once(tuple(forbidden))
    cut = {"".join(m) for m in segmentations if len(m) > 1}  # one morph: no boundary
    report = ConstraintReport(describe(config), len(cut), tuple(knocked))
    model = result.model.with_provenance(constraints=report)
    timings = dict(result.timings)
    # The whole run, every knockout round included; Morfessor's time is reported apart.
    timings["total"] = time.perf_counter() - started - segmenter_seconds
    if config.morfessor:
        timings["segmenter"] = segmenter_seconds
    # Each gold option's files against the corpus the model was trained on (the last run).
    matched = tuple(gold_match(result, segmentations_of, name)
                    for name, segmentations_of in gold.items())
    return dataclasses.replace(result, model=model, timings=timings,
                               segmentation=segmentation, gold_matches=matched)
