"""What evaluation and comparison say about a model that only approximates the
tokenizer it was imported from (``BPEModel.approximations``): its figures describe the
approximation, not the source tokenizer, and a reader must not take them for the
source's. The command line and the panels word it alike, through here."""

from __future__ import annotations

from typing import Sequence


def approximation_warning(notes: Sequence[str], name: str = "") -> str:
    """One line naming the model (``name``; "" when the context names it) and every note
    of how it encodes text otherwise than its source; "" when there is no note."""
    if not notes:
        return ""
    subject = f"{name}: its figures describe" if name else "The figures describe"
    return (f"{subject} an approximation of the imported tokenizer, not the tokenizer "
            f"itself: {'; '.join(notes)}")
