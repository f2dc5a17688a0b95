"""BPE-knockout (Bauwens & Delobelle, NAACL 2024), in a form every export can carry.

Each merge is judged on gold words by its applications when the words are encoded: an
application *crosses* a gold boundary when the two pieces it joins meet exactly at a
boundary of the word's gold segmentation, and *respects* them otherwise. (An application
that joins pieces meeting elsewhere does not cross: a boundary inside one of the pieces
was crossed by the earlier merge that made that piece, and counted there.) A merge that
crosses more often than it respects is knocked out.

The original removes such merges from the merge list, which leaves tokens no merge
produces; here the model is trained again with those pairs forbidden (the trainer never
merges them), and again with the merges the new model knocks out, until none is left or
the round limit is reached. The result is an ordinary merge list.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Iterable, Sequence

from bpe_desktop.core.config import BOW, EOW


@dataclass(frozen=True)
class Verdict:
    """How one merge fared on the gold words."""

    left: str
    right: str
    crossings: int
    respects: int

    @property
    def knocked_out(self) -> bool:
        return self.crossings > self.respects


def _units(symbol: str, model) -> int:
    """How many characters (bytes at byte level) of the word an initial symbol stands for."""
    if model.config.byte_level:
        return len(symbol)
    if symbol == EOW or (symbol == BOW and model.config.boundary == "bow-prefix"):
        return 0
    return 1


def _boundaries(word: str, morphs: Sequence[str], byte_level: bool) -> set[int]:
    """The gold boundaries as offsets in the encoded word's units."""
    out, at = set(), 0
    for m in morphs[:-1]:
        at += len(m.encode("utf-8")) if byte_level else len(m)
        out.add(at + (1 if byte_level else 0))  # byte level: after the leading space (Ġ)
    return out


def merge_verdicts(model, gold: Iterable[tuple[str, Sequence[str]]]) -> list[Verdict]:
    """Every merge applied to the gold words ``(word, morphs)``, with its crossings and
    respects, in rank order. Byte-level words are encoded after a space, as they mostly
    occur in running text."""
    tokenizer = model.tokenizer()
    tally: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    byte_level = model.config.byte_level
    for word, morphs in gold:
        if len(morphs) < 2:
            boundaries: set[int] = set()
        else:
            boundaries = _boundaries(word, morphs, byte_level)
        steps = tokenizer.merge_steps(" " + word if byte_level else word)
        if not steps:
            continue
        pieces = list(steps[0].pieces)
        widths = [_units(p, model) for p in pieces]
        for step in steps[1:]:
            left, right = step.pair
            merged_pieces, merged_widths, at, i = [], [], 0, 0
            while i < len(pieces):
                if i + 1 < len(pieces) and pieces[i] == left and pieces[i + 1] == right:
                    join = at + widths[i]
                    tally[(left, right)][0 if join in boundaries else 1] += 1
                    merged_pieces.append(left + right)
                    merged_widths.append(widths[i] + widths[i + 1])
                    at += widths[i] + widths[i + 1]
                    i += 2
                else:
                    merged_pieces.append(pieces[i])
                    merged_widths.append(widths[i])
                    at += widths[i]
                    i += 1
            pieces, widths = merged_pieces, merged_widths
    rank = {(m.left, m.right): i for i, m in reversed(list(enumerate(model.merges)))}
    return [Verdict(l, r, c, k) for (l, r), (c, k) in
            sorted(tally.items(), key=lambda item: rank.get(item[0], len(rank)))]


def knocked_out(model, gold: Iterable[tuple[str, Sequence[str]]]) -> list[Verdict]:
    """The merges that cross gold boundaries more often than they respect them."""
    return [v for v in merge_verdicts(model, gold) if v.knocked_out]
