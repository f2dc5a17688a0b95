"""Morpheme-boundary scores of a tokenizer against gold segmentations.

Definitions (the help page states the same; tests pin them by hand-computed cases):

* Each gold word is encoded alone (see :mod:`.segments` for the predicted boundaries).
  If the model's normalization changes the word's length in code points, the word is
  skipped (``skipped_normalization``); gold entries whose morphs do not spell the word
  were already left out by the parser (``skipped_not_surface``).
* Per word, with several gold analyses, the analysis with the most hits is used (ties:
  the one with fewer gold boundaries, then the first). hits = predicted ∩ gold.
* **precision** = Σ hits / Σ predicted, **recall** = Σ hits / Σ gold, **F1** = their
  harmonic mean; micro-averaged over the evaluated words, 0 when undefined.
* **MorphScore** (Arnett & Bergen 2024) = mean of hits / gold boundaries over the words
  the tokenizer splits into ≥ 2 pieces; a split word without a gold boundary scores 0
  (as in MorphScore's own code: it was split where the gold has no cut); 0 if none.
* **exact** = share of evaluated words whose predicted boundaries equal the gold ones.
* **unsplit** = evaluated words the tokenizer keeps in one piece.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from bpe_desktop.core.evaluation.gold import GoldSet, GoldWord
from bpe_desktop.core.evaluation.segments import Segmentation, Segmenter
from bpe_desktop.core.model import BPEModel


class BoundaryScores:
    """Boundary precision, recall and F1 from micro-averaged counts: **precision** = Σ hits
    / Σ predicted, **recall** = Σ hits / Σ gold, **F1** their harmonic mean, each 0 when
    undefined. The morphology results and the comparison's pair summaries (B's cuts
    against A's) share these definitions."""

    hits: int
    predicted: int
    gold: int

    @property
    def precision(self) -> float:
        return self.hits / self.predicted if self.predicted else 0.0

    @property
    def recall(self) -> float:
        return self.hits / self.gold if self.gold else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0


@dataclass(frozen=True)
class WordResult:
    """One gold word: gold (chosen analysis) against predicted boundaries."""

    word: str
    line: int
    gold_morphs: tuple[str, ...]
    pieces: tuple[str, ...]
    gold: frozenset[int]
    predicted: frozenset[int]
    #: predicted boundaries inside a character (byte-level): spurious, never hits.
    inside: int
    #: False when the normalization changed the word's length (not scored).
    evaluated: bool = True

    @functools.cached_property
    def hits(self) -> frozenset[int]:
        return self.gold & self.predicted

    @property
    def missed(self) -> frozenset[int]:
        return self.gold - self.predicted

    @property
    def spurious(self) -> frozenset[int]:
        return self.predicted - self.gold

    @property
    def exact(self) -> bool:
        return self.evaluated and self.inside == 0 and self.gold == self.predicted


@dataclass(frozen=True)
class MorphologyResult(BoundaryScores):
    """Scores of one tokenizer on one gold set (see the module docstring)."""

    name: str
    words: int
    evaluated: int
    skipped_not_surface: int
    skipped_normalization: int
    unsplit: int
    hits: int
    predicted: int
    gold: int
    morphscore: float
    exact: float
    details: tuple[WordResult, ...] = ()

    @property
    def skipped(self) -> int:
        return self.skipped_not_surface + self.skipped_normalization

    def summary(self) -> dict:
        """The JSON section of the command line (``morphology.<name>``)."""
        return {"words": self.words, "evaluated": self.evaluated, "skipped": self.skipped,
                "unsplit": self.unsplit, "precision": self.precision,
                "recall": self.recall, "f1": self.f1, "morphscore": self.morphscore,
                "exact": self.exact}


def choose_analysis(word: GoldWord, predicted: frozenset[int]) -> int:
    """Index of the analysis with the most hits (ties: fewer gold boundaries, first)."""
    best, best_key = 0, None
    for i, gold in enumerate(word.all_boundaries):
        key = (-len(gold & predicted), len(gold))
        if best_key is None or key < best_key:
            best, best_key = i, key
    return best


def score_word(word: GoldWord, seg: Segmentation) -> WordResult:
    if seg.length != len(word.word):
        return WordResult(word.word, word.line, word.analyses[0], seg.pieces,
                          word.boundaries(0), seg.boundaries, seg.inside, evaluated=False)
    chosen = choose_analysis(word, seg.boundaries)
    pieces = seg.pieces
    if not seg.inside:  # the word's own characters (an unknown token shows its character)
        cuts = [0, *sorted(seg.boundaries), len(word.word)]
        pieces = tuple(word.word[a:b] for a, b in itertools.pairwise(cuts))
    return WordResult(word.word, word.line, word.analyses[chosen], pieces,
                      word.boundaries(chosen), seg.boundaries, seg.inside)


def evaluate_morphology(model: BPEModel, gold: GoldSet, *, details: bool = True,
                        cache: dict | None = None, segmenter: Segmenter | None = None
                        ) -> MorphologyResult:
    """Score ``model`` on ``gold``; ``details`` keeps the per-word results.

    ``cache`` (a dict kept across calls) reuses the result of a word whose ids did not
    change, and ``segmenter`` one made for a larger model; both only for models whose
    ids mean the same pieces (truncations of one model).
    """
    ids, lengths = model.tokenizer().encode_batch_flat([w.word for w in gold.words])
    ends = np.cumsum(lengths).tolist()
    flat = ids.tolist()
    segmenter = segmenter or Segmenter(model)
    results, start = [], 0
    for n, (word, end) in enumerate(zip(gold.words, ends)):
        word_ids = tuple(flat[start:end])
        start = end
        key = (n, word_ids)
        found = cache.get(key) if cache is not None else None
        if found is None:
            found = score_word(word, segmenter.segment(word_ids, pieces=False,
                                                            word=word.word))
            if cache is not None:
                cache[key] = found
        results.append(found)
    return summarize(gold, results, details)


def summarize(gold: GoldSet, results: Sequence[WordResult], details: bool) -> MorphologyResult:
    scored = [r for r in results if r.evaluated]
    hits = predicted = gold_total = unsplit = exact = 0
    ratios = []
    for r in scored:
        h, n_pred, n_gold = len(r.hits), len(r.predicted) + r.inside, len(r.gold)
        hits += h
        predicted += n_pred
        gold_total += n_gold
        if n_pred == 0:
            unsplit += 1
            exact += n_gold == 0
        else:
            exact += h == n_pred == n_gold
            ratios.append(h / n_gold if n_gold else 0.0)
    return MorphologyResult(
        name=gold.name, words=gold.total, evaluated=len(scored),
        skipped_not_surface=gold.not_surface,
        skipped_normalization=len(results) - len(scored), unsplit=unsplit, hits=hits,
        predicted=predicted, gold=gold_total,
        morphscore=sum(ratios) / len(ratios) if ratios else 0.0,
        exact=exact / len(scored) if scored else 0.0,
        details=tuple(results) if details else ())
