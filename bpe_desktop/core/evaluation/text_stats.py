"""Statistics of a tokenizer on running text: fertility, compression, Rényi efficiency.

Text is read line by line, as training reads it, so a line break is never inside a
word; line breaks count neither as characters nor as bytes. Tokens exclude bos/eos.

* **tokens**: the ids the model produces for all lines.
* **words**: whitespace-separated words (``str.split``).
* **fertility** = tokens / words.
* **chars_per_token**, **bytes_per_token** = code points (UTF-8 bytes) / tokens.
* **split_share** = share of words whose tokens number ≥ 2 (the tokens of the model's
  pre-tokens that start inside the word; punctuation cut off by the pre-tokenizer makes
  a word split).
* **unknown_rate** = unknown tokens / tokens (byte-fallback tokens are not unknown).
* **utilisation** = distinct ids produced / vocabulary size.
* **renyi_efficiency** (Zouhar et al. 2023) = H_α(p) / log |V|, with p the unigram
  distribution of the produced ids, H_α(p) = log(Σ pᵢ^α) / (1 − α), α = 2.5 by
  default, |V| the vocabulary size; 0 when undefined (no tokens, |V| ≤ 1).

For speed, each line is cut once into the model's pre-tokens (which do not depend on
the merges); the distinct pre-tokens are then encoded, each alone, which gives exactly
the ids of the whole text (a pre-token encodes the same in or out of its line).
"""

from __future__ import annotations

import math
import os
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from bpe_desktop.core.errors import CorpusError
from bpe_desktop.core.model import BPEModel
from bpe_desktop.core.text_files import GZIP_ERRORS, gzip_damage, open_text_bytes

#: Rényi efficiency's order α (Zouhar et al. 2023 found 2.5 correlates best with BLEU).
RENYI_ALPHA = 2.5


def tokens_per_word(tokens: int, words: int) -> float:
    """Fertility (see above); 0 for a text without words."""
    return tokens / words if words else 0.0


def characters_per_token(characters: int, tokens: int) -> float:
    """Code points per token (see above); 0 for a text without tokens."""
    return characters / tokens if tokens else 0.0


@dataclass(frozen=True)
class TextStats:
    tokens: int
    words: int
    characters: int
    bytes: int
    split_words: int
    unknown: int
    distinct_ids: int
    vocab_size: int
    renyi_efficiency: float

    @property
    def fertility(self) -> float:
        return tokens_per_word(self.tokens, self.words)

    @property
    def chars_per_token(self) -> float:
        return characters_per_token(self.characters, self.tokens)

    @property
    def bytes_per_token(self) -> float:
        return self.bytes / self.tokens if self.tokens else 0.0

    @property
    def split_share(self) -> float:
        return self.split_words / self.words if self.words else 0.0

    @property
    def unknown_rate(self) -> float:
        return self.unknown / self.tokens if self.tokens else 0.0

    @property
    def utilisation(self) -> float:
        return self.distinct_ids / self.vocab_size if self.vocab_size else 0.0

    def summary(self) -> dict:
        """The JSON section of the command line (``text``)."""
        return {"tokens": self.tokens, "words": self.words, "fertility": self.fertility,
                "chars_per_token": self.chars_per_token,
                "bytes_per_token": self.bytes_per_token, "split_share": self.split_share,
                "unknown_rate": self.unknown_rate, "utilisation": self.utilisation,
                "renyi_efficiency": self.renyi_efficiency}


def renyi_efficiency(counts: np.ndarray, vocab_size: int, alpha: float = RENYI_ALPHA) -> float:
    """H_α(p) / log |V| of the distribution given by ``counts`` (see module docstring)."""
    total = float(counts.sum())
    if total <= 0 or vocab_size <= 1:
        return 0.0
    p = counts[counts > 0] / total
    if alpha == 1.0:  # the limit: Shannon entropy
        entropy = float(-(p * np.log(p)).sum())
    else:
        entropy = math.log(float((p ** alpha).sum())) / (1.0 - alpha)
    return entropy / math.log(vocab_size)


