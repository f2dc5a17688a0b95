"""Parity across languages: hand-computed ratios, and the UDHR in seven languages."""

from __future__ import annotations

from pathlib import Path

import pytest

from bpe_desktop.core import Corpus, TrainConfig, train
from bpe_desktop.core.errors import CorpusError
from bpe_desktop.core.evaluation import ParallelTexts, evaluate_parity
from tests.core.evaluation.toy_models import eow_model

UDHR = Path(__file__).resolve().parents[2] / "data" / "udhr"


def _files(tmp_path, **texts):
    out = {}
    for name, text in texts.items():
        out[name] = tmp_path / f"{name}.txt"
        out[name].write_text(text, encoding="utf-8")
    return out


def test_document_and_line_parity_by_hand(tmp_path):
    # unhappy: 4 tokens, y: 1, happy: 3, "y y": 2
    f = _files(tmp_path, ref="unhappy\ny\n", other="happy\ny y\n")
    texts = ParallelTexts.from_files([f["other"]], reference=f["ref"])
    doc = evaluate_parity(eow_model(), texts, "document")
    assert doc.summary() == {"ref.txt": 1.0, "other.txt": 1.0}  # 5 / 5
    lines = evaluate_parity(eow_model(), texts, "lines")
    assert lines.summary()["other.txt"] == pytest.approx((3 / 4 + 2 / 1) / 2)
    assert [r.tokens for r in lines.rows] == [5, 5]


def test_line_parity_leaves_out_pairs_with_a_blank_line(tmp_path):
    # pairs: (unhappy 4, happy 3), (blank, y 1), (y 1, blank), (y 1, "y y" 2)
    f = _files(tmp_path, ref="unhappy\n\ny\ny\n", other="happy\ny\n\ny y\n")
    texts = ParallelTexts.from_files([f["other"]], reference=f["ref"])
    lines = evaluate_parity(eow_model(), texts, "lines")
    # only the first and last pairs have tokens on both sides: (3/4 + 2/1) / 2
    assert lines.summary()["other.txt"] == pytest.approx((3 / 4 + 2) / 2)
    assert [r.tokens for r in lines.rows] == [6, 6]


def test_line_parity_needs_equal_line_counts(tmp_path):
    f = _files(tmp_path, ref="a\nb\n", other="a\n")
    texts = ParallelTexts.from_files([f["other"]], reference=f["ref"])
    with pytest.raises(CorpusError, match=r"other.txt has 1 lines but the reference \S*ref.txt has 2"):
        evaluate_parity(eow_model(), texts, "lines")


@pytest.mark.parametrize("mode", ["document", "lines"])
def test_a_reference_without_tokens_is_refused_by_name(tmp_path, mode):
    """Parity is relative to the reference: with no token there, every ratio is undefined
    (it read 0.0 for every language, the reference too)."""
    f = _files(tmp_path, ref=" \n", other="happy\n")
    texts = ParallelTexts.from_files([f["other"]], reference=f["ref"])
    with pytest.raises(CorpusError, match=r"\S*ref.txt: the reference text has no tokens"):
        evaluate_parity(eow_model(), texts, mode)


def test_udhr_in_seven_languages():
    files = sorted(UDHR.glob("*.txt"))
    assert len(files) == 7
    model = train(Corpus.from_files([str(UDHR / "eng.txt")]),
                  TrainConfig.preset("gpt2", vocab_size=1000)).model
    parity = evaluate_parity(model, ParallelTexts.from_files(files, UDHR / "eng.txt"))
    values = parity.summary()
    assert values["eng.txt"] == 1.0 and len(values) == 7
    # a tokenizer trained on English costs every other language more
    assert all(v > 1.0 for name, v in values.items() if name != "eng.txt")
    assert values["rus.txt"] > values["deu.txt"] and values["jpn.txt"] > values["fra.txt"]


def test_unknown_rate_beside_parity_by_hand(tmp_path):
    # unhappy: un ha pp y</w> (4, none unknown); "xx y": <unk> <unk> </w> y</w> (4, 2 unknown)
    f = _files(tmp_path, ref="unhappy\n", other="xx y\n")
    parity = evaluate_parity(eow_model(), ParallelTexts.from_files([f["other"]], f["ref"]))
    assert [(r.name, r.parity, r.unknown, r.unknown_rate, r.unknown_high)
            for r in parity.rows] == [("ref.txt", 1.0, 0, 0.0, False),
                                      ("other.txt", 1.0, 2, 0.5, True)]
    assert parity.unknown_summary() == {"ref.txt": 0.0, "other.txt": 0.5}


def test_a_script_the_model_cannot_spell_is_marked_not_cheap():
    # an English model reads Russian as <unk>s: its unknown rate marks its parity
    model = train(Corpus.from_files([str(UDHR / "eng.txt")]),
                  TrainConfig.preset("subword-nmt", vocab_size=500)).model
    texts = ParallelTexts.from_files([UDHR / "rus.txt", UDHR / "deu.txt"], UDHR / "eng.txt")
    rows = {r.name: r for r in evaluate_parity(model, texts).rows}
    assert rows["rus.txt"].unknown_rate > 0.5 and rows["rus.txt"].unknown_high
    assert rows["eng.txt"].unknown_rate == 0 and not rows["eng.txt"].unknown_high


def _layout(tmp_path, **texts):
    """Files laid out as a parallel corpus often is: ``de/udhr.txt``, ``fr/udhr.txt``."""
    out = {}
    for folder, text in texts.items():
        (tmp_path / folder).mkdir()
        out[folder] = tmp_path / folder / "udhr.txt"
        out[folder].write_text(text, encoding="utf-8")
    return out


def test_files_of_one_name_in_different_folders_are_named_by_their_folder(tmp_path):
    f = _layout(tmp_path, en="unhappy\ny\n", de="happy\ny y\n", fr="y\n")
    texts = ParallelTexts.from_files([f["de"], f["fr"], f["en"]], reference=f["en"])
    parity = evaluate_parity(eow_model(), texts, "document")
    # tokens: en 4 + 1, de 3 + 2, fr 1
    assert parity.summary() == {"en/udhr.txt": 1.0, "de/udhr.txt": 1.0, "fr/udhr.txt": 0.2}
    assert parity.reference == "en/udhr.txt"


def test_the_same_file_given_twice_is_refused_naming_it(tmp_path):
    f = _layout(tmp_path, en="a\n", de="b\n")
    again = tmp_path / "de" / ".." / "de" / "udhr.txt"
    with pytest.raises(CorpusError, match="given twice"):
        ParallelTexts.from_files([f["de"], again], reference=f["en"])


def test_unequal_line_counts_name_the_files_as_given(tmp_path):
    f = _layout(tmp_path, en="a\nb\n", de="a\n")
    texts = ParallelTexts.from_files([f["de"]], reference=f["en"])
    with pytest.raises(CorpusError) as caught:
        evaluate_parity(eow_model(), texts, "lines")
    assert str(caught.value).startswith(f"{f['de']} has 1 lines but the reference {f['en']} "
                                        "has 2")
    assert caught.value.path == str(f["de"])
