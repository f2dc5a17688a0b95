"""Everything the Encode / Decode panel shows about a text, computed without Qt.

:func:`encode_text` runs on the GUI thread for short texts and in a worker thread for
long ones, so it works in pieces that each hold the GIL briefly: the ids of the whole text
come from one engine call that releases the GIL, but the engine's per-word call
(``encode_words``, which the word count and the coloured view need) keeps the GIL for its
whole length — 0.65 s for 1 MB — so the text goes to it in chunks of a few KB, cut where
no word can span the cut (:func:`split_points`). The chunks' ids, joined, must equal the
whole text's ids; that is checked, and the whole text is handed over in one call if not.
"""

from __future__ import annotations

import logging
import re
import unicodedata
from dataclasses import dataclass

import numpy as np
import numpy.ma  # noqa: F401 (np.unique imports it on first use: now, not on a click)

from bpe_desktop.core import BpeError, BPEModel, Tokenizer, TrainConfig, _native
from bpe_desktop.core.chunked import no_breath
from bpe_desktop.core.config import EOW
from bpe_desktop.core.evaluation import text_stats
from bpe_desktop.core.pieces import display_piece, piece_bytes

log = logging.getLogger(__name__)

#: At most this many pieces are drawn (and ids written out); statistics, ids and the
#: round trip cover the whole text. The coloured view lays out a few thousand pieces
#: within a frame; many more would take steps longer than a frame on the GUI thread.
SHOW_LIMIT = 5000
#: The text goes to the engine's per-word call in chunks of about this many characters
#: (each a short call, so the GUI thread gets the GIL in between).
CHUNK_CHARS = 4096
#: Ids per line where ids are written out: one huge line is slow to lay out.
IDS_PER_LINE = 200
#: Characters of plain text are drawn as a default model would draw them (␣ for space).
_PLAIN = TrainConfig()



# -- ids as text ----------------------------------------------------------------------------


_ID_SEPARATORS = re.compile(r"[\s,;\[\](){}]+")
_ID = re.compile(r"[+-]?[0-9]+")


def parse_ids(text: str, vocab_size: int, breathe=no_breath) -> list[int]:
    """Ids typed or pasted in any usual form: ``1 2 3``, ``1, 2, 3``, ``[1, 2, 3]``.

    Raises ValueError with a message naming the offending item. A long text is read a
    piece at a time (cut at separators), calling ``breathe`` in between.
    """
    ids: list[int] = []
    start = 0
    for end in _id_cuts(text):
        for item in _ID_SEPARATORS.split(text[start:end]):
            if not item:
                continue
            n = len(ids) + 1
            if not _ID.fullmatch(item):
                raise ValueError(f"“{item[:40]}” (item {n}) is not a number.")
            value = int(item)
            if not 0 <= value < vocab_size:
                raise ValueError(f"Id {value} (item {n}) is outside the vocabulary "
                                 f"(0 to {vocab_size - 1}).")
            ids.append(value)
        start = end
        breathe()
    if not ids:
        raise ValueError("Type or paste ids to decode, e.g. 16 14 or [16, 14].")
    return ids


def _id_cuts(text: str, size: int = 16_384):
    """Positions about ``size`` apart at separators, ending with ``len(text)``."""
    pos = 0
    while len(text) - pos > size:
        found = _ID_SEPARATORS.search(text, pos + size)
        if found is None:
            break
        pos = found.end()
        yield pos
    yield len(text)


def format_ids(ids) -> str:
    """Ids separated by spaces (what Copy ids puts on the clipboard)."""
    return " ".join(map(str, ids))


def format_id_lines(ids) -> str:
    """Ids separated by spaces, :data:`IDS_PER_LINE` to a line (for the text boxes)."""
    ids = list(ids)
    return "\n".join(format_ids(ids[i:i + IDS_PER_LINE])
                     for i in range(0, len(ids), IDS_PER_LINE))


# -- the round trip --------------------------------------------------------------------------


def first_difference(a: str, b: str) -> int | None:
    """The first index where ``a`` and ``b`` differ (None when equal)."""
    if a == b:
        return None
    step = 4096  # compare blocks in C, then characters in the first differing block
    start = 0
    while a[start:start + step] == b[start:start + step]:
        start += step
    for i, (x, y) in enumerate(zip(a[start:start + step], b[start:start + step]), start):
        if x != y:
            return i
    return min(len(a), len(b))


def _describe_char(text: str, i: int) -> str:
    if i >= len(text):
        return "the end"
    ch = text[i]
    return f"“{display_piece(ch, _PLAIN)}” (U+{ord(ch):04X})"


@dataclass(frozen=True)
class RoundTrip:
    """Whether decode(encode(text)) gave the text back, and if not, why."""

    exact: bool
    message: str
    position: int | None = None  # first differing character


