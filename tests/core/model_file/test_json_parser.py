"""The engine's JSON parser for model files (engine/src/json.rs): where it answers, it
answers exactly what ``json.loads`` does; elsewhere it declines and Python's parser runs."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_desktop.core import _native

parse_json = _native.engine().parse_json


def same(a, b) -> bool:
    """Equal values of the same types (True is not 1, 1.0 is not 1, -0.0 is not 0.0),
    dictionaries in the same key order."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return a == b and math.copysign(1, a) == math.copysign(1, b)
    if isinstance(a, list):
        return len(a) == len(b) and all(map(same, a, b))
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    return a == b


text = st.text(st.characters(exclude_categories=("Cs",)), max_size=12)
scalars = (st.none() | st.booleans() | st.integers(-2**63, 2**63 - 1)
           | st.floats(allow_nan=False, allow_infinity=False) | text)
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=5)
                      | st.dictionaries(text, inner, max_size=5), max_leaves=40)


@settings(max_examples=400, deadline=None)
@given(values, st.sampled_from([None, 0, 1, 2]), st.booleans())
def test_every_value_reads_back_as_json_loads_reads_it(value, indent, ascii_only):
    written = json.dumps(value, indent=indent, ensure_ascii=ascii_only)
    parsed = parse_json(written)
    assert parsed is not None  # (value,): taken
    assert same(parsed[0], json.loads(written))


@pytest.mark.parametrize("written", [
    '{"a": 1, "a": 2}',  # a duplicate key: the model file's reader names it
    "NaN", "[Infinity]", "[-Infinity]", "1e400",  # refused, or not finite
    "123456789012345678901234567890",  # beyond 64 bits: Python's int
    '"\\ud800"', '"\\udc00x"',  # unpaired surrogates, which Python keeps
    "[1,]", "[1] [2]", '"a\tb"', "", "01", "{1: 2}",  # not JSON
])
def test_what_it_leaves_to_pythons_parser(written):
    assert parse_json(written) is None


def test_a_string_with_an_unpaired_surrogate_is_left_to_python():
    assert parse_json('"\ud800"') is None


def test_a_model_file_loads_the_same_either_way(monkeypatch, tmp_path, toy_model_file):
    from bpe_desktop.core import load_model, model_file

    fast = load_model(toy_model_file)
    assert fast.engine_model() is not None  # read and held by the engine

    class NoFastPath:
        @staticmethod
        def read_model_file(_data):
            return None

        @staticmethod
        def parse_json(_text):
            return None

    monkeypatch.setattr(model_file._native, "engine", lambda: NoFastPath)
    assert load_model(toy_model_file) == fast


@pytest.fixture
def toy_model_file(tmp_path):
    from bpe_desktop.core import Corpus, TrainConfig, save_model, train

    words = (("low", 5), ("lower", 2), ("newest", 6), ("widest", 3), ("日本語", 2))
    model = train(Corpus.from_word_counts(words), TrainConfig(merges=12)).model
    path = tmp_path / "toy.json"
    save_model(model, path)
    return path
