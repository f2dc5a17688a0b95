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