def check_round_trip(text: str, decoded: str, model: BPEModel, unknowns: int,
                     unknown_tokens: int | None = None) -> RoundTrip:
    """Compare ``decoded`` with ``text`` and name the likely causes of a difference.

    ``unknowns``: characters that became the unknown token; ``unknown_tokens``: how many
    unknown tokens they became (fewer with ``fuse_unk``: one per run), if not as many.
    Empty text has nothing to check: the message is empty (no verdict shown).
    """
    if not text:
        return RoundTrip(True, "")
    position = first_difference(text, decoded)
    if position is None:
        return RoundTrip(True, "✓ round trip exact: decoding the ids gives the text back")
    cfg = model.config
    reasons = []
    expected = text.replace("\r\n", "\n")
    if expected != text:
        reasons.append("Windows line ends (\\r\\n) became \\n")
    if cfg.normalize != "none":
        normalized = unicodedata.normalize(cfg.normalize.upper(), expected)
        if normalized != expected:
            reasons.append(f"{cfg.normalize.upper()} normalization changed some characters")
            expected = normalized
    if cfg.lowercase and expected.lower() != expected:
        reasons.append("the model lowercases text")
        expected = expected.lower()
    if unknowns:
        unk = cfg.special("unk")
        name = unk.piece if unk else "the unknown token"
        fused = "" if unknown_tokens in (None, unknowns) else \
            f" ({unknown_tokens:,} {name}: one per run of unknown characters)"
        reasons.append(f"{unknowns:,} character(s) outside the vocabulary became {name}{fused}")
    if cfg.protected and not cfg.byte_level and any(p in text for p in cfg.protected):
        reasons.append("the ids do not say whether a space stood next to a protected string: "
                       "decoding puts one only where a word marker is")
    if not cfg.byte_level and expected != decoded and _spacing_changed(expected, decoded, unknowns):
        reasons.append(f"the {cfg.pretokenizer} pre-tokenizer keeps words, not the spacing "
                       "between them: decoding joins words with single spaces")
    if not reasons:
        reasons.append("decoding does not reproduce this text")
    where = (f"first difference at character {position:,}: text has "
             f"{_describe_char(text, position)}, decoded has {_describe_char(decoded, position)}")
    return RoundTrip(False, "✗ round trip differs: " + "; ".join(reasons) + f" ({where})",
                     position)


def _spacing_changed(expected: str, decoded: str, unknowns: int) -> bool:
    """Whether decoding changed the whitespace (words come back joined by single spaces)."""
    regular = " ".join(expected.split()) == expected
    if unknowns:  # <unk> hides characters: judge by the text's own spacing
        return not regular
    return not regular or "".join(expected.split()) == "".join(decoded.split())


# -- statistics and the drawn pieces -----------------------------------------------------------


@dataclass(frozen=True)
class Stats:
    """Statistics of one encoding, always over the whole text: ``tokens`` are its ids (a
    byte-level model encodes line breaks too); ``characters`` and ``words`` are counted
    as Evaluate's text statistics count them (line breaks are not characters; words are
    whitespace-separated), so that the ratios are the same measures."""

    tokens: int
    characters: int
    words: int
    unknowns: int
    distinct: int
    other_mode_tokens: int  # the same text in the other mode, for comparison

    @property
    def chars_per_token(self) -> float:
        return text_stats.characters_per_token(self.characters, self.tokens)

    @property
    def tokens_per_word(self) -> float:
        return text_stats.tokens_per_word(self.tokens, self.words)


@dataclass(frozen=True, slots=True)
class PieceItem:
    """One piece as drawn: its id, spelling, rendering and what follows it (slots: up to
    20,000 of them live while shown, and each object the garbage collector tracks makes
    its full passes longer)."""

    id: int
    piece: str
    text: str  # display_piece(piece): markers kept, whitespace drawn
    unknown: bool
    word: int  # index of the word (pre-token) it belongs to
    #: What is drawn after it: "" (same word), "word" (next word) or "line" (line break).
    after: str = ""


@dataclass(frozen=True)
class Encoding:
    ids: np.ndarray
    stats: Stats
    items: list[PieceItem]  # the first SHOW_LIMIT pieces, as drawn
    words: list[str]  # the words those pieces belong to
    round_trip: RoundTrip


def split_points(text: str, start: int = 0, end: int | None = None,
                 size: int = CHUNK_CHARS) -> list[int]:
    """Positions in ``text[start:end]``, a little over ``size`` characters apart, where the
    text can be cut without changing its words under any setting; the last one is ``end``.
    The rule is the engine's (``encode_batch`` cuts its pieces there too)."""
    end = len(text) if end is None else end
    part = text if start == 0 and end == len(text) else text[start:end]
    points = _native.call(_native.engine().encode_cut_points, part, size)
    return [start + p for p in points] if start else points


