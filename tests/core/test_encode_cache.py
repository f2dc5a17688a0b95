"""The encoder's word cache and batch paths: ids never depend on what was encoded before.

The engine keeps encoded words per thread across calls (bounded). These tests compare
against a reference that shares no cache (tiktoken built from our exported model, or a
fresh tokenizer) over many calls, more distinct words than the cache holds, both modes,
and threads encoding at once.
"""

from __future__ import annotations

import random
import string
import threading

import numpy as np
import pytest
import tiktoken

from bpe_desktop.core import Corpus, TrainConfig, train
from bpe_desktop.core.errors import EncodeError
from tests.shared_data import corpus_path as corpus
from tests.shared_data import gpt2_chars

GPT2_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
#: Engine constant (encoder/cache.rs CACHE_WORDS): words per cache before it is emptied.
CACHE_WORDS = 1 << 16


@pytest.fixture(scope="module")
def gpt2_model():
    return train(Corpus.from_files([corpus("ud_english.txt")]),
                 TrainConfig.preset("gpt2", vocab_size=3000)).model


@pytest.fixture(scope="module")
def lines():
    return corpus("ud_english.txt").read_text(encoding="utf-8").splitlines(keepends=True)[:3000]


def tiktoken_of(model):
    """tiktoken over our model's ranks: an encoder that shares nothing with ours."""
    byte_of = {c: b for b, c in enumerate(gpt2_chars())}
    ranks = {bytes(byte_of[c] for c in p): i for i, p in enumerate(model.pieces)}
    return tiktoken.Encoding(name="t", pat_str=GPT2_PATTERN, mergeable_ranks=ranks,
                             special_tokens={})


def test_repeated_calls_match_an_encoder_without_our_cache(gpt2_model, lines):
    tok = gpt2_model.tokenizer()
    reference = tiktoken_of(gpt2_model)
    want = [reference.encode_ordinary(line) for line in lines]
    for _ in range(3):  # cold, then warm caches
        assert [tok.encode(line) for line in lines] == want
        assert [a.tolist() for a in tok.encode_batch(lines, threads=1)] == want
        assert [a.tolist() for a in tok.encode_batch(lines, threads=2)] == want
    whole = "".join(lines)
    assert tok.encode_to_numpy(whole).tolist() == reference.encode_ordinary(whole)


def test_more_distinct_words_than_the_cache_holds(gpt2_model):
    rng = random.Random(7)
    words = [" " + "".join(rng.choices(string.ascii_lowercase, k=rng.randint(2, 9)))
             for _ in range(CACHE_WORDS + 5000)]
    tok = gpt2_model.tokenizer()
    reference = tiktoken_of(gpt2_model)
    texts = ["".join(words[i:i + 50]) for i in range(0, len(words), 50)]
    first = tok.encode_batch(texts, threads=1)
    again = tok.encode_batch(texts[::-1], threads=1)[::-1]  # after the cache was emptied
    for text, a, b in zip(texts[::97], first[::97], again[::97]):
        assert a.tolist() == b.tolist() == reference.encode_ordinary(text)


def test_merges_and_greedy_modes_do_not_share_cached_words():
    model = train(Corpus.from_files([corpus("botchan.txt")]),
                  TrainConfig.preset("sentencepiece", vocab_size=2000)).model
    text = corpus("botchan.txt").read_text(encoding="utf-8")[:20000]
    fresh_greedy = model.tokenizer().encode(text, mode="greedy")
    tok = model.tokenizer()
    merges = tok.encode(text)
    assert tok.encode(text, mode="greedy") == fresh_greedy
    assert tok.encode(text) == merges
    assert merges != fresh_greedy  # the two modes differ on this text, so mixing would show


def test_threads_encoding_at_once_get_the_sequential_ids(gpt2_model, lines):
    tok = gpt2_model.tokenizer()
    blocks = ["".join(lines[i:i + 60]) for i in range(0, len(lines), 60)]  # > 4 KiB: GIL off
    want = [gpt2_model.tokenizer().encode(b) for b in blocks]
    errors: list[str] = []

    def work(seed: int) -> None:
        order = list(range(len(blocks)))
        random.Random(seed).shuffle(order)
        for i in order:
            if tok.encode(blocks[i]) != want[i]:
                errors.append(f"block {i}")
        if [a.tolist() for a in tok.encode_batch(blocks, threads=2)] != want:
            errors.append("batch")

    threads = [threading.Thread(target=work, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_fast_and_general_encode_paths_agree(gpt2_model, lines):
    tok = gpt2_model.tokenizer()
    for line in lines[:200]:
        fast = tok.encode(line)
        assert isinstance(fast, list) and all(type(i) is int for i in fast)
        assert fast == tok.encode(line, dropout=0, seed=1) == tok.encode_to_numpy(line).tolist()


def test_batch_edge_cases_and_flat_form(gpt2_model):
    tok = gpt2_model.tokenizer()
    assert tok.encode_batch([]) == []
    texts = ["", "a", "", "hello world", ""]
    arrays = tok.encode_batch(tuple(texts), threads=2)
    assert [a.tolist() for a in arrays] == [tok.encode(t) for t in texts]
    assert all(a.dtype == np.uint32 for a in arrays)
    flat, lengths = tok.encode_batch_flat(iter(texts))
    assert lengths.tolist() == [len(a) for a in arrays]
    assert flat.tolist() == [i for a in arrays for i in a.tolist()]
    with pytest.raises(EncodeError, match="text 1"):
        tok.encode_batch(["fine", 3])
