"""BPE-knockout: crossings and respects counted by hand, retraining until no merge
crosses more than it respects, the report in the model file."""

from __future__ import annotations

import unicodedata

import pytest

from bpe_desktop.core import BPEModel, Corpus, Merge, TrainConfig, train
from bpe_desktop.core.knockout import Verdict, knocked_out, merge_verdicts
from bpe_desktop.core.model_file import dumps, loads

GOLD = [("undo", ("un", "do")), ("redo", ("re", "do")), ("undo", ("un", "do"))]


def test_crossings_and_respects_by_hand():
    # undo: u n d o </w>. (n, d) joins at offset 2, the gold boundary un|do: a crossing;
    # (u, nd) joins at 1 and (d, o) in redo at 3: respects. (o, </w>) joins at the end
    # of undo (twice); in redo 'do' was made first, so it does not apply there.
    model = BPEModel(TrainConfig(), ("</w>", "d", "e", "n", "o", "r", "u"),
                     (Merge("n", "d", 9), Merge("u", "nd", 9), Merge("d", "o", 5),
                      Merge("o", "</w>", 4)))
    assert merge_verdicts(model, GOLD) == [
        Verdict("n", "d", 2, 0), Verdict("u", "nd", 0, 2), Verdict("d", "o", 0, 1),
        Verdict("o", "</w>", 0, 2)]
    assert knocked_out(model, GOLD) == [Verdict("n", "d", 2, 0)]


def test_byte_level_offsets_count_bytes_after_the_leading_space():
    # ' über' -> Ġ Ã ¼ b e r (ü is two bytes); gold üb|er: the boundary is after 'b'.
    model = train(Corpus.from_texts(["über über über"]),
                  TrainConfig.preset("gpt2", merges=12)).model
    verdicts = {(v.left, v.right): v for v in merge_verdicts(model, [("über", ("üb", "er"))])}
    crossing = [pair for pair, v in verdicts.items() if v.crossings]
    assert len(crossing) == 1 and crossing[0][0].endswith("b") and \
        crossing[0][1].startswith("e")


def test_knockout_retrains_until_no_merge_crosses_more_than_it_respects(tmp_path):
    gold = tmp_path / "gold.tsv"
    gold.write_text("unhappiness\tun happi ness\nundo\tun do\nredo\tre do\n", encoding="utf-8")
    words = {"unhappiness": 5, "undo": 4, "redo": 6, "nhap": 3, "under": 3}
    config = TrainConfig(merges=12, knockout=(str(gold),), knockout_rounds=100)
    result = train(Corpus.from_word_counts(words), config)
    report = result.model.constraints
    assert report.method == "BPE-knockout (gold.tsv, at most 100 rounds)"
    assert report.knocked_out and len(result.model.merges) == 12
    merged = {(m.left, m.right) for m in result.model.merges}
    gold_words = [("unhappiness", ("un", "happi", "ness")), ("undo", ("un", "do")),
                  ("redo", ("re", "do"))]
    for left, right, crossings, respects, round_number in report.knocked_out:
        assert (left, right) not in merged
        assert crossings > respects and round_number >= 1
    assert knocked_out(result.model, gold_words) == []
    # the first round's verdicts are those of the plain model
    plain = train(Corpus.from_word_counts(words), config.replace(knockout=()))
    first = [(v.left, v.right, v.crossings, v.respects, 1)
             for v in knocked_out(plain.model, gold_words)]
    assert [row for row in report.knocked_out if row[4] == 1] == first
    assert loads(dumps(result.model)).constraints == report


def test_the_round_limit_stops_knockout(tmp_path):
    gold = tmp_path / "gold.tsv"
    gold.write_text("unhappiness\tun happi ness\n", encoding="utf-8")
    words = {"unhappiness": 5, "nhap": 3, "ihappi": 2}
    result = train(Corpus.from_word_counts(words),
                   TrainConfig(merges=12, knockout=(str(gold),), knockout_rounds=1))
    assert {row[4] for row in result.model.constraints.knocked_out} == {1}


@pytest.mark.parametrize("preset", ["sennrich", "subword-nmt", "gpt2", "sentencepiece"])
def test_knockout_works_with_every_preset(preset, tmp_path):
    gold = tmp_path / "gold.tsv"
    gold.write_text("undo\tun do\nredo\tre do\nunhappy\tun happy\n", encoding="utf-8")
    text = ["undo redo unhappy nhap nd nd nd " * 4]
    result = train(Corpus.from_texts(text),
                   TrainConfig.preset(preset, merges=25, knockout=(str(gold),)))
    merged = {(m.left, m.right) for m in result.model.merges}
    assert result.model.constraints.knocked_out
    assert not merged & {(r[0], r[1]) for r in result.model.constraints.knocked_out}


def test_a_knockout_gold_in_nfd_judges_the_merges_as_the_same_gold_in_nfc(tmp_path):
    """Its words and boundaries are normalized as the model's: the tokenizer encodes the
    NFC word, so boundaries counted in NFD characters fell elsewhere."""
    words = {"r\u00e9do": 6, "unhappiness": 5, "nhap": 3, "edo": 4}
    runs = []
    for form in ("NFC", "NFD"):
        gold = tmp_path / f"{form}.tsv"
        gold.write_text(unicodedata.normalize(
            form, "r\u00e9do\tr\u00e9 do\nunhappiness\tun happi ness\n"), encoding="utf-8")
        config = TrainConfig(merges=12, knockout=(str(gold),), normalize="nfc")
        runs.append(train(Corpus.from_word_counts(words), config).model)
    assert runs[0].constraints.knocked_out
    assert runs[1].constraints.knocked_out == runs[0].constraints.knocked_out
    assert runs[1].merges == runs[0].merges
