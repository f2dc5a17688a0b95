"""Encoding parity: our byte-level encoder gives HF tokenizers' and tiktoken's ids.

Ours and HF train identical merges (test_peer_parity); here both models encode text
never seen in training, in other scripts, line by line and as whole multi-line texts.
"""

from __future__ import annotations

import importlib

import pytest

from bpe_desktop.core import Corpus, TrainConfig, train
from tests.interop.conftest import normalized_text
from tests.shared_data import corpus_path, gpt2_chars

tokenizers = importlib.import_module("tokenizers")
tiktoken = importlib.import_module("tiktoken")

GPT2_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
OTHERS = ["ud_german", "ud_russian", "ud_hindi", "ud_japanese", "tinyshakespeare"]


@pytest.fixture(scope="module")
def models(normalized_corpus):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    ours = train(Corpus.from_files([corpus_path("ud_english")]),
                 TrainConfig.preset("gpt2", vocab_size=8000)).model
    hf = Tokenizer(models.BPE())
    hf.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    hf.decoder = decoders.ByteLevel()
    hf.train([str(normalized_corpus("ud_english"))], trainers.BpeTrainer(
        vocab_size=8000, min_frequency=0, show_progress=False, special_tokens=[],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    assert [tuple(p) for p in __import__("json").loads(hf.to_str())["model"]["merges"]] == [
        (m.left, m.right) for m in ours.merges
    ]
    return ours, hf


def _texts(name: str) -> tuple[list[str], str]:
    text = normalized_text(corpus_path(name))[:150_000]
    return text.splitlines(keepends=True), text


@pytest.mark.parametrize("name", OTHERS)
def test_ids_equal_hf(models, name):
    ours, hf = models
    tok = ours.tokenizer()
    lines, whole = _texts(name)
    assert [e.ids for e in hf.encode_batch(lines)] == [a.tolist() for a in tok.encode_batch(lines)]
    assert hf.encode(whole).ids == tok.encode(whole)


@pytest.mark.parametrize("name", OTHERS)
def test_ids_equal_tiktoken_with_our_ranks(models, name):
    ours, _ = models
    tok = ours.tokenizer()
    chars = gpt2_chars()
    to_bytes = {c: b for b, c in enumerate(chars)}
    ranks = {bytes(to_bytes[c] for c in piece): i for i, piece in enumerate(ours.pieces)}
    enc = tiktoken.Encoding("ours", pat_str=GPT2_PATTERN, mergeable_ranks=ranks, special_tokens={})
    _, whole = _texts(name)
    assert enc.encode_ordinary(whole) == tok.encode(whole)

