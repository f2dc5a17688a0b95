"""Export reach: which formats a configuration's models can be written as, told before
training (the formats' own checks on a sample model)."""

from __future__ import annotations

import pytest

from bpe_desktop.core import Corpus, TrainConfig, train
from bpe_desktop.core.config import PRESETS
from bpe_desktop.core.formats import export_problem
from bpe_desktop.core.formats.reach import blocked_by_boundary, export_reach, reach_sentence
from tests.shared_data import corpus_path


@pytest.mark.parametrize("preset", list(PRESETS))
def test_reach_is_what_a_real_model_of_the_preset_can_be_exported_as(preset):
    config = TrainConfig.preset(preset, vocab_size=600)
    model = train(Corpus.from_files([corpus_path("ud_german")]), config).model
    assert {f: why is None for f, why in export_reach(config).items()} == \
        {f: export_problem(model, f) is None for f in export_reach(config)}


def test_the_papers_preset_says_it_exports_to_subword_nmt_and_lists_only():
    config = TrainConfig.preset("sennrich", vocab_size=8000)
    assert reach_sentence(config).startswith(
        "Exports as: subword-nmt codes, Vocabulary list (TSV); not as: Hugging Face")
    assert blocked_by_boundary(config)
    assert not blocked_by_boundary(TrainConfig.preset("subword-nmt"))
    assert not blocked_by_boundary(TrainConfig.preset("gpt2"))
