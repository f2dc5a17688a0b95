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
