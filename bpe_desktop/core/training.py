"""Train a BPE model: the Python face of the Rust trainer.

``train(corpus, config)`` reads the corpus (streamed; several files in parallel
blocks), counts words, then merges the most frequent adjacent pair until a stop
condition holds. The engine releases the GIL for the whole run; ``on_progress`` is
called with a :class:`Progress` about every 50 ms from the training thread (never
more often), and ``cancel.cancel()`` from any thread stops the run within one merge.

Exactness rules (see ``engine/src/trainer.rs`` for the implementation):

* pairs are counted at every position (``a a a`` holds ``(a, a)`` twice), with 64-bit
  counts, and merged left to right without overlap;
* merges never cross a word or a symbol boundary;
* ties are broken by ``config.ties`` (documented in :mod:`bpe_desktop.core.config`);
* a merge whose result already exists as a token reuses that token, and the affected
  words are then re-encoded with the merges learned so far, so that encoding any
  training word reproduces its final training segmentation exactly;
* a pair whose result would equal a special token's piece is never merged;
* output is identical across runs and thread counts.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import tempfile
import time
from dataclasses import dataclass, field
from typing import Callable, Iterable, Mapping, Sequence

from bpe_desktop.core import _native
from bpe_desktop.core.config import TrainConfig
from bpe_desktop.core.constraints import Constraints
from bpe_desktop.core.constraints import describe as describe_constraints
from bpe_desktop.core.errors import ConfigError
from bpe_desktop.core.model import ENCODING_ERRORS, BPEModel, CorpusFile, CorpusInfo, Merge
from bpe_desktop.core.morfessor_source import SegmenterProgress
from bpe_desktop.core.options import MAX_COUNT, OPTION_VALUES

#: ``CorpusError.reason`` values that reading the corpus again with
#: ``errors="replace"`` gets past (invalid UTF-8, a stray NUL byte inside the text).
#: Every reason: missing, not-a-file, unreadable, empty, binary, other-encoding,
#: not-utf8, nul-byte, corrupt, changed, line-too-long, no-words, bad-line.
REPLACEABLE_REASONS = ("not-utf8", "nul-byte")


@dataclass(frozen=True)
class Corpus:
    """What to train on: files, in-memory texts, or a word-frequency table.

    Build one with :meth:`from_files`, :meth:`from_texts` or :meth:`from_word_counts`. The
    engine reads it from its attributes.
    """

    kind: str
    paths: tuple[str, ...] = ()
    texts: tuple[str, ...] = ()
    word_counts: tuple[tuple[str, int], ...] = ()
    #: For files: "text", or "word-counts" (``word<TAB>count`` per line).
    file_format: str = "text"
    #: "strict": invalid UTF-8 (or a NUL byte inside the text) is a CorpusError naming
    #: file, byte offset and line; "replace": such bytes become U+FFFD and training goes on.
    errors: str = "strict"

    @classmethod
    def from_files(
        cls, paths: Iterable[str | bytes | os.PathLike], *, word_counts: bool = False,
        errors: str = "strict",
    ) -> Corpus:
        """Text files (``.gz`` read transparently) or ``word<TAB>count`` tables.

        Each file is checked before training starts (exists, is a file, is not empty);
        a UTF-8 byte-order mark at the start of a file is skipped, CRLF is read as LF.
        """
        if isinstance(paths, (str, bytes, os.PathLike)):
            paths = [paths]
        try:
            paths = tuple(os.fsdecode(p) for p in paths)
        except TypeError as exc:
            raise ConfigError(f"corpus paths must be file names: {exc}") from None
        if not paths:
            raise ConfigError("no corpus files given")
        if errors not in ENCODING_ERRORS:
            raise ConfigError("errors must be 'strict' or 'replace'")
        return cls("files", paths=paths, file_format="word-counts" if word_counts else "text",
                   errors=errors)

    def with_errors(self, errors: str) -> Corpus:
        """The same files read with another ``errors`` mode (after a CorpusError whose
        ``reason`` is in :data:`REPLACEABLE_REASONS`, ``with_errors("replace")``)."""
        if self.kind != "files":
            raise ConfigError("only corpus files have an errors mode")
        return Corpus.from_files(self.paths, word_counts=self.file_format == "word-counts",
                                 errors=errors)

    @classmethod
    def from_texts(cls, texts: Iterable[str]) -> Corpus:
        texts = tuple(texts)
        if not all(isinstance(t, str) for t in texts):
            raise ConfigError("texts must be strings")
        return cls("texts", texts=texts)

    @classmethod
    def from_word_counts(
        cls, counts: Mapping[str, int] | Iterable[tuple[str, int]]
    ) -> Corpus:
        """A word-frequency table, in the order given (that order is 'first seen')."""
        items = tuple(counts.items()) if isinstance(counts, Mapping) else tuple(counts)
        for i, item in enumerate(items):
            if not (isinstance(item, tuple) and len(item) == 2):
                raise ConfigError(f"word counts entry {i}: expected (word, count)")
            word, count = item
            if not isinstance(word, str) or not word:
                raise ConfigError(f"word counts entry {i}: the word must be a non-empty string")
            if isinstance(count, bool) or not isinstance(count, int) or not 0 < count <= MAX_COUNT:
                raise ConfigError(
                    f"word counts entry {i} ({word!r}): count must be a whole number "
                    "from 1 to 2**64-1"
                )
        return cls("word-counts", word_counts=items)

    @classmethod
    def from_table_texts(cls, tables: Iterable[str]) -> Corpus:
        """Word-count tables held in memory (the partial tables of a distributed count),
        read as table files are; errors name them "table piece N"."""
        return cls("tables", texts=tuple(tables))


#: A snapshot of a running training (or counting), delivered to ``on_progress``: the
#: engine's own report, a frozen class with ``stage``, ``bytes_done``, ``bytes_total``,
#: ``words``, ``merges_done``, ``merges_target`` (None when unknown), ``pair`` (the pair
#: merged last, or None) and its ``count``, ``elapsed`` seconds, ``new_counts`` (the count
#: of every merge since the previous report), for parity-aware runs ``language_tokens``,
#: ``languages`` and ``language_lines`` (else empty), ``fraction`` (the stage's completion
#: in [0, 1], or None) and ``tokens_per_line()``. Python code reporting a stage of its own
#: builds one as ``Progress("reading", words=...)`` (every count defaults to 0).
Progress = _native.engine().Progress


class CancelToken:
    """A flag the engine checks between merges (and between read blocks).

    ``cancel()`` may be called from any thread; it never blocks.
    """

    def __init__(self) -> None:
        self._flag = _native.engine().CancelFlag()

    def cancel(self) -> None:
        self._flag.cancel()

    @property
    def cancelled(self) -> bool:
        return self._flag.is_cancelled()


@dataclass(frozen=True)
class WordSegmentation:
    word: str
    count: int
    pieces: tuple[str, ...]


@dataclass(frozen=True)
class TrainResult:
    """The trained model plus what only the training run knows."""

    model: BPEModel
    #: Seconds spent per stage: reading+counting, merging, total (and "segmenter":
    #: Morfessor's own time, when it ran).
    timings: Mapping[str, float]
    _words: object = field(repr=False, compare=False)
    #: Morfessor's segmentation of the corpus words, when it ran (word -> morphs).
    segmentation: Mapping[str, tuple[str, ...]] = field(default_factory=dict, compare=False)
    #: A multilingual run: each language's share and development-set tokens (see
    #: :mod:`~bpe_desktop.core.multilingual`), else None.
    languages: object = field(default=None, compare=False)
    #: A run with gold files: per gold option, the corpus words its files match (each a
    #: :class:`~bpe_desktop.core.gold_match.GoldMatch`), in the options' order.
    gold_matches: tuple = field(default=(), compare=False)

    @property
    def distinct_words(self) -> int:
        return len(self._words)

    def words(self) -> list[str]:
        """Every training word (without its segmentation: cheaper), most frequent first."""
        return [w for w, _ in self._words.top(len(self._words))]

    def word_segmentations(self, limit: int | None = None) -> list[WordSegmentation]:
        """Training words in first-seen order with their final segmentation."""
        rows = self._words.segmentations(limit)
        return [WordSegmentation(w, c, tuple(p)) for w, c, p in rows]

    def seed_vocabulary(self) -> dict[str, int]:
        """The word table in the seeds' notation: ``{'low er </w>': 2, ...}``."""
        return {" ".join(s.pieces): s.count for s in self.word_segmentations()}


