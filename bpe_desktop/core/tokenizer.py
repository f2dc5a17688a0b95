"""Encode text to pieces or ids and decode back: the sentencepiece-style API.

Two segmentation modes:

``merges`` (default)
    The seeds' ``encode``: in each word, repeatedly find the adjacent pair with the
    lowest merge rank and merge all its occurrences left to right, until no learned
    pair is left. A training word re-encodes to its final training segmentation.
``greedy``
    Greedy longest match: from the left of each word, take the longest vocabulary token
    that matches, then continue after it. (Seed 002's ``tokenize`` is greedy another way:
    it grows a token one character at a time and stops at the first extension that is
    no token, so it can stop short of a longer one: ``o f</w>`` where this takes
    ``of</w>``.)

BPE-dropout (Provilkov et al. 2020): ``dropout=p`` with ``merges`` mode skips each
applicable merge with probability p, as HF tokenizers' ``BPE(dropout=p)`` (p = 0 is
ordinary encoding, p = 1 leaves single symbols). ``seed`` fixes the sample; without one
each call draws a fresh seed. Every sample decodes to the text.

A character outside the vocabulary becomes the unknown token (byte-level models never
need one); with the ``fuse_unk`` option a run of them in a word becomes one. Without an
unknown token such a character is an :class:`EncodeError`.

Word ends and unknown tokens
----------------------------
With ``</w>`` glued to the last character (``eow-suffix``), an unknown last character
takes its marker with it: the unknown token replaces ``ä</w>``, as in HF tokenizers, so
the ids stay theirs. Ids alone then cannot tell that a word ended there, and
``decode(ids)`` runs that word into the next ("kiss<unk>ja"). An :class:`Encoding`
(:meth:`Tokenizer.encoding`) keeps where each word ends: its pieces show such a token as
``<unk></w>``, and ``decode(encoding)`` keeps the words apart ("kiss<unk> ja"), as does
:meth:`Tokenizer.decode_pieces` of those pieces and :meth:`Tokenizer.encode_as_pieces`.
"""

from __future__ import annotations

import array
import itertools
import secrets
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable, Sequence

from bpe_desktop.core import _native
from bpe_desktop.core.config import EOW
from bpe_desktop.core.errors import EncodeError
from bpe_desktop.core.protected import Protector, bare_word_ids

if TYPE_CHECKING:
    import numpy as np

    from bpe_desktop.core.model import BPEModel

MODES = ("merges", "greedy")

#: Values converted (or pieces joined) per call when packing a model for the engine: one
#: call over a whole large model would hold the GIL long enough to stall the GUI thread.
_PACK_SLICE = 16_384
#: The largest seed (the engine's generator takes 64 bits).
MAX_SEED = 2**64 - 1


@dataclass(frozen=True)
class MergeStep:
    """One step of encoding a word: merging ``pair`` (rank ``rank``) gave ``pieces``."""

    pair: tuple[str, str] | None
    rank: int | None
    pieces: tuple[str, ...]


@dataclass(frozen=True)
class Encoding:
    """A text's ids with the words they came from, so that word ends survive.

    ``word_ends[k]`` is the index in ``ids`` just after word ``k``'s last token.
    """

    ids: tuple[int, ...]
    words: tuple[str, ...]
    word_ends: tuple[int, ...]
    #: The tokens as pieces, keeping word ends: a word-final unknown token whose piece
    #: lacks the model's ``</w>`` (``eow-suffix``) shows as ``<unk></w>``.
    pieces: tuple[str, ...]

    def __len__(self) -> int:
        return len(self.ids)


