"""Two or more tokenizers on the same text, word by word, and how far they agree.

Definitions (the help page states the same; tests pin them by hand-computed cases):

* Text is read line by line; its **words** are the whitespace-separated words of each
  line (``str.split``), as the evaluation's text statistics count them.
* Each word is encoded alone by each tokenizer, and its cuts are the predicted
  boundaries of :mod:`bpe_desktop.core.evaluation.segments`: code-point offsets between
  non-empty pieces, markers (``</w>``, ``▁``, GPT-2's ``Ġ``) removed; a cut inside a
  UTF-8 character (byte-level or byte-fallback pieces) is kept apart, at its byte offset.
* A word is **compared** when both tokenizers see it with the same length in code points
  (a normalization can change it; such words are counted as ``skipped``).
* **Boundary agreement** of B against A uses the morphology metrics' definitions with A's
  cuts as the gold boundaries and B's as the predicted ones, micro-averaged over the
  compared running words: hits = cuts in both (cuts inside a character match only at the
  same byte), **precision** = Σ hits / Σ B's cuts, **recall** = Σ hits / Σ A's cuts,
  **F1** their harmonic mean; 0 when undefined.
* **identical_words** = share of compared running words whose cuts are the same.
* **tokens** per line: the ids each tokenizer produces for the whole line (in context,
  bos/eos excluded); ``tokens_a`` / ``tokens_b`` are their sums.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from bpe_desktop.core.errors import TrainingCancelled
from bpe_desktop.core.evaluation.morphology import BoundaryScores
from bpe_desktop.core.evaluation.segments import Segmentation, Segmenter
from bpe_desktop.core.model import BPEModel
from bpe_desktop.core.pieces import display_piece


@dataclass(frozen=True)
class Token:
    """One token of a word as its tokenizer produced it (for hover and display)."""

    piece: str  # readable (markers kept, bytes decoded)
    id: int
    rank: int | None  # the merge that created it; None for alphabet and specials


@dataclass(frozen=True)
class Cut:
    """One word as one tokenizer cuts it."""

    tokens: tuple[Token, ...]
    #: the word's pieces as text (markers removed; an unknown token shows its characters).
    pieces: tuple[str, ...]
    boundaries: frozenset[int]
    #: cuts inside a character (byte-level), as byte offsets.
    inside: frozenset[int]
    length: int

    @property
    def predicted(self) -> int:
        return len(self.boundaries) + len(self.inside)


@dataclass(frozen=True)
class AlignedWord:
    """A distinct word of the text with each tokenizer's cut of it."""

    word: str
    cuts: tuple[Cut, ...]

    def comparable(self, a: int, b: int) -> bool:
        return self.cuts[a].length == self.cuts[b].length

    def identical(self, a: int, b: int) -> bool:
        ca, cb = self.cuts[a], self.cuts[b]
        return self.comparable(a, b) and ca.boundaries == cb.boundaries \
            and ca.inside == cb.inside

    def hits(self, a: int, b: int) -> int:
        ca, cb = self.cuts[a], self.cuts[b]
        return len(ca.boundaries & cb.boundaries) + len(ca.inside & cb.inside)


@dataclass(frozen=True)
class Occurrence:
    """A running word: its line (1-based) and its index in ``Alignment.words``."""

    line: int
    word: int


@dataclass(frozen=True)
class PairSummary(BoundaryScores):
    """B against A (see the module docstring)."""

    a: str
    b: str
    words: int
    skipped: int
    identical: int
    hits: int
    predicted: int  # B's cuts over the compared words
    gold: int       # A's cuts over the compared words
    tokens_a: int
    tokens_b: int

    @property
    def compared(self) -> int:
        return self.words - self.skipped

    @property
    def identical_share(self) -> float:
        return self.identical / self.compared if self.compared else 0.0

    def summary(self) -> dict:
        """The JSON fields of ``bpe-desktop compare`` for this pair."""
        return {"a": self.a, "b": self.b, "agreement_precision": self.precision,
                "agreement_recall": self.recall, "agreement_f1": self.f1,
                "identical_words": self.identical_share, "words": self.words,
                "skipped": self.skipped, "tokens_a": self.tokens_a,
                "tokens_b": self.tokens_b}


