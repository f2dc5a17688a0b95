"""The work a Training run hands to its worker thread, Qt-free: the memory estimate
first, then the training itself with its progress batched for the GUI."""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass

from bpe_desktop.core import Corpus, CorpusError, Progress, TrainConfig, train
from bpe_desktop.core.memory import MemoryEstimate, estimate_training_memory
from bpe_desktop.core.multilingual import train_multilingual
from bpe_desktop.core.project.recording import training_side_inputs
from bpe_desktop.core.training import REPLACEABLE_REASONS

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class TrainingUpdate:
    """What reaches the GUI from a running training: the latest snapshot and every merge
    count since the previous update (progress is throttled, counts are not dropped)."""

    progress: Progress
    new_counts: tuple[int, ...]


@dataclass(frozen=True)
class MemoryChecked:
    """The first job of a run: the memory estimate (None if it could not be made)."""

    estimate: MemoryEstimate | None



def memory_job(paths: list[str], config: TrainConfig, word_counts: bool = False):
    """The estimate runs in the worker: it reads a few MB of a corpus that may be on a
    slow disk. Its failure (a bug) must not stop training, so it is logged instead."""

    def job(report, cancel) -> MemoryChecked:
        try:
            if word_counts:
                return MemoryChecked(estimate_training_memory(paths, config, word_counts=True))
            return MemoryChecked(estimate_training_memory(paths, config))
        except Exception:
            log.exception("could not estimate the memory training needs")
            return MemoryChecked(None)

    return job


def replaceable(exc: BaseException, config: TrainConfig) -> bool:
    """Invalid UTF-8 (or a stray NUL) in the corpus, which replacement characters get
    past; a binary file, a missing one and the like are refused outright, and so is a
    file ``config`` reads besides the corpus (gold, annotations, knockout gold, parity
    development texts): replacement applies to the corpus only, so a second run would
    stop at the same byte."""
    if not (isinstance(exc, CorpusError)
            and getattr(exc, "reason", None) in REPLACEABLE_REASONS):
        return False
    option_files = {os.path.abspath(p) for _, p in training_side_inputs(config)}
    return exc.path is None or os.path.abspath(exc.path) not in option_files


def training_job(corpus: Corpus, config: TrainConfig):
    """The function the worker runs: train, batching merge counts between GUI updates."""

    def job(report, cancel):
        pending: list[int] = []
        last: list[Progress] = []

        def on_progress(p: Progress) -> None:
            pending.extend(p.new_counts)
            last[:] = [p]
            if report(TrainingUpdate(p, tuple(pending))):
                pending.clear()

        if config.lang:  # the files' languages say what to read
            result = train_multilingual(config, on_progress=on_progress, cancel=cancel,
                                        word_counts=corpus.file_format == "word-counts",
                                        errors=corpus.errors)
        else:
            # Morfessor's progress goes to the same bar, when it runs first.
            segmenter = {"on_segmenter": report} if config.morfessor else {}
            result = train(corpus, config, on_progress=on_progress, cancel=cancel, **segmenter)
        result.model.piece_ids  # computed here, not on the GUI thread when it takes over
        if last and pending:
            report(TrainingUpdate(last[0], tuple(pending)), force=True)
        return result

    return job