def train(
    corpus: Corpus,
    config: TrainConfig | None = None,
    *,
    on_progress: Callable[[Progress], None] | None = None,
    cancel: CancelToken | None = None,
    constraints: Constraints | None = None,
    on_segmenter: Callable[[SegmenterProgress], None] | None = None,
) -> TrainResult:
    """Train a model. Raises CorpusError, ConfigError or TrainingCancelled on failure
    (EngineError for an engine bug); on failure no model exists, nothing is half-made.

    A :class:`CorpusError` carries ``path``, ``offset`` (bytes into the file, or into the
    decompressed text of a ``.gz``), ``line`` (1-based, when known) and ``reason`` (see
    :data:`REPLACEABLE_REASONS`).

    The configuration's linguistic constraints (gold boundaries, a separator, Morfessor,
    BPE-knockout; see :mod:`~bpe_desktop.core.constrained`) are applied here;
    ``on_segmenter`` receives Morfessor's progress. ``constraints`` given directly are
    passed to the engine as they are, bypassing the configuration's sources.
    """
    config = (config or TrainConfig()).with_byte_tokens()
    if constraints is None and describe_constraints(config):
        from bpe_desktop.core.constrained import train_constrained
        return train_constrained(corpus, config, on_progress=on_progress, cancel=cancel,
                                 on_segmenter=on_segmenter)
    engine_corpus, engine_config, occurrences = corpus, config, None
    with contextlib.ExitStack() as stack:
        if config.protected:
            workdir = stack.enter_context(tempfile.TemporaryDirectory(prefix="bpe-protected-"))
            engine_corpus, engine_config, occurrences = _cut_protected(corpus, config, cancel,
                                                                       workdir)
        started = time.perf_counter()
        output = _native.call(
            _native.engine().train,
            engine_corpus,
            engine_config,  # the engine reads the options from its attributes
            on_progress,
            cancel._flag if cancel is not None else None,
            None if constraints is None or constraints.empty else constraints,
        )
    total = time.perf_counter() - started
    return result_from_engine(output, corpus, config, total, occurrences)


