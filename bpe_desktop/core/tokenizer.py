"""Encode text to pieces or ids and decode back: the sentencepiece-style API.

Two segmentation modes:

``merges`` (default)
    The seeds' ``encode``: in each word, repeatedly find the adjacent pair with the
    lowest merge rank and merge all its occurrences left to right, until no learned
    pair is left. A training word re-encodes to its final training segmentation.
``greedy``
    Greedy longest match (seed 002's ``tokenize``): from the left of each word, take the
    longest vocabulary token that matches, then continue after it.

A character outside the vocabulary becomes the unknown token (byte-level models never
need one). Without an unknown token such a character is an :class:`EncodeError`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable, Sequence

from bpe_desktop.core import _native
from bpe_desktop.core.errors import EncodeError

if TYPE_CHECKING:
    import numpy as np

    from bpe_desktop.core.model import BPEModel

MODES = ("merges", "greedy")


@dataclass(frozen=True)
class MergeStep:
    """One step of encoding a word: merging ``pair`` (rank ``rank``) gave ``pieces``."""

    pair: tuple[str, str] | None
    rank: int | None
    pieces: tuple[str, ...]


class Tokenizer:
    """Encoder and decoder for one :class:`BPEModel`. Thread-safe; calls release the GIL."""

    def __init__(self, model: BPEModel) -> None:
        self.model = model
        cfg = model.config
        merges = model.merge_ids()
        specials = {t.id: t.role for t in cfg.special_tokens}
        unk = cfg.special("unk")
        self._unk_id = unk.id if unk else None
        self._bos = cfg.special("bos")
        self._eos = cfg.special("eos")
        self._pad = cfg.special("pad")
        self._native = _native.engine().Tokenizer(
            {
                "pretokenizer": cfg.pretokenizer,
                "boundary": cfg.boundary,
                "normalize": cfg.normalize,
                "lowercase": cfg.lowercase,
            },
            list(model.pieces),
            merges,
            self._unk_id,
            specials,
        )

    # -- sizes and lookups (sentencepiece names) ------------------------------------------

    def get_piece_size(self) -> int:
        return self.model.vocab_size

    vocab_size = property(get_piece_size)

    def piece_to_id(self, piece: str) -> int:
        """The id of ``piece``; the unknown token's id when absent (as sentencepiece)."""
        found = self.model.piece_to_id(piece)
        if found is not None:
            return found
        if self._unk_id is None:
            raise EncodeError(f"{piece!r} is not in the vocabulary and the model has no <unk>")
        return self._unk_id

    def id_to_piece(self, id: int) -> str:
        self._check_ids([id])
        return self.model.pieces[id]

    def unk_id(self) -> int:
        return self._unk_id if self._unk_id is not None else -1

    def bos_id(self) -> int:
        return self._bos.id if self._bos else -1

    def eos_id(self) -> int:
        return self._eos.id if self._eos else -1

    def pad_id(self) -> int:
        return self._pad.id if self._pad else -1

    # -- encoding -------------------------------------------------------------------------

    def encode(self, text: str, *, mode: str = "merges", add_bos: bool = False,
               add_eos: bool = False) -> list[int]:
        """Text to ids."""
        ids = self._encode_array(text, mode).tolist()
        return self._wrap(ids, add_bos, add_eos)

    encode_as_ids = encode

    def encode_as_pieces(self, text: str, *, mode: str = "merges") -> list[str]:
        pieces = self.model.pieces
        return [pieces[i] for i in self._encode_array(text, mode).tolist()]

    def encode_to_numpy(self, text: str, *, mode: str = "merges") -> np.ndarray:
        """Ids as a ``uint32`` array (no Python int per token: the fast path)."""
        return self._encode_array(text, mode)

    def encode_batch(self, texts: Sequence[str], *, mode: str = "merges",
                     threads: int = 0) -> list[np.ndarray]:
        """Encode many texts in parallel; one ``uint32`` array per text."""
        _check_mode(mode)
        texts = list(texts)
        if not all(isinstance(t, str) for t in texts):
            raise EncodeError("encode_batch takes a list of strings")
        raw = _native.call(self._native.encode_batch, texts, mode == "greedy", threads)
        return [_ids_array(b) for b in raw]

    def encode_batch_flat(self, texts: Sequence[str], *, mode: str = "merges",
                          threads: int = 0) -> tuple[np.ndarray, np.ndarray]:
        """Encode many texts in parallel: all ids in one ``uint32`` array, plus each
        text's token count (no array per text: the fast path for many short texts)."""
        import numpy as np

        _check_mode(mode)
        raw = _native.call(self._native.encode_batch, list(texts), mode == "greedy", threads)
        lengths = np.fromiter((len(b) >> 2 for b in raw), dtype=np.int64, count=len(raw))
        return _ids_array(b"".join(raw)), lengths

    def encode_words(self, text: str, *, mode: str = "merges") -> list[tuple[str, list[int]]]:
        """The text's words (as the pre-tokenizer cuts them) with their ids."""
        _check_mode(mode)
        return _native.call(self._native.encode_words, text, mode == "greedy")

    def merge_steps(self, word: str) -> list[MergeStep]:
        """Seed 000's encode loop for one word, step by step (first step: the symbols)."""
        raw = _native.call(self._native.merge_steps, word)
        return [MergeStep(tuple(p) if p else None, r, tuple(s)) for p, r, s in raw]

    def unknown_count(self, ids: Iterable[int]) -> int:
        if self._unk_id is None:
            return 0
        return sum(1 for i in ids if i == self._unk_id)

    # -- decoding -------------------------------------------------------------------------

    def decode(self, ids: Sequence[int] | np.ndarray) -> str:
        """Ids back to text (pad, bos and eos are dropped)."""
        ids = [int(i) for i in ids]
        self._check_ids(ids)
        return _native.call(self._native.decode, ids)

    decode_ids = decode

    def decode_pieces(self, pieces: Sequence[str]) -> str:
        ids = []
        for p in pieces:
            found = self.model.piece_to_id(p)
            if found is None:
                raise EncodeError(f"{p!r} is not a token of this model")
            ids.append(found)
        return self.decode(ids)

    # -- helpers --------------------------------------------------------------------------

    def _encode_array(self, text: str, mode: str) -> np.ndarray:
        _check_mode(mode)
        if not isinstance(text, str):
            raise EncodeError("encode takes a string")
        raw = _native.call(self._native.encode, text, mode == "greedy")
        return _ids_array(raw)

    def _wrap(self, ids: list[int], add_bos: bool, add_eos: bool) -> list[int]:
        if add_bos:
            if self._bos is None:
                raise EncodeError("this model has no beginning-of-sentence token")
            ids.insert(0, self._bos.id)
        if add_eos:
            if self._eos is None:
                raise EncodeError("this model has no end-of-sentence token")
            ids.append(self._eos.id)
        return ids

    def _check_ids(self, ids: Iterable[int]) -> None:
        size = self.model.vocab_size
        for i in ids:
            if not 0 <= i < size:
                raise EncodeError(f"id {i} is outside the vocabulary (0..{size - 1})")


def _ids_array(raw: bytes) -> np.ndarray:
    import numpy as np  # imported on first use: training never needs it (~13 MB)

    return np.frombuffer(raw, dtype="<u4")


def _check_mode(mode: str) -> None:
    if mode not in MODES:
        raise EncodeError(f"mode must be one of {', '.join(MODES)}; got {mode!r}")
