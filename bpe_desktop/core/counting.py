"""Count the words of a corpus into a word-count table, without training.

The table is exactly what the trainer counts: the same normalization and pre-tokenizer
(those of the :class:`TrainConfig` given), the same words in the same order — first
seen first (files in the order given, then position in the file) — so training from
the table (``Corpus.from_files([table], word_counts=True)``) gives the same merges as
training on the text, for every tie-break rule. Tables are ``word<TAB>count`` lines in
UTF-8, gzip-compressed when the name ends in ``.gz``. Tables written here start with the
header line ``WORD_COUNTS_HEADER``; in such a table a word's backslash, tab, newline and
carriage return are written ``\\\\ \\t \\n \\r`` (GPT-2 words keep their newline). A table
without the header (made by another tool) is read literally. The header may be followed
by ``#language: CODE``, the language the words were counted from
(:func:`table_language`): multilingual training takes a labelled table as that
language's; counting skips the line, and tables without it load as before.

``count_words`` counts on this machine with the engine's threads;
:mod:`bpe_desktop.core.cluster` counts on a Dask cluster and gives the same table.
"""

from __future__ import annotations

import glob
import gzip
import os
from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

from bpe_desktop.core import _native
from bpe_desktop.core.config import TrainConfig
from bpe_desktop.core.errors import ConfigError, CorpusError
from bpe_desktop.core.languages import check_code, language_of
from bpe_desktop.core.safe_write import write_output
from bpe_desktop.core.text_files import GZIP_ERRORS, gzip_damage
from bpe_desktop.core.training import CancelToken, Corpus, Progress

#: Table entries handed from the engine to the file per write.
WRITE_CHUNK = 1 << 18


def table_header() -> str:
    """The first line of the tables ``count`` writes (marks escaped words)."""
    return _native.engine().WORD_COUNTS_HEADER


def language_line(language: str) -> str:
    """The second line of a table counted from one language (``#language: fi``)."""
    return f"{_native.engine().WORD_COUNTS_LANGUAGE_PREFIX}{language}\n"


def table_language(path: str | os.PathLike) -> str:
    """The language label of a word-count table (``.gz`` too): "" when it has none (an
    older table, one made by another tool, or counted from several languages). A label
    that is not a language code is a :class:`CorpusError` naming the file and line."""
    name = os.fspath(path)
    opener = gzip.open if name.endswith(".gz") else open
    try:
        with opener(name, "rb") as fh:
            try:
                first = fh.readline(4096).rstrip(b"\r\n").removeprefix(b"\xef\xbb\xbf")
                if first != table_header().encode("utf-8"):
                    return ""
                second = fh.readline(4096).rstrip(b"\r\n")
            except GZIP_ERRORS as exc:  # while it is open, to say where
                raise gzip_damage(name, fh, exc) from None
    except (OSError, EOFError, gzip.BadGzipFile) as exc:
        raise CorpusError(f"{name}: cannot be read ({exc})", path=name,
                          reason="unreadable") from None
    prefix = _native.engine().WORD_COUNTS_LANGUAGE_PREFIX.encode("utf-8")
    if not second.startswith(prefix):
        return ""
    code = second[len(prefix):].decode("utf-8", errors="replace").strip()
    try:
        return check_code(code, f"{name}, line 2")
    except ConfigError as exc:
        raise CorpusError(str(exc), path=name, line=2, reason="bad-line") from None


@dataclass(frozen=True)
class CountProgress:
    """A snapshot of a running count, delivered to ``on_progress``."""

    bytes_done: int
    bytes_total: int
    #: Distinct words counted so far (0 when not known, as on a cluster).
    words: int
    #: Pieces (files or byte ranges) counted / in all; both 0 when counted locally.
    partitions_done: int
    partitions_total: int
    elapsed: float

    @property
    def fraction(self) -> float | None:
        return min(1.0, self.bytes_done / self.bytes_total) if self.bytes_total else None


