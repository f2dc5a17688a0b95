"""Judge a tokenizer as a linguist: morphology, text statistics, parity, vocabulary size.

Qt-free; the command line (``bpe-desktop evaluate``) and the Evaluate panel both call
:func:`evaluate`. Any model the application opens works, imported ones included (the
format importers produce a :class:`BPEModel`)::

    from bpe_desktop.core.evaluation import EvaluationRequest, evaluate, read_gold

    report = evaluate(model, EvaluationRequest(gold=[read_gold("eng.word.dev.tsv")],
                                               text_files=["held_out.txt"], sweep=20))
    report.morphology["eng.word.dev.tsv"].f1
    report.to_json()

Each metric's definition is in the docstring of its module: :mod:`.morphology`,
:mod:`.text_stats`, :mod:`.parity`, :mod:`.sweep`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from bpe_desktop.core.errors import TrainingCancelled
from bpe_desktop.core.evaluation.coverage import (
    CHARACTER_MAPS,
    GoldReport,
    TrainingCharacters,
    gold_report,
    map_gold,
    parse_character_map,
)
from bpe_desktop.core.evaluation.gold import (
    GOLD_FORMATS,
    GoldSet,
    GoldWord,
    detect_gold_format,
    parse_gold,
    read_gold,
)
from bpe_desktop.core.evaluation.morphology import (
    MorphologyResult,
    WordResult,
    evaluate_morphology,
)
from bpe_desktop.core.evaluation.parity import (
    PARITY_MODES,
    ParallelTexts,
    ParityResult,
    evaluate_parity,
)
from bpe_desktop.core.evaluation.segments import Segmentation, Segmenter
from bpe_desktop.core.evaluation.sweep import (
    DEFAULT_SWEEP_POINTS,
    SweepPoint,
    run_sweep,
    sweep_merge_counts,
)
from bpe_desktop.core.evaluation.text_stats import (
    RENYI_ALPHA,
    TextSample,
    TextStats,
    evaluate_text,
    renyi_efficiency,
)
from bpe_desktop.core.model import BPEModel


@dataclass
class EvaluationRequest:
    """What to evaluate. Texts: files and/or pasted strings (read line by line)."""

    gold: Sequence[GoldSet] = ()
    text_files: Sequence[str | os.PathLike] = ()
    texts: Sequence[str] = ()
    parallel_files: Sequence[str | os.PathLike] = ()
    reference: str | os.PathLike | None = None
    parity_mode: str = "document"
    #: number of vocabulary sizes to sweep; 0: none.
    sweep: int = 0
    #: gold spelling -> training spelling, applied to every gold file (see .coverage).
    character_map: dict[str, str] = field(default_factory=dict)

    @property
    def has_text(self) -> bool:
        return bool(self.text_files or self.texts)


@dataclass
class EvaluationReport:
    vocab_size: int
    merges: int
    morphology: dict[str, MorphologyResult] = field(default_factory=dict)
    #: every gold file's coverage report, by name.
    gold: dict[str, GoldReport] = field(default_factory=dict)
    #: all texts together (the sweep's text), and each text alone when there are several.
    text: TextStats | None = None
    texts: dict[str, TextStats] = field(default_factory=dict)
    parity: ParityResult | None = None
    sweep: list[SweepPoint] = field(default_factory=list)
    #: The evaluated model's :attr:`~bpe_desktop.core.model.BPEModel.approximations`:
    #: when any, the figures describe this approximation of an imported tokenizer, not
    #: the tokenizer itself.
    approximations: tuple[str, ...] = ()

    def to_json(self) -> dict:
        """The command line's ``--json`` object; sections present when asked for."""
        out = {"approximations": list(self.approximations),
               **_sections(self.morphology, self.text, self.parity)}
        if self.gold:
            out["gold"] = {name: g.summary() for name, g in self.gold.items()}
        if len(self.texts) > 1:
            out["texts"] = {name: t.summary() for name, t in self.texts.items()}
        if self.sweep:
            out["sweep"] = [{"vocab_size": p.vocab_size, "merges": p.merges,
                             **_sections(p.morphology, p.text, p.parity)}
                            for p in self.sweep]
        return out


def _sections(morphology, text, parity) -> dict:
    out: dict = {}
    if morphology:
        out["morphology"] = {name: r.summary() for name, r in morphology.items()}
    if text is not None:
        out["text"] = text.summary()
    if parity is not None:
        out["parity"] = parity.summary()
        out["parity_unknown_rate"] = parity.unknown_summary()
    return out


