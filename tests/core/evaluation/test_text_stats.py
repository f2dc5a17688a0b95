"""Fertility, compression, unknown rate, utilisation and Rényi efficiency: by hand, and
equal to encoding the text line by line with every boundary style."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from bpe_desktop.core import Corpus, TrainConfig, train
from bpe_desktop.core.errors import CorpusError
from bpe_desktop.core.evaluation import TextSample, evaluate_text, renyi_efficiency
from tests.core.evaluation.toy_models import eow_model

BOTCHAN = Path(__file__).resolve().parents[3] / "bpe_desktop/resources/examples/botchan.txt"


def test_statistics_by_hand():
    # unhappy -> un ha pp y</w> (4); dad -> d a d </w> (4); happy -> ha pp y</w> (3);
    # unzip -> un <unk> <unk> p </w> (5); y -> y</w> (1)
    s = evaluate_text(eow_model(), ["unhappy dad\n", "happy  unzip", "", "y"])
    assert (s.tokens, s.words, s.characters, s.bytes) == (17, 5, 24, 24)
    assert s.fertility == 17 / 5
    assert s.chars_per_token == s.bytes_per_token == 24 / 17
    assert s.split_share == 4 / 5  # only "y" is one token
    assert s.unknown_rate == 2 / 17
    # un ha pp y</w> d a </w> <unk> p: 9 distinct ids of 13 (<unk>, 8 symbols, 4 merges)
    assert s.utilisation == 9 / 13
    counts = [2, 2, 2, 3, 2, 1, 2, 2, 1]  # un ha pp y</w> d a </w> <unk> p
    h = math.log(sum((c / 17) ** 2.5 for c in counts)) / (1 - 2.5)
    assert s.renyi_efficiency == pytest.approx(h / math.log(13))


def test_renyi_efficiency_limits():
    assert renyi_efficiency(np.array([5, 5, 5, 5]), 4) == pytest.approx(1.0)  # uniform on V
    assert renyi_efficiency(np.array([7, 0, 0, 0]), 4) == 0.0  # one token only
    assert renyi_efficiency(np.array([0, 0]), 2) == 0.0  # no tokens: undefined -> 0
    # two of four tokens, equally often: H = log 2 for every alpha
    assert renyi_efficiency(np.array([3, 3, 0, 0]), 4, alpha=2.5) == pytest.approx(0.5)


def test_bytes_count_utf8():
    model = train(Corpus.from_texts(["naïve café"] * 3), TrainConfig(merges=3)).model
    s = evaluate_text(model, ["naïve café"])
    assert (s.characters, s.bytes, s.words) == (10, 12, 2)


@pytest.mark.parametrize("preset", ["sennrich", "subword-nmt", "gpt2", "sentencepiece"])
def test_equal_to_encoding_the_text_line_by_line(preset):
    model = train(Corpus.from_files([str(BOTCHAN)]),
                  TrainConfig.preset(preset, vocab_size=1200)).model
    lines = BOTCHAN.read_text(encoding="utf-8-sig").splitlines()
    lines += ["  two  spaces\tand a tab ", "   ", "naïve 日本語 — end.", "don't stop"]
    tok = model.tokenizer()
    ids = [i for line in lines for i in tok.encode(line)]
    s = TextSample.from_lines(model, lines).stats(model)
    assert s.tokens == len(ids)
    assert s.distinct_ids == len(set(ids))
    counts = np.bincount(ids, minlength=model.vocab_size)
    assert s.renyi_efficiency == pytest.approx(renyi_efficiency(counts, model.vocab_size))
    words = [w for line in lines for w in line.split()]
    assert s.words == len(words)
    if preset == "sennrich":  # whitespace pre-tokenizer: a word is encoded on its own
        split = sum(1 for w in words if len(tok.encode(w)) >= 2)
        assert s.split_words == split


def test_unreadable_text_names_file_and_line(tmp_path):
    bad = tmp_path / "t.txt"
    bad.write_bytes(b"fine\nbro\xffken\n")
    with pytest.raises(CorpusError, match=r"t.txt line 2: not valid UTF-8"):
        TextSample.from_files(eow_model(), [bad])
    with pytest.raises(CorpusError, match="no such text file"):
        TextSample.from_files(eow_model(), [tmp_path / "nope.txt"])


def test_each_text_has_its_own_statistics_and_all_of_them_add_up(tmp_path):
    from bpe_desktop.core.evaluation import PASTED_TEXT, EvaluationRequest, evaluate

    (tmp_path / "one").mkdir()
    (tmp_path / "two").mkdir()
    a, b = tmp_path / "one" / "t.txt", tmp_path / "two" / "t.txt"
    a.write_text("unhappy\n", encoding="utf-8")  # un ha pp y</w>: 4 tokens, 1 word
    b.write_text("y y\n", encoding="utf-8")  # y</w> y</w>: 2 tokens, 2 words
    report = evaluate(eow_model(), EvaluationRequest(text_files=[a, b], texts=["happy"]))
    assert list(report.texts) == ["one/t.txt", "two/t.txt", PASTED_TEXT]
    assert [(t.tokens, t.words) for t in report.texts.values()] == [(4, 1), (2, 2), (3, 1)]
    assert (report.text.tokens, report.text.words) == (9, 4)
    assert report.text == evaluate(eow_model(), EvaluationRequest(
        texts=["unhappy\ny y\nhappy"])).text
    assert report.to_json()["texts"]["two/t.txt"]["fertility"] == 1.0
    # one text: no separate columns
    assert evaluate(eow_model(), EvaluationRequest(text_files=[a])).texts == {}


def test_pasted_text_is_read_as_a_file_is(tmp_path):
    from bpe_desktop.core.evaluation import EvaluationRequest, evaluate

    # a form feed and U+0085 are characters inside a line, as training reads them; only
    # \n (with a \r before it) ends a line
    text = "unhappy\x0cdad\nhappy\x85y\r\ny"
    path = tmp_path / "t.txt"
    path.write_bytes(text.encode("utf-8"))
    pasted = evaluate(eow_model(), EvaluationRequest(texts=[text])).text
    # characters 11 + 7 + 1; words unhappy dad happy y y; tokens 4 + 4 + 3 + 1 + 1
    assert (pasted.characters, pasted.words, pasted.tokens) == (19, 5, 13)
    assert pasted == evaluate(eow_model(), EvaluationRequest(text_files=[path])).text
