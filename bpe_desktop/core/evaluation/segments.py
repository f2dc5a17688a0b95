"""Where a model cuts a word: predicted boundaries as code-point offsets.

A word is encoded as the model encodes a text consisting of that word alone. Each piece
contributes its surface text: boundary markers removed (``</w>`` at the end, ``▁`` at
the start, for the model's boundary style), a piece that is only a marker contributes
nothing, and byte-level pieces contribute their bytes. The unknown token stands for the
characters it replaces: one, or with ``fuse_unk`` the run of them up to the next piece's
text; byte-fallback tokens (``<0xC3>``) stand for their byte. The predicted boundaries
are the offsets between consecutive non-empty pieces. A boundary that falls inside a
UTF-8 character (between byte-level pieces or byte-fallback tokens) is kept apart
(``inside``): it counts as predicted but can never match a gold boundary.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bpe_desktop.core.config import BOW, BYTE_PIECES, EOW
from bpe_desktop.core.evaluation.text_stats import encoder_text
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


def byte_fallback_ids(model: BPEModel) -> dict[int, int]:
    """id -> byte of a byte-fallback model's byte tokens ``<0x00>`` ... ``<0xFF>`` (special
    tokens of a model trained with byte fallback, ordinary pieces of an imported one);
    empty without byte fallback."""
    if not model.config.byte_fallback:
        return {}
    ids = map(model.piece_to_id, BYTE_PIECES)
    return {i: b for b, i in enumerate(ids) if i is not None}


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
        self._fuse_unk = cfg.fuse_unk
        self._config = cfg
        self._byte_ids = byte_fallback_ids(model)
        self._lengths: dict[int, int] = {}  # id -> surface length, filled as met

    def surface(self, id: int) -> str:
        """What one (non-byte-level) piece other than the unknown token stands for."""
        piece = self._pieces[id]
        if id in self._special_ids:
            return piece
        if self._strip_eow and piece.endswith(EOW):
            piece = piece[: -len(EOW)]
        if self._strip_bow and piece.startswith(BOW):
            piece = piece[len(BOW):]
        return piece

    def segment(self, ids: Sequence[int], *, pieces: bool = True,
                word: str | None = None) -> Segmentation:
        """The cuts of ``ids``, the model's encoding of ``word``; ``pieces=False`` leaves
        ``pieces`` empty for non-byte-level models (the caller slices the word itself:
        faster). Without ``word``, an unknown token stands for one character."""
        if self._byte_level:
            return self._segment_bytes(ids)
        if any(i == self._unk or i in self._byte_ids for i in ids):
            return self._segment_spelled(ids, word)
        memo = self._lengths
        cuts, offset = [], 0
        for i in ids:
            n = memo.get(i)
            if n is None:
                n = memo[i] = len(self.surface(i))
            if n:
                cuts.append(offset)
                offset += n
        shown = tuple(t for t in map(self.surface, ids) if t) if pieces else ()
        return Segmentation(shown, frozenset(cuts[1:]), 0, offset)

    def _segment_spelled(self, ids: Sequence[int], word: str | None) -> Segmentation:
        """Pieces with unknown or byte-fallback tokens, cut as the bytes they spell."""
        spelled = encoder_text(word, self._config).encode("utf-8") if word else b""
        unknown = None  # stands for an unknown token until its characters are known
        chunks = [unknown if i == self._unk else bytes([self._byte_ids[i]])
                  if i in self._byte_ids else self.surface(i).encode("utf-8") for i in ids]
        chunks = [c for c in chunks if c != b""]
        at = 0  # where the current chunk starts in the word's bytes
        for n, chunk in enumerate(chunks):
            if chunk is unknown:
                following = chunks[n + 1] if n + 1 < len(chunks) else b""
                chunk = chunks[n] = self._unknown_run(spelled, at, following)
            at += len(chunk)
        return _cut_chunks(chunks)

    def _unknown_run(self, spelled: bytes, at: int, following: bytes | None) -> bytes:
        """The characters of ``spelled`` from byte ``at`` that an unknown token stands
        for: one, or with fused unknowns all up to where ``following`` (the next piece's
        text; None: another unknown token; empty: none) begins."""
        if at >= len(spelled):  # (no word given)
            return "\ufffd".encode("utf-8")
        end = at + _char_size(spelled[at])
        if self._fuse_unk and following is not None:
            while end < len(spelled) and not (following and spelled.startswith(following, end)):
                end += _char_size(spelled[end])
        return spelled[at:end]

    def _segment_bytes(self, ids: Sequence[int]) -> Segmentation:
        chunks = []
        for i in ids:
            piece = self._pieces[i]
            if i in self._special_ids or any(c not in CHAR_BYTES for c in piece):
                chunks.append(piece.encode("utf-8"))
            else:
                chunks.append(bytes(CHAR_BYTES[c] for c in piece))
        return _cut_chunks([c for c in chunks if c])


def _char_size(lead: int) -> int:
    """The length of the UTF-8 character whose first byte is ``lead``."""
    return 1 if lead < 0x80 else 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4


def _cut_chunks(chunks: list[bytes]) -> Segmentation:
    """The cuts between the non-empty byte ``chunks`` of a word."""
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