@dataclass
class TextSample:
    """Text cut into the model's pre-tokens, counted: one pass serves every merge count.

    ``pretokens`` are the distinct pre-tokens, ``counts`` how often each occurs; each
    whitespace word is the run of pre-tokens that start inside it (``word_starts`` /
    ``word_pretokens`` hold the distinct runs in CSR form, ``word_counts`` their counts).
    """

    pretokens: list[str]
    counts: np.ndarray
    word_pretokens: np.ndarray
    word_starts: np.ndarray
    word_counts: np.ndarray
    words: int
    characters: int
    bytes: int

    @classmethod
    def from_lines(cls, model: BPEModel, lines: Iterable[str],
                   cancelled: Callable[[], bool] | None = None) -> TextSample:
        # pre-tokens do not depend on the merges: cut with none, the cheapest encoding
        tok = model.truncated(0).tokenizer()
        cfg = model.config
        index: dict[str, int] = {}
        counts: list[int] = []
        sizes: list[int] = []  # each pre-token's characters that are not spaces
        runs: dict[tuple[int, ...], int] = {}
        words = characters = nbytes = 0
        for n, line in enumerate(lines):
            if cancelled is not None and n % 4096 == 0 and cancelled():
                from bpe_desktop.core.errors import TrainingCancelled

                raise TrainingCancelled("evaluation cancelled")
            line = line.rstrip("\r\n")
            characters += len(line)
            nbytes += len(line.encode("utf-8", errors="surrogatepass"))
            if not line:  # (a line of spaces is read: a byte-level model encodes it)
                continue
            ids = []
            for p, _ in tok.encode_words(line):
                i = index.get(p)
                if i is None:
                    i = index[p] = len(counts)
                    counts.append(0)
                    sizes.append(_visible_size(p))
                counts[i] += 1
                ids.append(i)
            ws_words = encoder_text(line, cfg).split()
            words += len(ws_words)
            placed = [i for i in ids if sizes[i]]
            if len(placed) == len(ws_words) and all(
                    sizes[i] == len(w) for i, w in zip(placed, ws_words)):
                line_runs = [(i,) for i in placed]  # the common case: a pre-token a word
            else:
                line_runs = _runs(ws_words, [sizes[i] for i in ids], ids)
            for run in line_runs:
                runs[run] = runs.get(run, 0) + 1
        return cls._packed(index, counts, runs, words, characters, nbytes)

    @classmethod
    def merged(cls, samples: Sequence[TextSample]) -> TextSample:
        """One sample of several texts (as if their lines were read one after another)."""
        if len(samples) == 1:
            return samples[0]
        index: dict[str, int] = {}
        counts: list[int] = []
        runs: dict[tuple[int, ...], int] = {}
        for sample in samples:
            local = []
            for piece, count in zip(sample.pretokens, sample.counts.tolist()):
                i = index.setdefault(piece, len(counts))
                if i == len(counts):
                    counts.append(0)
                counts[i] += count
                local.append(i)
            ends = [*sample.word_starts.tolist()[1:], len(sample.word_pretokens)]
            flat = sample.word_pretokens.tolist()
            for start, end, count in zip(sample.word_starts.tolist(), ends,
                                         sample.word_counts.tolist()):
                run = tuple(local[i] for i in flat[start:end])
                runs[run] = runs.get(run, 0) + count
        return cls._packed(index, counts, runs, sum(s.words for s in samples),
                           sum(s.characters for s in samples), sum(s.bytes for s in samples))

    @classmethod
    def _packed(cls, index: dict[str, int], counts: list[int],
                runs: dict[tuple[int, ...], int], words: int, characters: int,
                nbytes: int) -> TextSample:
        flat = [i for run in runs for i in run]
        starts = np.zeros(len(runs), dtype=np.int64)
        if runs:
            starts[1:] = np.cumsum([len(r) for r in runs])[:-1]
        return cls(list(index), np.array(counts, dtype=np.int64),
                   np.array(flat, dtype=np.int64), starts,
                   np.array(list(runs.values()), dtype=np.int64), words, characters, nbytes)

    @classmethod
    def from_files(cls, model: BPEModel, paths: Sequence[str | os.PathLike],
                   cancelled: Callable[[], bool] | None = None) -> TextSample:
        return cls.from_lines(model, _read_lines(paths), cancelled)

    def stats(self, model: BPEModel, *, alpha: float = RENYI_ALPHA) -> TextStats:
        """The statistics of ``model`` on this text (``model`` shares the pre-tokenizer
        and normalization of the model the sample was cut with)."""
        ids, lengths = model.tokenizer().encode_batch_flat(self.pretokens)
        return self.stats_of(model, ids, lengths, alpha=alpha)

    def stats_of(self, model: BPEModel, ids: np.ndarray, lengths: np.ndarray, *,
                 alpha: float = RENYI_ALPHA) -> TextStats:
        """The statistics given every pre-token's ids (``ids`` concatenated, ``lengths``
        per pre-token, in :attr:`pretokens` order) under ``model``."""
        weights = np.repeat(self.counts, lengths)
        vocab = model.vocab_size
        per_id = np.bincount(ids, weights=weights, minlength=vocab) if len(ids) else \
            np.zeros(vocab)
        tokens = int((lengths * self.counts).sum())
        split = 0
        if len(self.word_counts):
            values = np.append(lengths[self.word_pretokens], 0)  # 0: room for empty runs
            per_word = np.add.reduceat(values, self.word_starts)
            empty = np.diff(np.append(self.word_starts, len(self.word_pretokens))) == 0
            per_word[empty] = 0  # reduceat repeats a value for empty runs
            split = int(self.word_counts[per_word >= 2].sum())
        unk = model.config.special("unk")
        unknown = int(per_id[unk.id]) if unk is not None and unk.id < vocab else 0
        return TextStats(tokens=tokens, words=self.words, characters=self.characters,
                         bytes=self.bytes, split_words=split, unknown=unknown,
                         distinct_ids=int(np.count_nonzero(per_id)), vocab_size=vocab,
                         renyi_efficiency=renyi_efficiency(per_id, vocab, alpha))


