"""Numbers for people, written one way everywhere (command line, window, error messages).

Sizes use decimal units, as file managers show them (``12.4 MB``); durations read like a
clock (``0:48``, ``1:02:03``).
"""

from __future__ import annotations

_UNITS = (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3))


def format_bytes(n: int | float) -> str:
    """``0 bytes``, ``999 bytes``, ``1.0 kB``, ``12.4 MB``, ``2.1 GB``."""
    for unit, scale in _UNITS:
        if n >= scale:
            return f"{n / scale:,.1f} {unit}"
    return f"{int(n)} byte" + ("" if int(n) == 1 else "s")


def format_duration(seconds: float) -> str:
    """``0:07``, ``12:34``, ``1:02:03`` (negative times count as zero)."""
    seconds = int(max(0.0, seconds))
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02}:{s:02}" if h else f"{m}:{s:02}"


def format_count(n: int) -> str:
    """``1,234,567``."""
    return f"{n:,}"


def counted(number: int, noun: str) -> str:
    """'1 crossing', '2 crossings': the noun agrees with its number."""
    return f"{number:,} {noun}" if number == 1 else f"{number:,} {noun}s"


def describe_config(config) -> str:
    """A :class:`~bpe_desktop.core.config.TrainConfig` in one line: where training stops,
    then the options that shape the words and the merges.

    ``vocabulary 8,000, words: whitespace, boundary: eow-symbol, ties: first-seen,
    minimum count 2``
    """
    if config.vocab_size is not None:
        stop = f"vocabulary {format_count(config.vocab_size)}"
    elif config.merges is not None:
        stop = f"{format_count(config.merges)} merges"
    else:
        stop = "until no pair repeats"
    from bpe_desktop.core.constraints import describe
    from bpe_desktop.core.languages import describe_language_options

    constraints = describe(config)
    languages = describe_language_options(config)
    return (f"{stop}, words: {config.pretokenizer}, boundary: {config.boundary}, "
            f"ties: {config.ties}, minimum count {config.min_frequency}"
            + (f", constraints: {constraints}" if constraints else "")
            + (f", languages: {languages}" if languages else ""))


def describe_progress(p, eta: float | None = None, *, bar_width: int = 0) -> str:
    """A training :class:`~bpe_desktop.core.training.Progress` in one line.

    ``merging   25%  50/200 merges  'l' + 'o' (7)  0:04  ETA 0:12``: the stage, the
    fraction done (a ``[###...]`` bar of ``bar_width`` characters before it when
    ``bar_width`` > 0), the stage's own measure, the time so far and, while unfinished,
    ``eta`` (seconds left) when known.
    """
    parts = [f"{p.stage:<8}"]
    fraction = p.fraction
    if p.stage == "merging":
        target = f"/{format_count(p.merges_target)}" if p.merges_target else ""
        parts.append(f"{format_count(p.merges_done)}{target} merges")
    elif p.bytes_total:
        parts.append(f"{format_bytes(p.bytes_done)}/{format_bytes(p.bytes_total)}")
        if p.words:
            parts.append(f"{format_count(p.words)} words")
    if fraction is not None:
        shown = f"{fraction:4.0%}"
        if bar_width > 0:
            filled = round(fraction * bar_width)
            shown = f"[{'#' * filled}{'.' * (bar_width - filled)}] {shown}"
        parts.insert(1, shown)
    if p.stage == "merging" and p.pair is not None:
        left, right = p.pair
        parts.append(f"{left!r} + {right!r} ({format_count(p.count)})" if p.count is not None
                     else f"{left!r} + {right!r}")
    parts.append(format_duration(p.elapsed))
    if eta is not None and fraction is not None and fraction < 1:
        parts.append(f"ETA {format_duration(eta)}")
    return "  ".join(parts)


def format_seconds(seconds: float) -> str:
    """A time span in words, for a log or a label: ``3 s``, ``1 min 15 s``, ``3 h 02 min``."""
    seconds = max(0, int(round(seconds)))
    if seconds < 60:
        return f"{seconds} s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {seconds:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


#: Each training stage as the Training panel names it.
STAGE_NAMES = {"reading": "Reading and counting words", "counting": "Counting words",
               "merging": "Merging pairs", "done": "Finishing"}


def describe_stage(p, eta: float | None = None) -> str:
    """The Training panel's status line of a training :class:`Progress` in words:
    ``Merging pairs: 50 of 200 merges — last: l + o (7) — about 12 s left``."""
    stage = STAGE_NAMES.get(p.stage, p.stage)
    if p.stage == "merging":
        target = f" of {p.merges_target:,}" if p.merges_target else ""
        detail = f"{p.merges_done:,}{target} merges"
        if p.pair is not None:
            count = f" ({p.count:,})" if p.count is not None else ""
            detail += f" — last: {p.pair[0]} + {p.pair[1]}{count}"
    else:
        detail = f"{format_bytes(p.bytes_done)} of {format_bytes(p.bytes_total)}, {p.words:,} words"
    left = f" — about {format_seconds(eta)} left" if eta is not None else ""
    return f"{stage}: {detail}{left}"
