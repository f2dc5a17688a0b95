"""Bad corpora, faults during reading, limits and engine panics: a clear error every time.

Every failure is a :class:`BpeError` subclass whose message names the file (and byte
offset or line where that means something), with ``reason`` telling a front end what
went wrong; a failed training produces no model at all.
"""

from __future__ import annotations

import gzip
import os
import resource
import threading
import time
from collections import Counter
from pathlib import Path

import pytest

from bpe_desktop.core import (
    BpeError,
    CancelToken,
    ConfigError,
    Corpus,
    CorpusError,
    EncodeError,
    EngineError,
    TrainConfig,
    TrainingCancelled,
    _native,
    train,
)
from bpe_desktop.core.training import REPLACEABLE_REASONS
from tests.shared_data import gpt2_chars

PRESETS = ["sennrich", "subword-nmt", "gpt2", "sentencepiece"]
TEXT = "low lower newest widest\nhappier lowest newer\n"


def corpus_error(corpus: Corpus, config: TrainConfig | None = None, **kwargs) -> CorpusError:
    with pytest.raises(CorpusError) as err:
        train(corpus, config or TrainConfig(min_frequency=1), **kwargs)
    return err.value


def merges(corpus: Corpus, config: TrainConfig | None = None):
    return train(corpus, config or TrainConfig(min_frequency=1)).model.merges


# -- encodings ----------------------------------------------------------------------------


def test_every_reason_is_known_to_python():
    assert set(REPLACEABLE_REASONS) <= set(_native.engine()._corpus_reasons())


def test_invalid_utf8_deep_in_a_later_file_names_file_offset_and_line(tmp_path):
    good = tmp_path / "good.txt"
    good.write_text(TEXT)
    # More than one 1 MiB read block before the bad byte, so block offsets add up.
    lines = ["word number %d here" % (i % 50) for i in range(120_000)]
    head = ("\n".join(lines) + "\n").encode()
    bad = tmp_path / "bad.txt"
    bad.write_bytes(head + b"caf\xe9 au lait\nmore\n")
    err = corpus_error(Corpus.from_files([good, bad]))
    assert (err.path, err.offset, err.line) == (str(bad), len(head) + 3, 120_001)
    assert err.reason == "not-utf8" and err.reason in REPLACEABLE_REASONS
    assert f"byte offset {len(head) + 3} (line 120001)" in str(err)
    assert str(bad) in str(err) and "0xe9" in str(err)
    # The way out the message offers: replacement characters.
    result = train(Corpus.from_files([good, bad]).with_errors("replace"),
                   TrainConfig(min_frequency=1))
    assert "\ufffd" in result.model.alphabet
    assert ("caf\ufffd", 1) in result.model.words


def test_invalid_utf8_in_gzip_counts_decompressed_bytes(tmp_path):
    path = tmp_path / "latin1.txt.gz"
    path.write_bytes(gzip.compress(b"good words\nna\xefve\n"))
    err = corpus_error(Corpus.from_files([path]))
    assert (err.offset, err.line, err.reason) == (13, 2, "not-utf8")
    assert "decompressed" in str(err)


def test_truncated_multibyte_sequence_at_end_of_file(tmp_path):
    path = tmp_path / "cut.txt"
    path.write_bytes("mot juste caf\u00e9".encode()[:-1])
    err = corpus_error(Corpus.from_files([path]))
    assert err.offset == len(b"mot juste caf") and err.reason == "not-utf8"


