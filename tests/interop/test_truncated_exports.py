"""A smaller vocabulary of an extended or trimmed model (Evaluate's "Use this size"):
its tokens keep their order without gaps, and every format that takes it gives its
library the same ids as BPE Desktop."""

from __future__ import annotations

import pytest

from bpe_desktop.core import Corpus, TrainConfig, load_model, save_model, train
from bpe_desktop.core.extend import extend
from bpe_desktop.core.formats import export_model, export_problem, verify_export
from bpe_desktop.core.trim import trim
from tests.shared_data import corpus_path

FORMATS = ("hf", "sentencepiece", "youtokentome")


@pytest.fixture(scope="module")
def english_lines() -> list[str]:
    return [line for line in corpus_path("udhr/eng").read_text(encoding="utf-8").splitlines()
            if line.strip()]


@pytest.fixture(scope="module")
def extended(english_lines):
    """A sentencepiece-style English model extended on Russian: the Cyrillic letters
    take ids after the English merges."""
    source = train(Corpus.from_texts(english_lines),
                   TrainConfig.preset("sentencepiece", merges=300)).model
    russian = Corpus.from_files([str(corpus_path("udhr/rus"))])
    return extend(source, russian, merges=200).model


def _agrees_everywhere(model, tmp_path, lines):
    checked = 0
    for fmt in FORMATS:
        if export_problem(model, fmt) is not None:
            continue
        paths = export_model(model, fmt, tmp_path / f"{fmt}.out")
        result = verify_export(model, fmt, paths, lines)
        assert result.agreed == result.lines, (fmt, result.mismatch_text())
        checked += 1
    assert checked == len(FORMATS)


def test_an_extended_model_cut_below_its_source_exports_the_same_ids(
        extended, english_lines, tmp_path):
    lines = english_lines[:40] + corpus_path("udhr/rus").read_text(
        encoding="utf-8").splitlines()[:40]
    cut = extended.truncated(150)  # fewer merges than the English source had
    assert sorted(cut.piece_ids.values()) == list(range(cut.vocab_size))
    save_model(cut, tmp_path / "cut.json")
    reopened = load_model(tmp_path / "cut.json")
    assert reopened.pieces == cut.pieces
    _agrees_everywhere(reopened, tmp_path, lines)


def test_a_trimmed_model_cut_smaller_exports_the_same_ids(extended, english_lines, tmp_path):
    trimmed = trim(extended, english_lines[:60]).model
    cut = trimmed.truncated(trimmed.merge_count // 2)
    save_model(cut, tmp_path / "cut.json")
    _agrees_everywhere(load_model(tmp_path / "cut.json"), tmp_path, english_lines[60:120])
