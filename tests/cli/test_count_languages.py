"""``count`` writes the corpus's language into the table (--language, or the one the file
names name), and ``train --word-counts`` takes labelled tables as their languages for
balancing and parity-aware training, with the merges of the same run on the texts."""

from __future__ import annotations

import pytest

from bpe_desktop.core.counting import table_language
from bpe_desktop.core.model_file import load_model
from tests.cli.support import CORPUS, assert_one_error_line, run
from tests.cli.test_train_languages import UD, UDHR


@pytest.fixture
def tables(capsys, tmp_path):
    """One table per UD corpus, labelled by count from the file names (ud_english...)."""
    out = {}
    for code, path in UD.items():
        out[code] = tmp_path / f"table{len(out)}.tsv"
        status, printed, err = run(capsys, "count", path, "-o", out[code])
        assert status == 0, err
        assert f"language {code}," in printed
    return out


def test_count_labels_tables_from_names_or_language(capsys, tmp_path, tables):
    assert {code: table_language(t) for code, t in tables.items()} == \
        {"en": "en", "de": "de", "ru": "ru"}
    text = tmp_path / "corpus.txt"
    text.write_text(CORPUS, encoding="utf-8")
    for given, label in ((["--language", "tur"], "tur"), ([], ""),
                         (["--language", "none"], "")):
        assert run(capsys, "count", text, "-o", tmp_path / "t.tsv.gz", "-q", *given)[0] == 0
        assert table_language(tmp_path / "t.tsv.gz") == label
    status, _, err = run(capsys, "count", text, "-o", tmp_path / "x.tsv", "--language",
                         "Turkish")
    assert status != 0
    assert_one_error_line(err, "--language", "'Turkish' is not a language code")
    assert not (tmp_path / "x.tsv").exists()


def test_merging_tables_of_one_language_keeps_its_label(capsys, tmp_path, tables):
    merged = tmp_path / "en.tsv"
    assert run(capsys, "count", "--merge", tables["en"], tables["en"], "-o", merged,
               "-q")[0] == 0
    assert table_language(merged) == "en"
    assert run(capsys, "count", "--merge", tables["en"], tables["de"], "-o", merged,
               "-q")[0] == 0
    assert table_language(merged) == ""


@pytest.mark.parametrize("balancing", [["--temperature", "3"], ["--weight", "en=1", "de=2",
                                                                  "ru=2"]])
def test_labelled_tables_balance_as_their_languages(capsys, tmp_path, tables, balancing):
    common = [*balancing, "--merges", "200", "-q"]
    status, _, err = run(capsys, "train", "--word-counts", *tables.values(), *common,
                         "-o", tmp_path / "tables.json")
    assert status == 0, err
    lang = [a for code, path in UD.items() for a in ("--lang", f"{code}={path}")]
    assert run(capsys, "train", *lang, *common, "-o", tmp_path / "text.json")[0] == 0
    from_tables = load_model(tmp_path / "tables.json")
    assert from_tables.merges == load_model(tmp_path / "text.json").merges
    # The model file records the languages, so the run can be repeated.
    assert from_tables.config.lang == tuple(f"{c}={t}" for c, t in tables.items())


def test_labelled_tables_train_parity_aware(capsys, tmp_path, tables):
    dev = ["--parity-dev", *(f"{code}={path}" for code, path in UDHR.items()),
           "--parity-dev-documents", "--merges", "150"]
    status, out, err = run(capsys, "train", "--word-counts", *tables.values(), *dev,
                           "-o", tmp_path / "tables.json")
    assert status == 0, err
    assert "development tokens" in out and "ru: share" in out
    lang = [a for code, path in UD.items() for a in ("--lang", f"{code}={path}")]
    assert run(capsys, "train", *lang, *dev, "-o", tmp_path / "text.json", "-q")[0] == 0
    assert load_model(tmp_path / "tables.json").merges == \
        load_model(tmp_path / "text.json").merges


def test_an_unlabelled_table_is_named(capsys, tmp_path, tables):
    text = tmp_path / "corpus.txt"
    text.write_text(CORPUS, encoding="utf-8")
    assert run(capsys, "count", text, "-o", tmp_path / "plain.tsv", "-q")[0] == 0
    status, _, err = run(capsys, "train", "--word-counts", tables["en"], tmp_path / "plain.tsv",
                         "--temperature", "2", "-o", tmp_path / "m.json")
    assert status != 0
    assert_one_error_line(err, "plain.tsv: no language label", "--language")
    assert not (tmp_path / "m.json").exists()


def test_a_table_given_as_another_language_is_trained_so_with_a_warning(capsys, tmp_path,
                                                                        tables):
    status, _, err = run(capsys, "train", "--word-counts", "--lang", f"de={tables['en']}",
                         "--lang", f"ru={tables['ru']}", "--temperature", "2", "--merges",
                         "20", "-o", tmp_path / "m.json", "-q")
    assert status == 0
    assert f"{tables['en']} is labelled 'en' (by count) but given as --lang de" in err
    assert err.count("warning:") == 1  # the Russian table is given as its own language