class WordCountTable:
    """A counted table held by the engine: words in first-seen order with their counts,
    and the language they were counted from ("" when not one language or not known)."""

    def __init__(self, table, language: str = "") -> None:
        self._table = table
        self.language = check_code(language, "the table's language") if language else ""

    def __len__(self) -> int:
        return len(self._table)

    @property
    def distinct_words(self) -> int:
        return len(self._table)

    @property
    def total_count(self) -> int:
        """The sum of the counts (the number of running words counted)."""
        return self._table.total()

    def items(self, start: int = 0, stop: int | None = None) -> list[tuple[str, int]]:
        """``(word, count)`` entries ``start:stop``, in table order."""
        return self._table.items(start, len(self) if stop is None else stop)

    def text(self) -> str:
        """The whole table as written to a file (header, language, then escaped lines)."""
        return "".join(self._chunks(len(self) or 1))

    def save(self, path: str | os.PathLike) -> None:
        """Write the table atomically (temporary file, fsync, rename); gzip when ``path``
        ends in ``.gz`` (no name or time in the gzip header, so equal tables give equal
        files)."""
        write_table_atomically(path, self._chunks(WRITE_CHUNK))

    def _chunks(self, size: int) -> Iterable[str]:
        for start in range(0, max(len(self), 1), size):
            chunk = self._table.lines(start, start + size, start == 0)
            if start == 0 and self.language:  # the label goes right after the header
                header, _, rest = chunk.partition("\n")
                chunk = f"{header}\n{language_line(self.language)}{rest}"
            yield chunk


def write_table_atomically(path: str | os.PathLike, chunks: Iterable[str]) -> None:
    """Write text chunks to ``path`` atomically (streamed into a stream, see
    :mod:`.safe_write`), gzip-compressed if it ends in ``.gz``."""
    target = os.fspath(path)

    def write(raw) -> None:
        if target.endswith(".gz"):
            with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as gz:
                for chunk in chunks:
                    gz.write(chunk.encode("utf-8"))
        else:
            for chunk in chunks:
                raw.write(chunk.encode("utf-8"))

    write_output(target, write)


def expand_inputs(inputs: Sequence[str | os.PathLike]) -> list[str]:
    """Corpus files from file names, folders and glob patterns, in a deterministic order.

    Each input in the order given; a folder gives every file below it (hidden files and
    folders skipped) sorted by path; a pattern (``*``, ``?``, ``[``; ``**`` recursive)
    gives its matches sorted. A file named twice is counted twice, as training would.
    """
    files: list[str] = []
    for item in inputs:
        name = os.fspath(item)
        if os.path.isdir(name):
            found = sorted(
                os.path.join(root, f)
                for root, dirs, names in os.walk(name)
                for f in names
                if not f.startswith(".") and os.path.isfile(os.path.join(root, f))
                and not _hidden_below(name, root)
            )
            if not found:
                raise CorpusError(f"{name}: the folder holds no files", path=name,
                                  reason="no-words")
            files.extend(found)
        elif not os.path.exists(name) and glob.has_magic(name):
            found = sorted(p for p in glob.glob(name, recursive=True) if os.path.isfile(p))
            if not found:
                raise CorpusError(f"{name}: no file matches this pattern", path=name,
                                  reason="missing")
            files.extend(found)
        else:
            files.append(name)  # the engine checks it (missing, empty, binary, ...)
    if not files:
        raise ConfigError("no corpus files given")
    return files


def _hidden_below(top: str, folder: str) -> bool:
    relative = os.path.relpath(folder, top)
    return relative != "." and any(part.startswith(".") for part in relative.split(os.sep))


def engine_count(
    source: Corpus,
    config: TrainConfig,
    *,
    threads: int | None = None,
    on_progress: Callable[[CountProgress], None] | None = None,
    cancel: CancelToken | None = None,
    language: str = "",
) -> WordCountTable:
    """Count the words of ``source`` in the engine; the table is labelled ``language``."""
    callback = None
    if on_progress is not None:
        def callback(p: Progress) -> None:
            on_progress(CountProgress(p.bytes_done, p.bytes_total, p.words, 0, 0, p.elapsed))
    table = _native.call(_native.engine().count_words, source, config,
                         config.effective_threads if threads is None else threads, callback,
                         cancel._flag if cancel is not None else None)
    return WordCountTable(table, language)


