"""The gold report: does a gold file's spelling match the model's training text?"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from bpe_desktop.core import BPEModel, Corpus, TrainConfig, train
from bpe_desktop.core.errors import ConfigError
from bpe_desktop.core.evaluation import (
    CHARACTER_MAPS,
    EvaluationRequest,
    evaluate,
    gold_report,
    map_gold,
    parse_character_map,
    parse_gold,
    read_gold,
)
from bpe_desktop.core.evaluation.coverage import WARN_SHARE

DATA = Path(__file__).resolve().parents[2] / "data"
#: Turkish words of the UDHR written as Morpho Challenge writes Turkish (ç ı ş ğ ö ü as
#: C I S G O U), with their morphs.
TURKISH_MC = DATA / "morph" / "tur.morpho-challenge.txt"


@pytest.fixture(scope="module")
def turkish() -> BPEModel:
    return train(Corpus.from_files([str(DATA / "udhr" / "tur.txt")]),
                 TrainConfig.preset("subword-nmt", vocab_size=400)).model


def hand_model(words) -> BPEModel:
    """A character-level model that kept ``words`` (word, count) from training."""
    alphabet = tuple(sorted({ch for w, _ in words for ch in w}))
    return BPEModel(TrainConfig(), alphabet, (), words=tuple(words))


def test_counts_unseen_rare_and_training_words_by_hand():
    # training characters: a, b x 100,000 each, c x 10 (10 of 200,010: below 1 in 10,000)
    model = hand_model([("ab", 100_000), ("c", 10)])
    gold = parse_gold("ab\tab\nabc\tab c\nabd\tab d\nba\tb a\n", fmt="surface")
    r = gold_report(model, gold)
    assert (r.words, r.with_unseen, r.with_rare, r.in_training) == (4, 1, 1, 1)
    assert r.unseen_characters == (("d", 1),) and r.rare_characters == (("c", 1),)
    assert r.mismatch_share == 0.5 and "50% of the words" in r.warning
    assert "(d, c)" in r.warning
    # fewer than 5 times is rare too, whatever the share
    r = gold_report(hand_model([("ab", 10), ("c", 4)]), parse_gold("c\tc\n", fmt="surface"))
    assert (r.with_rare, r.in_training) == (1, 1)


def test_a_gold_in_the_training_spelling_gives_no_warning():
    model = hand_model([("ab", 10), ("ba", 10)])  # (a and b: 40 of 40 characters)
    r = gold_report(model, parse_gold("ab\ta b\nba\tba\naab\taa b\n", fmt="surface"))
    assert (r.with_unseen, r.with_rare, r.in_training, r.warning) == (0, 0, 2, "")


def test_the_report_sees_characters_as_the_encoder_does():
    model = hand_model([("ab", 10)])
    model = replace(model, config=TrainConfig(lowercase=True))
    r = gold_report(model, parse_gold("AB\tA B\n", fmt="surface"))
    assert (r.with_unseen, r.in_training) == (0, 1)


def test_morpho_challenge_turkish_is_flagged_and_the_mapping_repairs_it(turkish):
    gold = read_gold(TURKISH_MC)
    assert gold.format == "morpho-challenge" and len(gold.words) == 12
    plain = evaluate(turkish, EvaluationRequest(gold=[gold]))
    report = plain.gold[gold.name]
    # the UDHR has no I S O, and one G and one U (rare: fewer than 5)
    assert (report.with_unseen, report.with_rare, report.in_training) == (11, 1, 0)
    assert {c for c, _ in report.unseen_characters} == {"I", "S", "O"}
    assert {c for c, _ in report.rare_characters} == {"G", "U"}
    assert report.mismatch_share >= WARN_SHARE and "another spelling" in report.warning
    mapped = evaluate(turkish, EvaluationRequest(
        gold=[gold], character_map=CHARACTER_MAPS["morpho-challenge-turkish"]))
    fixed = mapped.gold[gold.name]
    assert (fixed.with_unseen, fixed.warning) == (0, "")
    assert fixed.in_training == 11 and fixed.mapping[0] == ("C", "ç")
    assert mapped.to_json()["gold"][gold.name]["character_mapping"]["I"] == "ı"
    # the same gold scores differently once it is spelled as the model reads text
    assert mapped.morphology[gold.name].f1 != plain.morphology[gold.name].f1


def test_mapping_keeps_boundaries_and_lines():
    gold = parse_gold("aCIk\taC:a Ik:b\n", fmt="morpho-challenge")
    mapped = map_gold(gold, {"C": "ç", "I": "ı"})
    assert [(w.word, w.analyses, w.line) for w in mapped.words] == [
        ("açık", (("aç", "ık"),), 1)]
    assert mapped.words[0].boundaries() == {2}


def test_character_map_specs():
    assert parse_character_map("morpho-challenge-turkish")["S"] == "ş"
    assert parse_character_map("C=ç, I=ı") == {"C": "ç", "I": "ı"}
    with pytest.raises(ConfigError, match="pair 2"):
        parse_character_map("C=ç,CC=x")


def test_word_markers_of_the_alphabet_are_not_characters():
    # subword-nmt's alphabet holds "a</w>": its "<", "/", "w", ">" were never seen
    model = BPEModel(TrainConfig.preset("subword-nmt"), ("a", "a</w>", "b"), ())
    r = gold_report(model, parse_gold("a<w\ta <w\n", fmt="surface"))
    assert r.with_unseen == 1 and {c for c, _ in r.unseen_characters} == {"<", "w"}


def test_byte_fallback_pieces_spell_no_characters_of_the_alphabet():
    from bpe_desktop.core.config import BYTE_PIECES

    # an import with byte fallback (no kept words): its alphabet is a, b, and the 256
    # byte tokens <0x00> ... <0xFF>, whose <, x, 0 ... F, > are no characters of it
    model = BPEModel(TrainConfig(byte_fallback=True), ("a", "b", "</w>") + BYTE_PIECES, ())
    r = gold_report(model, parse_gold("ab\ta b\nax\ta x\nb<\tb <\n", fmt="surface"))
    assert (r.words, r.with_unseen) == (3, 2)
    assert sorted(ch for ch, _ in r.unseen_characters) == ["<", "x"]
