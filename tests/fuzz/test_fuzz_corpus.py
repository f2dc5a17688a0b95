"""Fuzzing the corpus reader and the trainer behind it, with a tiny vocabulary.

Files: damaged copies of text and word-count corpora, and random bytes, read strictly
or with replacement characters; each either trains a model that saves, loads back and
encodes, or raises CorpusError naming the file. Texts: any Unicode strings (lone
surrogates included), which train or raise CorpusError.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tests.fuzz import seeds
from tests.fuzz.budget import fuzz_settings
from tests.fuzz.mutations import byte_mutants
from tests.fuzz.targets import CORPUS_CONFIGS, train_file, train_texts

CORPORA = seeds.corpus_seeds()
configs = st.integers(0, len(CORPUS_CONFIGS) - 1)


@fuzz_settings("corpus-files")
@given(byte_mutants(CORPORA) | st.binary(max_size=200), configs, st.booleans(),
       st.booleans())
def test_damaged_corpus_files(folders, data, config, word_counts, replace):
    train_file(data, folders("corpus-files"), config=config, word_counts=word_counts,
               replace=replace)


@fuzz_settings("corpus-texts")
@given(st.lists(st.text(max_size=40), max_size=4), configs)
def test_any_texts(texts, config):
    train_texts(texts, config=config)
