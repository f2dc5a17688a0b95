"""One evaluation path for every format: a model exported and imported back (HF
tokenizer.json, GPT-2 files, tiktoken, sentencepiece .model, subword-nmt codes) scores
exactly as the model itself."""

from __future__ import annotations

from pathlib import Path

import pytest

from bpe_desktop.core import Corpus, TrainConfig, train
from bpe_desktop.core.evaluation import EvaluationRequest, evaluate, read_gold
from bpe_desktop.core.formats import export_model, import_model

DATA = Path(__file__).resolve().parents[2] / "data"
BOTCHAN = Path(__file__).resolve().parents[3] / "bpe_desktop/resources/examples/botchan.txt"


@pytest.mark.parametrize("preset, fmt, name", [
    ("gpt2", "hf", "tokenizer.json"),
    ("gpt2", "gpt2", "vocab.json"),
    ("gpt2", "tiktoken", "ranks.tiktoken"),
    ("sentencepiece", "sentencepiece", "m.model"),
    ("subword-nmt", "subword-nmt", "bpe.codes"),
])
def test_imported_model_scores_like_the_original(tmp_path, preset, fmt, name):
    model = train(Corpus.from_files([str(BOTCHAN)]),
                  TrainConfig.preset(preset, vocab_size=800)).model
    export_model(model, fmt, tmp_path / name)
    imported = import_model(fmt, tmp_path / name)
    request = EvaluationRequest(gold=[read_gold(DATA / "morph" / "eng.word.dev.tsv")],
                                text_files=[DATA / "udhr" / "deu.txt"], sweep=4)
    ours, theirs = evaluate(model, request).to_json(), evaluate(imported, request).to_json()
    assert theirs["morphology"] == ours["morphology"]
    if fmt == "subword-nmt":
        # codes hold merges only: characters never merged are not in the imported
        # vocabulary, so they become <unk> (one token for one character, as before)
        assert imported.vocab_size < model.vocab_size
        same = ("tokens", "words", "fertility", "chars_per_token", "split_share")
        assert {k: theirs["text"][k] for k in same} == {k: ours["text"][k] for k in same}
        assert theirs["text"]["unknown_rate"] > ours["text"]["unknown_rate"]
    else:
        assert theirs["text"] == ours["text"]
    # the same merge count segments the same (sizes differ with the alphabet, above)
    by_merges = {p["merges"]: p["morphology"] for p in ours["sweep"]}
    common = [p for p in theirs["sweep"] if p["merges"] in by_merges]
    assert len(common) >= 2
    assert all(p["morphology"] == by_merges[p["merges"]] for p in common)
