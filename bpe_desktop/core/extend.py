"""Extend an existing tokenizer: continue its training on a new corpus, keeping every id.

Rules (each one is what makes the extended model a drop-in successor of its source):

* the corpus is counted with the source's own normalizer and pre-tokenizer (its
  ``TrainConfig``), and each distinct word is segmented exactly as the source encodes it
  (its merges in rank order);
* characters the source cannot represent (it would give ``<unk>``) become new alphabet
  tokens first, reported with their counts; with ``unknown="keep"`` they stay as the
  source encodes them (unknown, or their bytes with byte fallback) and are never merged;
  ``unknown="bytes"`` asks for the bytes, and needs a source with byte fallback. Byte
  tokens ``<0xNN>`` of a byte-fallback source are never merged: sentencepiece applies no
  merge to them (it spells unknown pieces in bytes after merging), so a merge of them
  could not be written back. Byte-level sources represent everything;
* new merges are learned on top with the source's tie rule and appended after its
  merges. A pair whose result already is a token is never merged (the token would gain
  a second merge, which sentencepiece and tiktoken cannot express), so every new merge
  makes a new token;
* every existing token keeps its id, piece and rank; new tokens take the next free ids,
  after the special tokens, or the ids the user names (:mod:`bpe_desktop.core.new_ids`);
  special tokens are kept.

Why encoding reproduces the training segmentation: the source's merges all rank before
the new ones, so an encoder first reaches the source's segmentation (where no source
merge applies), then applies new merges; a new merge makes a new token, which no source
merge involves, so no source merge applies again.
"""

from __future__ import annotations

import dataclasses
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from bpe_desktop.core import _native
from bpe_desktop.core.counting import engine_count
from bpe_desktop.core.errors import ConfigError
from bpe_desktop.core.extend_options import UNKNOWN_CHOICES
from bpe_desktop.core.formats._common import BYTE_PIECES, byte_pieces_in
from bpe_desktop.core.model import BPEModel, CorpusInfo, Merge
from bpe_desktop.core.new_ids import NewIds, check_capacity, check_free, placed
from bpe_desktop.core.training import CancelToken, Corpus, Progress, _file_info

#: What happens to characters the source cannot represent.
UNKNOWN_POLICIES = tuple(UNKNOWN_CHOICES)
#: The symbol the engine never merges (special tokens and kept unknowns in a word).
_NEVER_MERGED = 2**32 - 1


@dataclass(frozen=True)
class ExtendResult:
    """The extended model and what the run found."""

    model: BPEModel
    source: BPEModel
    #: Characters added to the alphabet, with their counts in the corpus.
    new_characters: tuple[tuple[str, int], ...]
    #: Characters left unknown (``unknown="keep"``), with their counts.
    unknown_characters: tuple[tuple[str, int], ...]
    #: Ids of the tokens the extension added (new characters, then merged tokens).
    new_ids: tuple[int, ...]
    distinct_words: int
    timings: Mapping[str, float]
    #: Characters spelled in byte tokens (byte fallback), with their counts.
    byte_characters: tuple[tuple[str, int], ...] = ()

    @property
    def new_merges(self) -> int:
        return len(self.model.merges) - len(self.source.merges)


