"""What the model-file tests share: a small model, its file as a dict and as bytes, the
error loading some data gives, and a field-by-field comparison of two models."""

from __future__ import annotations

import json

import pytest

from bpe_desktop.core.config import TrainConfig
from bpe_desktop.core.errors import ModelFileError
from bpe_desktop.core.model import BPEModel, CorpusFile, CorpusInfo, Merge
from bpe_desktop.core.model_file import loads, model_to_dict

CREATED = "2025-01-31T12:00:00Z"
SHA = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"


def small_model(**changes) -> BPEModel:
    fields = dict(
        config=TrainConfig(merges=3),
        alphabet=("</w>", "e", "l", "o", "r", "w"),
        merges=(Merge("l", "o", 7), Merge("lo", "w", 7), Merge("e", "r", 2)),
        corpus=CorpusInfo("files", (CorpusFile("/data/corpus.txt", 34, SHA),), 7, 2, 27, 0),
        words=(("low", 5), ("lower", 2)),
        description="a test model",
    )
    fields.update(changes)
    return BPEModel(**fields)


def valid_dict() -> dict:
    return model_to_dict(small_model(), created=CREATED)


def text_of(data) -> bytes:
    return json.dumps(data).encode("utf-8")  # ASCII: "\ud800" stays an escape


def load_error(data) -> ModelFileError:
    raw = data if isinstance(data, bytes) else text_of(data)
    with pytest.raises(ModelFileError) as info:
        loads(raw)
    return info.value


def assert_same(a: BPEModel, b: BPEModel) -> None:
    assert a == b
    for name in ("config", "alphabet", "merges", "corpus", "words", "description"):
        assert getattr(a, name) == getattr(b, name), name
    assert a.pieces == b.pieces
