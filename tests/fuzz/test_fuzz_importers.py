"""Fuzzing every importer with damaged and changed copies of files it accepts.

Each input either imports as a model that saves, loads back and encodes, or raises
ModelFileError naming one of the input files (see targets.import_files). Multi-file
formats (gpt2: vocab.json + merges.txt; tiktoken: ranks + .json settings) get one of
their files damaged per input.
"""

from __future__ import annotations

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


@fuzz_settings("import-hf-bytes")
@given(damaged("hf"))
def test_damaged_tokenizer_json(folders, files):
    _run("hf", files, folders, "import-hf-bytes")


@fuzz_settings("import-hf-json")
@given(damaged("hf", json_mutants))
def test_changed_tokenizer_json(folders, files):
    _run("hf", files, folders, "import-hf-json")


@fuzz_settings("import-gpt2-bytes")
@given(damaged("gpt2"))
def test_damaged_gpt2_files(folders, files):
    _run("gpt2", files, folders, "import-gpt2-bytes")


@fuzz_settings("import-gpt2-json")
@given(damaged("gpt2", json_mutants, only=0))
def test_changed_gpt2_vocab_json(folders, files):
    _run("gpt2", files, folders, "import-gpt2-json")


@fuzz_settings("import-subword-nmt-bytes")
@given(damaged("subword-nmt"))
def test_damaged_subword_nmt_codes(folders, files):
    _run("subword-nmt", files, folders, "import-subword-nmt-bytes")


@fuzz_settings("import-sentencepiece-bytes")
@given(damaged("sentencepiece"))
def test_damaged_sentencepiece_model(folders, files):
    _run("sentencepiece", files, folders, "import-sentencepiece-bytes")


@fuzz_settings("import-sentencepiece-proto")
@given(damaged("sentencepiece", proto_mutants))
def test_changed_sentencepiece_fields(folders, files):
    _run("sentencepiece", files, folders, "import-sentencepiece-proto")


@fuzz_settings("import-tiktoken-bytes")
@given(damaged("tiktoken"))
def test_damaged_tiktoken_files(folders, files):
    _run("tiktoken", files, folders, "import-tiktoken-bytes")


@fuzz_settings("import-tiktoken-json")
@given(damaged("tiktoken", json_mutants, only=1))
def test_changed_tiktoken_settings(folders, files):
    _run("tiktoken", files, folders, "import-tiktoken-json")


@fuzz_settings("import-fastbpe-bytes")
@given(damaged("fastbpe"))
def test_damaged_fastbpe_codes(folders, files):
    _run("fastbpe", files, folders, "import-fastbpe-bytes")


@fuzz_settings("import-youtokentome-bytes")
@given(damaged("youtokentome"))
def test_damaged_youtokentome_model(folders, files):
    _run("youtokentome", files, folders, "import-youtokentome-bytes")


@fuzz_settings("import-random")
@given(st.sampled_from(sorted(SEEDS)), st.binary(max_size=256))
def test_random_bytes_in_every_format(folders, fmt, data):
    seed = SEEDS[fmt][0]
    files = [(name, data if i == 0 else raw) for i, (name, raw) in enumerate(seed)]
    _run(fmt, files, folders, "import-random")
