"""The vocabulary table's data, Qt-free: one row per token, sorted and filtered as arrays.

A :class:`VocabColumns` holds every column as a NumPy array (or a list of strings),
built once per :class:`BPEModel`; the window's table model
(:class:`bpe_desktop.ui.vocabulary.table_model.VocabTableModel`) shows the rows listed in an
index array, so sorting and filtering are array operations and never touch Qt items:
at 100,000 tokens neither a QSortFilterProxyModel nor item widgets would keep up.

Sorting uses one stable permutation of *all* ids per (column, order), computed the first
time it is needed; the filtered view in that order is then ``perm[mask[perm]]``, so a
filter keeps the current sort and re-sorting a filtered view costs O(n), not O(n log n).
Missing values (the rank of a base symbol, an unrecorded count) sort last in both orders.

:class:`TokenUsage` segments the model's kept training words once, for the "words using
this token" list and the Zipf plot.

The numeric columns come from the engine as arrays (:meth:`BPEModel.origins`); the texts
(readable piece, surface text) are Python strings, for the filter's ``in`` and ``re``.
Building them and segmenting the words takes long enough at 100,000 tokens that the window
does it in a worker thread. Every C call over all tokens (a ``map``, a ``join``) is cut
into :data:`CHUNK`-sized calls: the interpreter hands the GIL to the GUI thread only
between bytecodes.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from dataclasses import dataclass, field

import numpy as np
import numpy.ma  # noqa: F401 (np.unique imports it on first use: now, not on a click)

from bpe_desktop.core import BPEModel, EncodeError, Tokenizer
from bpe_desktop.core.chunked import CHUNK, chunks, map_chunked
from bpe_desktop.core.evaluation.vocabulary import intermediate_mask
from bpe_desktop.core.model import BASE, MERGED, SPECIAL  # noqa: F401 (the kinds' home here)
from bpe_desktop.core.pieces import readable_columns, surface_text

#: What makes a pattern see past the line it matches in, or refuse a line that it would
#: accept as a whole string: lookarounds, string anchors, possessive quantifiers and
#: atomic groups (which may swallow a line break and then fail), and inline flag groups
#: (which may switch MULTILINE off). Escaped backslashes are removed before looking.
_CONTEXT_SENSITIVE = re.compile(r"\(\?[=!<>(]|\\[AZz]|[*+?}]\+|\(\?[a-zA-Z]*-")

# Columns, in display order.
COL_ID, COL_PIECE, COL_KIND, COL_CHARS, COL_BYTES, COL_RANK, COL_COUNT, COL_LEFT, COL_RIGHT, \
    COL_FINAL = range(10)
HEADERS = ("ID", "Piece", "Kind", "Chars", "Bytes", "Rank", "Count", "Left", "Right",
           "Final")
HEADER_TIPS = (
    "Token id",
    "The token (␣ space, ⇥ tab, ↵ newline, <0xAB> a byte that is not a whole character)",
    "special token, protected string (always one token), base symbol (the alphabet) or "
    "merged token",
    "Length in characters of the text the token stands for",
    "Length in UTF-8 bytes of the text the token stands for",
    "Rank of the merge that created the token (0 = first merge)",
    "How often the pair occurred when it was merged (— = not recorded)",
    "Left part of the merge that created the token",
    "Right part of the merge that created the token",
    "How often the token occurs in the final segmentation of the training words (not "
    "when it was merged; blank until the words are segmented or when none are kept)",
)
#: CSV header: the table's columns with raw values, plus the readable piece.
CSV_HEADER = ("id", "piece", "display", "kind", "chars", "bytes", "rank", "count", "left",
              "right", "final")
NUMERIC_COLUMNS = frozenset({COL_ID, COL_CHARS, COL_BYTES, COL_RANK, COL_COUNT, COL_FINAL})

#: A token's kind: the engine's (SPECIAL, BASE, MERGED), and a protected string.
PROTECTED = 3
KIND_NAMES = ("special", "base", "merged", "protected")

_MISSING_KEY = np.iinfo(np.int64).max
#: Pieces copied into the piece-order sort's array per call (a short hold of the GIL).
_FILL_SLICE = 1000


# =========================================================================================
# Columns (Qt-free)
# =========================================================================================


@dataclass
class VocabColumns:
    """Every column of the table for one model, indexed by token id."""

    pieces: tuple[str, ...]
    display: list[str]  # readable piece
    surface: list[str]  # the text the piece stands for
    kind: np.ndarray  # int8: SPECIAL, BASE, MERGED, PROTECTED
    chars: np.ndarray  # int64
    nbytes: np.ndarray  # int64
    rank: np.ndarray  # int64, -1: not created by a merge
    count: np.ndarray  # int64, -1: none or not recorded
    left: np.ndarray  # int64 token id, -1: none
    right: np.ndarray  # int64 token id, -1: none
    #: int64 final frequency (see core.evaluation.vocabulary), None until known
    final: np.ndarray | None = None
    #: The model's Unicode normalization ("none", "nfc", "nfkc"): its pieces are in that form.
    normalize: str = "none"
    _sort_keys: dict = field(default_factory=dict, repr=False)
    _perms: dict = field(default_factory=dict, repr=False)

    def __len__(self) -> int:
        return len(self.pieces)

    def raw_value(self, token: int, column: int) -> int | str | None:
        """A cell's value: ints, raw pieces, None when missing."""
        if column == COL_ID:
            return token
        if column == COL_PIECE:
            return self.pieces[token]
        if column == COL_KIND:
            return KIND_NAMES[self.kind[token]]
        if column in (COL_LEFT, COL_RIGHT):
            parent = int((self.left if column == COL_LEFT else self.right)[token])
            return self.pieces[parent] if parent >= 0 else None
        if column == COL_FINAL and self.final is None:
            return None
        value = int(_NUMBERS[column](self)[token])
        return None if value < 0 else value

    def sort_key(self, column: int) -> tuple[np.ndarray, np.ndarray | None]:
        """(int64 key per id, missing mask or None); built once per column."""
        cached = self._sort_keys.get(column)
        if cached is None:
            cached = self._sort_keys[column] = self._build_sort_key(column)
        return cached

    def _build_sort_key(self, column: int) -> tuple[np.ndarray, np.ndarray | None]:
        if column == COL_ID:
            return np.arange(len(self), dtype=np.int64), None
        if column == COL_KIND:
            return self.kind.astype(np.int64), None
        if column in (COL_PIECE, COL_LEFT, COL_RIGHT):
            order = self.piece_order()
            if column == COL_PIECE:
                return order, None
            parent = self.left if column == COL_LEFT else self.right
            missing = parent < 0
            return np.where(missing, 0, order[np.maximum(parent, 0)]), missing
        values = _NUMBERS[column](self)
        missing = values < 0
        return values, (missing if missing.any() else None)

    def piece_order(self) -> np.ndarray:
        """Each id's position when the readable pieces are sorted (code-point order)."""
        cached = self._sort_keys.get("piece_order")
        if cached is None:
            # NumPy compares fixed-width strings by code point, as Python does, and sorts
            # them without the GIL (Python's sorted() would hold it throughout). The array
            # is filled a slice at a time at its final width: joining chunks of different
            # widths (np.concatenate) would hold the GIL for the whole copy. The pages are
            # touched first by one NumPy assignment, which lets go of the GIL, so that
            # filling a slice does not also pay for the first touch of fresh memory (slow
            # on virtual machines) while holding it.
            width = max(map_chunked(len, self.display), default=0)
            texts = np.empty(len(self.display), dtype=f"<U{max(width, 1)}")
            texts.view(np.uint8)[:] = 0
            for start in range(0, len(self.display), _FILL_SLICE):
                texts[start:start + _FILL_SLICE] = self.display[start:start + _FILL_SLICE]
            order = np.argsort(texts, kind="stable")
            cached = np.empty(len(self), dtype=np.int64)
            cached[order] = np.arange(len(self), dtype=np.int64)
            self._sort_keys["piece_order"] = cached
        return cached

    def permutation(self, column: int, descending: bool) -> np.ndarray:
        """All ids sorted by ``column``: ties in id order, missing values last."""
        key = (column, descending)
        perm = self._perms.get(key)
        if perm is None:
            values, missing = self.sort_key(column)
            if descending:
                values = -values
            if missing is not None:
                values = np.where(missing, _MISSING_KEY, values)
            perm = self._perms[key] = np.argsort(values, kind="stable")
        return perm


