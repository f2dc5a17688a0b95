"""Recount: fill in merge counts by replaying a model's merges over a corpus.

Imported models have no counts (no interchange format stores them). Replaying the
merges, in order, over the word-frequency table of a corpus gives each merge the
count its pair has at that point, exactly as training counts it: every adjacent
position, weighted by the word's frequency (``a a a`` holds ``(a, a)`` twice), then
the merge applied left to right without overlap. A merge whose token already existed
re-encodes the words it touched, as the trainer does. On the model's own training
corpus, recounting gives back the trained counts.

The words are counted by the engine (a training run with no merges, so the text is
normalized and split exactly as the model's configuration says); the replay is Python
over distinct words with a pair -> words index, so its cost grows with the number of
distinct words and the merges that touch them, not with the corpus size.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Callable

from bpe_desktop.core.errors import TrainingCancelled
from bpe_desktop.core.model import BPEModel, Merge
from bpe_desktop.core.training import CancelToken, Corpus, Progress, train

#: Symbol id of a character the model's alphabet lacks: no rule ever matches it.
_NO_SYMBOL = -1
#: Seconds between progress reports.
_REPORT_EVERY = 0.05


def recount(
    model: BPEModel,
    corpus: Corpus,
    *,
    progress: Callable[[Progress], None] | None = None,
    cancel: CancelToken | None = None,
) -> BPEModel:
    """The same model with every merge's count replayed on ``corpus``.

    ``progress`` receives :class:`Progress` reports as training does (reading and
    counting from the engine, then ``merging`` with ``merges_done`` of
    ``merges_target``); ``cancel.cancel()`` stops the run with
    :class:`TrainingCancelled`. The result's ``corpus`` and ``words`` describe the
    corpus counted; the rest of the model is unchanged.
    """
    counting = model.config.replace(vocab_size=None, merges=0, character_coverage=1.0,
                                    initial_alphabet="")
    started = time.perf_counter()
    counted = train(corpus, counting, on_progress=_counting_only(progress), cancel=cancel)
    table = counted.word_segmentations()
    counts = _replay(model, [(s.pieces, s.count) for s in table], progress, cancel,
                     started, len(table))
    merges = tuple(Merge(m.left, m.right, c) for m, c in zip(model.merges, counts))
    if progress is not None:
        progress(_report("done", len(merges), len(merges), None, None, started,
                         len(table), ()))
    corpus_info = dataclasses.replace(
        counted.model.corpus, unknown_characters=_unknown_characters(model, table),
        approximations=model.approximations)  # counts do not change how it encodes
    return BPEModel(config=model.config, alphabet=model.alphabet, merges=merges,
                    corpus=corpus_info, words=counted.model.words,
                    description=model.description, ids=model.ids)


def _unknown_characters(model: BPEModel, table: list) -> int:
    """Character occurrences outside the model's alphabet (markers are not characters)."""
    alphabet = set(model.alphabet)
    boundary = model.config.boundary
    unknown = 0
    for seg in table:
        symbols = seg.pieces
        if boundary == "eow-symbol":
            symbols = symbols[:-1]
        elif boundary == "bow-prefix":
            symbols = symbols[1:]
        unknown += seg.count * sum(1 for s in symbols if s not in alphabet)
    return unknown


def _counting_only(progress: Callable[[Progress], None] | None
                   ) -> Callable[[Progress], None] | None:
    """The engine's reading and counting reports; its (empty) merging stage is ours."""
    if progress is None:
        return None

    def forward(report: Progress) -> None:
        if report.stage in ("reading", "counting"):
            progress(report)

    return forward


def _replay(model: BPEModel, words: list[tuple[tuple[str, ...], int]],
            progress: Callable[[Progress], None] | None, cancel: CancelToken | None,
            started: float, distinct: int) -> list[int]:
    ids: dict[str, int] = {s: i for i, s in enumerate(model.alphabet)}
    for m in model.merges:
        ids.setdefault(m.result, len(ids))
    seqs = [[ids.get(p, _NO_SYMBOL) for p in pieces] for pieces, _ in words]
    freqs = [count for _, count in words]
    # pair -> words that had it at some point: entries go stale (checked when used),
    # which costs less than keeping the index exact after every merge.
    index: dict[tuple[int, int], set[int]] = {}
    for w, seq in enumerate(seqs):
        for pair in zip(seq, seq[1:]):
            index.setdefault(pair, set()).add(w)

    defined = set(model.alphabet)
    rules: dict[tuple[int, int], tuple[int, int]] = {}  # pair -> (rank, result)
    counts: list[int] = []
    total = len(model.merges)
    last_report = time.perf_counter()
    fresh: list[int] = []
    for rank, m in enumerate(model.merges):
        if cancel is not None and rank % 64 == 0 and cancel.cancelled:
            raise TrainingCancelled("recounting was cancelled")
        a, b, c = ids[m.left], ids[m.right], ids[m.result]
        rules.setdefault((a, b), (rank, c))
        existed = m.result in defined
        count = 0
        for w in index.pop((a, b), ()):
            seq = seqs[w]
            new = _merge_pair(seq, a, b, c)
            merged = len(seq) - len(new)
            if not merged:
                continue  # a stale entry
            # Windows overlap only in runs of one symbol: "a a a" holds (a, a) twice.
            windows = merged if a != b else sum(
                1 for x, y in zip(seq, seq[1:]) if x == a and y == a)
            count += freqs[w] * windows
            if existed:  # the token existed: re-encode, as the trainer does
                new = _encode(new, rules)
                pairs = zip(new, new[1:])
            else:  # only pairs next to the new token are new
                pairs = ((x, y) for x, y in zip(new, new[1:]) if x == c or y == c)
            for pair in pairs:
                index.setdefault(pair, set()).add(w)
            seqs[w] = new
        defined.add(m.result)
        counts.append(count)
        fresh.append(count)
        if progress is not None and time.perf_counter() - last_report >= _REPORT_EVERY:
            last_report = time.perf_counter()
            progress(_report("merging", rank + 1, total, (m.left, m.right), count, started,
                             distinct, tuple(fresh)))
            fresh = []
    return counts


def _merge_pair(seq: list[int], a: int, b: int, c: int) -> list[int]:
    """Every (a, b) in ``seq`` becomes c, left to right, without overlap."""
    out: list[int] = []
    i, n = 0, len(seq)
    while i < n:
        if i + 1 < n and seq[i] == a and seq[i + 1] == b:
            out.append(c)
            i += 2
        else:
            out.append(seq[i])
            i += 1
    return out


def _encode(seq: list[int], rules: dict[tuple[int, int], tuple[int, int]]) -> list[int]:
    """BPE Desktop's encoding: the lowest-ranked pair, everywhere, until none is left."""
    while True:
        best = None
        for pair in zip(seq, seq[1:]):
            found = rules.get(pair)
            if found is not None and (best is None or found[0] < best[0]):
                best = (found[0], pair, found[1])
        if best is None:
            return seq
        _, (a, b), c = best
        seq = _merge_pair(seq, a, b, c)


def _report(stage: str, done: int, total: int, pair: tuple[str, str] | None,
            count: int | None, started: float, words: int, new_counts: tuple[int, ...]
            ) -> Progress:
    return Progress(stage=stage, bytes_done=0, bytes_total=0, words=words,
                    merges_done=done, merges_target=total, pair=pair, count=count,
                    elapsed=time.perf_counter() - started, new_counts=new_counts)
