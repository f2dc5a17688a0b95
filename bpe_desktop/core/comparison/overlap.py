"""Vocabulary overlap of two tokenizers, with the boundary markers normalised.

Each piece is compared as the text it stands for: ``</w>`` at the end and ``▁`` at the
start are removed, byte-level pieces are read as their bytes (GPT-2's ``Ġ`` is a space)
and a leading space is removed, so ``the</w>``, ``▁the``, ``Ġthe`` and ``the`` are all
``the``. Byte-level pieces that are not whole UTF-8 text are written ``<0xAB>`` per
byte. Special tokens, byte-fallback tokens (``<0x00>`` ... ``<0xFF>``) and pieces that
are only a marker are left out. Several pieces of
one vocabulary can stand for the same text (``the`` and ``the</w>``); the text counts
once, with all its pieces listed.
"""

from __future__ import annotations

import io
import os
from collections.abc import Sequence
from dataclasses import dataclass, field

from bpe_desktop.core.csv_rows import CsvRows
from bpe_desktop.core.evaluation.segments import byte_fallback_ids
from bpe_desktop.core.model import BPEModel
from bpe_desktop.core.pieces import piece_bytes, surface_text

#: The three lists, in the order tables and files show them.
CATEGORIES = ("both", "only_a", "only_b")
CSV_HEADER = ("text", "in", "pieces_a", "pieces_b")


def normalized_piece(piece: str, model: BPEModel) -> str | None:
    """The text ``piece`` stands for, markers and a leading space removed; None when it
    stands for nothing comparable (a marker alone)."""
    cfg = model.config
    if cfg.byte_level:
        data = piece_bytes(piece, cfg)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            return "".join(f"<0x{b:02X}>" for b in data)
    else:
        text = surface_text(piece, cfg)
    return text.removeprefix(" ") or None


def vocabulary_texts(model: BPEModel) -> dict[str, tuple[str, ...]]:
    """Normalised text -> the model's pieces that stand for it (specials and byte-fallback
    tokens left out: training keeps the byte tokens among the special tokens, an import
    among its pieces)."""
    specials = {t.id for t in model.config.special_tokens} | set(byte_fallback_ids(model))
    out: dict[str, list[str]] = {}
    for i, piece in enumerate(model.pieces):
        if i in specials:
            continue
        text = normalized_piece(piece, model)
        if text is not None:
            out.setdefault(text, []).append(piece)
    return {t: tuple(p) for t, p in out.items()}


@dataclass(frozen=True)
class OverlapRow:
    text: str
    category: str  # one of CATEGORIES
    pieces_a: tuple[str, ...]
    pieces_b: tuple[str, ...]


@dataclass(frozen=True)
class Overlap:
    a: str
    b: str
    rows: tuple[OverlapRow, ...]  # sorted by category, then text
    #: the rows of each category, listed once where the overlap is made (in the
    #: comparing worker, not on the GUI thread that shows them).
    _by_category: dict[str, list[OverlapRow]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        by_category: dict[str, list[OverlapRow]] = {c: [] for c in CATEGORIES}
        for r in self.rows:
            by_category[r.category].append(r)
        object.__setattr__(self, "_by_category", by_category)

    def count(self, category: str) -> int:
        return len(self._by_category[category])

    def of(self, category: str) -> list[OverlapRow]:
        return list(self._by_category[category])

    def summary(self) -> dict:
        """The JSON ``overlap`` object of ``bpe-desktop compare``."""
        return {c: self.count(c) for c in CATEGORIES}

    def to_csv(self, path: str | os.PathLike, categories: Sequence[str] = CATEGORIES) -> None:
        """Write the rows of ``categories`` as CSV (UTF-8, atomically)."""
        from bpe_desktop.core.formats._common import write_files

        buf = io.StringIO(newline="")
        writer = CsvRows(buf)
        writer.writerow(CSV_HEADER)
        for r in self.rows:
            if r.category in categories:
                writer.writerow((r.text, r.category, " ".join(r.pieces_a),
                                 " ".join(r.pieces_b)))
        write_files([(os.fspath(path), buf.getvalue().encode("utf-8"))])


def vocabulary_overlap(a: tuple[str, BPEModel], b: tuple[str, BPEModel]) -> Overlap:
    """Pieces in both vocabularies, only in A, only in B (``(name, model)`` pairs)."""
    texts_a, texts_b = vocabulary_texts(a[1]), vocabulary_texts(b[1])
    rows = []
    for text in sorted(texts_a.keys() | texts_b.keys()):
        in_a, in_b = text in texts_a, text in texts_b
        category = "both" if in_a and in_b else "only_a" if in_a else "only_b"
        rows.append(OverlapRow(text, category, texts_a.get(text, ()), texts_b.get(text, ())))
    rows.sort(key=lambda r: CATEGORIES.index(r.category))  # stable: text order kept
    return Overlap(a[0], b[0], tuple(rows))