@dataclass
class Alignment:
    """The text cut by every tokenizer: distinct words, running words, line counts."""

    names: tuple[str, ...]
    words: list[AlignedWord]
    occurrences: list[Occurrence]
    #: per tokenizer, its token count for each line (lines in text order, blank included).
    line_tokens: list[list[int]]

    #: each running word's index in ``words``, as an array.
    occurrence_words: np.ndarray = field(init=False, repr=False)
    #: (distinct word, tokenizer): whether the tokenizer cuts the word differently from
    #: the first. Made with the alignment (in the worker that compares): with
    #: ``occurrence_words``, the running words that differ are one array lookup, no
    #: Python loop on the GUI thread.
    cuts_differ: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.occurrence_words = np.fromiter((o.word for o in self.occurrences),
                                            dtype=np.int64, count=len(self.occurrences))
        differ = [not w.identical(0, k) for w in self.words for k in range(len(self.names))]
        self.cuts_differ = np.array(differ, dtype=bool).reshape(len(self.words),
                                                                len(self.names))

    def pair(self, a: int, b: int) -> PairSummary:
        per_word = [0] * len(self.words)
        for occ in self.occurrences:
            per_word[occ.word] += 1
        skipped = identical = hits = predicted = gold = 0
        for w, count in zip(self.words, per_word):
            if not count:
                continue
            if not w.comparable(a, b):
                skipped += count
                continue
            identical += count * w.identical(a, b)
            hits += count * w.hits(a, b)
            predicted += count * w.cuts[b].predicted
            gold += count * w.cuts[a].predicted
        return PairSummary(self.names[a], self.names[b], len(self.occurrences), skipped,
                           identical, hits, predicted, gold, sum(self.line_tokens[a]),
                           sum(self.line_tokens[b]))


def align(models: Sequence[tuple[str, BPEModel]], lines: Iterable[str], *,
          cancelled: Callable[[], bool] | None = None) -> Alignment:
    """Cut ``lines`` with every model (``(name, model)`` pairs, 2 or more)."""
    text_lines = [ln.rstrip("\r\n") for ln in lines]
    index: dict[str, int] = {}
    occurrences: list[Occurrence] = []
    for number, line in enumerate(text_lines, 1):
        for word in line.split():
            i = index.setdefault(word, len(index))
            occurrences.append(Occurrence(number, i))
    distinct = list(index)
    per_model: list[list[Cut]] = []
    line_tokens: list[list[int]] = []
    for _, model in models:
        _check(cancelled)
        tok = model.tokenizer()
        per_model.append(_cuts(model, tok, distinct))
        _check(cancelled)
        _, lengths = tok.encode_batch_flat(text_lines)
        line_tokens.append([int(n) for n in lengths])
    words = [AlignedWord(w, tuple(cuts[i] for cuts in per_model))
             for i, w in enumerate(distinct)]
    return Alignment(tuple(n for n, _ in models), words, occurrences, line_tokens)


def _cuts(model: BPEModel, tok, words: list[str]) -> list[Cut]:
    ids, lengths = tok.encode_batch_flat(words)
    flat = ids.tolist()
    segmenter = Segmenter(model)
    config, pieces = model.config, model.pieces
    made: dict[int, Token] = {}  # one Token per id, shared by every word using it
    out, start = [], 0
    for word, n in zip(words, lengths.tolist()):
        word_ids = flat[start:start + n]
        start += n
        seg = segmenter.segment(word_ids, word=word)
        for i in word_ids:
            if i not in made:
                made[i] = Token(display_piece(pieces[i], config), i, model.token_info(i).rank)
        tokens = tuple(made[i] for i in word_ids)
        out.append(Cut(tokens, _surface_pieces(word, seg), seg.boundaries, seg.inside_at,
                       seg.length))
    return out


def _surface_pieces(word: str, seg: Segmentation) -> tuple[str, ...]:
    """The word's own characters between the cuts, when they line up with it."""
    if seg.inside or seg.length != len(word):
        return seg.pieces
    cuts = [0, *sorted(seg.boundaries), len(word)]
    return tuple(word[a:b] for a, b in itertools.pairwise(cuts))


def _check(cancelled: Callable[[], bool] | None) -> None:
    if cancelled is not None and cancelled():
        raise TrainingCancelled("comparison cancelled")
