"""What the model-file tests share: a small model, its file as a dict and as bytes, the
error loading some data gives, a field-by-field comparison of two models, and generated
models for the property tests."""

from __future__ import annotations

import json

import pytest
from hypothesis import strategies as st

from bpe_desktop.core import model_file
from bpe_desktop.core.config import SpecialToken, TrainConfig
from bpe_desktop.core.errors import ModelFileError
from bpe_desktop.core.model import BPEModel, CorpusFile, CorpusInfo, Merge
from bpe_desktop.core.model_file import dumps, loads

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


def model_dict(model: BPEModel, created: str | None = None) -> dict:
    """The model file of ``model``, parsed."""
    return json.loads(dumps(model, created=created))


def valid_dict() -> dict:
    return model_dict(small_model(), created=CREATED)


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


pieces = st.text(min_size=1, max_size=4)


@st.composite
def models(draw):
    alphabet = draw(st.lists(pieces, min_size=1, max_size=8, unique=True))
    defined = list(alphabet)
    merges, seen = [], set()
    for _ in range(draw(st.integers(0, 10))):
        left = draw(st.sampled_from(defined))
        right = draw(st.sampled_from(defined))
        if (left, right) in seen:
            continue
        seen.add((left, right))
        count = draw(st.none() | st.integers(0, 2**64 - 1))
        merges.append(Merge(left, right, count))
        if left + right not in defined:
            defined.append(left + right)
    specials = []
    used = set(defined)
    size = len(defined)
    for role in draw(st.lists(st.sampled_from(["unk", "pad", "bos", "eos", "user"]),
                              max_size=3, unique=True)):
        piece = draw(pieces.filter(lambda p: p not in used))
        used.add(piece)
        size += 1
        free = [i for i in range(size) if i not in {t.id for t in specials}]
        specials.append(SpecialToken(piece, draw(st.sampled_from(free)), role))
    size_ok = {t.id for t in specials}
    if any(i >= size for i in size_ok):
        specials = []
    config = TrainConfig(
        special_tokens=tuple(specials),
        min_frequency=draw(st.integers(1, 5)),
        ties=draw(st.sampled_from(["first-seen", "lexicographic", "codepoint"])),
        character_coverage=draw(st.floats(0.0001, 1.0)),
        initial_alphabet=draw(st.text(max_size=3)),
    )
    words = draw(st.lists(st.tuples(pieces, st.integers(1, 2**64 - 1)), max_size=4,
                          unique_by=lambda w: w[0]))
    corpus = draw(st.none() | st.builds(
        CorpusInfo, kind=st.sampled_from(model_file.CORPUS_KINDS),
        files=st.lists(st.builds(CorpusFile, path=st.text(max_size=10),
                                 size=st.integers(0, 2**40),
                                 sha256=st.sampled_from(["", SHA])), max_size=2).map(tuple),
        total_words=st.integers(0, 2**40), distinct_words=st.integers(0, 2**40),
        characters=st.integers(0, 2**40), unknown_characters=st.integers(0, 2**40)))
    return BPEModel(config=config, alphabet=tuple(alphabet), merges=tuple(merges),
                    corpus=corpus, words=tuple(words), description=draw(st.text(max_size=20)))
