"""Morfessor 2.0 Baseline (Creutz & Lagus 2007; Virpioja et al. 2013) as a source of
boundaries inside words, trained on a corpus's word counts.

Rules:

* the words are the corpus's words as the pre-tokenizer makes them, without GPT-2's
  leading space; only words of letters (``str.isalpha``, each letter with its combining
  marks, as NFD text writes é) are segmented (numbers and punctuation keep no
  boundaries), and a morph never starts with a combining mark (it stays with its
  letter);
* Morfessor is trained on the :data:`MAX_WORDS` most frequent of them, and the trained
  model then segments every word (Viterbi search over its morph lexicon, as Morfessor
  segments new words), at most :data:`MAX_SEGMENTED` of them: the rarer words are most of
  a corpus's word types, and a merge BPE learns from an uncut word crosses the
  boundaries of every other word it applies to;
* the most frequent words can be left whole (:func:`kept_whole`), by a share of the
  running words rather than a count: function words are what every sentence repeats,
  and the number of word types that make up a given share of a text differs from
  language to language (65 % of the running words of the wordfreq lists: about 360
  word types in French, 560 in English, 1,000 in Hungarian, 2,200 in Czech);
* every word counts once (Morfessor's "ones" dampening, training on word types): token
  counts, even log-dampened ones, make it keep nearly every word whole on a large
  corpus, while types give the morph segmentation Creutz & Lagus found best;
* semi-supervised: gold annotations (any gold format) are given to Morfessor as
  annotated data (``set_annotations``), the annotated corpus weight tuned by Morfessor;
* training is Morfessor's batch training (recursive splitting) with a fixed random seed,
  so the same words give the same segmentation; training and segmenting report progress
  and stop when cancelled, every few hundred (training) or thousand (segmenting) words.
"""

from __future__ import annotations

import random
import time
import unicodedata
from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

from bpe_desktop.core.errors import BpeError, TrainingCancelled

#: The most word types Morfessor is trained on (the most frequent ones): its pure-Python
#: training takes about a second per 5,000 types and epoch.
MAX_WORDS = 100_000
#: The most word types the trained model segments (the most frequent ones): Viterbi
#: segmentation takes about a quarter of a millisecond per word.
MAX_SEGMENTED = 1_000_000
#: Morfessor's stopping rule: stop when an epoch improves the cost by less than this
#: share of the boundaries, or after this many epochs.
FINISH_THRESHOLD = 0.005
MAX_EPOCHS = 8
SEED = 20250101


class SegmenterError(BpeError):
    """Morfessor failed; nothing was changed."""


@dataclass(frozen=True)
class SegmenterProgress:
    #: Training epoch (1, 2, ...); 0 while the trained model segments the words.
    epoch: int
    words_done: int
    words_total: int
    elapsed: float

    @property
    def stage(self) -> str:
        """What Morfessor is doing, in words: "epoch 2" or "segmenting"."""
        return f"epoch {self.epoch}" if self.epoch else "segmenting"

    @property
    def fraction(self) -> float:
        return min(1.0, self.words_done / self.words_total) if self.words_total else 1.0


def morfessor_words(word_counts: Iterable[tuple[str, int]]) -> list[tuple[str, int]]:
    """The words Morfessor segments: letters only, leading space dropped, counts summed,
    most frequent first (ties in first-seen order), at most :data:`MAX_SEGMENTED`."""
    summed: dict[str, int] = {}
    for word, count in word_counts:
        core = word.lstrip()
        if core.isalpha() or _is_letters(core):  # the first test is the fast common case
            summed[core] = summed.get(core, 0) + count
    ranked = sorted(summed.items(), key=lambda item: -item[1])
    return ranked[:MAX_SEGMENTED]


def _is_letters(word: str) -> bool:
    """Letters, each with any combining marks after it (NFD's e + U+0301)."""
    return word[:1].isalpha() and all(c.isalpha() or unicodedata.category(c)[0] == "M"
                                      for c in word)


