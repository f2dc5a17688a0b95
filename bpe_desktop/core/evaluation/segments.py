"""Where a model cuts a word: predicted boundaries as code-point offsets.

A word is encoded as the model encodes a text consisting of that word alone. Each piece
contributes its surface text: boundary markers removed (``</w>`` at the end, ``▁`` at
the start, for the model's boundary style), a piece that is only a marker contributes
nothing, the unknown token stands for its one character, and byte-level pieces
contribute their bytes. The predicted boundaries are the offsets between consecutive
non-empty pieces. A byte-level boundary that falls inside a UTF-8 character is kept
apart (``inside``): it counts as predicted but can never match a gold boundary.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bpe_desktop.core.config import BOW, EOW
from bpe_desktop.core.model import BPEModel
from bpe_desktop.core.pieces import CHAR_BYTES


@dataclass(frozen=True)
class Segmentation:
    """A word as the model cuts it."""

    #: surface text of each non-empty piece (byte-level: decoded, partial bytes as U+FFFD).
    pieces: tuple[str, ...]
    #: boundaries between pieces at character boundaries (code-point offsets).
    boundaries: frozenset[int]
    #: boundaries that fall inside a character (byte-level pieces).
    inside: int
    #: the word's length in code points as the model sees it (after normalization).
    length: int
    #: where the ``inside`` boundaries fall, as byte offsets (to compare two models).
    inside_at: frozenset[int] = frozenset()

    @property
    def predicted(self) -> int:
        return len(self.boundaries) + self.inside


class Segmenter:
    """Turns a model's ids for one word into a :class:`Segmentation`."""

    def __init__(self, model: BPEModel) -> None:
        cfg = model.config
        unk = cfg.special("unk")
        self._unk = unk.id if unk else None
        self._pieces = model.pieces
        self._byte_level = cfg.byte_level
        self._strip_eow = cfg.boundary in ("eow-symbol", "eow-suffix")
        self._strip_bow = cfg.boundary == "bow-prefix"
        self._special_ids = {t.id for t in cfg.special_tokens}
        self._lengths: dict[int, int] = {}  # id -> surface length, filled as met

    def surface(self, id: int) -> str:
        """What one (non-byte-level) piece stands for in the word."""
        if id == self._unk:
            return "\x00"  # one character, whatever it was
        piece = self._pieces[id]
        if id in self._special_ids:
            return piece
        if self._strip_eow and piece.endswith(EOW):
            piece = piece[: -len(EOW)]
        if self._strip_bow and piece.startswith(BOW):
            piece = piece[len(BOW):]
        return piece

    def segment(self, ids: Sequence[int], *, pieces: bool = True) -> Segmentation:
        """The cuts of ``ids``; ``pieces=False`` leaves ``pieces`` empty for
        non-byte-level models (the caller slices the word itself: faster)."""
        if self._byte_level:
            return self._segment_bytes(ids)
        memo = self._lengths
        cuts, offset = [], 0
        for i in ids:
            n = memo.get(i)
            if n is None:
                n = memo[i] = len(self.surface(i))
            if n:
                cuts.append(offset)
                offset += n
        shown = ()
        if pieces:
            texts = [t for t in (self.surface(i) for i in ids) if t]
            shown = tuple("\ufffd" if t == "\x00" else t for t in texts)
        return Segmentation(shown, frozenset(cuts[1:]), 0, offset)

    def _segment_bytes(self, ids: Sequence[int]) -> Segmentation:
        chunks = []
        for i in ids:
            piece = self._pieces[i]
            if i in self._special_ids or any(c not in CHAR_BYTES for c in piece):
                chunks.append(piece.encode("utf-8"))
            else:
                chunks.append(bytes(CHAR_BYTES[c] for c in piece))
        chunks = [c for c in chunks if c]
        data = b"".join(chunks)
        text = data.decode("utf-8", errors="replace")
        # byte offset -> code-point offset, at every character start
        starts, b = {}, 0
        for cp, ch in enumerate(text):
            starts[b] = cp
            b += len(ch.encode("utf-8"))  # the word's bytes are valid UTF-8
        cuts, inside, offset = set(), set(), 0
        for chunk in chunks[:-1]:
            offset += len(chunk)
            if offset in starts:
                cuts.add(starts[offset])
            else:
                inside.add(offset)
        pieces = tuple(c.decode("utf-8", errors="replace") for c in chunks)
        return Segmentation(pieces, frozenset(cuts), len(inside), len(text),
                            frozenset(inside))