def evaluate_text(model: BPEModel, lines: Iterable[str]) -> TextStats:
    return TextSample.from_lines(model, lines).stats(model)


def characters_and_words(text: str, cfg) -> tuple[int, int]:
    """The characters (code points, line breaks not counted: a line ends at ``\n``, with
    the ``\r`` before it) and the whitespace-separated words of ``text``, as the
    statistics count those of its lines."""
    characters = sum(len(line.rstrip("\r")) for line in text.split("\n"))
    return characters, len(encoder_text(text, cfg).split())


def encoder_text(line: str, cfg) -> str:
    """The line as the engine sees it, for lining pre-tokens up with whitespace words."""
    if cfg.normalize != "none":
        line = unicodedata.normalize(cfg.normalize.upper(), line)
    return line.lower() if cfg.lowercase else line


def _visible_size(piece: str) -> int:
    return sum(1 for c in piece if not c.isspace() and c != "\u2581")


def _runs(ws_words: list[str], sizes: list[int], ids: list[int]):
    """For each whitespace word, the pre-tokens (by id) that start inside it.

    Walks the words' characters: each pre-token consumes its non-space characters
    (``sizes``); a pre-token of spaces only belongs to no word.
    """
    w, left = 0, len(ws_words[0]) if ws_words else 0
    current: list[int] = []
    for size, i in zip(sizes, ids):
        if size == 0 or w >= len(ws_words):
            continue
        current.append(i)
        left -= size
        while left <= 0 and w < len(ws_words):
            yield tuple(current)
            current = []
            w += 1
            if w < len(ws_words):
                left += len(ws_words[w])
    while w < len(ws_words):  # words the pre-tokens did not reach (should not happen)
        yield tuple(current)
        current = []
        w += 1


def text_lines(text: str) -> list[str]:
    """The lines of a typed or pasted text, as a file's lines are read: each ends at
    ``\n`` (with any ``\r`` before it); ``\f``, U+0085 or U+2028 stay characters of their
    line (``str.splitlines`` would cut there)."""
    lines = text.split("\n")
    if len(lines) > 1 and not lines[-1]:
        lines.pop()  # after the last line's break
    return [line.rstrip("\r") for line in lines]


def _read_lines(paths: Sequence[str | os.PathLike]):
    for path in paths:
        path = os.fspath(path)
        if not os.path.exists(path):
            raise CorpusError(f"{path}: no such text file", path=path, reason="missing")
        try:
            yield from _decoded_lines(path)
        except OSError as exc:
            raise CorpusError(f"{path}: cannot read ({exc.strerror})", path=path) from None


def _decoded_lines(path: str):
    with open_text_bytes(path) as stream:
        try:
            for number, raw in enumerate(stream, 1):
                try:
                    text = raw.decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise CorpusError(f"{path} line {number}: not valid UTF-8 (byte "
                                      f"{exc.start + 1} of the line); save the file as "
                                      "UTF-8", path=path, line=number,
                                      reason="not-utf8") from None
                if number == 1:
                    text = text.lstrip("\ufeff")
                yield text
        except GZIP_ERRORS as exc:  # while the stream is open, to say where
            raise gzip_damage(path, stream, exc) from None