def count_words(
    inputs: Sequence[str | os.PathLike],
    config: TrainConfig | None = None,
    *,
    errors: str = "strict",
    on_progress: Callable[[CountProgress], None] | None = None,
    cancel: CancelToken | None = None,
    language: str = "",
) -> WordCountTable:
    """Count the words of text files, folders and globs (``.gz`` read transparently) on
    this machine with ``config.threads`` engine threads; the table is labelled
    ``language`` (the inputs' language, "" for none). Raises :class:`CorpusError`
    naming file and place for unreadable input, :class:`TrainingCancelled` on cancel."""
    config = config or TrainConfig()
    if errors not in ("strict", "replace"):
        raise ConfigError("errors must be 'strict' or 'replace'")
    source = Corpus("files", paths=tuple(expand_inputs(inputs)), errors=errors)
    return engine_count(source, config, on_progress=on_progress, cancel=cancel,
                        language=language)


def inputs_language(inputs: Sequence[str | os.PathLike]) -> str:
    """The language every input's name names (``ud_finnish.txt``, ``fi/``), "" when one
    names none or they disagree: the label ``count`` writes unless told one."""
    found = {language_of(item) for item in inputs}
    return found.pop() if len(found) == 1 else ""


def merge_tables(
    tables: Sequence[str | os.PathLike],
    config: TrainConfig | None = None,
    *,
    on_progress: Callable[[CountProgress], None] | None = None,
    cancel: CancelToken | None = None,
    language: str | None = None,
) -> WordCountTable:
    """Sum word-count tables (``.gz`` too), streamed: memory follows the distinct words.
    Words keep first-seen order (tables in the order given). The sum is labelled
    ``language``, or by default with the tables' language when every one has the same
    label. A malformed line is a :class:`CorpusError` naming the file and line."""
    config = config or TrainConfig()
    source = Corpus("files", paths=tuple(os.fspath(t) for t in tables),
                    file_format="word-counts")
    if not source.paths:
        raise ConfigError("no word-count tables given")
    if language is None:
        labels = {table_language(t) for t in source.paths}
        language = labels.pop() if len(labels) == 1 else ""
    return engine_count(source, config, on_progress=on_progress, cancel=cancel,
                        language=language)


def count_lines(path: str | os.PathLike, cancel: CancelToken | None = None) -> int:
    """The lines of a text file, gzip-compressed or not (a last line without a newline
    counts); -1 once ``cancel`` is cancelled. Counted by the engine without the GIL, on a
    thread of its own (see :func:`~bpe_desktop.core.lower_engine_threads`); a file that
    cannot be read is a :class:`CorpusError` naming it."""
    flag = cancel._flag if cancel is not None else None
    return _native.call(_native.engine().count_lines, os.fspath(path), flag)


def table_stats(path: str | os.PathLike, cancel=None) -> tuple[int, int] | None:
    """``(entries, total count)`` of a word-count table (``.gz`` too), read streaming;
    None when ``cancel.cancelled`` became true. The entries are the table's distinct
    words (a table lists each word once). A malformed line is a :class:`CorpusError`
    naming the file and line, as training would report it."""
    name = os.fspath(path)
    header = table_header().encode("utf-8")
    label = _native.engine().WORD_COUNTS_LANGUAGE_PREFIX.encode("utf-8")
    escaped = False
    entries = total = 0
    opener = gzip.open if name.endswith(".gz") else open
    try:
        with opener(name, "rb") as fh:
            try:
                for number, line in enumerate(fh, 1):
                    if number % 65536 == 0 and cancel is not None and cancel.cancelled:
                        return None
                    line = line.rstrip(b"\r\n")
                    if number == 1 and line.removeprefix(b"\xef\xbb\xbf") == header:
                        escaped = True
                        continue
                    if not line.strip() or (number == 2 and escaped
                                            and line.startswith(label)):
                        continue
                    _, tab, count = line.rpartition(b"\t")
                    count = count.strip()
                    if not tab or not count.isdigit() or not 0 < int(count) < 2**64 or not _:
                        raise CorpusError(f"{name}, line {number}: expected word<TAB>count",
                                          path=name, line=number, reason="bad-line")
                    entries += 1
                    total += int(count)
            except GZIP_ERRORS as exc:  # a damaged .gz (zlib.error too), while it is open
                raise gzip_damage(name, fh, exc) from None
    except (OSError, EOFError, gzip.BadGzipFile) as exc:
        raise CorpusError(f"{name}: cannot be read ({exc})", path=name,
                          reason="unreadable") from None
    return entries, total
