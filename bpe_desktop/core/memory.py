"""How much memory a training run needs, and how much this computer has free.

``estimate_training_memory(paths, config)`` is called before a run (the CLI prints its
warning; the GUI may show it) so that a user is told before a large corpus pushes the
computer into swapping, rather than an hour into the run::

    estimate = estimate_training_memory(["corpus.txt.gz"], TrainConfig())
    if estimate.warning:
        print(estimate.warning)

(:func:`memory_warning` gives the warning alone, and spares the sample when the corpus is too
small to need one whatever its words.)

The trainer's memory follows the corpus's *distinct* words, not its size: a repetitive
corpus of 100 MB needs less than a list of 10 MB of distinct words. So the estimate
reads a sample (the first :data:`SAMPLE_BYTES` of the corpus, spread over up to
:data:`MAX_SAMPLED_FILES` files), counts its distinct words, and extrapolates to the
whole corpus with Heaps' law (distinct words grow as ``size ** beta``; beta is measured
on the sample's two halves). :data:`MEMORY_MODEL` turns that into bytes.
"""

from __future__ import annotations

import gzip
import math
import os
import sys
import zlib
from dataclasses import dataclass
from typing import Sequence

from bpe_desktop.core import _native
from bpe_desktop.core.config import TrainConfig
from bpe_desktop.core.formatting import format_bytes

#: Warn when a run needs more than this share of the free memory: the rest of the
#: system (and the GUI holding the previous model) needs some too.
WARN_FRACTION = 0.8

#: Peak memory = ``base + per_word * distinct words + per_word_byte * their bytes``
#: (words as runs of non-space characters, as counted in the sample).
#:
#: Measured: peak RSS (VmHWM of a fresh process) of ``train(Corpus.from_files([f]),
#: TrainConfig.preset(p, vocab_size=32000, threads=2))``, Python 3.11, engine of
#: 2025-11 (0.1.0), on the first 10/50/100 MB of gutenberg-100M.txt, on text of
#: random letter words (all distinct: the worst case per byte), and on lines of one
#: 1 MB word each (vocab_size=300 there: merging such words is slow):
#:
#: ================  ===========  ==============  ==============  ==============
#: corpus            distinct     distinct bytes  peak, default   peak, gpt2
#: ================  ===========  ==============  ==============  ==============
#: gutenberg 10 MB       91,747         0.74 MB        68 MB           56 MB
#: gutenberg 50 MB      238,390         2.12 MB       124 MB           71 MB
#: gutenberg 100 MB     408,434         3.77 MB       194 MB           84 MB
#: distinct 10 MB     1,095,044         8.82 MB       509 MB          523 MB
#: distinct 50 MB     5,260,852        43.25 MB     2,012 MB        2,019 MB
#: long words 10 MB            10        10.00 MB       100 MB           97 MB
#: long words 30 MB            30        30.00 MB       251 MB          241 MB
#: ================  ===========  ==============  ==============  ==============
#:
#: A least-squares fit gives 47 MB + 321 bytes per word + 6.6 bytes per word byte;
#: the constants below are rounded up: with the sampling below, the estimates of these
#: files are 12-24% above the default preset's peaks (gutenberg 100 MB: 238 MB;
#: distinct 50 MB: 2,469 MB; long words 30 MB: 280 MB). The gpt2 pre-tokenizer splits
#: punctuation off, so natural text has fewer distinct words for it and is
#: overestimated up to 2.8x, at small sizes. Not measured: more than 2 threads, which
#: may add per-thread counting tables.
#:
#: The engine's word store was then halved (each distinct word stored once while
#: counting); re-measured: gutenberg 100 MB 146 / 62 MB, distinct 50 MB 1,583 / 1,720 MB
#: (default / gpt2). ``per_word`` went from 380 to 300 bytes, which keeps every estimate
#: above those peaks (distinct 50 MB: 1,964 MB; gutenberg 100 MB: 192 MB).
#:
#: Word-count tables (``word_counts=True``) take ``per_table_word`` instead of
#: ``per_word``: the merge loop then tracks only the pairs that can still be merged, and
#: the symbols are stored in 16 bits when the vocabulary fits (engine 2026-11).
#: ``benchmarks/bench_word_tables.py`` measured peaks of 70, 68 and 67 bytes per word
#: (10 M, 30 M and 100 M distinct 9-letter words); 25 + 8 x 9 = 97 keeps those estimates
#: 39-45% above (and above the 32-bit store's ~20 more bytes per word, for vocabularies
#: over 65,534 tokens). Text corpora were not re-measured with it.
MEMORY_MODEL = {"base": 40_000_000, "per_word": 300, "per_table_word": 25, "per_word_byte": 8}

