"""Count the words of a corpus into a word-count table, without training.

The table is exactly what the trainer counts: the same normalization and pre-tokenizer
(those of the :class:`TrainConfig` given), the same words in the same order — first
seen first (files in the order given, then position in the file) — so training from
the table (``Corpus.from_files([table], word_counts=True)``) gives the same merges as
training on the text, for every tie-break rule. Tables are ``word<TAB>count`` lines in
UTF-8, gzip-compressed when the name ends in ``.gz``. Tables written here start with the
header line ``WORD_COUNTS_HEADER``; in such a table a word's backslash, tab, newline and
carriage return are written ``\\\\ \\t \\n \\r`` (GPT-2 words keep their newline). A table
without the header (made by another tool) is read literally.

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
from bpe_desktop.core.safe_write import write_output
from bpe_desktop.core.training import CancelToken

#: Table entries handed from the engine to the file per write.
WRITE_CHUNK = 1 << 18


def table_header() -> str:
    """The first line of the tables ``count`` writes (marks escaped words)."""
    return _native.engine().WORD_COUNTS_HEADER


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
    """A counted table held by the engine: words in first-seen order with their counts."""

    def __init__(self, table) -> None:
        self._table = table

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

    def as_dict(self) -> dict[str, int]:
        return dict(self.items())

    def text(self) -> str:
        """The whole table as written to a file (header, then escaped lines)."""
        return self._table.lines(0, len(self), True)

    def save(self, path: str | os.PathLike) -> None:
        """Write the table atomically (temporary file, fsync, rename); gzip when ``path``
        ends in ``.gz`` (no name or time in the gzip header, so equal tables give equal
        files)."""
        chunks = (self._table.lines(start, start + WRITE_CHUNK, start == 0)
                  for start in range(0, max(len(self), 1), WRITE_CHUNK))
        write_table_atomically(path, chunks)


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
    source: dict,
    config: TrainConfig,
    *,
    threads: int | None = None,
    on_progress: Callable[[CountProgress], None] | None = None,
    cancel: CancelToken | None = None,
) -> WordCountTable:
    """Run the engine's counting on an engine corpus description (see ``Corpus``)."""
    callback = None
    if on_progress is not None:
        def callback(raw: dict) -> None:
            on_progress(CountProgress(raw["bytes_done"], raw["bytes_total"], raw["words"],
                                      0, 0, raw["elapsed"]))
    table = _native.call(_native.engine().count_words, source, config,
                         config.effective_threads if threads is None else threads, callback,
                         cancel._flag if cancel is not None else None)
    return WordCountTable(table)


def count_words(
    inputs: Sequence[str | os.PathLike],
    config: TrainConfig | None = None,
    *,
    errors: str = "strict",
    on_progress: Callable[[CountProgress], None] | None = None,
    cancel: CancelToken | None = None,
) -> WordCountTable:
    """Count the words of text files, folders and globs (``.gz`` read transparently) on
    this machine with ``config.threads`` engine threads. Raises :class:`CorpusError`
    naming file and place for unreadable input, :class:`TrainingCancelled` on cancel."""
    config = config or TrainConfig()
    if errors not in ("strict", "replace"):
        raise ConfigError("errors must be 'strict' or 'replace'")
    source = {"kind": "files", "paths": expand_inputs(inputs), "format": "text",
              "errors": errors}
    return engine_count(source, config, on_progress=on_progress, cancel=cancel)


def merge_tables(
    tables: Sequence[str | os.PathLike],
    config: TrainConfig | None = None,
    *,
    on_progress: Callable[[CountProgress], None] | None = None,
    cancel: CancelToken | None = None,
) -> WordCountTable:
    """Sum word-count tables (``.gz`` too), streamed: memory follows the distinct words.
    Words keep first-seen order (tables in the order given). A malformed line is a
    :class:`CorpusError` naming the file and line."""
    config = config or TrainConfig()
    source = {"kind": "files", "paths": [os.fspath(t) for t in tables],
              "format": "word-counts", "errors": "strict"}
    if not source["paths"]:
        raise ConfigError("no word-count tables given")
    return engine_count(source, config, on_progress=on_progress, cancel=cancel)


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
    entries = total = 0
    opener = gzip.open if name.endswith(".gz") else open
    try:
        with opener(name, "rb") as fh:
            for number, line in enumerate(fh, 1):
                if number % 65536 == 0 and cancel is not None and cancel.cancelled:
                    return None
                line = line.rstrip(b"\r\n")
                if (number == 1 and line.removeprefix(b"\xef\xbb\xbf") == header) \
                        or not line.strip():
                    continue
                _, tab, count = line.rpartition(b"\t")
                count = count.strip()
                if not tab or not count.isdigit() or not 0 < int(count) < 2**64 or not _:
                    raise CorpusError(f"{name}, line {number}: expected word<TAB>count",
                                      path=name, line=number, reason="bad-line")
                entries += 1
                total += int(count)
    except (OSError, EOFError, gzip.BadGzipFile) as exc:
        raise CorpusError(f"{name}: cannot be read ({exc})", path=name,
                          reason="unreadable") from None
    return entries, total
