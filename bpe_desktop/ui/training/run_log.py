"""What the Training panel logs after a run: its times and sizes, the constraints that
shaped it, an extension's sizes, new characters and before/after reports, why a run
learned no merge."""

from __future__ import annotations

from bpe_desktop.core.formatting import counted
from bpe_desktop.core.protected import unfound_protected, unfound_warning
from bpe_desktop.core.training import TrainResult

#: Knocked-out merges listed in the log (the model file and `info` list them all).
LOGGED_KNOCKOUTS = 50


def finished_log(result: TrainResult) -> list[str]:
    """Log lines of a finished training run: times, corpus and model sizes, characters
    that became the unknown token, then the constraints."""
    model, t, info = result.model, result.timings, result.model.corpus
    words = f"{info.total_words:,} words ({info.distinct_words:,} distinct)" if info else ""
    lines = [f"Finished in {t['total']:.2f} s (reading and counting {t['counting']:.2f} s, "
             f"merging {t['merging']:.2f} s): {words}, {model.merge_count:,} merges, "
             f"vocabulary {model.vocab_size:,}."]
    if info and info.unknown_characters:
        lines.append(f"{info.unknown_characters:,} characters fell outside the character "
                     "coverage and became the unknown token.")
    return lines + constraint_log(result)


def constraint_log(result: TrainResult) -> list[str]:
    """Log lines on the constraints of a finished run: method, Morfessor's time, and the
    merges BPE-knockout removed, each with its crossings and respects."""
    report = result.model.constraints
    if report is None:
        return []
    lines = [f"Constraints: {report.method}."]
    if "segmenter" in result.timings:
        lines.append(f"Morfessor took {result.timings['segmenter']:.2f} s and cut "
                     f"{sum(len(m) > 1 for m in result.segmentation.values()):,} of "
                     f"{len(result.segmentation):,} words.")
    if report.segmented_words:
        lines.append(f"The boundary sources cut {report.segmented_words:,} words; no merge "
                     "crossed their boundaries where the corpus has them.")
    for match in result.gold_matches:
        lines.append(f"{match.summary()}.")
        if warning := match.warning():
            lines.append(f"Warning: {warning}.")
    if warning := unfound_warning(unfound_protected(result.model)):
        lines.append(f"Warning: {warning}.")
    if report.knocked_out:
        lines.append(f"BPE-knockout removed {len(report.knocked_out):,} merges "
                     "(crossings > respects on the gold words):")
        lines.extend(f"  round {r}: {left} + {right} — {counted(c, 'crossing')}, "
                     f"{counted(k, 'respect')}"
                     for left, right, c, k, r in report.knocked_out[:LOGGED_KNOCKOUTS])
        if len(report.knocked_out) > LOGGED_KNOCKOUTS:
            lines.append(f"  … and {len(report.knocked_out) - LOGGED_KNOCKOUTS:,} more "
                         "(all in the model file: bpe-desktop info -m MODEL)")
    return lines


def no_merges_reason(model) -> str:
    """Why a run learned no merge, and what to change: the vocabulary size is reached by
    the characters alone, or no pair is frequent enough."""
    config = model.config
    if config.vocab_size is not None and config.vocab_size <= model.vocab_size:
        return (f"the vocabulary size {config.vocab_size:,} is already reached by the "
                f"{len(model.alphabet):,} characters of the corpus and "
                f"{len(config.special_tokens)} special token(s). Choose a vocabulary "
                f"size above {model.vocab_size:,}.")
    return (f"no pair of symbols occurs at least {config.min_frequency:,} times "
            "(the minimum pair count). Lower the minimum pair count or add text.")


def outcome_log(outcome) -> list[str]:
    """The log lines of a finished extension: sizes, new characters, the reports."""
    from bpe_desktop.core.adaptation_report import format_report

    result = outcome.result
    lines = [f"Extended the tokenizer: {result.new_merges:,} new merges, vocabulary "
             f"{result.source.vocab_size:,} -> {result.model.vocab_size:,}; every existing "
             "id kept."]
    if result.new_characters:
        frequent = sorted(result.new_characters, key=lambda item: -item[1])
        lines.append(f"{len(result.new_characters):,} new characters: " + ", ".join(
            f"{c!r} {n:,}" for c, n in frequent[:30]))
    if result.unknown_characters:
        lines.append(f"{len(result.unknown_characters):,} characters left unknown.")
    if result.byte_characters:
        lines.append(f"{len(result.byte_characters):,} characters spelled in byte tokens "
                     "(byte fallback).")
    lines += [format_report(r) for r in outcome.reports]
    return lines