def result_from_engine(output, corpus: Corpus, config: TrainConfig, total: float,
                       occurrences: Mapping[str, int] | None = None) -> TrainResult:
    """The TrainResult of an engine training's ``TrainOutput``; ``occurrences``: the count
    of each protected string cut out of the text before the engine read it."""
    timings = {"counting": output.count_seconds, "merging": output.merge_seconds,
               "total": total}
    trained = output.trained
    info = _corpus_info(corpus, output, occurrences is not None)
    model = _engine_held_model(trained, config, info, occurrences)
    if model is None:
        model = _python_model(trained, config, info, occurrences)
    return TrainResult(model=model, timings=timings, _words=trained.words)


def _engine_held_model(trained, config: TrainConfig, info: CorpusInfo,
                       occurrences: Mapping[str, int] | None) -> BPEModel | None:
    """The trained model held by the engine, as a loaded model is (no Python object per
    token or merge), or None where the model file's rules refuse its lists."""
    protected = [] if occurrences is None else [(p, occurrences.get(p, 0))
                                                for p in config.protected]
    held = trained.model(config.keep_words, MAX_KEPT_WORD_CHARS, protected,
                         [(t.id, t.piece) for t in config.special_tokens])
    return None if held is None else BPEModel.from_engine(held, config=config, corpus=info)


def _python_model(trained, config: TrainConfig, info: CorpusInfo,
                 occurrences: Mapping[str, int] | None) -> BPEModel:
    """The model of a run the model file's rules refuse (see ``TrainedModel.model``), built
    in Python from the engine's ``TrainedModel``, whose checks then say what is wrong when
    it is used or saved."""
    tokens = trained.tokens()
    model = BPEModel(
        config=config,
        alphabet=tuple(tokens[:trained.alphabet_len]),
        merges=tuple(Merge(tokens[left], tokens[right], count)
                     for left, right, count in trained.merges()),
        corpus=info,
        words=tuple((w, c) for w, c in trained.words.top(config.keep_words)
                    if len(w) <= MAX_KEPT_WORD_CHARS),
    )
    if occurrences is not None:
        # Protected strings are base symbols placed first, taking the ids after the
        # specials; the engine never saw them (each occurrence was cut out of the text).
        model = dataclasses.replace(model, alphabet=(*config.protected, *model.alphabet))
    return dataclasses.replace(model, final_counts=_final_counts(model, tokens, trained.words,
                                                                 occurrences))


#: Kept words (the model file's ``words``) longer than this are left out: text without
#: spaces (a URL list, a base64 blob, letters of a script written without spaces) makes
#: "words" of megabytes, which the file would hold whole and the browser could not show.
MAX_KEPT_WORD_CHARS = 256


