"""The training memory estimate: corpus sizes (gzip included), distinct words, warning."""

from __future__ import annotations

import gzip
import random
import string
from pathlib import Path

import pytest

from bpe_desktop.core import TrainConfig, estimate_training_memory, memory
from bpe_desktop.core.memory import (
    MEMORY_MODEL,
    MemoryEstimate,
    available_memory,
    corpus_text_bytes,
    estimate_distinct_words,
)
from bpe_desktop.core.formatting import format_bytes

BOTCHAN = Path(__file__).resolve().parents[2] / "bpe_desktop/resources/examples/botchan.txt"
REPEATED = b"the cat sat on the mat and the dog sat on the log\n"


def _distinct_words(n: int, seed: int = 0) -> bytes:
    rng = random.Random(seed)
    return b" ".join("".join(rng.choices(string.ascii_lowercase, k=10)).encode()
                     for _ in range(n)) + b"\n"


@pytest.fixture
def plenty(monkeypatch):
    monkeypatch.setattr(memory, "available_memory", lambda: 10**15)


def test_estimate_is_a_frozen_value(tmp_path, plenty):
    path = tmp_path / "c.txt"
    path.write_bytes(REPEATED)
    estimate = estimate_training_memory([path], TrainConfig())
    assert isinstance(estimate, MemoryEstimate)
    assert estimate.bytes_available == 10**15 and estimate.warning is None
    with pytest.raises(AttributeError):
        estimate.bytes_needed = 0  # type: ignore[misc]


def test_grows_with_the_corpus(tmp_path, plenty):
    needed = []
    for i, n in enumerate((1_000, 10_000, 100_000)):
        path = tmp_path / f"c{i}.txt"
        path.write_bytes(_distinct_words(n))
        needed.append(estimate_training_memory([path], TrainConfig()).bytes_needed)
    assert needed[0] < needed[1] < needed[2]
    # about MEMORY_MODEL["per_word"] + per_word_byte * 10 bytes more per distinct word
    per_word = (needed[2] - needed[1]) / 90_000
    expected = MEMORY_MODEL["per_word"] + 10 * MEMORY_MODEL["per_word_byte"]
    assert expected * 0.9 < per_word < expected * 1.1


def test_more_files_never_need_less(tmp_path, plenty):
    paths = []
    for i in range(3):
        path = tmp_path / f"c{i}.txt"
        path.write_bytes(_distinct_words(5_000, seed=i))
        paths.append(path)
    one, two, three = (estimate_training_memory(paths[:k], TrainConfig()).bytes_needed
                       for k in (1, 2, 3))
    assert one < two < three