def test_nul_byte_inside_text_is_refused_or_replaced(tmp_path):
    path = tmp_path / "stray.txt"
    head = ("plain text line\n" * 1000).encode()  # past the 8 KiB binary sniff
    path.write_bytes(head + b"bro\x00ken\n")
    err = corpus_error(Corpus.from_files([path]))
    assert (err.reason, err.offset, err.line) == ("nul-byte", len(head) + 3, 1001)
    assert err.reason in REPLACEABLE_REASONS
    words = dict(train(Corpus.from_files([path], errors="replace"),
                       TrainConfig(min_frequency=1)).model.words)
    assert words["bro\ufffdken"] == 1


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-32"])
def test_utf16_and_utf32_are_named(tmp_path, encoding):
    path = tmp_path / "wide.txt"
    path.write_bytes(TEXT.encode(encoding))
    err = corpus_error(Corpus.from_files([path]))
    assert err.reason == "other-encoding" and err.path == str(path)
    assert ("UTF-32" if encoding == "utf-32" else "UTF-16") in str(err)
    assert "save it as UTF-8" in str(err)
    # Replacement characters would not help, and the engine does not pretend they do.
    err = corpus_error(Corpus.from_files([path], errors="replace"))
    assert err.reason == "other-encoding"


@pytest.mark.parametrize("content", [
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00",
    b"PK\x03\x04\x14\x00\x00\x00\x08\x00",
    bytes(range(256)) * 4,
])
def test_binary_files_are_refused(tmp_path, content):
    path = tmp_path / "image.txt"
    path.write_bytes(content)
    for errors in ("strict", "replace"):
        err = corpus_error(Corpus.from_files([path], errors=errors))
        assert err.reason == "binary" and "binary" in str(err) and err.offset is not None
    packed = tmp_path / "image.txt.gz"
    packed.write_bytes(gzip.compress(content))
    err = corpus_error(Corpus.from_files([packed]))
    assert err.reason == "binary" and "after decompression" in str(err)


@pytest.mark.parametrize("whitespace", ["\u2028", "\u00a0", "\u3000", "\x0b"])
def test_huge_lines_are_cut_only_at_word_boundaries(tmp_path, whitespace):
    """A line longer than a read block is cut before a space; never right after other
    whitespace, where GPT-2's pre-tokenizer would see the whitespace run differently."""
    line = f"xy{whitespace} \tz" * 300_000  # 2+ MB; its only spaces follow whitespace
    path = tmp_path / "one-line.txt"
    path.write_text(line)
    result = train(Corpus.from_files([path]), TrainConfig.preset("gpt2", merges=40))
    # The reference: GPT-2's pre-tokenizer over the whole line, never cut.
    byte_chars = gpt2_chars()
    expected = Counter("".join(byte_chars[b] for b in word.encode())
                       for word in _native.engine().pretokenize(line, "gpt2"))
    assert {s.word: s.count for s in result.word_segmentations()} == expected


# -- byte-order marks and line ends ---------------------------------------------------------


def test_bom_is_stripped_at_the_start_of_every_file_only(tmp_path):
    plain = [tmp_path / "a.txt", tmp_path / "b.txt"]
    marked = [tmp_path / "a-bom.txt", tmp_path / "b-bom.txt"]
    for p, m, text in zip(plain, marked, [TEXT, TEXT.upper()]):
        p.write_text(text)
        m.write_bytes(b"\xef\xbb\xbf" + text.encode())
    gz = tmp_path / "b-bom.txt.gz"
    gz.write_bytes(gzip.compress(marked[1].read_bytes()))
    for preset in PRESETS:
        cfg = TrainConfig.preset(preset, merges=30)
        expected = merges(Corpus.from_files(plain), cfg)
        assert merges(Corpus.from_files(marked), cfg) == expected, preset
        assert merges(Corpus.from_files([marked[0], gz]), cfg) == expected, preset
    # Inside a file U+FEFF is a character (ZERO WIDTH NO-BREAK SPACE), kept as it is.
    inner = tmp_path / "inner.txt"
    inner.write_bytes(b"ab\xef\xbb\xbfcd ab\n")
    words = dict(train(Corpus.from_files([inner]), TrainConfig(min_frequency=1)).model.words)
    assert words == {"ab\ufeffcd": 1, "ab": 1}


def test_a_file_holding_only_a_bom_has_no_words(tmp_path):
    path = tmp_path / "bom.txt"
    path.write_bytes(b"\xef\xbb\xbf")
    err = corpus_error(Corpus.from_files([path]))
    assert err.reason == "no-words" and str(path) in str(err)


