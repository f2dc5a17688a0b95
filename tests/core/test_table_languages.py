"""Word-count tables carry the language they were counted from: written after the header,
read back (plain and .gz), skipped by counting and by the table statistics, kept when
tables of one language are merged; older tables without a label load as before."""

from __future__ import annotations

import gzip

import pytest

from bpe_desktop.core import Corpus, CorpusError, TrainConfig, train
from bpe_desktop.core.counting import (
    count_words,
    inputs_language,
    merge_tables,
    table_header,
    table_language,
    table_stats,
)
from bpe_desktop.core.errors import ConfigError
from bpe_desktop.core.multilingual import languages_of_tables

TEXT = "low low lower newest newest widest\nthe lowest\n"


@pytest.fixture
def text(tmp_path):
    path = tmp_path / "c.txt"
    path.write_text(TEXT, encoding="utf-8")
    return path


def test_the_label_is_the_second_line_and_reads_back(tmp_path, text):
    table = count_words([text], language="fi")
    assert table.language == "fi"
    for name in ("t.tsv", "t.tsv.gz"):
        table.save(tmp_path / name)
        assert table_language(tmp_path / name) == "fi"
    lines = (tmp_path / "t.tsv").read_text(encoding="utf-8").splitlines()
    assert lines[:4] == [table_header(), "#language: fi", "low\t2", "lower\t1"]
    with gzip.open(tmp_path / "t.tsv.gz", "rt", encoding="utf-8") as fh:
        assert fh.read().splitlines() == lines
    # The label is no entry: low 2, lower 1, newest 2, widest 1, the 1, lowest 1.
    assert table_stats(tmp_path / "t.tsv") == table_stats(tmp_path / "t.tsv.gz") == (6, 8)


def test_a_labelled_table_trains_as_the_unlabelled_one_and_the_text(tmp_path, text):
    config = TrainConfig(merges=8)
    count_words([text], language="pt-BR").save(tmp_path / "labelled.tsv")
    count_words([text]).save(tmp_path / "plain.tsv")
    assert table_language(tmp_path / "plain.tsv") == ""
    merges = [train(Corpus.from_files([tmp_path / n], word_counts=True), config).model.merges
              for n in ("labelled.tsv", "plain.tsv")]
    assert merges[0] == merges[1] == train(Corpus.from_files([text]), config).model.merges


def test_older_and_foreign_tables_have_no_label(tmp_path):
    older = tmp_path / "older.tsv"
    older.write_text(f"{table_header()}\nlow\t2\n", encoding="utf-8")
    foreign = tmp_path / "foreign.tsv"  # no header: "#language: fi" would be a bad line
    foreign.write_text("low\t2\nnew\t1\n", encoding="utf-8")
    assert table_language(older) == table_language(foreign) == ""
    assert table_stats(older) == (1, 2)


def test_a_label_that_is_no_code_names_file_and_line(tmp_path):
    bad = tmp_path / "bad.tsv"
    bad.write_text(f"{table_header()}\n#language: Finnish!\nlow\t2\n", encoding="utf-8")
    with pytest.raises(CorpusError) as caught:
        table_language(bad)
    assert "bad.tsv, line 2" in str(caught.value) and caught.value.line == 2
    with pytest.raises(ConfigError):
        count_words([bad], language="Finnish")


def test_the_label_line_only_counts_as_one_right_after_the_header(tmp_path):
    late = tmp_path / "late.tsv"
    late.write_text(f"{table_header()}\nlow\t2\n#language: fi\n", encoding="utf-8")
    with pytest.raises(CorpusError) as caught:
        table_stats(late)
    assert "late.tsv, line 3" in str(caught.value)
    with pytest.raises(CorpusError) as caught:
        train(Corpus.from_files([late], word_counts=True), TrainConfig(merges=2))
    assert "late.tsv, line 3" in str(caught.value)


def test_merging_keeps_a_common_label_only(tmp_path, text):
    for name, code in (("fi1.tsv", "fi"), ("fi2.tsv", "fi"), ("tr.tsv", "tr")):
        count_words([text], language=code).save(tmp_path / name)
    assert merge_tables([tmp_path / "fi1.tsv", tmp_path / "fi2.tsv"]).language == "fi"
    assert merge_tables([tmp_path / "fi1.tsv", tmp_path / "tr.tsv"]).language == ""
    relabelled = merge_tables([tmp_path / "fi1.tsv", tmp_path / "tr.tsv"], language="und")
    assert relabelled.language == "und"
    assert dict(relabelled.items())["low"] == 4


def test_labels_are_guessed_from_the_input_names_when_they_agree(tmp_path):
    assert inputs_language(["ud_finnish.txt", "data/fi/more.txt"]) == "fi"
    assert inputs_language(["ud_finnish.txt", "tur.txt"]) == ""
    assert inputs_language(["botchan.txt"]) == ""


def test_labelled_tables_are_languages_and_unlabelled_ones_are_named(tmp_path, text):
    count_words([text], language="fi").save(tmp_path / "a.tsv")
    count_words([text], language="tr").save(tmp_path / "b.tsv.gz")
    count_words([text]).save(tmp_path / "c.tsv")
    assert languages_of_tables([tmp_path / "a.tsv", tmp_path / "b.tsv.gz"]) == (
        f"fi={tmp_path / 'a.tsv'}", f"tr={tmp_path / 'b.tsv.gz'}")
    with pytest.raises(ConfigError) as caught:
        languages_of_tables([tmp_path / "a.tsv", tmp_path / "c.tsv"])
    assert "c.tsv: no language label" in str(caught.value)
    assert "a.tsv" not in str(caught.value)
