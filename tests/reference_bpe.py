"""A tiny, naive, obviously-correct BPE trainer: the executable spec of the engine.

Everything is recomputed from scratch after every merge (O(merges x corpus)), symbols are
plain Python strings, and each rule of the engine's specification is one short piece of
code below. The tests compare the Rust engine against it merge for merge.

The rules (see ``bpe_desktop.core.config`` and ``bpe_desktop.core.training``):

* Input: ``(word, count)`` pairs in first-seen order; a word is a string (or list) of
  characters, already pre-tokenized and normalized.
* Boundary markers: ``eow-symbol`` appends the symbol ``</w>``; ``eow-suffix`` glues
  ``</w>`` onto the last character; ``bow-prefix`` prepends the symbol ``▁``; ``none``.
* Character coverage < 1: characters sorted by frequency (descending, ties by code point
  ascending) are kept until their cumulative share of all characters is >= the coverage;
  every other character becomes the unknown symbol, which never takes part in a pair.
  Coverage is computed over the plain characters of the words (markers are not
  characters), as ``cumulative / total >= coverage`` in floating point. Characters that
  are in the alphabet anyway (``initial_alphabet``; ``▁`` under ``bow-prefix``) are always
  kept: replacing them in the words would break "a training word re-encodes to its
  training segmentation", since the encoder finds them in the vocabulary. With ``eow-suffix`` an unknown last character
  is just the unknown symbol (the marker cannot be glued to it).
* Alphabet: every initial symbol (markers and glued ``c</w>`` symbols included, the
  unknown symbol excluded) plus the ``initial_alphabet`` characters, sorted by code point.
* Pair counts: every adjacent position, overlaps included, weighted by the word count.
  A merge is applied left to right without overlap.
* Ties: ``first-seen`` is the first pair in corpus scan order (``max(pairs,
  key=pairs.get)`` over a dict filled word by word); ``lexicographic`` is the greatest
  ``(left, right)``; ``codepoint`` is the smallest ``(id(left), id(right))`` with the
  alphabet numbered 0..n-1 in code-point order and new tokens numbered in creation order.
* Stop before a merge when ``merges`` merges are done, when specials + alphabet + distinct
  merged tokens >= ``vocab_size``, when no pair is left, or when the best count is below
  ``min_frequency``. A pair whose concatenation is a special token's piece is never a
  candidate.
* A merge whose result already is a token reuses it; every word changed by that merge is
  then re-encoded from its initial symbols with all merges so far (:func:`encode_word`).
* Boundaries inside words (MorphBPE): ``cuts[i]`` holds character offsets inside word
  ``i``; a pair whose two symbols meet at such an offset is neither counted nor merged
  (markers take no characters; an unknown symbol takes one). Re-encoding respects them.
* ``forbidden`` pairs are never candidates (BPE-knockout).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Iterable, Mapping, Sequence

EOW = "</w>"
BOW = "\u2581"
UNK = "<unk>"

BOUNDARIES = ("eow-symbol", "eow-suffix", "bow-prefix", "none")
TIES = ("first-seen", "lexicographic", "codepoint")

Pair = tuple[str, str]


# -- byte-level words -------------------------------------------------------------------


def gpt2_byte_chars() -> list[str]:
    """GPT-2's ``bytes_to_unicode``: printable bytes stand for themselves, the others
    (space, controls, ...) for the characters from U+0100 on, in byte order."""
    printable = [*range(0x21, 0x7F), *range(0xA1, 0xAD), *range(0xAE, 0x100)]
    extra = iter(range(0x100, 0x200))
    return [chr(b) if b in printable else chr(next(extra)) for b in range(256)]


def byte_level_words(pre_tokens: Iterable[str]) -> list[tuple[str, int]]:
    """The training words of a byte-level pre-tokenizer: each pre-token's UTF-8 bytes in
    GPT-2's byte characters, counted, in first-seen order."""
    chars = gpt2_byte_chars()
    counts = Counter("".join(chars[b] for b in t.encode("utf-8")) for t in pre_tokens)
    return list(counts.items())


# -- the seed-000 encoder and the seed-002 style greedy matcher --------------------------


def merge_pair(symbols: Sequence[str], pair: Pair, blocked: frozenset[int] = frozenset()
               ) -> list[str]:
    """Merge every occurrence of ``pair``, left to right, without overlap (never at a
    position in ``blocked``: pairs (i, i+1) that straddle a boundary)."""
    left, right = pair
    out: list[str] = []
    i = 0
    while i < len(symbols):
        if i + 1 < len(symbols) and symbols[i] == left and symbols[i + 1] == right \
                and i not in blocked:
            out.append(left + right)
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return out


