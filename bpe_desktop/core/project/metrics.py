"""Every number a run produced, as :class:`Metric` rows the project can query.

The row names are the keys of the command line's ``--json`` output (``f1``,
``fertility``, ``agreement_f1``, ...), so a query and a script reading ``--json`` use
the same words; ``source`` says which gold file, text, model or pair a value is about.
"""

from __future__ import annotations

import math
from typing import Iterator

from bpe_desktop.core.project.records import Metric


def evaluation_metrics(report) -> list[Metric]:
    """An :class:`~bpe_desktop.core.evaluation.EvaluationReport`'s values: the full
    model's, then each sweep point's (``vocab_size`` set)."""
    data = report.to_json()
    rows = [Metric("vocab_size", report.vocab_size), Metric("merges", report.merges)]
    rows += _sections(data, None)
    for point in data.get("sweep", ()):
        size = int(point["vocab_size"])
        rows.append(Metric("merges", point["merges"], "", size))
        rows += _sections(point, size)
    return rows


def _sections(data: dict, vocab_size: int | None) -> Iterator[Metric]:
    for gold, values in data.get("morphology", {}).items():
        yield from _numbers(values, gold, vocab_size)
    if "text" in data:
        yield from _numbers(data["text"], "text", vocab_size)
    for name, value in data.get("parity", {}).items():
        if _number(value):
            yield Metric("parity", value, name, vocab_size)


def comparison_metrics(comparison) -> list[Metric]:
    """A :class:`~bpe_desktop.core.comparison.Comparison`'s values, per tokenizer and
    per pair (``A → B``)."""
    data = comparison.to_json()
    rows: list[Metric] = []
    for t in data["tokenizers"]:
        rows.append(Metric("vocab_size", t["vocab_size"], t["name"]))
        rows += _numbers(t["text"], t["name"], None)
    for p in data["pairs"]:
        pair = f"{p['a']} → {p['b']}"
        rows += _numbers({k: v for k, v in p.items() if k != "overlap"}, pair, None)
        rows += _numbers({f"overlap_{k}": v for k, v in p["overlap"].items()}, pair, None)
    return rows


def training_metrics(model, timings: dict | None = None) -> list[Metric]:
    rows = [Metric("vocab_size", model.vocab_size), Metric("merges", model.merge_count)]
    info = model.corpus
    if info is not None:
        rows += [Metric("total_words", info.total_words),
                 Metric("distinct_words", info.distinct_words),
                 Metric("unknown_characters", info.unknown_characters)]
    for stage, seconds in (timings or {}).items():
        rows.append(Metric(f"seconds_{stage}", seconds))
    return rows


def extension_metrics(result, reports=()) -> list[Metric]:
    """An :class:`~bpe_desktop.core.extend.ExtendResult`'s values: the extended model's
    (as :func:`training_metrics`), its new merges and characters, and the held-out
    ``reports``."""
    return [*training_metrics(result.model, dict(result.timings)),
            Metric("new_merges", result.new_merges),
            Metric("new_characters", len(result.new_characters)),
            *(row for report in reports for row in held_out_metrics(report))]


def held_out_metrics(report) -> list[Metric]:
    """An extension's or trim's
    :class:`~bpe_desktop.core.adaptation_report.HeldOutReport`: each figure of the adapted
    model, then the source's as ``<name>_before``; ``source`` is
    the held-out file."""
    rows = [Metric("lines", report.lines, report.name),
            Metric("words", report.words, report.name)]
    for side, suffix in ((report.after, ""), (report.before, "_before")):
        rows += [Metric(f"tokens{suffix}", side.tokens, report.name),
                 Metric(f"tokens_per_word{suffix}", side.tokens_per_word(report.words),
                        report.name),
                 Metric(f"bytes_per_token{suffix}", report.bytes_per_token(side), report.name),
                 Metric(f"unknown_rate{suffix}", side.unknown_share(), report.name)]
    return [*rows, Metric("unchanged_line_share", report.unchanged_share, report.name)]


def trim_metrics(result, reports=()) -> list[Metric]:
    """A :class:`~bpe_desktop.core.trim.TrimResult`'s sizes and the held-out ``reports``
    (not :func:`training_metrics`: the corpus figures a trimmed model carries are its
    source's)."""
    return [Metric("vocab_size", result.model.vocab_size),
            Metric("merges", result.model.merge_count),
            Metric("dropped_tokens", result.dropped),
            *(row for report in reports for row in held_out_metrics(report))]


def counting_metrics(table) -> list[Metric]:
    return [Metric("distinct_words", table.distinct_words),
            Metric("total_words", table.total_count)]


def _numbers(values: dict, source: str, vocab_size: int | None) -> Iterator[Metric]:
    for key, value in values.items():
        if _number(value):
            yield Metric(key, value, source, vocab_size)


def _number(value) -> bool:
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and math.isfinite(value))