class Tokenizer:
    """Encoder and decoder for one :class:`BPEModel`. Thread-safe; calls on texts of a few
    KiB or more release the GIL (shorter ones take less time than releasing it would).

    Words once encoded are cached per thread across calls (bounded; the same ids as
    without the cache), so many short texts cost little more than one long one.
    """

    def __init__(self, model: BPEModel) -> None:
        self.model = model
        cfg = model.config
        specials = {t.id: t.role for t in cfg.special_tokens}
        unk = cfg.special("unk")
        self._unk_id = unk.id if unk else None
        self._bos = cfg.special("bos")
        self._eos = cfg.special("eos")
        self._pad = cfg.special("pad")
        engine_model = model.engine_model()
        if engine_model is not None:  # built by the engine from the tokens it holds
            self._native = engine_model.tokenizer(cfg, self._unk_id, specials)
        else:
            self._native = self._from_fields(model, specials)
        self._encode_list = self._native.encode_list
        # Protected strings are cut out of the raw text first; the parts between them are
        # encoded as texts of their own (see bpe_desktop.core.protected).
        self._protector = Protector(cfg.protected) if cfg.protected else None

    def _from_fields(self, model: BPEModel, specials: dict[int, str]):
        """The engine's tokenizer of a model made in Python: its pieces and merges packed."""
        cfg = model.config
        pieces = model.pieces
        parts, part_ends = model.packed_merges()  # ids looked up by the engine
        return _native.engine().Tokenizer(
            cfg,  # the engine reads its text rules (normalize ... boundary) itself
            *packed_pieces(pieces),
            parts,
            part_ends.tobytes(),
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
        return self.model.id_to_piece(id)

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
               add_eos: bool = False, dropout: float = 0.0,
               seed: int | None = None) -> list[int]:
        """Text to ids (a BPE-dropout sample when ``dropout`` > 0; see the module notes)."""
        if mode == "merges" and type(dropout) is float and dropout == 0.0 and seed is None \
                and not add_bos and not add_eos and self._protector is None:
            # The common call, in one engine call that builds the list (per-call cost
            # matters: users encode many short texts this way). It refuses a non-str.
            return self._encode_list(text, False)
        ids = self._encode_array(text, mode, dropout, seed).tolist()
        return self._wrap(ids, add_bos, add_eos)

    encode_as_ids = encode

    def encode_as_pieces(self, text: str, *, mode: str = "merges", dropout: float = 0.0,
                         seed: int | None = None) -> list[str]:
        """Text to pieces; a word-final unknown token keeps the word end (``<unk></w>``)."""
        seed = _resolve_seed(dropout, seed)
        ids = self._encode_array(text, mode, dropout, seed).tolist()
        if self._unk_id is None or self._unk_id not in ids or not self._marks_word_ends:
            pieces = self.model.pieces
            return [pieces[i] for i in ids]
        return list(self.encoding(text, mode=mode, dropout=dropout, seed=seed).pieces)

    def encoding(self, text: str, *, mode: str = "merges", dropout: float = 0.0,
                 seed: int | None = None) -> Encoding:
        """Text to an :class:`Encoding`: ids, words and word ends, pieces that keep them."""
        words = self.encode_words(text, mode=mode, dropout=dropout, seed=seed)
        ids: list[int] = []
        ends: list[int] = []
        pieces: list[str] = []
        table = self.model.pieces
        for _, word_ids in words:
            ids.extend(word_ids)
            ends.append(len(ids))
            pieces.extend(table[i] for i in word_ids)
            if word_ids and self._marks_word_ends and word_ids[-1] == self._unk_id \
                    and not pieces[-1].endswith(EOW):
                pieces[-1] += EOW
        return Encoding(tuple(ids), tuple(w for w, _ in words), tuple(ends), tuple(pieces))

    @property
    def _marks_word_ends(self) -> bool:
        """Whether a word's last piece carries ``</w>`` glued on (so an unknown can hide it)."""
        return self.model.config.boundary == "eow-suffix"

    def encode_to_numpy(self, text: str, *, mode: str = "merges") -> np.ndarray:
        """Ids as a ``uint32`` array (no Python int per token: the fast path)."""
        return self._encode_array(text, mode)

    def encode_batch(self, texts: Sequence[str], *, mode: str = "merges",
                     threads: int = 0) -> list[np.ndarray]:
        """Encode many texts in parallel; one ``uint32`` array per text."""
        ids, ends = self._encode_batch(texts, mode, threads)
        starts = [0, *ends]
        return [ids[a:b] for a, b in zip(starts, ends)]  # views of one array

    def encode_batch_lists(self, texts: Sequence[str], *, mode: str = "merges",
                           threads: int = 0) -> list[list[int]]:
        """Encode many texts in parallel; the ids of each text as a list (without NumPy,
        whose import alone costs a short command line more than its encoding)."""
        if self._protector is not None:
            return [ids.tolist() for ids in self.encode_batch(texts, mode=mode, threads=threads)]
        _check_mode(mode)
        if not isinstance(texts, (list, tuple)):
            texts = list(texts)
        raw, ends = _native.call(self._native.encode_batch, texts, mode == "greedy", threads)
        flat = array.array("I")  # 4 bytes wide on every platform Python supports
        flat.frombytes(raw)
        if sys.byteorder == "big":  # the engine's ids are little-endian
            flat.byteswap()
        ids = flat.tolist()
        return [ids[a:b] for a, b in zip([0, *ends], ends)]

    def encode_batch_flat(self, texts: Sequence[str], *, mode: str = "merges",
                          threads: int = 0) -> tuple[np.ndarray, np.ndarray]:
        """Encode many texts in parallel: all ids in one ``uint32`` array, plus each
        text's token count (no array per text: the fast path for many short texts)."""
        import numpy as np

        ids, ends = self._encode_batch(texts, mode, threads)
        return ids, np.diff(np.asarray(ends, dtype=np.int64), prepend=0)

    def encode_words(self, text: str, *, mode: str = "merges", dropout: float = 0.0,
                     seed: int | None = None) -> list[tuple[str, list[int]]]:
        """The text's words (as the pre-tokenizer cuts them) with their ids."""
        _check_mode(mode)
        args = _dropout_args(dropout, seed)
        if self._protector is None:
            return _native.call(self._native.encode_words, text, mode == "greedy", *args)
        return self._protected_words(text, mode == "greedy", args)

    def merge_steps(self, word: str) -> list[MergeStep]:
        """Seed 000's encode loop for one word, step by step (first step: the symbols)."""
        raw = _native.call(self._native.merge_steps, word)
        return [MergeStep(tuple(p) if p else None, r, tuple(s)) for p, r, s in raw]

    def unknown_count(self, ids: Iterable[int]) -> int:
        if self._unk_id is None:
            return 0
        return sum(1 for i in ids if i == self._unk_id)

    # -- decoding -------------------------------------------------------------------------

    def decode(self, ids: Sequence[int] | np.ndarray | Encoding) -> str:
        """Ids back to text (pad, bos and eos are dropped).

        Given an :class:`Encoding`, words end where they ended in the text even where an
        unknown token hid a word's end marker; given ids alone they cannot (see the
        module's notes).
        """
        if isinstance(ids, Encoding):
            return self.decode_words(ids.ids, ids.word_ends)
        ids = [int(i) for i in ids]
        self._check_ids(ids)
        return _native.call(self._native.decode, ids)

    decode_ids = decode

    def decode_id_text(self, text: str) -> str:
        """Ids written as text (whole numbers separated by white space, as one line of
        ``encode --ids``) back to text, parsed by the engine: no Python object per id,
        so a line of millions of ids takes memory in proportion to its bytes. A field
        that is not an id, or an id outside the vocabulary, is an :class:`EncodeError`."""
        if not isinstance(text, str):
            raise EncodeError("decode_id_text takes a string")
        return _native.call(self._native.decode_id_text, text)

    def decode_words(self, ids: Sequence[int], word_ends: Sequence[int]) -> str:
        """Ids back to text, each word ending at its index in ``word_ends`` (ascending)."""
        ids = [int(i) for i in ids]
        self._check_ids(ids)
        return _native.call(self._native.decode_words, ids, [int(e) for e in word_ends])

    def decode_pieces(self, pieces: Sequence[str]) -> str:
        """Pieces back to text; ``<unk></w>`` (from :meth:`encode_as_pieces`) ends a word."""
        ids: list[int] = []
        ends: list[int] = []
        unk = self.model.pieces[self._unk_id] if self._unk_id is not None else None
        for p in pieces:
            found = self.model.piece_to_id(p)
            word_end = False
            if found is None and self._marks_word_ends and unk is not None \
                    and p == unk + EOW:
                found, word_end = self._unk_id, True
            if found is None:
                raise EncodeError(f"{p!r} is not a token of this model")
            ids.append(found)
            if word_end:
                ends.append(len(ids))
        return self.decode_words(ids, ends) if ends else self.decode(ids)

    # -- helpers --------------------------------------------------------------------------

    def _encode_array(self, text: str, mode: str, dropout: float = 0.0,
                      seed: int | None = None) -> np.ndarray:
        _check_mode(mode)
        if not isinstance(text, str):
            raise EncodeError("encode takes a string")
        args = _dropout_args(dropout, seed)
        if self._protector is None:
            return _ids_array(_native.call(self._native.encode, text, mode == "greedy", *args))
        import numpy as np

        words = self._protected_words(text, mode == "greedy", args)
        return np.array([i for _, ids in words for i in ids], dtype="<u4")

    def _protected_words(self, text: str, greedy: bool,
                         args: tuple[float, int]) -> list[tuple[str, list[int]]]:
        """Words and ids of a text with protected strings (see bpe_desktop.core.protected)."""
        if not isinstance(text, str):
            raise EncodeError("encode takes a string")
        ids = self.model.piece_ids
        out: list[tuple[str, list[int]]] = []
        if self.model.config.pretokenizer != "sentencepiece":
            for part, protected in self._protector.split(text):
                out.extend([(part, [ids[part]])] if protected else
                           _native.call(self._native.encode_words, part, greedy, *args))
            return out
        for part, kind in self._protector.sentencepiece_parts(text):
            if kind in ("protected", "marker"):
                out.append((part, [ids[part]]))
            elif kind == "word":  # the engine gives the word its ▁ itself
                out.extend(_native.call(self._native.encode_words, part[1:], greedy, *args))
            else:
                out.append((part, bare_word_ids(part, self.model, self._unk_id, greedy=greedy)))
        return out

    def _encode_batch(self, texts: Sequence[str], mode: str,
                      threads: int) -> tuple[np.ndarray, list[int]]:
        """All texts' ids in one array, and the end of each text's ids in it."""
        _check_mode(mode)
        if not isinstance(texts, (list, tuple)):
            texts = list(texts)
        if self._protector is not None:
            import numpy as np

            arrays = [self._encode_array(t, mode) for t in texts]
            ends = list(itertools.accumulate(map(len, arrays)))
            return (np.concatenate(arrays) if arrays else np.empty(0, dtype="<u4")), ends
        raw, ends = _native.call(self._native.encode_batch, texts, mode == "greedy", threads)
        return _ids_array(raw), ends

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