def encode_word(symbols: Sequence[str], ranks: Mapping[Pair, int],
                cuts: frozenset[int] = frozenset()) -> list[str]:
    """Seed 000's ``encode``: merge the lowest-ranked adjacent learned pair until none
    (never across a character offset in ``cuts``)."""
    word = list(symbols)
    while True:
        blocked = blocked_positions(word, cuts)
        candidates = [(ranks[p], p) for i, p in enumerate(zip(word, word[1:]))
                      if p in ranks and i not in blocked]
        if not candidates:
            return word
        _, pair = min(candidates)
        word = merge_pair(word, pair, blocked)


def symbol_width(symbol: str) -> int:
    """Characters of the word a symbol stands for (markers none, ``c</w>`` one)."""
    if symbol in (EOW, BOW):
        return 0
    if symbol == UNK:
        return 1
    return len(symbol.removesuffix(EOW).removeprefix(BOW))


def blocked_positions(symbols: Sequence[str], cuts: frozenset[int]) -> frozenset[int]:
    """Positions i where symbols i and i+1 meet at a character offset in ``cuts``."""
    if not cuts:
        return frozenset()
    out, at = set(), 0
    for i, sym in enumerate(symbols[:-1]):
        at += symbol_width(sym)
        if at in cuts:
            out.add(i)
    return frozenset(out)


def greedy_longest_match(
    symbols: Sequence[str], vocab: Iterable[str], unk: str | None = UNK
) -> list[str]:
    """At each position take the longest run of symbols whose concatenation is a token.

    With no such run the single symbol is taken (``unk`` when it is not a token either).
    """
    vocab = set(vocab)
    out: list[str] = []
    i = 0
    while i < len(symbols):
        for j in range(len(symbols), i, -1):
            piece = "".join(symbols[i:j])
            if piece in vocab:
                out.append(piece)
                i = j
                break
        else:
            out.append(symbols[i] if unk is None else unk)
            i += 1
    return out


# -- training -------------------------------------------------------------------------------


def kept_characters(
    words: Sequence[tuple[Sequence[str], int]], coverage: float
) -> set[str]:
    """The characters that survive ``character_coverage``."""
    freq: Counter[str] = Counter()
    for chars, count in words:
        for ch in chars:
            freq[ch] += count
    if coverage >= 1.0:
        return set(freq)
    total = sum(freq.values())
    keep: set[str] = set()
    cumulative = 0
    for ch, f in sorted(freq.items(), key=lambda kv: (-kv[1], kv[0])):
        keep.add(ch)
        cumulative += f
        # the share as a correctly rounded float: a share of exactly 7/10 (or 9/10) meets a
        # coverage of 0.7 (0.9). (cumulative >= coverage * total would not: 0.7 * 10 is
        # 7.000000000000001; nor would exact rationals for 0.9, whose float is above 9/10.)
        if cumulative / total >= coverage:
            break
    return keep


def initial_symbols(
    chars: Sequence[str], boundary: str, keep: set[str] | None = None, unk: str = UNK
) -> list[str]:
    """A word's symbols before any merge: characters (or ``unk``) plus the marker."""
    if boundary not in BOUNDARIES:
        raise ValueError(f"unknown boundary {boundary!r}")
    syms = [c if keep is None or c in keep else unk for c in chars]
    if boundary == "eow-symbol":
        syms.append(EOW)
    elif boundary == "eow-suffix":
        if syms and syms[-1] != unk:
            syms[-1] += EOW
    elif boundary == "bow-prefix":
        syms.insert(0, BOW)
    return syms


def best_pair(pairs: dict[Pair, int], ties: str, ids: Mapping[str, int]) -> Pair:
    """The most frequent pair, ties broken by the rule ``ties`` (``pairs`` filled in scan
    order; ``ids`` numbers the tokens for ``codepoint``)."""
    if ties == "first-seen":
        return max(pairs, key=pairs.get)
    if ties == "lexicographic":
        return max(pairs, key=lambda p: (pairs[p], p))
    return min(pairs, key=lambda p: (-pairs[p], ids[p[0]], ids[p[1]]))


@dataclass
class RefResult:
    alphabet: list[str]
    #: (left, right, count at merge time), in rank order.
    merges: list[tuple[str, str, int]]
    #: (word text, count, final segmentation), in first-seen order.
    words: list[tuple[str, int, list[str]]]
    #: Every ordinary token: alphabet, then new merge results in creation order.
    tokens: list[str] = field(default_factory=list)
    initial: list[list[str]] = field(default_factory=list)

    @property
    def ranks(self) -> dict[Pair, int]:
        ranks: dict[Pair, int] = {}
        for i, (l, r, _) in enumerate(self.merges):
            ranks.setdefault((l, r), i)
        return ranks

    def seed_vocabulary(self) -> dict[str, int]:
        return {" ".join(p): c for _, c, p in self.words}