@pytest.mark.parametrize("preset", ["sennrich", "subword-nmt", "sentencepiece"])
def test_crlf_and_lone_cr_end_lines_like_lf(tmp_path, preset):
    cfg = TrainConfig.preset(preset, merges=25)
    expected = merges(Corpus.from_texts([TEXT * 3]), cfg)
    for ending in ("\r\n", "\r"):
        path = tmp_path / "ends.txt"
        path.write_bytes((TEXT * 3).replace("\n", ending).encode())
        assert merges(Corpus.from_files([path]), cfg) == expected, repr(ending)


def test_byte_level_keeps_a_lone_cr_and_reads_crlf_as_lf(tmp_path):
    text = "old mac\rline ends\rand unix\nand windows\r\nend"
    path = tmp_path / "mixed.txt"
    path.write_bytes((text * 4).encode())
    model = train(Corpus.from_files([path]), TrainConfig.preset("gpt2", merges=40)).model
    tok = model.tokenizer()
    assert tok.decode(tok.encode(text)) == text.replace("\r\n", "\n")
    assert "\u010d" in model.alphabet  # GPT-2's character for byte 0x0d


# -- empty corpora --------------------------------------------------------------------------


def test_empty_files_are_all_named_at_once(tmp_path):
    good = tmp_path / "good.txt"
    good.write_text(TEXT)
    empties = [tmp_path / f"empty{i}.txt" for i in range(3)]
    for e in empties:
        e.write_bytes(b"")
    err = corpus_error(Corpus.from_files([good, empties[0]]))
    assert err.reason == "empty" and err.path == str(empties[0])
    assert str(err) == f"{empties[0]} is empty"
    err = corpus_error(Corpus.from_files([empties[0], good, *empties[1:]]))
    assert str(err).startswith("3 corpus files are empty: ")
    assert all(str(e) in str(err) for e in empties) and str(good) not in str(err)


def test_corpora_without_words_say_which_files(tmp_path):
    blank = [tmp_path / "blank1.txt", tmp_path / "blank2.txt"]
    for b in blank:
        b.write_text("  \n\t \r\n\n")
    err = corpus_error(Corpus.from_files(blank))
    assert err.reason == "no-words"
    assert all(str(b) in str(err) for b in blank)
    for empty in (Corpus.from_texts([]), Corpus.from_texts(["", " \n "]),
                  Corpus.from_word_counts([])):
        err = corpus_error(empty)
        assert err.reason == "no-words" and str(err) == "the corpus contains no words"


def test_no_files_and_bad_path_types_are_config_errors():
    with pytest.raises(ConfigError, match="no corpus files"):
        Corpus.from_files([])
    with pytest.raises(ConfigError, match="file names"):
        Corpus.from_files([3.5])


# -- paths ------------------------------------------------------------------------------------


def test_missing_folder_and_device_paths(tmp_path):
    missing = tmp_path / "nope.txt"
    err = corpus_error(Corpus.from_files([missing]))
    assert (err.reason, err.path) == ("missing", str(missing))
    assert "does not exist" in str(err)
    err = corpus_error(Corpus.from_files([tmp_path]))
    assert err.reason == "not-a-file" and "folder" in str(err)
    if os.path.exists("/dev/null"):
        err = corpus_error(Corpus.from_files(["/dev/null"]))
        assert err.reason == "not-a-file" and "device" in str(err)


def test_a_single_path_string_is_one_file(tmp_path):
    path = tmp_path / "one.txt"
    path.write_text(TEXT)
    assert Corpus.from_files(str(path)).paths == (str(path),)
    assert train(Corpus.from_files(path), TrainConfig(merges=3)).model.merges


@pytest.mark.skipif(os.name != "posix", reason="byte file names are a POSIX matter")
def test_file_names_that_are_not_utf8(tmp_path):
    raw = os.path.join(os.fsencode(tmp_path), b"caf\xe9.txt")
    with open(raw, "wb") as f:
        f.write(TEXT.encode())
    corpus = Corpus.from_files([raw])
    result = train(corpus, TrainConfig(merges=5))
    assert result.model.corpus.files[0].path == os.fsdecode(raw)
    with open(raw, "wb") as f:
        f.write(b"\xff\xfe")
    err = corpus_error(corpus)
    assert err.path == os.fsdecode(raw)