def test_repeating_words_needs_less_than_new_words(tmp_path, plenty):
    repeated, distinct = tmp_path / "r.txt", tmp_path / "d.txt"
    text = _distinct_words(100_000)
    repeated.write_bytes(REPEATED * (len(text) // len(REPEATED)))
    distinct.write_bytes(text)
    low = estimate_training_memory([repeated], TrainConfig()).bytes_needed
    high = estimate_training_memory([distinct], TrainConfig()).bytes_needed
    assert low < MEMORY_MODEL["base"] * 1.01 < high


def test_heaps_law_extrapolates_beyond_the_sample():
    sample = _distinct_words(10_000)
    words, word_bytes = estimate_distinct_words(sample, 100 * len(sample))
    assert 900_000 < words <= 1_000_000  # every word distinct: beta is 1
    assert word_bytes == pytest.approx(words * 10, rel=0.01)
    repeated = REPEATED * 1000
    words, _ = estimate_distinct_words(repeated, 100 * len(repeated))
    assert words < 100  # nothing new in the second half: beta is clamped low
    assert estimate_distinct_words(b"", 10**9) == (0, 0)
    # one long word: its bytes are counted, up to the whole corpus
    words, word_bytes = estimate_distinct_words(b"x" * 1000, 10**6)
    assert word_bytes == 10**6


def test_gzip_size_from_its_trailer(tmp_path):
    text = _distinct_words(20_000)
    path = tmp_path / "c.txt.gz"
    path.write_bytes(gzip.compress(text))
    assert corpus_text_bytes(path) == len(text)
    # A trailer below the compressed size (wrapped above 4 GiB, or several members):
    # the typical text ratio is used instead.
    raw = bytearray(path.read_bytes())
    raw[-4:] = (10).to_bytes(4, "little")
    path.write_bytes(bytes(raw))
    assert corpus_text_bytes(path) == int(len(raw) * memory.GZIP_TEXT_RATIO)


def test_gzip_corpus_is_estimated_like_its_text(tmp_path, plenty):
    text = _distinct_words(50_000)
    plain, packed = tmp_path / "c.txt", tmp_path / "c.gz"
    plain.write_bytes(text)
    packed.write_bytes(gzip.compress(text))
    assert (estimate_training_memory([packed], TrainConfig()).bytes_needed
            == estimate_training_memory([plain], TrainConfig()).bytes_needed)


def test_missing_unreadable_and_tiny_files_count_as_their_size(tmp_path, plenty):
    assert corpus_text_bytes(tmp_path / "nope.txt") == 0
    assert corpus_text_bytes(tmp_path) == 0  # a folder
    small = tmp_path / "s.txt"
    small.write_bytes(b"\x1f\x8b")  # gzip magic, but too short to be gzip
    assert corpus_text_bytes(small) == 2
    broken = tmp_path / "b.gz"
    broken.write_bytes(b"\x1f\x8b\x08\x00" + b"\xff" * 40)
    estimate = estimate_training_memory([tmp_path / "nope.txt", broken], TrainConfig())
    assert estimate.bytes_needed >= MEMORY_MODEL["base"]


def test_warning_when_free_memory_is_small(tmp_path, monkeypatch):
    paths = []
    for i in range(3):
        path = tmp_path / f"c{i}.txt"
        path.write_bytes(_distinct_words(2_000, seed=i))
        paths.append(path)
    monkeypatch.setattr(memory, "available_memory", lambda: 6_000_000)
    estimate = estimate_training_memory(paths, TrainConfig())
    assert estimate.bytes_available == 6_000_000
    assert estimate.warning.startswith("Training on these 3 files (")
    assert f"needs about {format_bytes(estimate.bytes_needed)} of memory" in estimate.warning
    assert "this computer has 6.0 MB free" in estimate.warning
    one = estimate_training_memory(paths[:1], TrainConfig()).warning
    assert one.startswith("Training on this file (")


def test_warning_threshold_is_a_share_of_free_memory(tmp_path, monkeypatch):
    path = tmp_path / "c.txt"
    path.write_bytes(REPEATED)
    monkeypatch.setattr(memory, "available_memory", lambda: 10**15)
    needed = estimate_training_memory([path], TrainConfig()).bytes_needed
    fits = int(needed / memory.WARN_FRACTION) + 1
    monkeypatch.setattr(memory, "available_memory", lambda: fits)
    assert estimate_training_memory([path], TrainConfig()).warning is None
    monkeypatch.setattr(memory, "available_memory", lambda: fits - 2)
    assert estimate_training_memory([path], TrainConfig()).warning is not None


def test_no_warning_when_free_memory_is_unknown(tmp_path, monkeypatch):
    path = tmp_path / "c.txt"
    path.write_bytes(REPEATED)
    monkeypatch.setattr(memory, "available_memory", lambda: None)
    estimate = estimate_training_memory([path], TrainConfig())
    assert estimate.bytes_available is None and estimate.warning is None


def test_the_warning_alone_is_the_estimates(tmp_path, monkeypatch):
    paths = [tmp_path / "distinct.txt", tmp_path / "table.tsv"]
    paths[0].write_bytes(_distinct_words(20_000))
    paths[1].write_bytes(b"".join(b"w%d\t%d\n" % (i, i + 1) for i in range(20_000)))
    for available in (10**15, 6_000_000, 60_000_000, 200_000_000, None):
        monkeypatch.setattr(memory, "available_memory", lambda: available)
        for path, word_counts in ((paths[0], False), (paths[1], True)):
            expected = estimate_training_memory([path], TrainConfig(), word_counts=word_counts)
            assert memory.memory_warning([path], TrainConfig(), word_counts=word_counts) \
                == expected.warning


def test_the_warning_alone_reads_no_sample_when_the_size_rules_it_out(tmp_path, monkeypatch):
    path = tmp_path / "c.txt"
    path.write_bytes(_distinct_words(20_000))
    sampled = []
    real_sample = memory._sample
    monkeypatch.setattr(memory, "_sample", lambda *a: sampled.append(a) or real_sample(*a))
    monkeypatch.setattr(memory, "available_memory", lambda: 10**12)
    assert memory.memory_warning([path], TrainConfig()) is None
    assert sampled == []
    monkeypatch.setattr(memory, "available_memory", lambda: 6_000_000)
    assert memory.memory_warning([path], TrainConfig()) is not None
    assert len(sampled) == 1


@pytest.mark.parametrize("text", [
    b"a b c d e f g h i j\n", b"a\n" * 5_000, b"abcdefghij" * 1_000,
    bytes(range(33, 127)) * 300, b" ".join(b"%d" % i for i in range(50_000)),
])
def test_no_estimate_exceeds_the_most_a_corpus_of_its_size_needs(tmp_path, plenty, text):
    # By hand for the smallest corpus the bound allows for: a sample-sized text (4 MB and
    # 16 line breaks between files) of one-letter words: base + per_word * half its bytes
    # (rounded up) + per_word_byte * its bytes.
    smallest = memory.most_memory_needed(0)
    assert smallest == 40_000_000 + 300 * 2_000_008 + 8 * 4_000_016
    path = tmp_path / "c.txt"
    for copies in (1, 8_000_000 // len(text)):  # below and above the sample's size
        path.write_bytes(text * copies)
        for word_counts in (False, True):
            needed = estimate_training_memory([path], TrainConfig(),
                                              word_counts=word_counts).bytes_needed
            assert needed <= memory.most_memory_needed(len(text) * copies,
                                                       word_counts=word_counts)


def test_available_memory_reads_meminfo():
    free = available_memory()
    with open("/proc/meminfo") as fh:
        line = next(l for l in fh if l.startswith("MemAvailable:"))
    reported = int(line.split()[1]) * 1024
    assert free is not None and abs(free - reported) < reported * 0.5


def test_available_memory_falls_back_to_sysconf(monkeypatch):
    real_open = open

    def no_proc(path, *args, **kwargs):
        if str(path) == "/proc/meminfo":
            raise FileNotFoundError(path)
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr("builtins.open", no_proc)
    free = available_memory()
    assert free is not None and free > 0


@pytest.mark.parametrize("n, text", [(0, "0 bytes"), (999, "999 bytes"), (1500, "1.5 kB"),
                                     (12_400_000_000, "12.4 GB"), (6 * 10**9, "6.0 GB"),
                                     (3 * 10**12, "3.0 TB")])
def test_format_bytes(n, text):
    assert format_bytes(n) == text


def _sample_words_in_python(sample: bytes) -> tuple[int, int, int, int, int]:
    """What the engine's ``sample_words`` counts, as the estimate counted it in Python:
    slices of 64 KiB (a sixteenth of a smaller sample) extended to the next whitespace,
    ``bytes.split()``'s words, the middle counts after the first slice at or past it."""
    distinct: set[bytes] = set()
    words = half = in_half = 0
    start, step = 0, max(1, min(64 << 10, len(sample) // 16))
    while start < len(sample):
        end = min(len(sample), start + step)
        while end < len(sample) and not sample[end:end + 1].isspace():
            end += 1
        piece = sample[start:end].split()
        distinct.update(piece)
        words += len(piece)
        if not half and end * 2 >= len(sample):
            half, in_half = words, len(distinct)
        start = end
    return words, len(distinct), sum(map(len, distinct)), half, in_half


@pytest.mark.parametrize("size", [0, 1, 15, 16, 17, 1000, 200_000, 1_100_000])
def test_the_engines_sample_count_is_the_python_definition(size):
    from bpe_desktop.core import _native

    rng = random.Random(size)
    # every kind of whitespace bytes.split() knows, runs of it, UTF-8 (U+00A0 is no space
    # for bytes), long words, repeated words
    alphabet = [b"a", b"b", b"ab", b"the", "é".encode(), "\u00a0".encode(), b" ", b"\t",
                b"\n", b"\r\n", b"\x0b", b"\x0c", b"  ", b"x" * 70_000]
    parts, total = [], 0
    while total < size:
        part = rng.choice(alphabet[:-1]) if rng.random() > 0.0005 else alphabet[-1]
        parts.append(part)
        total += len(part)
    sample = b"".join(parts)[:size]
    assert _native.engine().sample_words(sample) == _sample_words_in_python(sample)
    for text in (_distinct_words(30_000), REPEATED * 3000, BOTCHAN.read_bytes()):
        assert _native.engine().sample_words(text) == _sample_words_in_python(text)