def train(
    word_counts: Iterable[tuple[str | Sequence[str], int]] | Mapping[str, int],
    *,
    boundary: str = "eow-symbol",
    ties: str = "first-seen",
    min_frequency: int = 2,
    merges: int | None = None,
    vocab_size: int | None = None,
    character_coverage: float = 1.0,
    initial_alphabet: str = "",
    specials: Sequence[str] = (UNK,),
    unk: str = UNK,
    cuts: Sequence[frozenset[int]] | None = None,
    forbidden: frozenset[Pair] = frozenset(),
    start: tuple[Sequence[str], Sequence[Sequence[str]]] | None = None,
    never_merged: frozenset[str] = frozenset(),
) -> RefResult:
    if ties not in TIES:
        raise ValueError(f"unknown tie rule {ties!r}")
    if isinstance(word_counts, Mapping):
        word_counts = word_counts.items()
    items = [(list(w), int(c)) for w, c in word_counts]

    # Characters that are alphabet symbols anyway (initial_alphabet, and '▁' when it is the
    # marker) are never replaced: the encoder could not tell them from the kept ones.
    keep = kept_characters(items, character_coverage) | set(initial_alphabet)
    if boundary == "bow-prefix" and items:
        keep.add(BOW)
    if character_coverage >= 1.0:
        keep = None  # nothing is ever replaced
    initial = [initial_symbols(chars, boundary, keep, unk) for chars, _ in items]
    segs = [list(s) for s in initial]
    counts = [c for _, c in items]
    cuts = [frozenset(c) for c in cuts] if cuts is not None else [frozenset()] * len(items)

    alphabet = sorted({s for seg in initial for s in seg if s != unk} | set(initial_alphabet))
    special_pieces = set(specials)
    if start is not None:
        # Continued training: the tokens in id order are the alphabet (and the tie ids),
        # each word starts as given, and no pair may form an existing token.
        alphabet = list(start[0])
        initial = [list(s) for s in start[1]]
        segs = [list(s) for s in initial]
        special_pieces |= set(alphabet)
    ids = {s: i for i, s in enumerate(alphabet)}  # codepoint tie ids; tokens in order
    n_specials = len(specials)

    learned: list[tuple[str, str, int]] = []
    ranks: dict[Pair, int] = {}
    while True:
        if merges is not None and len(learned) >= merges:
            break
        if vocab_size is not None and n_specials + len(ids) >= vocab_size:
            break
        pairs: dict[Pair, int] = {}
        for seg, count, cut in zip(segs, counts, cuts):
            blocked = blocked_positions(seg, cut)
            for i, (a, b) in enumerate(zip(seg, seg[1:])):
                if a == unk or b == unk or a + b in special_pieces or i in blocked \
                        or (a, b) in forbidden or a in never_merged or b in never_merged:
                    continue
                pairs[(a, b)] = pairs.get((a, b), 0) + count
        if not pairs:
            break
        best = best_pair(pairs, ties, ids)
        if pairs[best] < min_frequency:
            break

        result = best[0] + best[1]
        duplicate = result in ids
        if not duplicate:
            ids[result] = len(ids)
        learned.append((best[0], best[1], pairs[best]))
        ranks.setdefault(best, len(learned) - 1)
        for i, seg in enumerate(segs):
            merged = merge_pair(seg, best, blocked_positions(seg, cuts[i]))
            if len(merged) != len(seg):
                segs[i] = encode_word(initial[i], ranks, cuts[i]) if duplicate else merged

    words = [("".join(chars), c, seg) for (chars, c), seg in zip(items, segs)]
    return RefResult(alphabet=alphabet, merges=learned, words=words, tokens=list(ids),
                     initial=initial)


def parse_seed_vocabulary(vocab: Mapping[str, int]) -> list[tuple[str, int]]:
    """``{'l o w </w>': 5}`` (the seeds' notation) -> ``[('low', 5)]`` for eow-symbol."""
    out = []
    for spelled, count in vocab.items():
        syms = spelled.split()
        if not syms or syms[-1] != EOW:
            raise ValueError(f"{spelled!r} does not end with {EOW}")
        out.append(("".join(syms[:-1]), count))
    return out


def train_with_config(words: Iterable[tuple[str, int]], config) -> RefResult:
    """``train`` with the options of a ``TrainConfig`` (read by name, not imported)."""
    return train(
        words,
        boundary=config.boundary,
        ties=config.ties,
        min_frequency=config.min_frequency,
        merges=config.merges,
        vocab_size=config.vocab_size,
        character_coverage=config.character_coverage,
        initial_alphabet=config.initial_alphabet,
        specials=[t.piece for t in config.special_tokens],
    )