def _ids_array(raw) -> np.ndarray:
    """The engine's ids (little-endian u32s behind the buffer protocol) as a read-only
    array over the same memory: no copy."""
    import numpy as np  # imported on first use: training never needs it (~13 MB)

    return np.frombuffer(raw, dtype="<u4")


def _check_mode(mode: str) -> None:
    if mode not in MODES:
        raise EncodeError(f"mode must be one of {', '.join(MODES)}; got {mode!r}")


def _resolve_seed(dropout: float, seed: int | None) -> int:
    """The seed to use: the caller's, or a fresh one when sampling without one."""
    if seed is None:
        return secrets.randbits(64) if dropout else 0
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise EncodeError(f"seed must be an integer from 0 to {MAX_SEED}; got {seed!r}")
    return seed


def _dropout_args(dropout: float, seed: int | None) -> tuple[float, int]:
    """Checked (dropout, seed) for the engine."""
    if isinstance(dropout, bool) or not isinstance(dropout, (int, float)) \
            or not 0.0 <= dropout <= 1.0:
        raise EncodeError(f"dropout must be a number from 0 to 1; got {dropout!r}")
    return float(dropout), _resolve_seed(dropout, seed)


def packed_pieces(pieces: Sequence[str]) -> tuple[str, bytes]:
    """A model's pieces as the engine takes them: their texts back to back, and where
    each ends (in characters, native-endian u32)."""
    return _joined(pieces), _u32_bytes(itertools.accumulate(map(len, pieces)), len(pieces))


def _joined(strings: Sequence[str]) -> str:
    """``"".join(strings)``, a slice at a time: one join of a 100k-token model's pieces
    held the GIL for ~5 ms."""
    return "".join(["".join(strings[start:start + _PACK_SLICE])
                    for start in range(0, len(strings), _PACK_SLICE)])


def _u32_bytes(values: Iterable[int], count: int) -> bytes:
    """``count`` values as native-endian u32 bytes, converted a slice at a time."""
    import numpy as np

    out = np.empty(count, dtype=np.uint32)
    it = iter(values)
    for start in range(0, count, _PACK_SLICE):
        n = min(_PACK_SLICE, count - start)
        out[start:start + n] = np.fromiter(it, dtype=np.uint32, count=n)
    return out.tobytes()
