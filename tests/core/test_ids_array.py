"""Ids reach NumPy without a copy: the arrays read the engine's own memory, read-only,
and stay valid after the tokenizer and its model are gone."""

from __future__ import annotations

import ctypes
import gc

import numpy as np
import pytest

from bpe_desktop.core import Corpus, TrainConfig, _native, train
from tests.shared_data import corpus_path

SHARED = _native.engine().ENCODE_SHARED_MIN_BYTES  # batches under this stay on one thread


@pytest.fixture(scope="module")
def text() -> str:
    return corpus_path("ud_english.txt").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def model(text):
    return train(Corpus.from_texts([text]), TrainConfig.preset("gpt2", vocab_size=600)).model


def engine_buffer(array: np.ndarray):
    """What owns ``array``'s memory: the bottom of its chain of bases (NumPy reads a
    buffer through a memoryview of it)."""
    while isinstance(array, np.ndarray):
        array = array.base
    return array.obj if isinstance(array, memoryview) else array


def arrays(tok, text: str) -> dict[str, np.ndarray]:
    long = [text[: 3 * SHARED], text[3 * SHARED: 5 * SHARED]]
    return {
        "encode_to_numpy": tok.encode_to_numpy(text[:5000]),
        "encode_batch, one thread": tok.encode_batch(long, threads=1)[1],
        "encode_batch, two threads": tok.encode_batch(long, threads=2)[1],
        "encode_batch_flat, two threads": tok.encode_batch_flat(long, threads=2)[0],
    }


def test_arrays_read_the_engines_memory_read_only(model, text):
    for name, ids in arrays(model.tokenizer(), text).items():
        owner = engine_buffer(ids)
        assert type(owner).__name__ == "Ids", name
        assert ids.dtype == np.dtype("<u4") and not ids.flags.writeable, name
        with pytest.raises(ValueError):
            ids[0] = 1
        view = memoryview(owner)
        assert view.readonly and view.nbytes == 4 * len(owner), name
        assert np.shares_memory(ids, np.frombuffer(owner, dtype="<u4")), name


def test_the_ids_cannot_be_written_through_their_buffer(model, text):
    owner = engine_buffer(model.tokenizer().encode_to_numpy(text[:200]))
    with pytest.raises(TypeError, match="not writable"):
        ctypes.c_char.from_buffer(owner)
    with pytest.raises(TypeError):
        memoryview(owner)[0:1] = b"x"


def test_arrays_outlive_the_tokenizer_and_the_model(text):
    model = train(Corpus.from_texts([text]), TrainConfig.preset("gpt2", vocab_size=400)).model
    tok = model.tokenizer()
    want = {name: ids.tolist() for name, ids in arrays(tok, text).items()}
    kept = arrays(tok, text)
    del tok, model
    gc.collect()
    assert {name: ids.tolist() for name, ids in kept.items()} == want
    assert all(len(ids) > 0 for ids in kept.values())


def test_batch_views_split_one_array_per_text(model, text):
    tok = model.tokenizer()
    texts = [text[:100], "", text[100: 3 * SHARED]]
    views = tok.encode_batch(texts, threads=2)
    owners = {id(engine_buffer(v)) for v in views}
    assert len(owners) == 1
    assert [v.tolist() for v in views] == [tok.encode_to_numpy(t).tolist() for t in texts]