def train_parity(
    languages: Sequence[Sequence[tuple[str, int]]],
    dev: Sequence[Sequence[tuple[str, int]]],
    *,
    boundary: str = "eow-symbol",
    ties: str = "first-seen",
    min_frequency: int = 2,
    merges: int | None = None,
    vocab_size: int | None = None,
    specials: Sequence[str] = (UNK,),
    unk: str = UNK,
    measure: str = "tokens",
    window: int = 0,
) -> tuple[RefResult, list[int]]:
    """Parity-aware BPE (Foroutan et al. 2025) with the rules of :func:`train`.

    ``languages[l]``: language ``l``'s (word, count) table; ``dev[l]``: its development
    words. The training table is the languages' words in first-seen order (languages in
    order), a word's count the sum over the languages. Before each merge the languages are
    ordered by development tokens (``measure="tokens-per-character"``: per character),
    highest first (ties: the language given first; one without development characters
    never chooses); with a ``window`` of W, a language that chose more than 2W/L of the
    last W merges (L languages) is left out; the first that has a pair
    counting at least ``min_frequency`` in its own words (counted as :func:`train` counts,
    over the words it has, in table order, so ties follow the same rules) chooses it. The
    merge is applied to every word and every development word. The recorded count is the
    pair's count over all languages. Returns the result and, per merge, the choosing
    language.
    """
    if ties not in TIES:
        raise ValueError(f"unknown tie rule {ties!r}")
    n = len(languages)
    rows: dict[str, list[int]] = {}
    for l, table in enumerate(languages):
        for word, count in table:
            rows.setdefault(word, [0] * n)[l] += count
    items = [(list(w), sum(r)) for w, r in rows.items()]
    per_lang = list(rows.values())
    initial = [initial_symbols(chars, boundary) for chars, _ in items]
    alphabet = sorted({s for seg in initial for s in seg})
    ids = {s: i for i, s in enumerate(alphabet)}
    known = set(alphabet)
    dev_initial = [[s if s in known else unk for s in initial_symbols(list(w), boundary)]
                   for table in dev for w, _ in table]
    dev_rows = [(l, c, len(w)) for l, table in enumerate(dev) for w, c in table]
    chars = [sum(c * k for l2, c, k in dev_rows if l2 == l) for l in range(n)]
    segs = [list(s) for s in initial]
    dev_segs = [list(s) for s in dev_initial]
    special_pieces = set(specials)
    learned: list[tuple[str, str, int]] = []
    chosen: list[int] = []
    ranks: dict[Pair, int] = {}

    def pairs_of(l: int) -> dict[Pair, int]:
        pairs: dict[Pair, int] = {}
        for seg, row in zip(segs, per_lang):
            if not row[l]:
                continue
            for a, b in zip(seg, seg[1:]):
                if a == unk or b == unk or a + b in special_pieces:
                    continue
                pairs[(a, b)] = pairs.get((a, b), 0) + row[l]
        return pairs

    while True:
        if merges is not None and len(learned) >= merges:
            break
        if vocab_size is not None and len(specials) + len(ids) >= vocab_size:
            break
        tokens = [sum(c * len(dev_segs[i]) for i, (l2, c, _) in enumerate(dev_rows) if l2 == l)
                  for l in range(n)]
        order = sorted((l for l in range(n) if chars[l]),
                       key=lambda l: (-Fraction(tokens[l], chars[l] if measure != "tokens"
                                                else 1), l))
        if window:
            recent = chosen[-window:]
            order = [l for l in order if recent.count(l) * n <= 2 * window]
        pick = None
        for l in order:
            pairs = pairs_of(l)
            if not pairs:
                continue
            best = best_pair(pairs, ties, ids)
            if pairs[best] >= min_frequency:
                pick = l, best
                break
        if pick is None:
            break
        lang, best = pick
        total = sum(pairs_of(l).get(best, 0) for l in range(n))
        result = best[0] + best[1]
        duplicate = result in ids
        if not duplicate:
            ids[result] = len(ids)
        learned.append((best[0], best[1], total))
        chosen.append(lang)
        ranks.setdefault(best, len(learned) - 1)
        for group, starts in ((segs, initial), (dev_segs, dev_initial)):
            for i, seg in enumerate(group):
                merged = merge_pair(seg, best)
                if len(merged) != len(seg):
                    group[i] = encode_word(starts[i], ranks) if duplicate else merged

    words = [("".join(c), k, seg) for (c, k), seg in zip(items, segs)]
    return RefResult(alphabet=alphabet, merges=learned, words=words, tokens=list(ids),
                     initial=initial), chosen