#: How much of the corpus is read to count distinct words (4 MB: the extrapolation to
#: 100 MB of gutenberg is then within 4%; from 1 MB it is 34% high).
SAMPLE_BYTES = 4_000_000
MAX_SAMPLED_FILES = 16

#: Decompressed / compressed size of natural-language text under gzip -6, used when a
#: gzip file's own record of its size (ISIZE) cannot be trusted; gutenberg-100M.txt.gz
#: has 2.66.
GZIP_TEXT_RATIO = 3.0


@dataclass(frozen=True)
class MemoryEstimate:
    """What a training run is expected to need, what is free, and a warning if too little.

    ``bytes_available`` is None when the free memory cannot be found out (then there is
    never a warning). ``warning`` is a complete sentence for the user, or None.
    """

    bytes_needed: int
    bytes_available: int | None
    warning: str | None


def estimate_training_memory(
    paths: Sequence[str | os.PathLike[str]], config: TrainConfig, *, word_counts: bool = False
) -> MemoryEstimate:
    """The memory training on ``paths`` needs; never raises for a bad path.
    ``word_counts``: the files are ``word<TAB>count`` tables (see
    :func:`estimate_table_words`).

    Missing or unreadable files count as empty: training itself reports them. (The
    estimate is the same for every ``config``: what the measurements showed to matter
    is the corpus; the parameter is there for options that will.)
    """
    paths = list(paths)
    sizes = [corpus_text_bytes(p) for p in paths]
    text_bytes = sum(sizes)
    estimate = estimate_table_words if word_counts else estimate_distinct_words
    words, word_bytes = estimate(_sample(paths, sizes), text_bytes)
    model = MEMORY_MODEL
    per_word = model["per_table_word"] if word_counts else model["per_word"]
    needed = int(model["base"] + per_word * words + model["per_word_byte"] * word_bytes)
    available = available_memory()
    warning = None
    if available is not None and needed > WARN_FRACTION * available:
        what = "this file" if len(paths) == 1 else f"these {len(paths)} files"
        warning = (f"Training on {what} ({format_bytes(text_bytes)} of text) needs about "
                   f"{format_bytes(needed)} of memory; this computer has "
                   f"{format_bytes(available)} free. Training may become very slow or be "
                   "stopped by the system: close other programs, or train on fewer or "
                   "smaller files.")
    return MemoryEstimate(bytes_needed=needed, bytes_available=available, warning=warning)


def memory_warning(
    paths: Sequence[str | os.PathLike[str]], config: TrainConfig, *, word_counts: bool = False
) -> str | None:
    """The warning of :func:`estimate_training_memory`, or None, without reading a sample
    when the corpus's size alone rules a warning out (:func:`most_memory_needed`)."""
    paths = list(paths)
    available = available_memory()
    if available is None:
        return None
    text_bytes = sum(corpus_text_bytes(p) for p in paths)
    if most_memory_needed(text_bytes, word_counts=word_counts) <= WARN_FRACTION * available:
        return None
    return estimate_training_memory(paths, config, word_counts=word_counts).warning


