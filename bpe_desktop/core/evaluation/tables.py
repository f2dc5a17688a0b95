"""The evaluation's tables as plain rows: the command line prints them, the Evaluate
panel shows them (one definition, so the window and the terminal agree)."""

from __future__ import annotations

from typing import Any

from bpe_desktop.core.evaluation.coverage import GoldReport
from bpe_desktop.core.evaluation.morphology import MorphologyResult
from bpe_desktop.core.evaluation.parity import ParityResult

#: "entries" are every line of the gold file (JSON ``words``); the gold table's "usable
#: words" only those that can be scored: two counts, so two names.
MORPHOLOGY_HEADERS = ("gold file", "entries", "evaluated", "skipped", "unsplit", "precision",
                      "recall", "F1", "MorphScore", "exact")
GOLD_HEADERS = ("gold file", "usable words", "malformed", "not spelling the word",
                "unseen characters", "rare characters", "in training", "mapping")
PARITY_HEADERS = ("file", "tokens", "parity", "unknown rate", "")
#: The mark of a parity row whose unknown rate makes its parity meaningless.
UNKNOWN_MARK = "⚠ many unknown"
#: All texts together, in the text table with several texts.
ALL_TEXTS = "all texts"


def morphology_rows(results: dict[str, MorphologyResult]) -> list[list[Any]]:
    """One row per gold file: its counts and scores (:data:`MORPHOLOGY_HEADERS`)."""
    return [[name, r.words, r.evaluated, r.skipped, r.unsplit, r.precision, r.recall, r.f1,
             r.morphscore, r.exact] for name, r in results.items()]


def gold_rows(reports: dict[str, GoldReport]) -> list[list[Any]]:
    """One row per gold file: counts of words, and how many match the training text."""
    return [[name, g.words, g.malformed, g.not_surface,
             _with_share(g.with_unseen, g.words), _with_share(g.with_rare, g.words),
             _with_share(g.in_training, g.words) if g.knows_training_words else "unknown",
             " ".join(f"{a}→{b}" for a, b in g.mapping)] for name, g in reports.items()]


def gold_notes(report: GoldReport) -> list[str]:
    """Sentences under the table: the warning, the characters, the skipped lines."""
    notes = [f"⚠ {report.warning}"] if report.warning else []
    if report.unseen_characters:
        notes.append(f"{report.name}: unseen characters (gold words): "
                     + _characters(report.unseen_characters))
    if report.rare_characters:
        notes.append(f"{report.name}: rare characters (gold words): "
                     + _characters(report.rare_characters))
    if report.malformed:
        where = report.path or report.name
        shown = "; ".join(f"{where} line {n}: {reason}" for n, reason in report.malformed_lines)
        more = report.malformed - len(report.malformed_lines)
        notes.append(f"{report.name}: {report.malformed:,} malformed line"
                     f"{'s' if report.malformed != 1 else ''} skipped ({shown}"
                     + (f"; and {more:,} more)" if more else ")"))
    return notes


def text_table(report) -> tuple[list[str], list[list[Any]]]:
    """Measures down, one column per text (and all texts together when several)."""
    columns = dict(report.texts)
    if columns:
        columns[ALL_TEXTS] = report.text
    else:
        columns = {"value": report.text}
    summaries = {name: stats.summary() for name, stats in columns.items()}
    measures = list(next(iter(summaries.values())))
    return (["measure", *columns],
            [[m, *(s[m] for s in summaries.values())] for m in measures])


def parity_rows(parity: ParityResult | None) -> list[list[Any]]:
    if parity is None:
        return []
    return [[r.name + (" (reference)" if r.name == parity.reference else ""), r.tokens,
             r.parity, r.unknown_rate, UNKNOWN_MARK if r.unknown_high else ""]
            for r in parity.rows]


def _with_share(count: int, total: int) -> str:
    return f"{count:,} ({count / total:.1%})" if total else "0"


def _characters(pairs) -> str:
    return ", ".join(f"{ch!r} ×{n:,}" for ch, n in pairs)
