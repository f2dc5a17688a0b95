"""Inputs that used to fail late or wrongly: compressed evaluation text, huge sweeps,
tables with a third column, empty corpus files, counts near the limit."""

from __future__ import annotations

import gzip
import json
import time

from bpe_desktop.core.evaluation.sweep import sweep_merge_counts
from bpe_desktop.core.model_file import load_model
from tests.cli.support import assert_one_error_line, run


def test_evaluate_and_compare_read_gzip_text_and_gold(capsys, tmp_path, trained, corpus):
    text = corpus.read_text(encoding="utf-8")
    gz = tmp_path / "corpus.txt.gz"
    gz.write_bytes(gzip.compress(text.encode("utf-8")))
    gold = tmp_path / "gold.tsv"
    gold.write_text("lowest\tlow est\nnewer\tnew er\n", encoding="utf-8")
    gold_gz = tmp_path / "gold.tsv.gz"
    gold_gz.write_bytes(gzip.compress(gold.read_bytes()))

    plain = run(capsys, "evaluate", "-m", trained, "--text", corpus, "--gold", gold,
                "--gold-format", "surface", "--json")
    packed = run(capsys, "evaluate", "-m", trained, "--text", gz, "--gold", gold_gz,
                 "--gold-format", "surface", "--json")
    assert plain[0] == packed[0] == 0, packed[2]
    ours, theirs = json.loads(plain[1]), json.loads(packed[1])
    assert ours["text"] == theirs["text"]
    assert list(ours["morphology"].values()) == list(theirs["morphology"].values())

    plain = run(capsys, "compare", "-m", trained, "-m", trained, "--text", corpus, "--json")
    packed = run(capsys, "compare", "-m", trained, "-m", trained, "--text", gz, "--json")
    assert plain[0] == packed[0] == 0, packed[2]
    assert plain[1] == packed[1]


def test_damaged_gzip_text_is_one_line_naming_the_file(capsys, tmp_path, trained, corpus):
    bad = tmp_path / "cut.txt.gz"
    bad.write_bytes(gzip.compress(corpus.read_bytes() * 50)[:60])
    status, _, err = run(capsys, "evaluate", "-m", trained, "--text", bad)
    assert status == 1
    assert_one_error_line(err, str(bad), "gzip")


def test_a_sweep_of_more_points_than_merges_is_capped_at_once(capsys, trained):
    started = time.perf_counter()
    status, out, err = run(capsys, "evaluate", "-m", trained, "--text", trained.parent /
                           "corpus.txt", "--sweep", str(10**12), "--json")
    assert status == 0, err
    assert time.perf_counter() - started < 30
    merges = [p["merges"] for p in json.loads(out)["sweep"]]
    # 15 merges: 16 merge counts at most, each the fewest merges reaching its size
    assert merges == sweep_merge_counts(load_model(trained), 16)
    assert merges[0] == 0 and merges[-1] == 15 and len(set(merges)) == len(merges) > 10


def test_verify_shows_where_a_long_line_differs_not_the_line(capsys, tmp_path):
    corpus = tmp_path / "c.txt"
    corpus.write_text("low lower newest widest\nthe lowest of the new ones\n" * 5,
                      encoding="utf-8")
    model = tmp_path / "m.json"
    assert run(capsys, "train", corpus, "-o", model, "--preset", "subword-nmt",
               "--merges", "20", "-q")[0] == 0
    sample = tmp_path / "one-line.txt"
    # a bare carriage return: a word break here, inside the word for subword-nmt (help:
    # Quick start), after 200 KB of agreeing words
    sample.write_text("lower newest " * 16_000 + "low\rlower\n", encoding="utf-8")
    status, _, err = run(capsys, "export", "-m", model, "--format", "subword-nmt", "-o",
                         tmp_path / "codes", "--verify", sample)
    assert status == 1
    assert_one_error_line(err, "line 1 (208,009 characters", "differs from token 32,001",
                          "BPE Desktop [", "subword-nmt [")
    assert len(err) < 600


