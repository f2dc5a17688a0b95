"""Word-count tables: counting a corpus as the trainer does, writing, merging and reading
tables, and training from them with the same merges as from the text."""

from __future__ import annotations

import gzip
import os
from pathlib import Path

import pytest

import bpe_desktop
from bpe_desktop.core import Corpus, CorpusError, TrainConfig, train
from bpe_desktop.core.config import PRESETS, TIE_BREAKS
from bpe_desktop.core.counting import count_words, expand_inputs, merge_tables, table_header
from tests.cli.support import run

BOTCHAN = Path(bpe_desktop.__file__).parent / "resources" / "examples" / "botchan.txt"

# Words every pre-tokenizer must carry through a table: backslashes, tabs (kept inside
# words by the sentencepiece and space splitters), carriage returns, GPT-2's newlines.
AWKWARD = "a\\b c\\\\d \\n tab\there x\ry\r\n naïve Ünï 日本語\n\n  spaced  line\nend\\\n"


def merges(corpus: Corpus, config: TrainConfig):
    return train(corpus, config).model.merges


def from_table(path, config):
    return merges(Corpus.from_files([path], word_counts=True), config)


def test_hand_counted_table_in_first_seen_order(tmp_path):
    (tmp_path / "one.txt").write_text("b a b\nc a b\n", encoding="utf-8")
    (tmp_path / "two.txt").write_text("d b\n", encoding="utf-8")
    table = count_words([tmp_path / "one.txt", tmp_path / "two.txt"])
    assert table.items() == [("b", 4), ("a", 2), ("c", 1), ("d", 1)]
    assert (table.distinct_words, table.total_count) == (4, 8)
    out = tmp_path / "t.tsv"
    table.save(out)
    assert out.read_text(encoding="utf-8") == f"{table_header()}\nb\t4\na\t2\nc\t1\nd\t1\n"


@pytest.mark.parametrize("preset", tuple(PRESETS))
@pytest.mark.parametrize("ties", TIE_BREAKS)
def test_training_from_the_table_gives_the_merges_of_the_text(tmp_path, preset, ties):
    config = TrainConfig.preset(preset, vocab_size=900, ties=ties)
    table = tmp_path / "botchan.tsv.gz"
    count_words([BOTCHAN], config).save(table)
    expected = merges(Corpus.from_files([BOTCHAN]), config)
    assert len(expected) > 500
    assert from_table(table, config) == expected


@pytest.mark.parametrize("preset", tuple(PRESETS))
def test_awkward_words_survive_the_table(tmp_path, preset):
    config = TrainConfig.preset(preset, merges=40, min_frequency=1)
    text = tmp_path / "awkward.txt"
    text.write_text(AWKWARD * 3, encoding="utf-8", newline="")
    counted = count_words([text], config)
    table = tmp_path / "awkward.tsv"
    counted.save(table)
    lines = table.read_text(encoding="utf-8").split("\n")
    assert lines[0] == table_header() and lines[-1] == ""
    assert len(lines) == counted.distinct_words + 2  # header, words, final newline
    reread = merge_tables([table], config)
    assert reread.items() == counted.items()
    assert from_table(table, config) == merges(Corpus.from_files([text]), config)


def test_gpt2_words_keep_their_newline_escaped(tmp_path):
    text = tmp_path / "t.txt"
    text.write_text("hi\\there\nhi\n", encoding="utf-8")
    table = count_words([text], TrainConfig.preset("gpt2"))
    assert table.items() == [("hi", 2), ("\\", 1), ("there", 1), ("\n", 2)]
    assert table.text().split("\n")[1:] == ["hi\t2", "\\\\\t1", "there\t1", "\\n\t2", ""]