def extend(
    source: BPEModel,
    corpus: Corpus,
    *,
    merges: int | None = None,
    vocab_size: int | None = None,
    min_frequency: int = 2,
    unknown: str = "add",
    new_ids: NewIds | None = None,
    on_progress: Callable[[Progress], None] | None = None,
    cancel: CancelToken | None = None,
) -> ExtendResult:
    """``source`` trained further on ``corpus`` (see the module's rules).

    Give ``merges`` (how many new merges at most) or ``vocab_size`` (the size to grow
    the vocabulary to, not counting reserved ids); ``new_ids``: the ids the new tokens
    take (the next free ones when None). Raises ConfigError for bad settings,
    CorpusError for a corpus that cannot be read or holds no words, TrainingCancelled
    when cancelled.
    """
    _check_settings(source, merges, vocab_size, min_frequency, unknown)
    if new_ids is not None:
        check_free(new_ids, source)
    started = time.perf_counter()
    table = engine_count(corpus, source.config, cancel=cancel)
    # Byte-level sources spell every character: their words need not come to Python.
    characters = Counter() if source.config.byte_level else \
        _missing_characters(source, table.items())
    added = tuple(sorted(characters.items())) if unknown == "add" else ()
    as_bytes = _spelled_in_bytes(source, characters) if unknown != "add" else {}
    kept_unknown = () if unknown == "add" else tuple(
        sorted((c, n) for c, n in characters.items() if c not in as_bytes))
    base = _with_characters(source, tuple(c for c, _ in added))
    if new_ids is not None:
        wanted = merges if merges is not None else vocab_size - base.vocab_size
        check_capacity(new_ids, len(added) + wanted, len(added))
    counted = time.perf_counter()
    merging = time.perf_counter()
    trained = _train_on(base, table, merges, vocab_size, min_frequency, on_progress, cancel)
    merged = time.perf_counter()
    model = _extended_model(source, base, trained, corpus, table)
    old = source.vocab_size
    given = tuple(range(old, model.vocab_size))
    if new_ids is not None:
        model, given = placed(model, old, new_ids), new_ids.take(len(given))
    timings = {"counting": counted - started, "merging": merged - merging,
               "total": time.perf_counter() - started}
    return ExtendResult(model, source, added, kept_unknown, given, len(table), timings,
                        tuple(sorted(as_bytes.items())))


def _check_settings(source: BPEModel, merges, vocab_size, min_frequency, unknown) -> None:
    if (merges is None) == (vocab_size is None):
        raise ConfigError("give either a number of new merges or a vocabulary size")
    if merges is not None and (isinstance(merges, bool) or not isinstance(merges, int)
                               or merges < 1):
        raise ConfigError(f"the number of new merges must be at least 1, not {merges!r}")
    if vocab_size is not None and (isinstance(vocab_size, bool)
                                   or not isinstance(vocab_size, int)
                                   or vocab_size <= source.vocab_size):
        raise ConfigError(f"the vocabulary size must be larger than the source's "
                          f"{source.vocab_size:,} tokens, not {vocab_size!r}")
    if isinstance(min_frequency, bool) or not isinstance(min_frequency, int) \
            or min_frequency < 1:
        raise ConfigError(f"the minimum pair count must be at least 1, not {min_frequency!r}")
    if unknown not in UNKNOWN_POLICIES:
        raise ConfigError(f"unknown characters: choose {', '.join(UNKNOWN_POLICIES)}, "
                          f"not {unknown!r}")
    if unknown == "bytes" and not (source.config.byte_fallback
                                   and byte_pieces_in(source) == len(BYTE_PIECES)):
        raise ConfigError("unknown characters as bytes: the source has no byte fallback "
                          "(sentencepiece byte_fallback, HF byte_fallback with the 256 byte "
                          "tokens <0x00> ... <0xFF>); add them as new tokens or keep them "
                          "unknown")


def _spelled_in_bytes(source: BPEModel, characters: Counter) -> dict[str, int]:
    """The characters (with their counts) that ``source`` spells in byte tokens: with
    byte fallback, those whose UTF-8 bytes all have a token (a word-final one of an
    ``eow-suffix`` model with its ``</w>``, as the encoder spells it)."""
    if not source.config.byte_fallback:
        return {}
    have = source.piece_ids
    return {c: n for c, n in characters.items()
            if all(BYTE_PIECES[b] in have for b in c.encode("utf-8"))}


def _missing_characters(source: BPEModel, words: list[tuple[str, int]]) -> Counter:
    """Symbols the counted words start out with that the source has no token for (a
    character, or under ``eow-suffix`` a last character with ``</w>`` glued on), with
    their counts."""
    known = set(source.alphabet)
    suffixed = source.config.boundary == "eow-suffix"
    missing: Counter = Counter()
    for word, count in words:
        if suffixed:
            last = word[-1] + "</w>"
            if last not in known:
                missing[last] += count
            word = word[:-1]
        for char in set(word) - known:
            missing[char] += count * word.count(char)
    return missing