class _Collector:
    """Gathers the drawn pieces (up to ``limit``) while the text is encoded word by word.

    ``drawn`` caches each id's rendering (and whether a line ends after it) across calls
    for one model: the panel keeps it while the model is current.
    """

    def __init__(self, tok: Tokenizer, limit: int, drawn: dict | None = None) -> None:
        self.cfg = tok.model.config
        self.pieces = tok.model.pieces
        self.unk = tok.unk_id()
        self.limit = limit
        self.items: list[PieceItem] = []
        self.words: list[str] = []
        self._drawn = {} if drawn is None else drawn  # id -> (rendering, "line" or "")

    @property
    def full(self) -> bool:
        return len(self.items) >= self.limit

    def _rendering(self, i: int) -> tuple[str, str]:
        found = self._drawn.get(i)
        if found is None:
            piece, cfg = self.pieces[i], self.cfg
            breaks = cfg.byte_level and b"\n" in piece_bytes(piece, cfg)
            found = self._drawn[i] = (display_piece(piece, cfg), "line" if breaks else "")
        return found

    def add(self, words: list) -> None:
        items, pieces, unk, limit = self.items, self.pieces, self.unk, self.limit
        # An unknown last character hides the glued </w> (the token replaced "ä</w>"):
        # drawn as <unk></w>, as Tokenizer.encoding shows it, so the word still ends.
        glued = self.cfg.boundary == "eow-suffix"
        for word, ids in words:
            index, last = len(self.words), len(ids) - 1
            self.words.append(word)
            for k, i in enumerate(ids):
                rendering, after = self._rendering(i)
                piece = pieces[i]
                if k == last and not after:
                    after = "word"
                    if glued and i == unk and not piece.endswith(EOW):
                        piece += EOW
                        rendering = display_piece(piece, self.cfg)
                items.append(PieceItem(i, piece, rendering, i == unk, index, after))
                if len(items) >= limit:
                    return

    def end_line(self) -> None:
        if self.items and not self.full:
            self.items[-1] = _with_after(self.items[-1], "line")


def _with_after(item: PieceItem, after: str) -> PieceItem:
    return PieceItem(item.id, item.piece, item.text, item.unknown, item.word, after)


@dataclass
class _Pass:
    """One walk over the text's words: each chunk's ids, where the words end."""

    chunk_ids: list = None  # list of int lists, one per chunk, in order
    word_ends: list = None  # the index after each word's last id, over the whole text
    tokens: int = 0

    def __post_init__(self) -> None:
        self.chunk_ids = []
        self.word_ends = []

    def add(self, words: list) -> None:
        self.chunk_ids.append([i for _, ids in words for i in ids])
        for _, ids in words:
            self.tokens += len(ids)
            self.word_ends.append(self.tokens)


def _walk_words(tok: Tokenizer, text: str, mode: str, shown: _Collector, breathe) -> _Pass:
    """Encode ``text`` word by word in chunks, filling ``shown`` and counting."""
    cfg = tok.model.config
    walk = _Pass()
    pos = 0
    if not cfg.byte_level:
        # Line by line while pieces are drawn: the view keeps the text's line breaks,
        # which the words alone do not show (no such pre-tokenizer lets a word span lines).
        while pos < len(text) and not shown.full:
            end = text.find("\n", pos)
            line_end = len(text) if end < 0 else end
            last = pos
            for cut in split_points(text, pos, line_end):
                words = tok.encode_words(text[last:cut], mode=mode)
                walk.add(words)
                shown.add(words)
                last = cut
                breathe()
            shown.end_line()
            pos = line_end + 1
        pos = min(pos, len(text))
    last = pos
    for cut in split_points(text, pos):
        words = tok.encode_words(text[last:cut], mode=mode)
        walk.add(words)
        if not shown.full:
            shown.add(words)
        last = cut
        breathe()
    return walk


def encode_text(tok: Tokenizer, text: str, mode: str, limit: int = SHOW_LIMIT,
                breathe=no_breath, drawn: dict | None = None) -> Encoding:
    """Everything the panel shows about ``text``; raises BpeError (e.g. no ``<unk>``).

    ``drawn``: a cache of the pieces' renderings to use and fill (one per model)."""
    ids = tok.encode_to_numpy(text, mode=mode)  # the engine releases the GIL here
    breathe()
    other = "greedy" if mode == "merges" else "merges"
    other_tokens = len(tok.encode_to_numpy(text, mode=other))
    breathe()
    shown = _Collector(tok, limit, drawn)
    walk = _walk_words(tok, text, mode, shown, breathe)
    if not _same_ids(ids, walk.chunk_ids, breathe):
        # A cut changed a word after all: count on the whole text (holds the GIL longer).
        log.warning("encoding in chunks differed from encoding the whole text; "
                    "counting words on the whole text")
        words = tok.encode_words(text, mode=mode)
        walk = _Pass()
        walk.add(words)
        shown = _Collector(tok, limit, drawn)
        shown.add(words)
    unk = tok.unk_id()
    unknowns = int(np.count_nonzero(ids == unk)) if unk >= 0 else 0
    characters, words = _characters_and_words(text, tok.model.config, breathe)
    stats = Stats(tokens=len(ids), characters=characters, words=words, unknowns=unknowns,
                  distinct=len(np.unique(ids)), other_mode_tokens=other_tokens)
    breathe()
    decoded = _decode(tok, ids, walk, breathe)
    characters = unknown_characters(tok, text, mode) if unknowns else 0
    return Encoding(ids, stats, shown.items, shown.words,
                    check_round_trip(text, decoded, tok.model, characters, unknowns))


