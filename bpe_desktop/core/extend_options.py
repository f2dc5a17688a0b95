"""An extension's options besides its size, declared once: ``bpe-desktop extend`` makes a
flag of each and the Training panel's *Start from* box an editor (see
:mod:`bpe_desktop.core.options`)."""

from __future__ import annotations

from dataclasses import dataclass

from bpe_desktop.core.options import option

#: What happens to characters the source cannot represent, in menu order.
UNKNOWN_CHOICES = {
    "add": "become new tokens",
    "keep": "stay as the source encodes them (<unk>, or bytes with byte fallback)",
    "bytes": "become byte tokens (sources with byte fallback)",
}


@dataclass(frozen=True)
class ExtendOptions:
    """Options of an extension besides its size."""

    unknown: str = option(
        "add", label="&Unknown characters:", metavar="WHAT", group="extend",
        choices=UNKNOWN_CHOICES,
        help="what happens to characters the source cannot represent: add (new alphabet "
        "tokens first, reported with their counts), keep (left as the source encodes them, "
        "never merged: <unk>, or their bytes when it has byte fallback) or bytes (their "
        "UTF-8 bytes' tokens <0xNN>, never merged, exactly as sentencepiece's and HF's byte "
        "fallback encode them; only for sources with byte fallback)")
    new_ids: str = option(
        "", label="New token &ids:", metavar="IDS", group="extend",
        placeholder="next free ids (e.g. 50000-51999, or 52000-)",
        help="the ids the new tokens take, in ascending order: one id, a range A-B, a "
        "start A- (every id from A on), several separated by commas, or a file with one "
        "of these a line; they must be free, and ids left over below the last one used "
        "become reserved tokens <reserved_ID>; empty: the next free ids")


__all__ = ["UNKNOWN_CHOICES", "ExtendOptions"]