def _cut_protected(corpus: Corpus, config: TrainConfig, cancel,
                   workdir: str) -> tuple[Corpus, TrainConfig, dict[str, int]]:
    """The corpus with every protected string cut out (see :mod:`~bpe_desktop.core.protected`;
    text files are streamed into copies in ``workdir``), the configuration the engine gets
    (the vocabulary size less the protected tokens) and each protected string's
    occurrences."""
    from bpe_desktop.core.protected import Protector

    protect = Protector(config.protected)
    counts: dict[str, int] = {}
    if corpus.kind == "texts":
        cut = Corpus.from_texts(protect.count_and_cut(t, counts) for t in corpus.texts)
    elif corpus.kind == "word-counts":
        cut = Corpus.from_word_counts(protect.cut_words(corpus.word_counts, counts))
    elif corpus.file_format == "word-counts":
        from bpe_desktop.core.counting import engine_count
        from bpe_desktop.core.protected import check_found_in_tables

        table = engine_count(corpus, config.replace(protected=()),
                             cancel=cancel)
        check_found_in_tables(config.protected, (w for w, _ in table.items()), corpus.paths)
        cut = Corpus.from_word_counts(protect.cut_words(table.items(), counts))
    else:
        copies = []
        for number, path in enumerate(corpus.paths):
            copies.append(os.path.join(workdir, f"{number}.txt"))
            _cut_file(path, copies[-1], protect, counts, corpus.errors, cancel)
        cut = Corpus.from_files(copies)
    engine_config = config.replace(protected=())
    if config.vocab_size is not None:
        room = config.vocab_size - len(config.protected)
        if room <= len(config.special_tokens):
            raise ConfigError(f"a vocabulary size of {config.vocab_size:,} leaves no room for "
                              f"characters: the special tokens and the "
                              f"{len(config.protected)} protected strings take it all")
        engine_config = engine_config.replace(vocab_size=room)
    return cut, engine_config, counts


def _cut_file(path: str, copy: str, protect, counts: dict[str, int], errors: str,
              cancel) -> None:
    """A corpus file (``.gz`` read transparently) streamed line by line into ``copy`` with
    the protected strings cut out (none spans a line); invalid UTF-8 is an error naming
    file, line and byte offset unless ``errors`` is "replace"."""
    from bpe_desktop.core.errors import CorpusError, TrainingCancelled
    from bpe_desktop.core.text_files import open_text_bytes

    try:
        source = open_text_bytes(path)
    except OSError as exc:
        raise CorpusError(f"{path}: {exc.strerror or exc}", path=path,
                          reason="unreadable") from None
    offset = 0
    with source, open(copy, "w", encoding="utf-8", newline="") as out:
        for number, raw in enumerate(source, 1):
            if number % 65536 == 0 and cancel is not None and cancel.cancelled:
                raise TrainingCancelled("training cancelled")
            encoding = "utf-8-sig" if number == 1 else "utf-8"
            try:
                line = raw.decode(encoding)
            except UnicodeDecodeError as exc:
                if errors != "replace":
                    at = offset + exc.start
                    raise CorpusError(f"{path} line {number} (byte {at}): not UTF-8 text",
                                      path=path, offset=at, line=number,
                                      reason="not-utf8") from None
                line = raw.decode(encoding, errors="replace")
            if "\x00" in line:  # as the engine reads text: NUL is no character of it
                if errors != "replace":
                    at = offset + raw.index(b"\x00")
                    raise CorpusError(f"{path} line {number} (byte {at}): a NUL byte inside "
                                      "the text", path=path, offset=at, line=number,
                                      reason="nul-byte")
                line = line.replace("\x00", "\ufffd")
            out.write(protect.count_and_cut(line, counts))
            offset += len(raw)


def _final_counts(model: BPEModel, tokens: list[str], words,
                  protected: Mapping[str, int] | None = None) -> tuple[int, ...] | None:
    """Each token's count (by id) in the final segmentation of every training word; None
    for a run whose special tokens do not fit its vocabulary (recount's counting pass,
    which trains no merges, with an imported model's ids)."""
    try:
        ids, size = model.piece_ids, model.vocab_size
    except ConfigError:
        return None
    final = [0] * size
    for piece, count in zip(tokens, words.final_counts()):
        if count:
            final[ids[piece]] = count
    for piece, count in (protected or {}).items():
        final[ids[piece]] = count
    return tuple(final)


def _corpus_info(corpus: Corpus, output, read_here: bool = False) -> CorpusInfo:
    files: Sequence[CorpusFile] = tuple(
        CorpusFile(path=os.path.abspath(path), size=size, sha256=sha256)
        for path, size, sha256 in output.files
    )
    if read_here and corpus.kind == "files":  # the engine read texts cut from these files
        files = tuple(_file_info(p) for p in corpus.paths)
    return CorpusInfo(
        kind=corpus.kind if corpus.kind != "files" or corpus.file_format == "text"
        else "word-count-files",
        files=files,
        total_words=output.total_words,
        distinct_words=len(output.trained.words),
        characters=output.characters,
        unknown_characters=output.unknown_characters,
        encoding_errors=corpus.errors,
    )


def _file_info(path: str) -> CorpusFile:
    import hashlib

    with open(path, "rb") as f:
        digest = hashlib.file_digest(f, "sha256").hexdigest()
    return CorpusFile(path=os.path.abspath(path), size=os.path.getsize(path), sha256=digest)