_NUMBERS = {
    COL_CHARS: lambda c: c.chars,
    COL_BYTES: lambda c: c.nbytes,
    COL_RANK: lambda c: c.rank,
    COL_COUNT: lambda c: c.count,
    COL_FINAL: lambda c: c.final if c.final is not None else np.full(len(c), -1, np.int64),
}


def build_columns(model: BPEModel) -> VocabColumns:
    """The table's columns for ``model``: its origins from the engine, its texts."""
    pieces = model.pieces
    cfg = model.config
    origins = model.origins()
    kind = origins.kind.copy()
    kind[np.array([model.piece_to_id(p) for p in cfg.protected], dtype=np.int64)] = PROTECTED
    merged = kind == MERGED  # a protected string shows no merge, as a base symbol
    display, surface, nbytes = readable_columns(
        pieces, cfg, {t.id for t in cfg.special_tokens})
    columns = VocabColumns(
        pieces=pieces, display=display, surface=surface, kind=kind,
        chars=np.array(map_chunked(len, surface), dtype=np.int64),
        nbytes=np.array(nbytes, dtype=np.int64),
        rank=np.where(merged, origins.rank, -1), count=np.where(merged, origins.count, -1),
        left=np.where(merged, origins.left, -1), right=np.where(merged, origins.right, -1),
        normalize=cfg.normalize)
    columns.piece_order()  # the one slow sort key: not on the first click
    return columns