def evaluate(model: BPEModel, request: EvaluationRequest, *,
             progress: Callable[[str, int, int], None] | None = None,
             cancelled: Callable[[], bool] | None = None,
             on_point: Callable[[int, SweepPoint], None] | None = None) -> EvaluationReport:
    """Run everything ``request`` asks for. ``progress(stage, done, total)`` reports."""
    def step(stage: str, done: int, total: int) -> None:
        if cancelled is not None and cancelled():
            raise TrainingCancelled("evaluation cancelled")
        if progress is not None:
            progress(stage, done, total)

    names = [g.name for g in request.gold]
    if len(set(names)) != len(names):
        from bpe_desktop.core.errors import ConfigError

        raise ConfigError("gold files must have distinct file names (they label the results)")
    gold = [map_gold(g, request.character_map) for g in request.gold]
    step("reading texts", 0, 1)
    sample, samples = None, {}
    if request.has_text:
        samples = _text_samples(model, request, cancelled)
        sample = TextSample.merged(list(samples.values()))
    parallel = None
    if request.parallel_files:
        if request.reference is None:
            from bpe_desktop.core.errors import ConfigError

            raise ConfigError("parity needs a reference language file")
        parallel = ParallelTexts.from_files(request.parallel_files, request.reference)
    report = EvaluationReport(vocab_size=model.vocab_size, merges=model.merge_count,
                              approximations=model.approximations)
    if gold:
        characters = TrainingCharacters(model)
        report.gold = {g.name: gold_report(model, g, characters, request.character_map)
                       for g in gold}
    if len(samples) > 1:
        report.texts = {name: s.stats(model) for name, s in samples.items()}
    if request.sweep:
        counts = sweep_merge_counts(model, request.sweep)

        def point(i: int, p: SweepPoint) -> None:
            step("vocabulary sizes", i + 1, len(counts))
            if on_point is not None:
                on_point(i, p)

        report.sweep = run_sweep(model, counts, gold=gold, text=sample,
                                 parallel=parallel, parity_mode=request.parity_mode,
                                 details=True, on_point=point, cancelled=cancelled)
        full = report.sweep[-1]  # the sweep ends at the whole model
        report.morphology, report.text, report.parity = full.morphology, full.text, full.parity
        return report
    step("scoring the model", 0, 1)
    report.morphology = {g.name: evaluate_morphology(model, g) for g in gold}
    report.text = sample.stats(model) if sample is not None else None
    report.parity = evaluate_parity(model, parallel, request.parity_mode) if parallel else None
    return report


#: The column of pasted text in the per-text statistics.
PASTED_TEXT = "pasted text"


def _text_samples(model: BPEModel, request: EvaluationRequest, cancelled
                  ) -> dict[str, TextSample]:
    """Each text file (by the shortest tail of its path that tells it from the others,
    see :mod:`~bpe_desktop.core.file_labels`) and the pasted text."""
    from bpe_desktop.core.evaluation.text_stats import _read_lines, text_lines
    from bpe_desktop.core.file_labels import distinguishing_labels

    out = {}
    for path, name in zip(request.text_files, distinguishing_labels(request.text_files)):
        out[name] = TextSample.from_lines(model, _read_lines([path]), cancelled)
    pasted = [ln for t in request.texts if t for ln in text_lines(t)]
    if pasted:
        out[PASTED_TEXT] = TextSample.from_lines(model, pasted, cancelled)
    return out


__all__ = [
    "CHARACTER_MAPS",
    "PASTED_TEXT",
    "GoldReport",
    "gold_report",
    "map_gold",
    "parse_character_map",
    "DEFAULT_SWEEP_POINTS",
    "GOLD_FORMATS",
    "PARITY_MODES",
    "RENYI_ALPHA",
    "EvaluationReport",
    "EvaluationRequest",
    "GoldSet",
    "GoldWord",
    "MorphologyResult",
    "ParallelTexts",
    "ParityResult",
    "Segmentation",
    "Segmenter",
    "SweepPoint",
    "TextSample",
    "TextStats",
    "WordResult",
    "detect_gold_format",
    "evaluate",
    "evaluate_morphology",
    "evaluate_parity",
    "evaluate_text",
    "parse_gold",
    "read_gold",
    "renyi_efficiency",
    "run_sweep",
    "sweep_merge_counts",
]
