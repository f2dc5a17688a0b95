"""The four gold formats: parsed, recognised, and malformed lines named by file and line."""

from __future__ import annotations

from pathlib import Path

import pytest

from bpe_desktop.core.errors import CorpusError
from bpe_desktop.core.evaluation import detect_gold_format, parse_gold, read_gold
from bpe_desktop.core.evaluation.gold import morph_boundaries

DATA = Path(__file__).resolve().parents[2] / "data" / "morph"


def test_surface_with_every_separator():
    gold = parse_gold("unhappy\tun happy\nwalked\twalk/ed\nre+do\tre+do\nkindness\tkind-ness\n"
                      "cat\tcat\n", fmt="surface")
    assert [(w.word, w.analyses) for w in gold.words] == [
        ("unhappy", (("un", "happy"),)), ("walked", (("walk", "ed"),)),
        ("re+do", (("re+do",),)), ("kindness", (("kind", "ness"),)), ("cat", (("cat",),))]
    assert gold.words[0].boundaries() == {2}
    assert gold.words[4].boundaries() == frozenset()


def test_surface_separator_inside_the_word_is_a_character():
    gold = parse_gold("well-known\twell- known\n", fmt="surface")
    assert gold.words[0].analyses == (("well-", "known"),)


def test_morpho_challenge_alternatives_empty_morphs_and_escaped_colons():
    text = ("dogs\tdog:dog_N s:+PL, dogs:dogs_N\n"
            "a:b\ta\\::a b:b ~:+X\n"
            "went\tgo:go_V ~:+PAST\n")
    gold = parse_gold(text, fmt="morpho-challenge")
    assert gold.words[0].analyses == (("dog", "s"), ("dogs",))
    assert gold.words[1].analyses == (("a:", "b"),)
    assert gold.words[1].boundaries() == {2}
    # canonical "go" does not spell "went": the word is left out and counted
    assert [w.word for w in gold.words] == ["dogs", "a:b"]
    assert gold.not_surface == 1 and gold.total == 3


def test_sigmorphon_keeps_only_concatenating_words():
    text = ("enthrallments\ten @@thrall @@ment @@s\t110\n"
            "patronesses\tpatron @@ess @@s\t110\n"
            "inaccuracies\tin @@accurate @@cy @@s\t110\n"
            "abych\taby @@ch\n")
    gold = parse_gold(text, fmt="sigmorphon")
    assert [(w.word, w.boundaries()) for w in gold.words] == [
        ("enthrallments", {2, 8, 12}), ("abych", {3})]
    assert gold.not_surface == 2


def test_morphscore_csv():
    gold = parse_gold(",full_word,pt1,rest\n0,walked,walk,ed\n1,\"a,b\",a,\",b\"\n",
                      fmt="morphscore")
    assert [(w.word, w.boundaries(), w.line) for w in gold.words] == [
        ("walked", {4}, 2), ("a,b", {1}, 3)]


def test_zero_length_morphs_add_no_boundary():
    assert morph_boundaries(("", "ab", "", "c", "")) == {2}


@pytest.mark.parametrize("text, fmt", [
    ("a\ta @@b\t1\n", "sigmorphon"),
    ("dogs\tdog:N s:PL\n", "morpho-challenge"),
    (",full_word,pt1,rest\n0,ab,a,b\n", "morphscore"),
    ("unhappy\tun happy\n", "surface"),
])
def test_formats_are_recognised(text, fmt):
    assert detect_gold_format(text.splitlines()) == fmt
    assert parse_gold(text).format == fmt


MALFORMED = [
    ("bad line\n", "surface", 1, "tab-separated"),
    ("unhappy\tun hapy\n", "surface", 1, "do not concatenate"),
    ("dogs\tdog s:PL\n", "morpho-challenge", 1, "not morph:label"),
    ("a\ta @@ @@b\n", "sigmorphon", 1, "empty morph"),
    ("a\tb\tc\td\n", "sigmorphon", 1, "2 or 3"),
    ("0,ab,a\n", "morphscore", 2, "4 comma-separated"),
    ("0,,a,b\n", "morphscore", 2, "full_word is empty"),
]
GOOD = {"surface": "ok\tok\n", "morpho-challenge": "ok\tok:X\n",
        "sigmorphon": "ok\to @@k\n", "morphscore": "0,ok,o,k\n"}


@pytest.mark.parametrize("bad, fmt, line, says", MALFORMED)
def test_a_file_of_malformed_lines_is_refused_naming_file_and_line(tmp_path, bad, fmt,
                                                                   line, says):
    path = tmp_path / "gold.tsv"
    path.write_text((",full_word,pt1,rest\n" if fmt == "morphscore" else "") + bad * 2,
                    encoding="utf-8")
    with pytest.raises(CorpusError) as info:
        read_gold(path, fmt)
    assert info.value.line == line and info.value.path == str(path)
    assert f"{path} line {line}:" in str(info.value) and says in str(info.value)
    assert "every other of its 2 entries" in str(info.value)


@pytest.mark.parametrize("bad, fmt, line, says", MALFORMED)
def test_a_malformed_line_among_good_ones_is_skipped_and_named(tmp_path, bad, fmt, line,
                                                               says):
    header = ",full_word,pt1,rest\n" if fmt == "morphscore" else ""
    path = tmp_path / "gold.tsv"
    path.write_text(header + bad + GOOD[fmt] * 3, encoding="utf-8")
    gold = read_gold(path, fmt)
    assert [w.word for w in gold.words] == ["ok"] * 3
    assert gold.malformed == 1 and gold.total == 4 and gold.path == str(path)
    (where, reason), = gold.malformed_lines
    assert where == line and says in reason


def test_only_the_first_malformed_lines_are_named():
    gold = parse_gold("ok\tok\n" + "bad\n" * 9, fmt="surface")
    assert gold.malformed == 9
    assert [n for n, _ in gold.malformed_lines] == [2, 3, 4, 5, 6]


def test_morphscore_rows_with_an_empty_part_are_unsplit_words():
    # MorphScore's data has words without a boundary: an empty rest (or pt1)
    text = ",full_word,pt1,rest\n0,walked,walk,ed\n1,cat,cat,\n2,dog,,dog\n3,is,i,x\n"
    gold = parse_gold(text)
    assert gold.format == "morphscore"
    assert [(w.word, w.analyses, w.boundaries()) for w in gold.words] == [
        ("walked", (("walk", "ed"),), {4}), ("cat", (("cat",),), frozenset()),
        ("dog", (("dog",),), frozenset())]
    assert gold.not_surface == 1 and gold.malformed == 0


def test_missing_and_non_utf8_files(tmp_path):
    with pytest.raises(CorpusError, match="no such gold file"):
        read_gold(tmp_path / "absent.tsv")
    bad = tmp_path / "bad.tsv"
    bad.write_bytes(b"ok\tok\nb\xffd\tb d\n")
    with pytest.raises(CorpusError, match=r"bad.tsv line 2: not valid UTF-8"):
        read_gold(bad)


@pytest.mark.parametrize("lang", ["ces", "eng", "fra", "hun"])
def test_sigmorphon_2022_dev_excerpts(lang):
    gold = read_gold(DATA / f"{lang}.word.dev.tsv")
    assert gold.format == "sigmorphon" and gold.total == 300
    assert 0 < len(gold.words) <= 300
    for w in gold.words:
        assert "".join(w.analyses[0]) == w.word
    if lang == "eng":  # canonical morphs ("accurate" in "inaccuracies") are skipped
        assert gold.not_surface > 0
