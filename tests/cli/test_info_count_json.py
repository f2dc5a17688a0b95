"""``info --json`` and ``count --json``: one JSON object with what the text output says,
whole numbers as numbers, and the model file's own keys where the file has them."""

from __future__ import annotations

import json
import re

from tests.cli.support import assert_one_error_line, run


def _json(printed: str) -> dict:
    def refuse(constant: str):
        raise AssertionError(f"{constant} is not JSON")

    return json.loads(printed, parse_constant=refuse)


def test_info_json_gives_the_summary_of_the_handmade_model(capsys, model_path):
    status, out, err = run(capsys, "info", "-m", model_path, "--json")
    assert status == 0 and err == ""
    info = _json(out)
    stored = json.loads(model_path.read_text(encoding="utf-8"))
    created = info.pop("created")
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", created)
    assert created == stored["created"]
    # 1 special (<unk>) + 6 alphabet symbols + 3 merged tokens (lo, low, er) = 10
    assert info == {
        "model": str(model_path),
        "vocab_size": 10, "special_count": 1, "alphabet_size": 6, "merged_tokens": 3,
        "merges": 3,
        "description": "handmade",
        "config": stored["config"],  # the training options as the file holds them
        "corpus": {"kind": "files",
                   "files": [{"path": "/data/c.txt", "size": 34, "sha256": "a" * 64}],
                   "total_words": 7, "distinct_words": 2, "characters": 27,
                   "unknown_characters": 0},
        "constraints": None,
    }
    assert info["config"]["merges"] == 3 and "threads" not in info["config"]
    assert info["config"]["special_tokens"] == [{"piece": "<unk>", "id": 0, "role": "unk"}]


def test_info_merges_json_lists_each_merge_with_its_count_or_null(capsys, model_path):
    status, out, err = run(capsys, "info", "-m", model_path, "--merges", "--json")
    assert status == 0 and err == ""
    assert _json(out) == {"model": str(model_path),
                          "merges": [["l", "o", 7], ["lo", "w", None], ["e", "r", 2]]}


def test_info_json_of_a_trained_model_keeps_counts_whole(capsys, trained, corpus):
    status, out, _ = run(capsys, "info", "-m", trained, "--json")
    info = _json(out)
    assert status == 0
    assert info["merges"] == 15 and info["config"]["merges"] == 15
    # the toy corpus: 25 running words, 10 distinct ones (see tests/cli/support.py)
    assert info["corpus"]["total_words"] == 25 and info["corpus"]["distinct_words"] == 10
    assert info["corpus"]["files"][0]["path"] == str(corpus)  # (read against its folder)
    assert (info["special_count"] + info["alphabet_size"] + info["merged_tokens"]
            == info["vocab_size"])


def test_count_json_gives_the_summary_instead_of_the_line(capsys, corpus, tmp_path):
    table = tmp_path / "words.tsv"
    status, out, err = run(capsys, "count", corpus, "-o", table, "--json", "-q")
    assert status == 0 and err == ""
    summary = _json(out)
    seconds = summary.pop("seconds")
    assert isinstance(seconds, float) and seconds >= 0
    # low 5, lower 2, newest 6, widest 3, and the last line's 9 words: 25 in all; low,
    # lower, newest, widest, the, lowest, of, new, ones, is: 10 distinct
    assert summary == {"output": str(table), "inputs": [str(corpus)],
                       "distinct_words": 10, "total_words": 25, "language": None}
    lines = table.read_text(encoding="utf-8").splitlines()
    assert lines[1:3] == ["low\t5", "lower\t2"]  # (the table is written all the same)


def test_count_json_names_the_language_label(capsys, corpus, tmp_path):
    status, out, _ = run(capsys, "count", corpus, "-o", tmp_path / "w.tsv", "--json", "-q",
                         "--language", "fi")
    assert status == 0 and _json(out)["language"] == "fi"


def test_count_json_with_the_table_on_standard_output_is_a_usage_error(capsys, corpus):
    status, out, err = run(capsys, "count", corpus, "-o", "-", "--json")
    assert status == 2 and out == ""
    assert_one_error_line(err, "--json prints to standard output, where -o writes the "
                          "table; give -o a file")
