"""Fuzzing the model-file reader: damaged bytes, changed JSON, random bytes.

Every input either loads as a model that saves and loads back identically, or raises
ModelFileError with a one-line printable message (see targets.load_model_bytes).
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tests.fuzz import seeds
from tests.fuzz.budget import fuzz_settings
from tests.fuzz.mutations import byte_mutants, json_mutants
from tests.fuzz.targets import load_model_bytes

MODEL_FILES = seeds.model_files()


@fuzz_settings("model-bytes")
@given(byte_mutants(MODEL_FILES))
def test_damaged_model_files(data):
    load_model_bytes(data, "model-bytes")


@fuzz_settings("model-json")
@given(json_mutants(MODEL_FILES))
def test_changed_model_json(data):
    load_model_bytes(data, "model-json")


@fuzz_settings("model-random")
@given(st.binary(max_size=256))
def test_random_bytes_as_model_file(data):
    load_model_bytes(data, "model-random")
