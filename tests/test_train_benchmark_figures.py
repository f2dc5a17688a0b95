"""The training benchmarks' figures: the side-by-side ratios, the best run with its load,
the merge-list digests read back from model files, and the merge applications of the
scaling benchmark, each on hand-made inputs (the benchmarks themselves need the large
corpora)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import bench_merge_scaling
import bench_train


def run(tool: str, wall: float, load: tuple[float, float], corpus: str = "c", rss=100.0,
        returncode: int = 0, **extra) -> dict:
    return {"corpus_name": corpus, "tool": tool, "wall": wall, "maxrss_mb": rss,
            "returncode": returncode, "load_before": load[0], "load_after": load[1], **extra}


def test_the_best_run_keeps_its_own_load_and_a_failed_run_counts_as_a_failure():
    best = bench_train.summarize([
        run("ours-default", 2.0, (3.0, 3.5), rss=150),
        run("ours-default", 1.5, (1.0, 1.2), rss=160),
        run("ours-default", 0.1, (0.0, 0.0), returncode=1, error="boom"),
    ])[("c", "ours-default")]
    assert best["wall"] == 1.5
    assert best["load"] == (1.0, 1.2)
    assert best["maxrss_mb"] == 150  # the lowest peak of the successful runs
    assert (best["runs"], best["failures"]) == (2, 1)


def test_side_by_side_ratios_are_against_the_faster_of_sentencepiece_and_youtokentome():
    best = bench_train.summarize([
        run("ours-default", 2.0, (1, 1), distinct_words=408431),
        run("ours-gpt2", 1.0, (1, 1)),
        run("spm", 10.0, (1, 1)),
        run("yttm", 8.0, (1, 1)),
        run("hf", 25.0, (1, 1)),
    ])
    row = bench_train.side_by_side(best, ["c"]).splitlines()[2]
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[:2] == ["c", "408,431"]
    assert cells[2] == "2.000 s, 100 MB (1.0→1.0)"
    # 2.0 / 8.0, 1.0 / 8.0, 2.0 / 25.0, 1.0 / 25.0
    assert cells[7:] == ["0.25×", "0.12×", "0.08×", "0.04×"]


def test_ours_command_is_the_train_command_a_user_types():
    cmd = bench_train.ours_command("ours-gpt2", "corpus.txt", 32000, 2, "model.json")
    assert cmd[1:] == ["-m", "bpe_desktop.cli", "train", "corpus.txt", "--vocab-size", "32000",
                       "--threads", "2", "--preset", "gpt2", "-q", "-o", "model.json"]
    assert "--merges" in bench_train.ours_command("ours-snmt", "c", 10, 1, "m")


def test_model_digests_match_for_the_same_merges_in_ours_and_hf_files(tmp_path):
    ours = tmp_path / "model.json"
    ours.write_text(json.dumps({"merges": [["a", "b", 5], ["ab", "c", 3]],
                                "corpus": {"distinct_words": 7}}))
    hf = tmp_path / "tokenizer.json"
    hf.write_text(json.dumps({"model": {"merges": ["a b", ["ab", "c"]]}}))
    o = bench_train.describe_model("ours-default", str(ours))
    h = bench_train.describe_model("hf", str(hf))
    assert (o["merges"], o["distinct_words"]) == (2, 7)
    assert o["pairs_sha"] == h["pairs_sha"] and o["pieces_sha"] == h["pieces_sha"]
    missing = bench_train.describe_models([("hf", str(tmp_path / "absent.json"))])
    assert "describe_error" in missing[0]


def test_merge_applications_are_symbols_before_minus_tokens_after(tmp_path):
    # Default preset ("</w>" its own symbol, min frequency 2). Pairs: (a,b) 8, (b,</w>) 5,
    # (b,c) 3, (c,</w>) 3. Merges: a+b (8), ab+</w> (5), ab+c (3), abc+</w> (3); then no
    # pair is left. "ab</w>": 3 symbols -> 1 token, 2 applications; "abc</w>": 4 -> 1, 3.
    table = tmp_path / "words.tsv"
    table.write_text("ab\t5\nabc\t3\n", encoding="utf-8")
    out = bench_merge_scaling.train_once(str(table), True, "default", 1000)
    assert (out["merges"], out["distinct_words"], out["applications"]) == (4, 2, 5)


def test_growth_table_flags_merge_time_growing_faster_than_the_applications():
    small = {"distinct_words": 100, "merges": 10, "applications": 1000, "merge_s": 1.0,
             "load": (1.0, 1.0)}
    in_step = dict(small, distinct_words=200, applications=2000, merge_s=2.1)
    faster = dict(small, distinct_words=400, applications=4000, merge_s=6.0)
    rows = bench_merge_scaling.growth_table([("a", small), ("b", in_step), ("c", faster)])
    lines = rows.splitlines()
    assert lines[3].endswith("| 2.00 | 2.00 | 2.10 | no |")  # 2.1 ≤ 2.0 × 1.10
    assert lines[4].endswith("| 2.00 | 2.00 | 2.86 | **yes** |")  # 6.0 / 2.1 > 2.0 × 1.10
