"""The engine through the public API: inputs, progress, cancellation, errors, invariants."""

from __future__ import annotations

import gzip
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from bpe_desktop.core import (
    CancelToken,
    ConfigError,
    Corpus,
    CorpusError,
    EncodeError,
    TrainConfig,
    TrainingCancelled,
    train,
)
from tests.shared_data import corpus_path, gpt2_chars

PRESETS = ["sennrich", "subword-nmt", "gpt2", "sentencepiece"]


def corpus(name: str) -> Path:
    return corpus_path(name)


@pytest.fixture(scope="module")
def big_corpus(tmp_path_factory) -> Path:
    """About 96 MB of real text: a training run of some tenths of a second, long enough for
    several throttled progress reports (12 MB once took a second; now under 0.1 s)."""
    path = tmp_path_factory.mktemp("big") / "big.txt"
    text = corpus("tinyshakespeare.txt").read_text() + corpus("ud_english.txt").read_text()
    path.write_text(text * 40)
    return path


# -- inputs ------------------------------------------------------------------------------


def test_files_texts_and_gzip_agree(tmp_path):
    text = corpus("ud_german.txt").read_text()
    plain = tmp_path / "de.txt"
    plain.write_text(text)
    packed = tmp_path / "de.txt.gz"
    packed.write_bytes(gzip.compress(text.encode()))
    cfg = TrainConfig(merges=300)
    a = train(Corpus.from_files([plain]), cfg).model.merges
    b = train(Corpus.from_files([packed]), cfg).model.merges
    c = train(Corpus.from_texts([text]), cfg).model.merges
    assert a == b == c and len(a) == 300


def test_bom_and_crlf_do_not_change_training(tmp_path):
    text = "low lower newest widest\nhappier lowest\n" * 5
    unix = tmp_path / "unix.txt"
    unix.write_text(text)
    windows = tmp_path / "windows.txt"
    windows.write_bytes(b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode())
    for preset in PRESETS:
        cfg = TrainConfig.preset(preset, merges=20)
        assert (
            train(Corpus.from_files([unix]), cfg).model.merges
            == train(Corpus.from_files([windows]), cfg).model.merges
        ), preset


def test_word_count_files(tmp_path):
    table = tmp_path / "counts.tsv"
    table.write_text("low\t5\nlower\t2\nnewest\t6\nwidest\t3\nhappier\t2\n")
    result = train(Corpus.from_files([table], word_counts=True), TrainConfig(merges=10))
    assert [m.result for m in result.model.merges][:3] == ["es", "est", "est</w>"]
    assert result.model.corpus.kind == "word-count-files"
    assert result.model.corpus.files[0].size == table.stat().st_size


def test_provenance_records_files_and_counts(tmp_path):
    import hashlib

    path = tmp_path / "c.txt"
    path.write_text("a b a\n")
    info = train(Corpus.from_files([path]), TrainConfig(min_frequency=1)).model.corpus
    assert info.files[0].sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    assert (info.total_words, info.distinct_words) == (3, 2)


# -- errors -------------------------------------------------------------------------------


def test_invalid_utf8_names_file_and_offset(tmp_path):
    path = tmp_path / "latin1.txt"
    path.write_bytes(b"good words here\ncaf\xe9 au lait\n")
    with pytest.raises(CorpusError) as err:
        train(Corpus.from_files([path]))
    assert str(path) in str(err.value) and "byte offset 19" in str(err.value)
    assert (err.value.path, err.value.offset) == (str(path), 19)
    # With replacement characters the same file trains.
    result = train(Corpus.from_files([path], errors="replace"), TrainConfig(min_frequency=1))
    assert "\ufffd" in result.model.alphabet


@pytest.mark.parametrize(
    "content, message",
    [(b"", "is empty"), (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "binary"), (b"   \n\t\n", "no words")],
)
def test_bad_corpora_get_clear_messages(tmp_path, content, message):
    path = tmp_path / "bad.txt"
    path.write_bytes(content)
    with pytest.raises(CorpusError, match=message):
        train(Corpus.from_files([path]))