def test_tables_without_the_header_are_read_literally(tmp_path):
    table = tmp_path / "spark.tsv"
    table.write_text("a\\nb\t3\nc\td\t2\n", encoding="utf-8")
    # a tab inside a word: only where the pre-tokenizer keeps tabs in words (space)
    assert merge_tables([table], TrainConfig(pretokenizer="space")).items() == [
        ("a\\nb", 3), ("c\td", 2)]
    with pytest.raises(CorpusError, match="line 2: a second tab"):
        merge_tables([table])  # whitespace: "c<TAB>d" is a third column


def test_merging_tables_sums_in_first_seen_order(tmp_path):
    one, two = tmp_path / "one.txt", tmp_path / "two.txt"
    one.write_text("x y x\n", encoding="utf-8")
    two.write_text("z y w y\n", encoding="utf-8")
    count_words([one]).save(tmp_path / "one.tsv")
    count_words([two]).save(tmp_path / "two.tsv.gz")
    merged = merge_tables([tmp_path / "one.tsv", tmp_path / "two.tsv.gz"])
    assert merged.items() == [("x", 2), ("y", 3), ("z", 1), ("w", 1)]
    assert merged.items() == count_words([one, two]).items()


def test_several_botchan_tables_train_like_the_texts(tmp_path):
    lines = BOTCHAN.read_text(encoding="utf-8").splitlines(keepends=True)
    half = len(lines) // 2
    parts = [tmp_path / "a.txt", tmp_path / "b.txt"]
    parts[0].write_text("".join(lines[:half]), encoding="utf-8")
    parts[1].write_text("".join(lines[half:]), encoding="utf-8")
    config = TrainConfig(vocab_size=800)
    tables = [tmp_path / "a.tsv", tmp_path / "b.tsv.gz"]
    for part, table in zip(parts, tables):
        count_words([part], config).save(table)
    from_tables = merges(Corpus.from_files(tables, word_counts=True), config)
    assert from_tables == merges(Corpus.from_files(parts), config)


def test_gz_tables_are_deterministic(tmp_path):
    table = count_words([BOTCHAN])
    table.save(tmp_path / "a.tsv.gz")
    table.save(tmp_path / "b.tsv.gz")
    first = (tmp_path / "a.tsv.gz").read_bytes()
    assert first == (tmp_path / "b.tsv.gz").read_bytes()
    assert gzip.decompress(first).decode("utf-8") == table.text()


@pytest.mark.parametrize(
    "body, line, words",
    [
        ("a\t1\nb 2\n", 2, "no tab"),
        ("a\t1\n\nb\tmany\n", 3, '"many"'),
        ("a\t0\n", 1, '"0"'),
        ("\t5\n", 1, "empty"),
        ("HEADER\nok\t1\nbad\\q\t1\n", 3, "unknown escape"),
        ("HEADER\nbad\\\t1\n", 2, "lone backslash"),
    ],
)
def test_malformed_tables_name_file_and_line(tmp_path, body, line, words):
    path = tmp_path / "bad.tsv.gz"
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        fh.write(body.replace("HEADER", table_header()))
    good = tmp_path / "good.tsv"
    good.write_text("fine\t3\n", encoding="utf-8")
    with pytest.raises(CorpusError) as caught:
        merge_tables([good, path])
    assert caught.value.path == str(path) and caught.value.line == line
    assert caught.value.reason == "bad-line"
    assert f"line {line}" in str(caught.value) and words in str(caught.value)
    with pytest.raises(CorpusError):  # training reads tables the same way
        train(Corpus.from_files([good, path], word_counts=True), TrainConfig(merges=1))


def test_inputs_expand_folders_and_patterns_in_order(tmp_path):
    (tmp_path / "d" / "sub").mkdir(parents=True)
    (tmp_path / "d" / ".hidden").mkdir()
    for name in ("d/b.txt", "d/a.txt.gz", "d/sub/c.txt", "d/.hidden/x.txt", "d/.dot.txt",
                 "z1.txt", "z2.txt"):
        (tmp_path / name).write_bytes(b"w\n")
    found = expand_inputs([tmp_path / "z2.txt", tmp_path / "d", str(tmp_path / "z*.txt")])
    rel = [os.path.relpath(f, tmp_path) for f in found]
    assert rel == ["z2.txt", "d/a.txt.gz", "d/b.txt", "d/sub/c.txt", "z1.txt", "z2.txt"]
    with pytest.raises(CorpusError, match="no file matches"):
        expand_inputs([str(tmp_path / "nothing*.txt")])