def test_a_third_column_in_a_table_is_refused_naming_file_and_line(capsys, tmp_path):
    table = tmp_path / "t.tsv"
    table.write_text("low\t7\nthe\t5000\t1\n", encoding="utf-8")
    status, _, err = run(capsys, "train", "--word-counts", table, "-o", tmp_path / "m.json",
                         "-q")
    assert status == 1
    assert_one_error_line(err, f"{table}, line 2", "second tab")
    assert not (tmp_path / "m.json").exists()
    # where the pre-tokenizer keeps tabs inside words (space: subword-nmt), it is a word
    table.write_text("low\t7\nc\td\t2\n", encoding="utf-8")
    status, _, err = run(capsys, "train", "--word-counts", table, "-o", tmp_path / "m.json",
                         "--pretokenizer", "space", "--min-frequency", "1", "-q")
    assert status == 0, err
    assert dict(load_model(tmp_path / "m.json").words)["c\td"] == 2


def test_empty_files_are_skipped_with_a_warning(capsys, tmp_path, corpus):
    folder = tmp_path / "texts"
    folder.mkdir()
    (folder / "a.txt").write_text(corpus.read_text(encoding="utf-8"), encoding="utf-8")
    (folder / "b-empty.txt").write_bytes(b"")
    status, _, err = run(capsys, "count", folder, "-o", tmp_path / "t.tsv", "-q")
    assert status == 0, err
    assert err == f"bpe-desktop: warning: skipped 1 empty file: {folder / 'b-empty.txt'}\n"
    assert "newest\t6" in (tmp_path / "t.tsv").read_text(encoding="utf-8")

    status, _, err = run(capsys, "train", folder / "a.txt", folder / "b-empty.txt", "-o",
                         tmp_path / "m.json", "--merges", "3", "-q")
    assert status == 0 and "skipped 1 empty file" in err
    model = load_model(tmp_path / "m.json")
    assert [f.path for f in model.corpus.files] == [str(folder / "a.txt")]


def test_only_empty_files_is_an_error(capsys, tmp_path):
    empties = [tmp_path / "x.txt", tmp_path / "y.txt"]
    for p in empties:
        p.write_bytes(b"")
    status, _, err = run(capsys, "train", *empties, "-o", tmp_path / "m.json", "-q")
    assert status == 1
    assert_one_error_line(err, "all 2 corpus files are empty", str(empties[0]))
    status, _, err = run(capsys, "count", empties[0], "-o", tmp_path / "t.tsv", "-q")
    assert status == 1
    assert_one_error_line(err, f"{empties[0]} is empty")


def test_counts_beyond_what_a_model_records_are_refused_at_their_line(capsys, tmp_path):
    table = tmp_path / "big.tsv"
    # each count is valid (below 2^64); together the words stand for more characters
    # than a model file records, which used to fail only when saving, after training
    table.write_text(f"ab\t{2**62}\nthe\t{2**62}\nlow\t5\n", encoding="utf-8")
    started = time.perf_counter()
    status, _, err = run(capsys, "train", "--word-counts", table, "-o", tmp_path / "m.json",
                         "-q")
    assert status == 1
    assert_one_error_line(err, f"{table}, line 2", "2^64 - 1")
    assert time.perf_counter() - started < 10
    # just within the limit: trains and saves
    table.write_text(f"ab\t{(2**64 - 1) // 3}\n", encoding="utf-8")
    status, _, err = run(capsys, "train", "--word-counts", table, "-o", tmp_path / "m.json",
                         "--min-frequency", "1", "-q")
    assert status == 0, err
    assert load_model(tmp_path / "m.json").merges[0].count == (2**64 - 1) // 3