def most_memory_needed(text_bytes: int, *, word_counts: bool = False) -> int:
    """The largest estimate a corpus of ``text_bytes`` can get: as many distinct words as
    it can hold (every word of one character and its separator), with every byte a word's.
    The sample counted never exceeds :data:`SAMPLE_BYTES` and a line break between files,
    so a corpus said to be smaller (an unreadable gzip size) is bounded by that."""
    text_bytes = max(text_bytes, SAMPLE_BYTES + MAX_SAMPLED_FILES)
    model = MEMORY_MODEL
    per_word = model["per_table_word"] if word_counts else model["per_word"]
    return int(model["base"] + per_word * ((text_bytes + 1) // 2)
               + model["per_word_byte"] * text_bytes)


def estimate_table_words(sample: bytes, text_bytes: int) -> tuple[int, int]:
    """Distinct words of word-count tables (sampled as for text) and their bytes: a table
    lists each word once, so its lines; tables that share words are counted as if they
    did not (an upper bound). Measured (``benchmarks/bench_word_tables.py``): a table of
    10 million 9-letter words peaks at about 113 bytes per word; :data:`MEMORY_MODEL`
    gives 152 for it."""
    lines = [line for line in sample.split(b"\n") if b"\t" in line]
    if not lines:
        return 0, 0
    scale = max(1.0, text_bytes / len(sample))
    word_bytes = sum(len(line.rpartition(b"\t")[0]) for line in lines)
    return int(len(lines) * scale), int(word_bytes * scale)


def estimate_distinct_words(sample: bytes, text_bytes: int) -> tuple[int, int]:
    """Distinct words in a corpus of ``text_bytes`` whose beginning is ``sample``, and
    their total length in bytes, extrapolated with Heaps' law (see the module docs)."""
    # The engine counts the sample's words without the GIL (in Python the count would hold
    # it for the whole sample, in turns the GUI thread waits on as training starts).
    words, seen, seen_bytes, half, in_half = _native.engine().sample_words(sample)
    if not words:
        return 0, 0
    if 0 < half < words:
        beta = math.log(seen / in_half) / math.log(words / half)
        beta = min(1.0, max(0.3, beta))
    else:
        beta = 1.0
    scale = max(1.0, text_bytes / len(sample))
    count = min(seen * scale**beta, words * scale)
    average = seen_bytes / seen
    return int(count), int(min(count * average, max(text_bytes, len(sample))))


def _sample(paths: Sequence[str | os.PathLike[str]], sizes: Sequence[int]) -> bytes:
    """The first bytes of up to MAX_SAMPLED_FILES files (spread over the list), together
    about SAMPLE_BYTES of text; gzip files decompressed."""
    readable = [p for p, size in zip(paths, sizes) if size > 0]
    if not readable:
        return b""
    step = max(1, len(readable) // MAX_SAMPLED_FILES)
    chosen = readable[::step][:MAX_SAMPLED_FILES]
    each = max(1, SAMPLE_BYTES // len(chosen))
    parts = []
    for path in chosen:
        try:
            with open(path, "rb") as fh:
                gz = fh.read(2) == b"\x1f\x8b"
                fh.seek(0)
                if gz:
                    with gzip.GzipFile(fileobj=fh) as text:
                        parts.append(text.read(each))
                else:
                    parts.append(fh.read(each))
        except (OSError, EOFError, zlib.error):
            continue  # training will report it
    return b"\n".join(parts)


def corpus_text_bytes(path: str | os.PathLike[str]) -> int:
    """The size of a corpus file's text: for gzip files, decompressed (estimated).

    gzip is recognised by its magic bytes, as the engine does. Its trailer records the
    decompressed size modulo 2**32 (of the last member only); that is used when it is
    at least the compressed size, else the compressed size times :data:`GZIP_TEXT_RATIO`.
    0 for a file that cannot be read.
    """
    try:
        with open(path, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            if size < 18 or fh.read(2) != b"\x1f\x8b":  # 18: the smallest gzip file
                return size
            fh.seek(-4, os.SEEK_END)
            isize = int.from_bytes(fh.read(4), "little")
    except OSError:
        return 0
    return isize if isize >= size else int(size * GZIP_TEXT_RATIO)


def available_memory() -> int | None:
    """Bytes of memory available to a new task without swapping; None if unknown.

    Linux: ``MemAvailable`` of /proc/meminfo (free plus reclaimable caches); Windows:
    ``GlobalMemoryStatusEx``; elsewhere the free pages from ``os.sysconf``.
    """
    try:
        with open("/proc/meminfo", "rb") as fh:
            for line in fh:
                if line.startswith(b"MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    if sys.platform == "win32":
        return _windows_available()
    try:
        pages = os.sysconf("SC_AVPHYS_PAGES")
        page = os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None
    if pages < 0 or page <= 0:
        return None
    return pages * page


def _windows_available() -> int | None:
    import ctypes

    class MemoryStatusEx(ctypes.Structure):
        _fields_ = [("dwLength", ctypes.c_ulong), ("dwMemoryLoad", ctypes.c_ulong),
                    ("ullTotalPhys", ctypes.c_ulonglong), ("ullAvailPhys", ctypes.c_ulonglong),
                    ("ullTotalPageFile", ctypes.c_ulonglong),
                    ("ullAvailPageFile", ctypes.c_ulonglong),
                    ("ullTotalVirtual", ctypes.c_ulonglong),
                    ("ullAvailVirtual", ctypes.c_ulonglong),
                    ("ullAvailExtendedVirtual", ctypes.c_ulonglong)]

    status = MemoryStatusEx()
    status.dwLength = ctypes.sizeof(status)
    if not ctypes.windll.kernel32.GlobalMemoryStatusEx(ctypes.byref(status)):
        return None
    return int(status.ullAvailPhys)