def piece_tooltip(piece: str, shown: str, text: str, data: bytes) -> str:
    """Raw piece, surface text, code points and bytes of one token."""
    points = " ".join(f"U+{ord(c):04X}" for c in text)
    lines = [f"Piece: {piece!r}", f"Shown as: {shown}", f"Text: {text!r}",
             f"Code points: {points or '—'}"]
    if not text.isascii() or data != text.encode("utf-8"):  # multi-byte or partial
        lines.append(f"Bytes: {data.hex(' ').upper()}")
    return "\n".join(lines)


# =========================================================================================
# Filtering (Qt-free)
# =========================================================================================


class TextFilter:
    """Substring or regex matching over the tokens' texts.

    A substring is looked for in the readable piece, its text and the raw piece (so
    typing a space finds ``␣the``, and ``Ġthe`` finds it too): each token's distinct
    fields are joined with newlines (which cannot be typed into the filter) and one
    ``in`` test per token covers all three. The last result is kept, so typing one more
    character only re-checks the tokens that matched before.

    A regex is searched in the readable piece only, as shown in the table: a Python
    call per token costs ~0.3 µs, ~30 ms at 100,000 tokens, so three fields would be too
    slow. When a sample shows that few tokens match and the pattern cannot tell a line
    from a whole string (:func:`_line_safe`), one search over all pieces joined as lines
    replaces the call per token (~10 ms).
    """

    def __init__(self, columns: VocabColumns) -> None:
        self._display = columns.display
        # What is typed is searched in the form the model's pieces are in, as encoding
        # normalizes a text: é typed as e + accent finds the pieces of an NFC model.
        self._form = {"nfc": "NFC", "nfkc": "NFKC"}.get(columns.normalize)
        fields = [columns.display]
        if columns.surface != columns.display:
            fields.append(columns.surface)
        if list(columns.pieces) != columns.display:
            fields.append(list(columns.pieces))
        self._joined: list[str] = []
        for start in range(0, len(columns), CHUNK):
            self._joined.extend("\n".join(dict.fromkeys(parts)) for parts in
                                zip(*(f[start:start + CHUNK] for f in fields)))
        self._folded = map_chunked(str.casefold, self._joined)
        self._last: tuple[str, bool, np.ndarray] | None = None
        # The readable pieces as lines of one text (display_piece draws a newline as ↵).
        self._lines: tuple[str, list[int]] | None = None
        if not any("\n" in s for s in columns.display):
            lengths = np.array(map_chunked(len, columns.display), dtype=np.int64) + 1
            starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
            # Joined and listed a chunk at a time: one join of every piece would hold the
            # GIL throughout (the same text: "\n" between chunks as within them).
            parts = list(chunks(columns.display, CHUNK))
            self._lines = ("\n".join(map_chunked("\n".join, parts, size=1)),
                           [i for part in chunks(starts, CHUNK) for i in part.tolist()])

    def substring(self, needle: str, case_sensitive: bool) -> np.ndarray:
        """Ids (ascending) with a field containing ``needle``."""
        needle = self._normalized(needle)
        if not case_sensitive:
            needle = needle.casefold()
        needle = needle.replace("\n", "")  # a pasted line break: never part of a piece
        hay = self._joined if case_sensitive else self._folded
        last = self._last
        if last is not None and last[1] == case_sensitive and last[0] in needle:
            candidates = last[2]  # refining: only what matched the shorter needle
            ids = candidates[_flags(needle, [hay[i] for i in candidates.tolist()])]
        else:
            ids = np.flatnonzero(_flags(needle, hay))
        # One tuple, replaced whole: a thread reading it meanwhile sees a true cache entry.
        self._last = (needle, case_sensitive, ids)
        return ids

    def regex(self, text: str, case_sensitive: bool) -> np.ndarray:
        """Ids whose readable piece ``re.search`` finds ``text`` in; raises ``re.error``."""
        flags = 0 if case_sensitive else re.IGNORECASE
        text = self._normalized(text)
        pattern = re.compile(text, flags)
        if self._lines is not None and _line_safe(text) and self._rare(pattern):
            return self._scan_lines(re.compile(text, flags | re.MULTILINE), pattern)
        # A chunk at a time: a map of C functions runs no bytecode, so over all pieces it
        # would hold the GIL throughout; between chunks another thread (the GUI) may run.
        search, display, found = pattern.search, self._display, []
        for start in range(0, len(display), CHUNK):
            found.append(np.fromiter(map(bool, map(search, display[start:start + CHUNK])),
                                     dtype=bool))
        return np.flatnonzero(np.concatenate(found)) if found else np.empty(0, np.int64)

    def _normalized(self, text: str) -> str:
        return unicodedata.normalize(self._form, text) if self._form else text

    def _rare(self, pattern: re.Pattern) -> bool:
        """Whether few tokens match (judged on a sample of ~1,000)."""
        sample = self._display[::max(1, len(self._display) // 1000)]
        return sum(1 for s in sample if pattern.search(s)) < 0.3 * len(sample)

    def _scan_lines(self, pattern: re.Pattern, alone: re.Pattern) -> np.ndarray:
        """Search all readable pieces as one text, one line each, jumping to the next
        line after each hit: one C-level scan instead of a Python call per token.

        Only for patterns :func:`_line_safe` accepts: a match within one line is then a
        match of that piece, and every matching piece has one. A match that runs past
        its line (a pattern that can match a line break) is checked on the piece alone
        (``alone``, the pattern without MULTILINE).
        """
        big, starts = self._lines
        display = self._display
        search, n, pos, hits = pattern.search, len(starts), 0, []
        while (m := search(big, pos)) is not None:
            row = bisect.bisect_right(starts, m.start()) - 1
            line_end = starts[row] + len(display[row])
            if m.end() <= line_end or alone.search(display[row]):
                hits.append(row)
            if row + 1 >= n:
                break
            pos = starts[row + 1]
        return np.asarray(hits, dtype=np.int64)


def _flags(needle: str, hay: list[str]) -> np.ndarray:
    """Which of ``hay`` contain ``needle`` (a bool array), a chunk per C call."""
    parts = []
    for start in range(0, len(hay), CHUNK):
        parts.append(np.fromiter((needle in h for h in hay[start:start + CHUNK]), dtype=bool))
    return np.concatenate(parts) if parts else np.zeros(0, dtype=bool)


def _line_safe(text: str) -> bool:
    """Whether a match of ``text`` that lies within one line of a newline-joined text
    (searched with MULTILINE) proves that the line alone matches, and whether every line
    that matches alone has a match there: true when the pattern has none of the
    constructs in :data:`_CONTEXT_SENSITIVE` (``^``, ``$``, ``\\b`` and ``\\B`` behave
    the same at a line's ends as at a string's ends). Conservative: a pattern it is unsure
    of is searched token by token.
    """
    return _CONTEXT_SENSITIVE.search(text.replace("\\\\", "")) is None


# =========================================================================================
# Training words and their segmentations (Qt-free)
# =========================================================================================


class TokenUsage:
    """The model's kept training words, segmented once, indexed by token."""

    def __init__(self, model: BPEModel, tokenizer: Tokenizer | None = None) -> None:
        cfg = model.config
        self.words = map_chunked(lambda wc: wc[0], model.words)
        self.counts = np.array(map_chunked(lambda wc: wc[1], model.words),
                               dtype=np.int64)
        texts = (map_chunked(lambda w: surface_text(w, cfg), self.words)
                 if cfg.byte_level else self.words)
        arrays = _encode_all(tokenizer or model.tokenizer(), texts)
        lengths = np.array(map_chunked(len, arrays), dtype=np.int64)
        self.offsets = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
        self.ids = _concatenate(arrays)
        self.word_of = np.repeat(np.arange(len(arrays), dtype=np.int64), lengths)
        self.vocab_size = model.vocab_size

    def segmentation(self, word: int) -> list[int]:
        return self.ids[self.offsets[word]:self.offsets[word + 1]].tolist()

    def words_with(self, token: int) -> np.ndarray:
        """Indices of the words whose segmentation uses ``token``, most frequent first."""
        found = np.unique(self.word_of[self.ids == token])
        return found[np.argsort(-self.counts[found], kind="stable")]

    def frequencies(self) -> np.ndarray:
        """How often each token occurs when the words are encoded (weighted by count):
        the final frequencies (computed once)."""
        if getattr(self, "_frequencies", None) is None:
            self._frequencies = self._count_frequencies()
        return self._frequencies

    def _count_frequencies(self) -> np.ndarray:
        if not len(self.ids):
            return np.zeros(self.vocab_size, dtype=np.int64)
        weights = self.counts[self.word_of].astype(np.float64)
        return np.rint(np.bincount(self.ids, weights=weights,
                                   minlength=self.vocab_size)).astype(np.int64)


def final_frequencies(model: BPEModel, usage: TokenUsage | None) -> np.ndarray | None:
    """Each token's final frequency: the trainer's count over every training word (the
    model's ``final_counts``), else counted over the kept words ``usage``; None: neither."""
    if model.final_counts is not None:
        return np.array(model.final_counts, dtype=np.int64)
    return usage.frequencies() if usage else None


def _encode_all(tok: Tokenizer, texts: list[str]) -> list[np.ndarray]:
    out: list[np.ndarray] = []
    empty = np.empty(0, dtype=np.uint32)
    for part in chunks(texts, 5000):  # the engine converts each result holding the GIL
        try:
            out.extend(tok.encode_batch(part))
        except EncodeError:  # a word the model cannot encode (no <unk>): skip just that one
            for t in part:
                try:
                    out.append(tok.encode_to_numpy(t))
                except EncodeError:
                    out.append(empty)
    return out


def _concatenate(arrays: list[np.ndarray]) -> np.ndarray:
    """All ``arrays`` as one int64 array, joined a chunk at a time."""
    parts = []
    for part in chunks(arrays, 5000):
        parts.append(np.concatenate(part).astype(np.int64))
    return np.concatenate(parts) if parts else np.empty(0, dtype=np.int64)


@dataclass(frozen=True)
class FilterMask:
    """The rows a filter keeps (None: all), and the filter they were computed for;
    ``error`` says why the filter was refused (an invalid regex: ``mask`` is then None)."""

    spec: tuple
    mask: np.ndarray | None
    error: str | None = None


def make_filter_spec(text: str = "", *, regex: bool = False, case_sensitive: bool = False,
                     min_length: int | None = None, max_length: int | None = None,
                     new_from: int | None = None, intermediate: bool = False) -> tuple:
    """The filter as :func:`compute_mask` takes it (a hashable, comparable tuple);
    ``intermediate`` stays last (the table model reads it there)."""
    return (text, regex, case_sensitive, min_length, max_length, new_from, intermediate)


def spec_error(spec: tuple) -> str | None:
    """Why ``spec`` cannot be applied (its regex does not compile), or None."""
    text, regex = spec[0], spec[1]
    if text and regex:
        try:
            re.compile(text)
        except re.error as exc:
            return _regex_error(exc)
    return None


def _regex_error(exc: re.error) -> str:
    return f"Invalid regular expression: {exc}"


def filter_mask(columns: VocabColumns, text_filter: TextFilter, spec: tuple) -> FilterMask:
    """:func:`compute_mask` for ``spec``, an invalid regex reported in ``error``.

    Safe in a worker thread while the GUI thread reads the same table: it only reads
    ``columns`` (pass a shallow copy, so that ``final`` cannot change under it) and
    ``text_filter``'s texts; the one thing it writes is the filter's last-result cache,
    replaced as a whole tuple that holds true for its own needle whoever wrote it last.
    """
    try:
        return FilterMask(spec, compute_mask(columns, text_filter, spec))
    except re.error as exc:
        return FilterMask(spec, None, _regex_error(exc))


def compute_mask(columns: VocabColumns, text_filter: TextFilter, spec: tuple):
    """Which tokens the filter ``spec`` (text, regex, case_sensitive, min_length,
    max_length, new_from, intermediate) keeps: a bool array, or None when it keeps all.
    Raises ``re.error``. ``new_from`` keeps only the ids from it on (the tokens an
    extension added: they take the ids after the source's). ``intermediate`` keeps only
    intermediate tokens (none while the final frequencies are unknown)."""
    text, regex, case_sensitive, min_length, max_length, new_from, intermediate = spec
    mask = None
    if text:
        if regex:
            ids = text_filter.regex(text, case_sensitive)
        else:
            ids = text_filter.substring(text, case_sensitive)
        mask = np.zeros(len(columns), dtype=bool)
        mask[ids] = True
    if min_length is not None:
        mask = _and(mask, columns.chars >= min_length)
    if max_length is not None:
        mask = _and(mask, columns.chars <= max_length)
    if new_from is not None:
        mask = _and(mask, np.arange(len(columns)) >= new_from)
    if intermediate:
        if columns.final is None:
            return np.zeros(len(columns), dtype=bool)
        mask = _and(mask, intermediate_mask(columns.kind == MERGED, columns.count,
                                            columns.final))
    return mask


def _and(mask: np.ndarray | None, other: np.ndarray) -> np.ndarray:
    return other if mask is None else mask & other