def test_missing_file_and_folder(tmp_path):
    with pytest.raises(CorpusError, match="does not exist"):
        train(Corpus.from_files([tmp_path / "nope.txt"]))
    with pytest.raises(CorpusError, match="folder"):
        train(Corpus.from_files([tmp_path]))


def test_bad_word_count_line_names_line(tmp_path):
    table = tmp_path / "counts.tsv"
    table.write_text("low\t5\nlower two\n")
    with pytest.raises(CorpusError, match="line 2") as err:
        train(Corpus.from_files([table], word_counts=True))
    assert err.value.line == 2


def test_config_validation():
    with pytest.raises(ConfigError, match="min_frequency"):
        TrainConfig(min_frequency=0)
    with pytest.raises(ConfigError, match="bow-prefix"):
        TrainConfig(pretokenizer="sentencepiece")
    with pytest.raises(ConfigError, match="share id"):
        TrainConfig.preset("sentencepiece").replace(
            special_tokens=TrainConfig.preset("sentencepiece").special_tokens * 2
        )


# -- progress, cancellation, threads ------------------------------------------------------


def test_progress_reports_every_stage_and_often(big_corpus):
    reports = []
    train(Corpus.from_files([big_corpus]), TrainConfig(vocab_size=8000),
          on_progress=reports.append)
    stages = [r.stage for r in reports]
    assert stages[0] == "reading" and stages[-1] == "done"
    assert {"reading", "counting", "merging"} <= set(stages)
    gaps = np.diff([r.elapsed for r in reports])
    same_stage = np.array([a.stage == b.stage for a, b in zip(reports, reports[1:])])
    assert same_stage.sum() >= 3, stages  # the run is long enough to show the throttle
    assert gaps[same_stage].min() >= 0.04  # throttled within a stage (changes go at once)
    assert gaps.max() <= 0.5  # ... and steady (loose: CI machines vary)
    merging = [r for r in reports if r.stage in ("merging", "done")]
    assert sum(len(r.new_counts) for r in merging) == merging[-1].merges_done
    assert merging[-1].pair is not None and merging[-1].count >= 2


def test_cancel_stops_quickly_from_another_thread(big_corpus):
    token = CancelToken()
    started = {}

    def on_progress(p):
        if p.stage == "merging" and "t" not in started:
            started["t"] = time.perf_counter()
            threading.Timer(0.05, token.cancel).start()

    with pytest.raises(TrainingCancelled):
        train(Corpus.from_files([big_corpus]), TrainConfig(min_frequency=1),
              on_progress=on_progress, cancel=token)
    assert time.perf_counter() - started["t"] < 1.0


def test_cancel_during_reading(big_corpus):
    token = CancelToken()
    token.cancel()
    with pytest.raises(TrainingCancelled):
        train(Corpus.from_files([big_corpus]), cancel=token)


def test_callback_exception_propagates():
    def boom(p):
        raise RuntimeError("stop here")

    with pytest.raises(RuntimeError, match="stop here"):
        train(Corpus.from_texts(["a b c a b"]), on_progress=boom)


def test_gil_is_released_while_training(big_corpus):
    ticks = []
    done = threading.Event()

    def ticker():
        while not done.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.005)

    thread = threading.Thread(target=ticker)
    thread.start()
    try:
        t0 = time.perf_counter()
        train(Corpus.from_files([big_corpus]), TrainConfig(vocab_size=8000))
        elapsed = time.perf_counter() - t0
    finally:
        done.set()
        thread.join()
    # A thread starved of the GIL would tick a handful of times at most.
    assert len(ticks) > elapsed / 0.005 * 0.3
    assert np.diff(ticks).max() < 0.5


