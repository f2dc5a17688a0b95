"""Constrained models are ordinary BPE models: their exports load in the peer libraries
and give our ids (HF tokenizers, sentencepiece, tiktoken, subword-nmt via the checks of
test_formats_export)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bpe_desktop.core import Corpus, TrainConfig, train
from bpe_desktop.core.formats import export_model
from tests.interop.peers import first_difference, ours_like_peer, peer_ids
from tests.shared_data import corpus_path

#: Boundaries inside the most frequent words, so that they change what is learned.
GOLD = "the\tt he\nand\ta nd\nthat\tth at\nof\to f\nthis\tth is\nwith\tw ith\n"


def cases(gold: str) -> dict[str, TrainConfig]:
    return {
        "hf": TrainConfig(vocab_size=800, boundary="eow-suffix", gold_boundaries=(gold,),
                          knockout=(gold,)),
        "gpt2": TrainConfig.preset("gpt2", vocab_size=700, gold_boundaries=(gold,)),
        "sentencepiece": TrainConfig.preset("sentencepiece", vocab_size=800,
                                            knockout=(gold,)),
        "subword-nmt": TrainConfig.preset("subword-nmt", vocab_size=800,
                                          gold_boundaries=(gold,)),
    }
SUFFIX = {"hf": "tokenizer.json", "gpt2": "vocab.json", "sentencepiece": "m.model",
          "subword-nmt": "codes.txt"}


@pytest.mark.parametrize("fmt", list(SUFFIX))
def test_constrained_models_export_to_peers_with_identical_ids(fmt, tmp_path):
    gold = tmp_path / "gold.tsv"
    gold.write_text(GOLD, encoding="utf-8")
    config = cases(str(gold))[fmt]
    corpus = corpus_path("ud_english.txt")
    model = train(Corpus.from_files([corpus]), config).model
    assert model.constraints is not None
    plain = train(Corpus.from_files([corpus]),
                  config.replace(gold_boundaries=(), knockout=())).model
    assert model.merges != plain.merges  # the constraints changed what was learned
    paths = export_model(model, fmt, tmp_path / SUFFIX[fmt])
    lines = Path(corpus).read_text(encoding="utf-8").splitlines()[:300]
    ours = ours_like_peer(fmt, model, lines)
    theirs = peer_ids(fmt, model, paths, lines)
    assert first_difference(lines, ours, theirs) is None