def _characters_and_words(text: str, config: TrainConfig, breathe) -> tuple[int, int]:
    """:func:`text_stats.characters_and_words` of ``text``, a few lines at a time."""
    characters = words = start = 0
    while start < len(text):
        end = text.find("\n", start + 16 * CHUNK_CHARS)
        end = len(text) if end < 0 else end + 1
        counts = text_stats.characters_and_words(text[start:end], config)
        characters, words, start = characters + counts[0], words + counts[1], end
        breathe()
    return characters, words


def unknown_characters(tok: Tokenizer, text: str, mode: str = "merges") -> int:
    """Characters of ``text`` outside the vocabulary: the unknown tokens an encoder that
    does not fuse runs of them gives (``fuse_unk`` gives one per run)."""
    model = tok.model
    if model.config.fuse_unk:
        from dataclasses import replace

        model = replace(model, config=replace(model.config, fuse_unk=False))
        tok = model.tokenizer()
    unk = tok.unk_id()
    return int(np.count_nonzero(tok.encode_to_numpy(text, mode=mode) == unk)) if unk >= 0 \
        else 0


def _same_ids(ids: np.ndarray, chunk_ids: list, breathe) -> bool:
    """Whether the chunks' ids, joined, are ``ids``."""
    if sum(map(len, chunk_ids)) != len(ids):
        return False
    offset = 0
    for chunk in chunk_ids:
        if not np.array_equal(ids[offset:offset + len(chunk)], chunk):
            return False
        offset += len(chunk)
        breathe()
    return True


def _decode(tok: Tokenizer, ids: np.ndarray, walk: _Pass, breathe) -> str:
    """What decoding the ids gives (the Decode box, ``bpe-desktop decode``), a chunk at a
    time where that gives the same text.

    Without word markers decoding maps each id to its bytes and joins them, and chunks
    end with whole words (whole characters), so the chunks' texts join exactly. With
    markers, one call. The one word end ids lose is one an unknown token hid (with
    ``</w>`` glued on, the token replaced "ä</w>"): that call is told where those words
    end, so the word is not run into the next ("kiss<unk> ja"). Every other word end is
    in the ids or, next to a protected string, in none of them: the check judges what
    the ids say.
    """
    if tok.model.config.boundary != "none":
        unk = tok.unk_id()
        hidden = [] if tok.model.config.boundary != "eow-suffix" or unk < 0 else \
            [end for end in walk.word_ends if end and ids[end - 1] == unk]
        return tok.decode_words(ids.tolist(), hidden)
    parts = []
    for chunk in walk.chunk_ids:
        parts.append(tok.decode(chunk))
        breathe()
    return "".join(parts)


def as_typed(text: str) -> str:
    """``text`` as the input box holds it (what ``setPlainText`` then reading it back
    gives): a leading byte-order mark is dropped, and \\r\\n, \\r, U+2029 and Qt's
    frame markers U+FDD0/U+FDD1 end a line, read back as \\n."""
    text = text.removeprefix("\ufeff")
    return (text.replace("\r\n", "\n").replace("\r", "\n").replace("\u2029", "\n")
            .replace("\ufdd0", "\n").replace("\ufdd1", "\n"))


@dataclass(frozen=True)
class DecodeResult:
    ids: int = 0  # how many ids
    text: str = ""
    same_ids: bool = False  # re-encoding the text gives the ids back
    again: int = 0  # how many ids re-encoding gives
    error: str = ""


def decode_ids(tok: Tokenizer, typed: str, mode: str, breathe=no_breath) -> DecodeResult:
    """Decode ids as typed; re-encode the text to tell whether they are the model's own."""
    try:
        ids = parse_ids(typed, tok.vocab_size, breathe)
        text = tok.decode(ids)
        breathe()
        again = tok.encode_to_numpy(text, mode=mode)
    except ValueError as exc:
        return DecodeResult(error=str(exc))
    except BpeError as exc:
        return DecodeResult(error=f"Cannot decode: {exc}")
    return DecodeResult(len(ids), text, bool(np.array_equal(again, ids)), len(again))