def test_encode_then_decode_keeps_a_missing_final_line_break(capsys, tmp_path, trained):
    for text in ("low lower\nnewest", "low lower\nnewest\n", "newest"):
        source = tmp_path / "in.txt"
        source.write_text(text, encoding="utf-8")
        status, ids, err = run(capsys, "encode", "-m", trained, "--ids", source)
        assert status == 0, err
        assert ids.endswith("\n") == text.endswith("\n")
        encoded = tmp_path / "ids.txt"
        encoded.write_text(ids, encoding="utf-8")
        status, back, err = run(capsys, "decode", "-m", trained, encoded)
        assert status == 0, err
        assert back == text


def test_a_huge_word_is_trained_on_but_not_kept_in_the_model_file(capsys, tmp_path):
    from bpe_desktop.core.training import MAX_KEPT_WORD_CHARS

    corpus = tmp_path / "blob.txt"
    blob = "abcab" * 40_000  # one 200,000-character "word", as text without spaces makes
    corpus.write_text(f"low low lower\n{blob}\n{'x' * MAX_KEPT_WORD_CHARS}\n",
                      encoding="utf-8")
    model_path = tmp_path / "m.json"
    status, _, err = run(capsys, "train", corpus, "-o", model_path, "--merges", "5", "-q")
    assert status == 0, err
    model = load_model(model_path)
    kept = dict(model.words)
    assert blob not in kept and kept["low"] == 2
    assert kept["x" * MAX_KEPT_WORD_CHARS] == 1  # the longest kept
    assert model_path.stat().st_size < 50_000
    assert model.merges[0].count >= 40_000  # the blob's pairs were counted


def _peak_rss_kib(argv, stdin_path) -> int:
    """The largest resident size of a ``bpe-desktop`` run, in KiB (Linux: ru_maxrss)."""
    import os
    import subprocess
    import sys

    from tests.cli.support import REPO

    code = ("import resource, runpy, sys; sys.argv = ['bpe-desktop'] + sys.argv[1:]\n"
            "try:\n    runpy.run_module('bpe_desktop', run_name='__main__')\n"
            "except SystemExit as e:\n    status = e.code\n"
            "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n"
            "sys.exit(status)")
    with open(stdin_path, "rb") as stdin:
        done = subprocess.run([sys.executable, "-c", code, *map(str, argv)], stdin=stdin,
                              capture_output=True, env=dict(os.environ, PYTHONPATH=str(REPO)),
                              timeout=300)
    assert done.returncode == 0, done.stderr
    return int(done.stderr.decode().splitlines()[-1])


def test_decoding_a_huge_line_of_ids_takes_memory_in_proportion_to_its_bytes(tmp_path,
                                                                              trained):
    model = load_model(trained)
    ids = [i % model.vocab_size for i in range(2_000_000)]
    line = " ".join(map(str, ids))  # ~5 MB of text in one line
    big, small = tmp_path / "big.ids", tmp_path / "small.ids"
    big.write_text(line + "\n", encoding="ascii")
    small.write_text("1 2 3\n", encoding="ascii")
    started = time.perf_counter()
    peak_big = _peak_rss_kib(["decode", "-m", trained], big)
    seconds = time.perf_counter() - started
    peak_small = _peak_rss_kib(["decode", "-m", trained], small)
    # a Python object per id (a list of strings, then of ints) took ~150 bytes an id:
    # over 120 MB here; the line itself, its ids and the decoded text take ~35 MB
    assert peak_big - peak_small < 70 * 1024, (peak_big, peak_small)
    assert seconds < 60


def test_gzip_is_recognised_by_its_bytes_and_a_fifo_loses_nothing(capsys, tmp_path, trained):
    import os
    import threading

    plain = run(capsys, "encode", "-m", trained, trained.parent / "corpus.txt")[1]
    renamed = tmp_path / "corpus.data"  # gzip without the .gz name
    renamed.write_bytes(gzip.compress((trained.parent / "corpus.txt").read_bytes()))
    assert run(capsys, "encode", "-m", trained, renamed)[1] == plain
    fifo = tmp_path / "in.fifo"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_bytes(
        (trained.parent / "corpus.txt").read_bytes()), daemon=True)
    writer.start()
    assert run(capsys, "encode", "-m", trained, fifo)[1] == plain
    writer.join(10)