def test_text_errors_name_the_file(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"fine words\nbroken \xff here\n")
    with pytest.raises(CorpusError) as caught:
        count_words([bad])
    assert caught.value.path == str(bad) and caught.value.reason == "not-utf8"
    assert caught.value.offset == 18 and caught.value.line == 2
    table = count_words([bad], errors="replace")
    assert ("\ufffd", 1) in table.items()


# -- the command line -----------------------------------------------------------------------


def test_cli_count_then_train_on_several_tables(tmp_path, capsys):
    lines = BOTCHAN.read_text(encoding="utf-8").splitlines(keepends=True)
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("".join(lines[:3000]), encoding="utf-8")
    b.write_text("".join(lines[3000:]), encoding="utf-8")
    status, out, _ = run(capsys, "count", a, "-o", tmp_path / "a.tsv", "--preset", "gpt2")
    assert status == 0 and "distinct words" in out
    status, _, _ = run(capsys, "count", b, "-o", tmp_path / "b.tsv.gz", "--preset", "gpt2", "-q")
    assert status == 0
    for args in (["--word-counts", tmp_path / "a.tsv", tmp_path / "b.tsv.gz"], [a, b]):
        name = tmp_path / f"m{len(args)}.json"
        status, _, err = run(capsys, "train", *args, "-o", name, "--preset", "gpt2",
                             "--vocab-size", 700, "-q")
        assert status == 0, err
    from bpe_desktop.core.model_file import load_model

    assert load_model(tmp_path / "m3.json").merges == load_model(tmp_path / "m2.json").merges
    status, out, _ = run(capsys, "count", "--merge", tmp_path / "a.tsv", tmp_path / "b.tsv.gz",
                         "-o", tmp_path / "ab.tsv", "--preset", "gpt2")
    assert status == 0, out
    status, _, _ = run(capsys, "count", a, b, "-o", tmp_path / "direct.tsv", "--preset", "gpt2")
    assert (tmp_path / "ab.tsv").read_bytes() == (tmp_path / "direct.tsv").read_bytes()


def test_cli_count_errors_are_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.tsv"
    bad.write_text("ok\t1\nnot a count\n", encoding="utf-8")
    status, _, err = run(capsys, "count", "--merge", bad, "-o", tmp_path / "out.tsv")
    assert status == 1 and "bad.tsv, line 2" in err and len(err.splitlines()) == 1
    assert not (tmp_path / "out.tsv").exists()
    status, _, err = run(capsys, "count", tmp_path / "missing.txt", "-o", tmp_path / "o.tsv")
    assert status == 1 and "missing.txt" in err


def test_memory_estimate_of_tables_follows_their_lines(tmp_path):
    from bpe_desktop.core.memory import MEMORY_MODEL, estimate_table_words, estimate_training_memory

    body = "".join(f"w{i:05d}\t{i + 1}\n" for i in range(1000))  # 1,000 words of 6 bytes
    assert estimate_table_words(body.encode(), len(body)) == (1000, 6000)
    assert estimate_table_words(body.encode(), 10 * len(body)) == (10_000, 60_000)
    table = tmp_path / "t.tsv"
    table.write_text(body, encoding="utf-8")
    needed = estimate_training_memory([table], TrainConfig(), word_counts=True).bytes_needed
    assert needed == (MEMORY_MODEL["base"] + MEMORY_MODEL["per_table_word"] * 1000
                      + MEMORY_MODEL["per_word_byte"] * 6000)
    assert needed == 40_000_000 + 25 * 1000 + 8 * 6000  # by hand