def _with_characters(source: BPEModel, added: tuple[str, ...]) -> BPEModel:
    """The source with ``added`` appended to its alphabet, each at the next free id;
    every other token keeps its id. No source merge involves them."""
    ids = source.piece_ids
    ordinary = [ids[p] for p in source._ordinary_pieces]
    free = iter(range(source.vocab_size, source.vocab_size + len(added)))
    alphabet_ids = ordinary[:len(source.alphabet)] + [next(free) for _ in added]
    base = dataclasses.replace(
        source, alphabet=source.alphabet + added,
        ids=tuple(alphabet_ids + ordinary[len(source.alphabet):]), final_counts=None)
    _known_pieces(base, source.pieces + added)
    return base


def _known_pieces(model: BPEModel, pieces: tuple[str, ...]) -> None:
    """Give ``model`` its vocabulary, known by construction (the source's pieces, then the
    added ones at the next ids), sparing a check of every explicit id per model."""
    model.__dict__["pieces"] = pieces


def _symbols(base: BPEModel) -> tuple[list[str], bytes]:
    """The trainer's alphabet (``base``'s ordinary tokens, in id order) and, per token id,
    its symbol there; special tokens become the never-merged symbol."""
    import numpy as np

    pieces = base.pieces
    special = {t.id for t in base.config.special_tokens}
    ordinary_ids = [i for i in range(len(pieces)) if i not in special]
    symbol_of = np.full(len(pieces), _NEVER_MERGED, dtype="=u4")
    symbol_of[ordinary_ids] = np.arange(len(ordinary_ids), dtype="=u4")
    if base.config.byte_fallback:  # byte tokens are never merged (see the module's rules)
        ids = base.piece_ids
        symbol_of[[ids[p] for p in BYTE_PIECES if p in ids]] = _NEVER_MERGED
    return [pieces[i] for i in ordinary_ids], symbol_of.tobytes()


def _train_on(base, table, merges, vocab_size, min_frequency, on_progress, cancel):
    """Every counted word as ``base`` encodes it (exactly its tokenizer), then the merge
    loop on top (in the engine): the engine's ``TrainedModel``."""
    config = base.config.replace(min_frequency=min_frequency, merges=None, vocab_size=None)
    symbols, symbol_of = _symbols(base)
    # The engine counts blocked results like special tokens towards the size: the
    # source's ordinary tokens are in both its alphabet and the blocked list.
    engine_size = None if vocab_size is None else vocab_size + len(symbols)
    return _native.call(
        _native.engine().train_extension, table._table, base.tokenizer()._native, symbol_of,
        symbols, config, symbols, merges, engine_size, on_progress,
        cancel._flag if cancel is not None else None)


def _extended_model(source: BPEModel, base: BPEModel, trained, corpus: Corpus,
                    table) -> BPEModel:
    tokens = trained.tokens()
    new = tuple(Merge(tokens[a], tokens[b], c) for a, b, c in trained.merges())
    created = list(dict.fromkeys(m.result for m in new))
    first_new = base.vocab_size
    merges = base.merges + new
    config = source.config.replace(merges=len(merges), vocab_size=None)
    text = f"{source.description} Extended with {len(new):,} merges." \
        if source.description else f"Extended with {len(new):,} merges."
    # The files, as training records them: an export verifies on their lines.
    files = tuple(_file_info(p) for p in corpus.paths) if corpus.kind == "files" else ()
    # The new merges do not make the base encode like its source: its notes stay.
    info = CorpusInfo(kind=corpus.kind, files=files, total_words=table.total_count,
                      distinct_words=len(table), encoding_errors=corpus.errors,
                      approximations=source.approximations)
    model = dataclasses.replace(
        base, config=config, merges=merges, final_counts=None, corpus=info,
        ids=base.ids + tuple(range(first_new, first_new + len(created))),
        words=tuple(trained.words.top(source.config.keep_words)),
        description=text.strip())
    _known_pieces(model, base.pieces + tuple(created))
    return model


__all__ = ["UNKNOWN_POLICIES", "ExtendResult", "extend"]