def test_identical_across_thread_counts(big_corpus):
    cfg = TrainConfig(vocab_size=5000, ties="first-seen")
    one = train(Corpus.from_files([big_corpus]), cfg.replace(threads=1)).model
    two = train(Corpus.from_files([big_corpus]), cfg.replace(threads=2)).model
    assert one.merges == two.merges and one.words == two.words


# -- invariants on real text ------------------------------------------------------------


@pytest.mark.parametrize("preset", PRESETS)
def test_training_words_reencode_to_their_segmentation(preset):
    cfg = TrainConfig.preset(preset, vocab_size=3000)
    result = train(Corpus.from_files([corpus("botchan.txt")]), cfg)
    tok = result.model.tokenizer()
    segs = result.word_segmentations()
    words = [s.word for s in segs]
    if cfg.byte_level:  # words are stored in GPT-2 characters; encode their bytes
        back = {c: b for b, c in enumerate(gpt2_chars())}
        words = [bytes(back[c] for c in w).decode("utf-8", "replace") for w in words]
    mismatches = []
    for w, s in zip(words, segs):
        encoded = tok.encode_words(w)
        pieces = tuple(tok.model.pieces[i] for i in encoded[0][1]) if len(encoded) == 1 else None
        if pieces != s.pieces:
            mismatches.append((w, s.pieces, pieces))
    assert mismatches == []



@pytest.mark.parametrize("preset", ["gpt2", "sentencepiece", "subword-nmt"])
def test_decode_round_trip_on_other_languages(preset):
    specials = {} if preset == "sentencepiece" else {"special_tokens": ()}
    config = TrainConfig.preset(preset, vocab_size=4000, **specials)
    model = train(Corpus.from_files([corpus("ud_english.txt")]), config).model
    tok = model.tokenizer()
    for name in ["ud_german.txt", "ud_russian.txt", "ud_hindi.txt", "ud_japanese.txt"]:
        lines = corpus(name).read_text().splitlines()[:200]
        if preset == "gpt2":  # byte-level: exact for any text
            assert [tok.decode(tok.encode(line)) for line in lines] == lines
        else:  # characters never seen in training become <unk> or raise without one
            for line in lines:
                try:
                    ids = tok.encode(line)
                except EncodeError:
                    assert model.config.special("unk") is None
                    continue
                if tok.unknown_count(ids) == 0:  # words come back joined by one space
                    assert tok.decode(ids) == " ".join(w for w in line.split(" ") if w)


def test_batch_encoding_matches_single(tmp_path):
    model = train(Corpus.from_files([corpus("ud_english.txt")]),
                  TrainConfig.preset("gpt2", vocab_size=2000)).model
    tok = model.tokenizer()
    lines = corpus("ud_english.txt").read_text().splitlines()[:500]
    batch = tok.encode_batch(lines, threads=2)
    assert all(isinstance(a, np.ndarray) and a.dtype == np.uint32 for a in batch)
    assert [a.tolist() for a in batch] == [tok.encode(line) for line in lines]


def test_greedy_mode_and_sentencepiece_api():
    model = train(Corpus.from_files([corpus("botchan.txt")]),
                  TrainConfig.preset("sentencepiece", vocab_size=2000)).model
    tok = model.tokenizer()
    assert (tok.pad_id(), tok.unk_id(), tok.bos_id(), tok.eos_id()) == (0, 1, 2, 3)
    assert tok.get_piece_size() == 2000
    pieces = tok.encode_as_pieces("This is a test")
    assert pieces[0].startswith("\u2581")
    assert tok.decode_pieces(pieces) == "This is a test"
    ids = tok.encode("This is a test", add_bos=True, add_eos=True)
    assert ids[0] == 2 and ids[-1] == 3 and tok.decode(ids) == "This is a test"
    assert tok.id_to_piece(tok.piece_to_id("\u2581the")) == "\u2581the"
    greedy = tok.encode_as_pieces("This is a test", mode="greedy")
    assert "".join(greedy) == "".join(pieces)
    with pytest.raises(EncodeError):
        tok.decode([10**6])
