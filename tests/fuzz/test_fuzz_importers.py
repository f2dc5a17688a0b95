"""Fuzzing every importer with damaged and changed copies of files it accepts.

Each input either imports as a model that saves, loads back and encodes, or raises
ModelFileError naming one of the input files (see targets.import_files). Multi-file
formats (gpt2: vocab.json + merges.txt; tiktoken: ranks + .json settings) get one of
their files damaged per input.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.fuzz import seeds
from tests.fuzz.budget import fuzz_settings
from tests.fuzz.mutations import byte_mutants, json_mutants, proto_mutants
from tests.fuzz.targets import import_files

SEEDS = seeds.import_seeds()


def _files_of(fmt: str, index: int) -> list[bytes]:
    """File ``index`` of every seed of ``fmt`` (e.g. all merges.txt of gpt2 seeds)."""
    return [seed[index][1] for seed in SEEDS[fmt]]


@st.composite
def damaged(draw, fmt: str, mutate=byte_mutants, only: int | None = None):
    """The files of one seed of ``fmt``, one of them (``only``, or drawn) mutated."""
    seed = draw(st.sampled_from(SEEDS[fmt]))
    index = only if only is not None else draw(st.integers(0, len(seed) - 1))
    data = draw(mutate(_files_of(fmt, index)))
    return [(name, data if i == index else raw) for i, (name, raw) in enumerate(seed)]


def _run(fmt, files, folders, target):
    import_files(fmt, files, folders(target), target)


#: (fuzz target, format, how a file is changed, which file: None for any of the seed's).
CHANGES = [
    ("import-hf-bytes", "hf", byte_mutants, None),
    ("import-hf-json", "hf", json_mutants, None),
    ("import-gpt2-bytes", "gpt2", byte_mutants, None),
    ("import-gpt2-json", "gpt2", json_mutants, 0),  # vocab.json
    ("import-subword-nmt-bytes", "subword-nmt", byte_mutants, None),
    ("import-sentencepiece-bytes", "sentencepiece", byte_mutants, None),
    ("import-sentencepiece-proto", "sentencepiece", proto_mutants, None),
    ("import-tiktoken-bytes", "tiktoken", byte_mutants, None),
    ("import-tiktoken-json", "tiktoken", json_mutants, 1),  # the .json settings
    ("import-fastbpe-bytes", "fastbpe", byte_mutants, None),
    ("import-youtokentome-bytes", "youtokentome", byte_mutants, None),
]


@pytest.mark.parametrize("target, fmt, mutate, only", CHANGES, ids=[c[0] for c in CHANGES])
def test_damaged_and_changed_files(folders, target, fmt, mutate, only):
    # Each target has its own budget: its settings are given to an inner test.
    @fuzz_settings(target)
    @given(damaged(fmt, mutate, only))
    def imports_or_names_a_file(files):
        _run(fmt, files, folders, target)

    imports_or_names_a_file()


@fuzz_settings("import-random")
@given(st.sampled_from(sorted(SEEDS)), st.binary(max_size=256))
def test_random_bytes_in_every_format(folders, fmt, data):
    seed = SEEDS[fmt][0]
    files = [(name, data if i == 0 else raw) for i, (name, raw) in enumerate(seed)]
    _run(fmt, files, folders, "import-random")
