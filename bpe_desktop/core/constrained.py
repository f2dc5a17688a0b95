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
import unicodedata
from dataclasses import dataclass
from typing import Callable, Sequence

from bpe_desktop.core.config import TrainConfig
from bpe_desktop.core.constraints import (
    ConstraintReport,
    Constraints,
    describe,
    gold_segmentations,
)
from bpe_desktop.core.knockout import knocked_out
from bpe_desktop.core.morfessor_source import (
    SegmenterProgress,
    kept_whole,
    morfessor_words,
    train_morfessor,
)


def morfessor_segmentation(corpus, config: TrainConfig, *, on_progress=None,
                           cancel=None) -> dict[str, tuple[str, ...]]:
    """Morfessor trained on the corpus's word counts (as ``config`` cuts words),
    semi-supervised with ``config.morfessor_annotations`` when given; the most frequent
    words left whole as ``config.morfessor_keep_frequent`` and
    ``config.morfessor_keep_share`` say (:func:`kept_whole`)."""
    from bpe_desktop.core.counting import engine_count

    table = engine_count(corpus, config, cancel=cancel)
    words = morfessor_words(table.items())
    annotations = _spelled_gold(config.morfessor_annotations, config)
    segmentation = train_morfessor(words, annotations, on_progress=on_progress, cancel=cancel)
    kept = kept_whole(words, config.morfessor_keep_frequent, config.morfessor_keep_share)
    for word, _ in words[:kept]:  # most frequent first
        segmentation[word] = (word,)
    return segmentation


@dataclass(frozen=True)
class GoldMatch:
    """How many of the corpus's distinct words the gold boundary files cut.

    The engine matches a word to the gold after normalization and lower-casing as the
    model's, without GPT-2's leading space; so are they counted here. A gold file spelled
    otherwise than the corpus (NFC against NFD, capitalized words) cuts fewer words or
    none, silently: these counts are how a user learns it. Words are compared as the
    pre-tokenizer cut them, so a form that would cut them otherwise (GPT-2's pattern cuts
    before a combining accent of NFD text) is not foreseen."""

    cut: int
    distinct: int
    #: Words the gold would also cut with NFC normalization (0 when the model has a form).
    more_with_nfc: int = 0
    #: Words the gold would also cut with lower-casing (0 when the model lower-cases).
    more_with_lowercase: int = 0

    def summary(self) -> str:
        """One line: the words cut, and those spelled otherwise."""
        line = (f"Gold boundaries cut {self.cut:,} of the corpus's {self.distinct:,} "
                "distinct words")
        more = [f"{n:,} with {how}" for n, how in ((self.more_with_nfc, "NFC normalization"),
                                                   (self.more_with_lowercase, "lower-casing"))
                if n]
        return line + (f" (more would match: {', '.join(more)})" if more else "")

    def warning(self) -> str | None:
        """A mismatch that is hardly meant: no word cut, or words apart only by the
        Unicode form (é as one character in one, e + accent in the other)."""
        if self.more_with_nfc:
            n = self.more_with_nfc
            words = f"{n:,} corpus word is" if n == 1 else f"{n:,} corpus words are"
            return (f"{words} in the gold files in another Unicode form (NFC against NFD) "
                    "and not cut; train with NFC normalization (--normalize nfc) to cut "
                    f"{'it' if n == 1 else 'them'}")
        if self.cut == 0:
            return "no word of the corpus is in the gold files: their boundaries cut nothing"
        return None


def gold_match(result, gold: Sequence[tuple[str, ...]]) -> GoldMatch:
    """The corpus words of ``result`` (a training run) that the segmentations ``gold``
    cut. The training words are normalized and lower-cased as the model's already."""
    from bpe_desktop.core.pieces import surface_text

    config = result.model.config
    words = result.words()
    if config.byte_level:  # GPT-2's byte characters back to text
        words = [surface_text(w, config) for w in words]
    words = [w.lstrip() for w in words]  # GPT-2's leading space is not the gold's
    as_trained = _cut_words(gold, config.normalize, config.lowercase)
    cut = sum(w in as_trained for w in words)
    more_nfc = more_lower = 0
    if config.normalize == "none":
        as_nfc = _cut_words(gold, "nfc", config.lowercase)
        more_nfc = max(0, sum(_nfc(w) in as_nfc for w in words) - cut)
    if not config.lowercase:
        as_lower = _cut_words(gold, config.normalize, True)
        more_lower = max(0, sum(w.lower() in as_lower for w in words) - cut)
    return GoldMatch(cut, len(words), more_nfc, more_lower)


def _nfc(text: str) -> str:
    return text if unicodedata.is_normalized("NFC", text) else \
        unicodedata.normalize("NFC", text)


def _cut_words(gold, form: str, lowercase: bool) -> set[str]:
    """The gold words with a boundary, spelled as :func:`spelled_morphs` spells them."""
    out = set()
    for morphs in gold:
        parts = spelled_morphs(morphs, form, lowercase)
        if len(parts) > 1:
            out.add("".join(parts))
    return out


def spelled_morphs(morphs: Sequence[str], form: str, lowercase: bool) -> tuple[str, ...]:
    """Each morph spelled as the engine spells text (Unicode form, then lower case),
    empty ones dropped: a gold file matches the corpus words as the model spells them,
    whatever form or case the file is in."""
    if form != "none":
        morphs = [unicodedata.normalize(form.upper(), m) for m in morphs]
    return tuple(m for m in (m.lower() if lowercase else m for m in morphs) if m)


def _spelled_gold(paths: Sequence[str], config: TrainConfig) -> list[tuple[str, ...]]:
    """The segmentations of the gold files ``paths``, spelled as ``config``'s model."""
    spelled = (spelled_morphs(m, config.normalize, config.lowercase)
               for m in gold_segmentations(paths))
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
    gold_cuts = gold_segmentations(config.gold_boundaries)
    segmentations = list(gold_cuts)
    segmenter_seconds = 0.0
    segmentation: dict[str, tuple[str, ...]] = {}
    if config.morfessor:
        started = time.perf_counter()
        segmentation = morfessor_segmentation(corpus, config, on_progress=on_segmenter,
                                              cancel=cancel)
        segmenter_seconds = time.perf_counter() - started
        segmentations.extend(m for m in segmentation.values() if len(m) > 1)
    constraints = Constraints(tuple(segmentations), config.separator)

    def once(forbidden: tuple[tuple[str, str], ...]):
        return train(corpus, config, on_progress=on_progress, cancel=cancel,
                     constraints=dataclasses.replace(constraints, forbidden=forbidden))

    result = once(())
    knocked: list[tuple[str, str, int, int, int]] = []
    if config.knockout:
        gold = [("".join(m), m) for m in _spelled_gold(config.knockout, config)]
        forbidden: dict[tuple[str, str], None] = {}
        for round_number in range(1, config.knockout_rounds + 1):
            new = [v for v in knocked_out(result.model, gold)
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
    matched = gold_match(result, gold_cuts) if config.gold_boundaries else None
    return dataclasses.replace(result, model=model, timings=timings,
                               segmentation=segmentation, gold_match=matched)
