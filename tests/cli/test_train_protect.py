"""bpe-desktop train --protect FILE: each protected string is one token (text and
word-count tables, every preset), info lists them, encode keeps them whole, export
keeps them in tokenizer.json and other formats refuse; bad input is one error line."""

from __future__ import annotations

import json
import pytest

from bpe_desktop.core.model_file import load_model
from tests.cli.support import assert_one_error_line, run

TEXT = "I love New York and New Yorkers . C++ is not C# , e.g. here\n" * 4
TABLE = "love\t4\nNewYorkers\t3\nC++\t4\nC#\t2\nhere\t5\n"


@pytest.fixture
def files(tmp_path):
    (tmp_path / "c.txt").write_text(TEXT, encoding="utf-8")
    (tmp_path / "w.tsv").write_text(TABLE, encoding="utf-8")
    (tmp_path / "p.txt").write_text("New York\nNewYork\nC++\ne.g.\n", encoding="utf-8")
    (tmp_path / "sp.txt").write_text("NewYork\nC++\ne.g.\n", encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("preset", ["sennrich", "subword-nmt", "gpt2", "sentencepiece"])
@pytest.mark.parametrize("table", [False, True])
def test_protect_flag_with_every_preset(capsys, files, preset, table):
    corpus = ["--word-counts", files / "w.tsv"] if table else [files / "c.txt"]
    out = files / "m.json"
    # sentencepiece reads a space as ▁ before it looks for protected strings, and a
    # table's words have no whitespace
    without_spaces = preset == "sentencepiece" or table
    strings = ("NewYork", "C++", "e.g.") if without_spaces else \
        ("New York", "NewYork", "C++", "e.g.")
    status, _, err = run(capsys, "train", *corpus, "-o", out, "--preset", preset,
                         "--merges", "20", "--protect",
                         files / ("sp.txt" if without_spaces else "p.txt"))
    assert status == 0, err
    status, info, _ = run(capsys, "info", "-m", out)
    listed = ", ".join(map(repr, strings))
    assert f"protected strings ({listed})" in info, info
    model = load_model(out)
    specials = len(model.config.special_tokens)
    assert model.pieces[specials:specials + len(strings)] == strings
    word = "NewYork" if table or preset == "sentencepiece" else "New York"
    ids = model.tokenizer().encode(f"x {word}ers C++C++")
    assert ids.count(model.piece_to_id(word)) == 1 and ids.count(model.piece_to_id("C++")) == 2


def test_protected_strings_typed_on_the_command_line_are_those_of_a_file(capsys, files):
    from_file, typed = files / "file.json", files / "typed.json"
    assert run(capsys, "train", files / "c.txt", "--merges", 20, "--protect", files / "p.txt",
               "-o", from_file, "-q")[0] == 0
    status, _, err = run(capsys, "train", files / "c.txt", "--merges", 20, "--protect-string",
                         "New York", "NewYork", "C++", "--protect-string=e.g.", "-o", typed,
                         "-q")
    assert status == 0, err
    assert load_model(typed).config.protected == ("New York", "NewYork", "C++", "e.g.")
    assert load_model(typed).merges == load_model(from_file).merges


def test_encode_and_export(capsys, files):
    out = files / "m.json"
    assert run(capsys, "train", files / "c.txt", "-o", out, "--preset", "subword-nmt",
               "--merges", "20", "--protect", files / "p.txt")[0] == 0
    (files / "in.txt").write_text("New Yorkers\n", encoding="utf-8")
    status, pieces, err = run(capsys, "encode", "-m", out, files / "in.txt")
    assert status == 0, err
    assert pieces.split()[0] == "New" and pieces.split()[1] == "York"  # one token, shown
    status, ids, _ = run(capsys, "encode", "-m", out, "--ids", files / "in.txt")
    assert ids.split()[0] == str(load_model(out).piece_to_id("New York"))
    status, _, err = run(capsys, "export", "-m", out, "--format", "hf", "-o",
                         files / "tokenizer.json")
    assert status == 0, err
    added = json.loads((files / "tokenizer.json").read_text(encoding="utf-8"))["added_tokens"]
    assert {"content": "C++", "special": False, "normalized": False}.items() <= \
        next(a for a in added if a["content"] == "C++").items()
    status, _, err = run(capsys, "export", "-m", out, "--format", "subword-nmt", "-o",
                         files / "codes.txt")
    assert status != 0
    assert_one_error_line(err, "protected strings")


def test_bad_protect_input_is_one_error_line(capsys, files):
    out = files / "m.json"
    status, _, err = run(capsys, "train", files / "c.txt", "-o", out,
                         "--protect", files / "missing.txt")
    assert status != 0 and not out.exists()
    assert_one_error_line(err, "missing.txt")
    status, _, err = run(capsys, "train", files / "c.txt", "-o", out, "--separator", "+",
                         "--protect", files / "p.txt")
    assert status != 0 and not out.exists()
    assert_one_error_line(err, "separator '+'", "C++")


def test_a_protected_string_with_whitespace_no_table_word_holds_is_refused(capsys, files):
    """A table made by count has no word with a space: "New York" could never be found."""
    out = files / "m.json"
    for corpus in (["--word-counts", files / "w.tsv"],
                   ["--word-counts", "--lang", f"en={files / 'w.tsv'}", "--temperature", "2"]):
        status, _, err = run(capsys, "train", *corpus, "-o", out, "--merges", "20",
                             "--protect", files / "p.txt", "-q")
        assert status != 0 and not out.exists()
        assert_one_error_line(err, "w.tsv", "'New York'", "whitespace")


def test_a_protected_string_with_whitespace_a_table_word_holds_is_learned(capsys, files):
    """Another tool's table may keep a space in a word; the string is found there."""
    (files / "spaced.tsv").write_text("New Yorkers\t3\nhere\t5\n", encoding="utf-8")
    out = files / "m.json"
    status, _, err = run(capsys, "train", "--word-counts", files / "spaced.tsv", "-o", out,
                         "--merges", "5", "--protect-string", "New York", "-q")
    assert status == 0, err
    model = load_model(out)
    assert model.final_counts[model.piece_to_id("New York")] == 3


def test_a_protected_string_the_corpus_never_holds_is_a_warning(capsys, files):
    status, _, err = run(capsys, "train", files / "c.txt", "-o", files / "m.json", "-q",
                         "--merges", "5", "--protect-string", "New York", "new york")
    assert status == 0
    assert err == ("bpe-desktop: warning: the protected string 'new york' never occurs in "
                   "the corpus, so its token is never used (check spelling, case and "
                   "spaces)\n")