def test_more_files_than_open_descriptors(tmp_path):
    """Files are opened one at a time, so the descriptor limit does not cap a corpus."""
    paths = []
    for i in range(300):
        p = tmp_path / f"part{i:03}.txt"
        p.write_text(f"word{i % 7} shared text {i}\n")
        paths.append(p)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(128, hard), hard))
    try:
        result = train(Corpus.from_files(paths), TrainConfig(merges=10))
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    assert len(result.model.corpus.files) == 300


# -- compressed files -------------------------------------------------------------------------


def test_gzip_truncated_corrupt_and_multi_member(tmp_path):
    text = (TEXT * 2000).encode()
    packed = gzip.compress(text)
    cut = tmp_path / "cut.txt.gz"
    cut.write_bytes(packed[: len(packed) // 2])
    err = corpus_error(Corpus.from_files([cut]))
    assert err.reason == "corrupt" and str(cut) in str(err) and "truncated or corrupt" in str(err)
    broken = bytearray(packed)
    broken[len(broken) // 2: len(broken) // 2 + 16] = b"\xff" * 16
    bad = tmp_path / "bad.txt.gz"
    bad.write_bytes(bytes(broken))
    assert corpus_error(Corpus.from_files([bad])).reason == "corrupt"
    # Concatenated gzip members (as `cat a.gz b.gz`) are one text.
    multi = tmp_path / "multi.txt.gz"
    multi.write_bytes(gzip.compress(text[:5000]) + gzip.compress(text[5000:]))
    cfg = TrainConfig(merges=30)
    assert merges(Corpus.from_files([multi]), cfg) == merges(Corpus.from_texts([text.decode()]), cfg)


# -- faults during a run ----------------------------------------------------------------------


def train_with_sabotage(tmp_path, second: Path, action) -> CorpusError:
    """Train on [a pipe, ``second``]; ``action`` runs once reading has begun.

    The pipe's writer can only open it once the engine's reader does, which is after every
    path was checked: so ``action`` hits ``second`` mid-run, deterministically.
    """
    fifo = tmp_path / "first.pipe"
    os.mkfifo(fifo)

    def feed():
        with open(fifo, "wb") as f:
            action()
            f.write((TEXT * 50).encode())

    writer = threading.Thread(target=feed)
    writer.start()
    try:
        return corpus_error(Corpus.from_files([fifo, second]))
    finally:
        writer.join()


needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")


@pytest.fixture
def second(tmp_path):
    path = tmp_path / "second.txt"
    path.write_text(TEXT.upper() * 50)
    return path


@needs_fifo
def test_a_file_removed_during_training_fails_the_job(tmp_path, second):
    err = train_with_sabotage(tmp_path, second, second.unlink)
    assert (err.reason, err.path) == ("missing", str(second))
    assert str(err) == f"cannot open {second}: the file does not exist"


@needs_fifo
def test_a_file_replaced_by_a_folder_during_training_fails_the_job(tmp_path, second):
    def replace():
        second.unlink()
        second.mkdir()

    err = train_with_sabotage(tmp_path, second, replace)
    assert (err.reason, err.path, err.offset) == ("unreadable", str(second), 0)
    assert str(err).startswith(f"cannot read {second} at byte offset 0: ")


@needs_fifo
@pytest.mark.parametrize("change", ["shrink", "grow"])
def test_a_file_changed_during_training_fails_the_job(tmp_path, second, change):
    size = second.stat().st_size

    def modify():
        if change == "shrink":
            os.truncate(second, size // 2)
        else:
            with open(second, "a") as f:
                f.write("appended later\n")

    err = train_with_sabotage(tmp_path, second, modify)
    assert err.reason == "changed" and err.path == str(second)
    assert f"it had {size} bytes when training started" in str(err)


def test_failure_after_a_good_training_leaves_that_result_alone(tmp_path, second):
    first = tmp_path / "first.txt"
    first.write_text(TEXT * 50)
    good = train(Corpus.from_files([first]), TrainConfig(merges=5))
    before = good.model
    second.unlink()
    with pytest.raises(CorpusError):
        train(Corpus.from_files([first, second]), TrainConfig(merges=5))
    assert good.model is before and len(before.merges) == 5


# -- pipes: a slow or stalled source ----------------------------------------------------------


@needs_fifo
def test_training_from_a_pipe(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    data = (TEXT * 500).encode()

    def feed():
        with open(fifo, "wb") as f:
            for i in range(0, len(data), 4096):
                f.write(data[i:i + 4096])

    writer = threading.Thread(target=feed)
    writer.start()
    result = train(Corpus.from_files([fifo]), TrainConfig(merges=20))
    writer.join()
    assert result.model.merges == merges(Corpus.from_texts([data.decode()]), TrainConfig(merges=20))
    assert result.model.corpus.files[0].size == len(data)


@needs_fifo
def test_invalid_utf8_from_a_pipe_has_an_offset_but_no_line(tmp_path):
    """The line number is found by reading the file again, which a pipe cannot be."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_bytes(b"ok\nna\xefve\n"))
    writer.start()
    err = corpus_error(Corpus.from_files([fifo]))
    writer.join()
    assert (err.reason, err.offset, err.line) == ("not-utf8", 5, None)


@needs_fifo
def test_an_empty_pipe_is_empty(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: open(fifo, "wb").close())
    writer.start()
    err = corpus_error(Corpus.from_files([fifo]))
    writer.join()
    assert err.reason == "empty" and "nothing could be read" in str(err)


@needs_fifo
def test_a_stalled_source_reports_progress_and_cancels_promptly(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    release = threading.Event()

    def feed():
        with open(fifo, "wb") as f:
            f.write((TEXT * 100).encode())
            f.flush()
            release.wait(30)  # the "disk" stalls until the test is over

    writer = threading.Thread(target=feed)
    writer.start()
    cancel = CancelToken()
    reports = []

    def on_progress(p):
        reports.append(p)
        if len([r for r in reports if r.stage == "reading" and r.bytes_done]) >= 3:
            cancel.cancel()

    started = time.monotonic()
    try:
        with pytest.raises(TrainingCancelled):
            train(Corpus.from_files([fifo]), TrainConfig(), on_progress=on_progress,
                  cancel=cancel)
        elapsed = time.monotonic() - started
    finally:
        release.set()
        writer.join()
    reading = [r for r in reports if r.stage == "reading"]
    assert reading[-1].bytes_done == len(TEXT) * 100
    assert elapsed < 5, elapsed  # reports arrive every 50 ms while the source stalls


# -- limits -----------------------------------------------------------------------------------


def _engine_options(**changes):
    """A TrainConfig's attributes as the engine reads them, with ``changes`` that
    TrainConfig itself would refuse (``threads`` is what the engine reads as
    ``effective_threads``)."""
    import dataclasses
    from types import SimpleNamespace

    config = TrainConfig()
    attributes = {f.name: getattr(config, f.name) for f in dataclasses.fields(config)}
    attributes["effective_threads"] = changes.pop("threads", config.effective_threads)
    return SimpleNamespace(**{**attributes, **changes})


@pytest.mark.parametrize("changes, message", [
    ({"threads": 0}, "threads must be from 1 to 1024; got 0"),
    ({"threads": 100_000}, "threads must be from 1 to 1024; got 100000"),
    ({"threads": -1}, "effective_threads"),
    ({"vocab_size": 2**31}, "vocab_size must be from 1 to 2147483647; got 2147483648"),
    ({"vocab_size": 0}, "vocab_size must be from 1"),
    ({"merges": 2**40}, "merges must be from 0 to 2147483647"),
    ({"min_frequency": 0}, "min_frequency must be from 1"),
    ({"character_coverage": 0.0}, "character_coverage must be more than 0 and at most 1"),
    ({"character_coverage": float("nan")}, "character_coverage"),
    ({"min_frequency": "two"}, "min_frequency"),
    ({"ties": "random"}, "ties must be one of first-seen, lexicographic, codepoint"),
])
def test_engine_checks_every_number_itself(changes, message):
    """The engine validates what it is given, whoever calls it (not only TrainConfig)."""
    source = Corpus.from_texts([TEXT])
    with pytest.raises(ConfigError, match=message.replace("(", r"\(")):
        _native.engine().train(source, _engine_options(**changes))


def test_config_limits_name_the_setting_and_range():
    for kwargs, message in [({"threads": 5000}, "threads must be at least 0 and at most 1024"),
                            ({"vocab_size": 2**31}, "vocab_size must be at least 1 and at most"),
                            ({"merges": -1}, "merges must be at least 0")]:
        with pytest.raises(ConfigError, match=message):
            TrainConfig(**kwargs)
    assert _native.engine().MAX_VOCAB == 2**31 - 1


def test_bad_corpus_values_are_documented_errors():
    engine = _native.engine()
    options = _engine_options()
    with pytest.raises(CorpusError, match="text 1"):
        engine.train(Corpus("texts", texts=("fine", "lone \ud800 surrogate")), options)
    with pytest.raises(CorpusError, match="word count entry 0"):
        engine.train(Corpus("word-counts", word_counts=(("\udcff", 3),)), options)
    with pytest.raises(ConfigError, match="corpus path 0"):
        engine.train(Corpus("files", paths=(7,)), options)
    with pytest.raises(ConfigError, match="unknown corpus kind"):
        engine.train(Corpus("mystery"), options)


def test_tokenizer_arguments_are_documented_errors():
    model = train(Corpus.from_texts([TEXT]), TrainConfig(merges=5)).model
    tok = model.tokenizer()
    with pytest.raises(EncodeError, match="text"):
        tok.encode("lone \ud800")
    with pytest.raises(EncodeError, match="text"):
        tok._native.encode(42, False)
    with pytest.raises(EncodeError, match="text 1"):
        tok.encode_batch(["fine", "lone \udfff"])
    with pytest.raises(EncodeError, match="id"):
        tok._native.decode([-1])
    with pytest.raises(EncodeError, match="id"):
        tok._native.decode([2**40])
    with pytest.raises(EncodeError, match="outside the vocabulary"):
        tok._native.decode([10**6])
    with pytest.raises(ConfigError, match="threads must be from 0 to 1024"):
        tok._native.encode_batch(["a"], False, 5000)
    with pytest.raises(ConfigError, match="pieces"):
        type(tok._native)(TrainConfig(boundary="none"), "a\udc80", b"\1\0\0\0\2\0\0\0", "",
                          b"", None, {})
    with pytest.raises(ConfigError, match="merge parts"):
        type(tok._native)(TrainConfig(boundary="none"), "ab", b"\1\0\0\0\2\0\0\0",
                          "a\udc80", b"\1\0\0\0\2\0\0\0", None, {})


# -- panics -----------------------------------------------------------------------------------


@pytest.mark.parametrize("place", ["here", "released", "worker"])
def test_a_panic_becomes_engine_error(place):
    """A Rust panic reaches Python as EngineError (an Exception), never PanicException."""
    try:
        _native.engine()._debug_panic(place)
    except Exception as exc:  # noqa: BLE001 - the point: an ordinary Exception
        assert type(exc) is EngineError and isinstance(exc, BpeError)
        assert f"deliberate test panic ({place})" in str(exc)
        assert "internal engine error" in str(exc)
    else:
        pytest.fail("no exception")


def test_the_engine_still_works_after_a_panic():
    with pytest.raises(EngineError):
        _native.engine()._debug_panic("worker")
    assert merges(Corpus.from_texts([TEXT]), TrainConfig(merges=4))


def test_native_call_converts_a_stray_panic_exception():
    class PanicException(BaseException):
        pass

    def boom():
        raise PanicException("index out of bounds")

    with pytest.raises(EngineError, match="internal engine error: index out of bounds"):
        _native.call(boom)