def _whole_characters(morphs: Sequence[str]) -> tuple[str, ...]:
    """``morphs`` with every morph that starts with a combining mark joined to the one
    before: a boundary between a letter and its accent would cut a character."""
    out: list[str] = []
    for morph in morphs:
        if out and unicodedata.category(morph[0])[0] == "M":
            out[-1] += morph
        else:
            out.append(morph)
    return tuple(out)


def kept_whole(words: Sequence[tuple[str, int]], keep_frequent: int, share: float) -> int:
    """How many of ``words`` (most frequent first) are left whole: the ``keep_frequent``
    most frequent, or the fewest most frequent that together make up ``share`` of all
    their running words, whichever are more (0 and 0.0: none)."""
    covering = 0
    if share > 0:
        needed = share * sum(count for _, count in words)
        running = 0
        for covering, (_, count) in enumerate(words, 1):
            running += count
            if running >= needed:
                break
    return min(len(words), max(keep_frequent, covering))


def train_morfessor(
    words: Sequence[tuple[str, int]],
    annotations: Sequence[tuple[str, ...]] = (),
    *,
    on_progress: Callable[[SegmenterProgress], None] | None = None,
    cancel=None,
) -> dict[str, tuple[str, ...]]:
    """Each word's Morfessor segmentation (words left whole included), the model trained
    on the first :data:`MAX_WORDS` of ``words`` (most frequent first)."""
    try:
        import morfessor
    except ImportError as exc:  # a broken installation, not a user error to fix here
        raise SegmenterError(f"Morfessor is not installed: {exc}") from None
    started = time.perf_counter()
    model = morfessor.BaselineModel()
    try:
        model.load_data([(1, w) for w, _ in words[:MAX_WORDS]])
        if annotations:
            model.set_annotations({"".join(a): [tuple(a)] for a in annotations})
        _batch_train(model, on_progress, cancel, started)
        return _segment(model, [w for w, _ in words], on_progress, cancel, started)
    except TrainingCancelled:
        raise
    except Exception as exc:  # Morfessor's own failures, whatever their type
        raise SegmenterError(f"Morfessor failed: {type(exc).__name__}: {exc}") from None


def _segment(model, words: list[str], on_progress, cancel,
             started: float) -> dict[str, tuple[str, ...]]:
    """Each word's Viterbi segmentation by the trained model, with progress and cancel."""
    out: dict[str, tuple[str, ...]] = {}
    for i, word in enumerate(words):
        if i % 5000 == 0:
            _check_in(on_progress, cancel, SegmenterProgress(0, i, len(words),
                                                             time.perf_counter() - started))
        out[word] = _whole_characters(model.viterbi_segment(word)[0])
    return out


def _check_in(on_progress, cancel, progress: SegmenterProgress) -> None:
    if on_progress is not None:
        on_progress(progress)
    if cancel is not None and cancel.cancelled:
        raise TrainingCancelled("Morfessor was cancelled; nothing was changed")


def _batch_train(model, on_progress, cancel, started: float) -> None:
    """Morfessor's ``train_batch`` with a seeded shuffle, progress and cancellation."""
    rng = random.Random(SEED)
    compounds = sorted(model.get_compounds())
    forced = max(1, model._epoch_update(0))
    cost = model.get_cost()
    for epoch in range(1, MAX_EPOCHS + 1):
        rng.shuffle(compounds)
        for i, word in enumerate(compounds):
            if i % 500 == 0:
                _check_in(on_progress, cancel, SegmenterProgress(
                    epoch, i, len(compounds), time.perf_counter() - started))
            model._recursive_optimize(word)
        forced = max(forced, model._epoch_update(epoch))
        old, cost = cost, model.get_cost()
        if forced == 0 and cost >= old - FINISH_THRESHOLD * model._corpus_coding.boundaries:
            break
        forced = max(0, forced - 1)
