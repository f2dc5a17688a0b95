"""bpe-desktop train with linguistic constraints (--gold-boundaries, --separator,
--morfessor, --knockout) on text and word-count tables, with every preset; info names the
constraint; bad input is one error line."""

from __future__ import annotations

import re

import pytest

from bpe_desktop.core.evaluation import read_gold
from bpe_desktop.core.model_file import load_model
from tests.cli.support import assert_one_error_line, run

TEXT = "unhappiness undo redo nhap nhap walked walking talked talking\n" * 4
TABLE = "".join(f"{w}\t{c}\n" for w, c in (
    ("unhappiness", 5), ("undo", 4), ("redo", 6), ("nhap", 3), ("walked", 4),
    ("walking", 5), ("talked", 4), ("talking", 5)))
GOLD = "unhappiness\tun happi ness\nundo\tun do\nredo\tre do\n"


@pytest.fixture
def files(tmp_path):
    (tmp_path / "c.txt").write_text(TEXT, encoding="utf-8")
    (tmp_path / "w.tsv").write_text(TABLE, encoding="utf-8")
    (tmp_path / "gold.tsv").write_text(GOLD, encoding="utf-8")
    (tmp_path / "seg.txt").write_text(TEXT.replace("unhappiness", "un@@happi@@ness"),
                                      encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("preset", ["sennrich", "subword-nmt", "gpt2", "sentencepiece"])
@pytest.mark.parametrize("table", [False, True])
def test_gold_boundaries_and_knockout_flags(capsys, files, preset, table):
    corpus = ["--word-counts", files / "w.tsv"] if table else [files / "c.txt"]
    out = files / "m.json"
    status, _, err = run(capsys, "train", *corpus, "-o", out, "--preset", preset,
                         "--merges", "30", "--gold-boundaries", files / "gold.tsv")
    assert status == 0, err
    assert "constraints: gold boundaries (gold.tsv)" in err
    status, info, _ = run(capsys, "info", "-m", out)
    assert re.search(r"^constraints: +gold boundaries \(gold.tsv\)$", info, re.M)
    assert "3 words given boundaries" in info
    status, _, err = run(capsys, "train", *corpus, "-o", out, "--preset", preset,
                         "--merges", "30", "--knockout", files / "gold.tsv")
    assert status == 0, err
    status, info, _ = run(capsys, "info", "-m", out)
    assert "BPE-knockout (gold.tsv" in info
    report = load_model(out).constraints
    for left, right, crossings, respects, _ in report.knocked_out:
        assert f"{left!r} + {right!r}: {counted(crossings, 'crossing')}, " \
               f"{counted(respects, 'respect')}" in info


def counted(number: int, noun: str) -> str:
    return f"{number:,} {noun}" + ("" if number == 1 else "s")


def test_info_lists_a_knocked_out_merge_with_nouns_agreeing(capsys, tmp_path):
    """'1 crossing, 0 respects', as the Training log writes it."""
    (tmp_path / "c.txt").write_text("walking talked plays jumped walk talk\n" * 3,
                                    encoding="utf-8")
    (tmp_path / "gold.tsv").write_text("walking\twalk ing\n", encoding="utf-8")
    out = tmp_path / "m.json"
    status, _, err = run(capsys, "train", tmp_path / "c.txt", "-o", out, "--merges", "40",
                         "--knockout", tmp_path / "gold.tsv")
    assert status == 0, err
    assert load_model(out).constraints.knocked_out[0][2:4] == (1, 0)
    info = run(capsys, "info", "-m", out)[1]
    assert re.search(r"^  merge: +'\S+' \+ '\S+': 1 crossing, 0 respects \(round 1\)$", info,
                     re.M), info


def test_plain_models_say_so(capsys, files):
    out = files / "m.json"
    assert run(capsys, "train", files / "c.txt", "-o", out, "--merges", "5")[0] == 0
    assert re.search(r"^constraints: +none \(plain BPE\)$", run(capsys, "info", "-m", out)[1],
                     re.M)


def test_separator_flag(capsys, files):
    out = files / "m.json"
    status, _, err = run(capsys, "train", files / "seg.txt", "-o", out, "--merges", "40",
                         "--separator", "@@")
    assert status == 0, err
    model = load_model(out)
    assert not any("@" in p for p in model.pieces)
    assert "pre-segmented corpus (separator '@@')" in run(capsys, "info", "-m", out)[1]


def test_morfessor_flags_and_saved_segmentation(capsys, files):
    out, seg = files / "m.json", files / "morf.tsv"
    status, _, err = run(capsys, "train", "--word-counts", files / "w.tsv", "-o", out,
                         "--merges", "20", "--morfessor", "--morfessor-annotations",
                         files / "gold.tsv", "--save-segmentation", seg)
    assert status == 0, err
    assert "morfessor epoch 1" in err and "morfessor segmenting" in err
    saved = read_gold(seg)
    assert {w.word for w in saved.words} == {l.split("\t")[0] for l in TABLE.splitlines()}
    assert "Morfessor boundaries, semi-supervised with gold.tsv" in \
        run(capsys, "info", "-m", out)[1]


def test_morfessor_progress_in_a_log_is_whole_prefixed_lines(capsys, files):
    """Not a terminal: Morfessor's progress is written as lines, as the training's is, and
    never redrawn in place (which glued every report and the next line into one)."""
    status, _, err = run(capsys, "train", "--word-counts", files / "w.tsv", "-o",
                         files / "m.json", "--merges", "20", "--morfessor")
    assert status == 0, err
    assert "\r" not in err
    morfessor = [line for line in err.splitlines() if "morfessor" in line]
    assert morfessor and all(re.match(r"bpe-desktop: morfessor (epoch \d+|segmenting) ", line)
                             for line in morfessor), err
    assert any(line.startswith("bpe-desktop: reading") for line in err.splitlines()), err


@pytest.mark.parametrize("args,words", [
    (["--separator", "a b"], ["separator", "whitespace"]),
    (["--morfessor-annotations", "g.tsv"], ["needs morfessor"]),
    (["--save-segmentation", "s.tsv"], ["--save-segmentation needs --morfessor"]),
    (["--gold-boundaries", "missing.tsv"], ["missing.tsv"]),
    (["--morfessor", "--morfessor-keep-share", "1.5"], ["--morfessor-keep-share", "1.5"]),
])
def test_bad_constraint_input_is_one_error_line(capsys, files, args, words):
    out = files / "m.json"
    status, _, err = run(capsys, "train", files / "c.txt", "-o", out, *args)
    assert status != 0
    assert_one_error_line(err, *words)
    assert not out.exists()


def test_train_says_how_many_corpus_words_the_gold_cut_and_warns_of_another_unicode_form(
        capsys, tmp_path):
    (tmp_path / "nfd.txt").write_text("re\u0301do undo unhappiness\n" * 3, encoding="utf-8")
    (tmp_path / "gold.tsv").write_text("r\u00e9do\tr\u00e9 do\nundo\tun do\n", encoding="utf-8")
    out = tmp_path / "m.json"
    status, stdout, err = run(capsys, "train", tmp_path / "nfd.txt", "-o", out, "--merges", "9",
                              "--gold-boundaries", tmp_path / "gold.tsv")
    assert status == 0, err
    assert "Gold boundaries cut 1 of the corpus's 3 distinct words (more would match: " \
           "1 with NFC normalization)" in stdout
    assert "bpe-desktop: warning: 1 corpus word is in the gold files in another Unicode " \
           "form (NFC against NFD) and not cut; train with NFC normalization " \
           "(--normalize nfc) to cut it\n" in err
    status, stdout, err = run(capsys, "train", tmp_path / "nfd.txt", "-o", out, "--merges", "9",
                              "--normalize", "nfc", "--gold-boundaries", tmp_path / "gold.tsv")
    assert "Gold boundaries cut 2 of the corpus's 3 distinct words\n" in stdout
    assert "warning" not in err
    (tmp_path / "other.tsv").write_text("kutya\tkuty a\n", encoding="utf-8")
    status, stdout, err = run(capsys, "train", tmp_path / "nfd.txt", "-o", out, "--merges", "9",
                              "-q", "--gold-boundaries", tmp_path / "other.tsv")
    assert status == 0 and stdout == ""
    assert err == ("bpe-desktop: warning: no word of the corpus is in the gold files: their "
                   "boundaries cut nothing\n")


@pytest.mark.parametrize("flags,files", [
    (["--knockout"], "knockout gold files"),
    (["--morfessor", "--morfessor-annotations"], "annotation files"),
])
def test_train_warns_of_a_knockout_gold_or_annotations_in_another_unicode_form(
        capsys, tmp_path, flags, files):
    (tmp_path / "nfd.txt").write_text("re\u0301do undo unhappiness\n" * 3, encoding="utf-8")
    (tmp_path / "gold.tsv").write_text("r\u00e9do\tr\u00e9 do\nundo\tun do\n", encoding="utf-8")
    status, stdout, err = run(capsys, "train", tmp_path / "nfd.txt", "-o", tmp_path / "m.json",
                              "--merges", "9", *flags, tmp_path / "gold.tsv")
    assert status == 0, err
    assert "match 1 of the corpus's 3 distinct words (more would match: 1 with NFC " \
           "normalization)\n" in stdout
    assert [line for line in err.splitlines() if "warning" in line] == [(
        f"bpe-desktop: warning: 1 corpus word is in the {files} in another Unicode form "
        "(NFC against NFD) and not matched; train with NFC normalization (--normalize nfc) "
        "to match it")]
