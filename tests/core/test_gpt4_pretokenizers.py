"""The ``gpt4``, ``llama3`` and ``gpt4o`` pre-tokenizers split as tiktoken's cl100k_base,
Llama 3's and tiktoken's o200k_base patterns do under Python's ``regex`` module, and byte-level training with them is plain
BPE (the reference trainer) on those words.

The engine runs the patterns (``bpe_desktop.core.options.PRETOKENIZER_PATTERNS``, checked
against tiktoken's own source in ``tests/interop/test_gpt4_patterns.py``) with a
hand-written lexer (checked against ``fancy-regex`` by its cargo tests). Training splits each ``\\n``-terminated line on its own, as HF tokenizers
trains from files (``_engine.pretokenize``); encoding splits the whole text, as HF and
tiktoken encode. Generated text uses code points assigned in this Python's
``unicodedata``, on which the Unicode tables of both regex engines agree.
"""

from __future__ import annotations

import re

import pytest
import regex
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from bpe_desktop import _engine
from bpe_desktop.core.config import TrainConfig
from bpe_desktop.core.options import PRETOKENIZER_PATTERNS
from bpe_desktop.core.training import Corpus, train
from tests import reference_bpe as ref
from tests.shared_data import DATA_DIR

NAMES = ("gpt4", "llama3", "gpt4o")
COMPILED = {name: regex.compile(PRETOKENIZER_PATTERNS[name]) for name in NAMES}


def lines_of(text: str) -> list[str]:
    return re.split(r"(?<=\n)", text)


def training_split(name: str, text: str) -> list[str]:
    """``regex.findall`` of each line, as the engine cuts training text."""
    return [t for line in lines_of(text) for t in COMPILED[name].findall(line)]


def encoding_split(name: str, text: str) -> list[str]:
    """The words the engine's encoder cuts ``text`` into (a byte-level model whose every
    byte is a token: the words come back as they were cut)."""
    return [word for word, _ in _byte_models()[name].tokenizer().encode_words(text)]


_MODELS: dict = {}


def _byte_models():
    if not _MODELS:
        for name in NAMES:
            _MODELS[name] = train(Corpus.from_texts(["a"]), TrainConfig.preset(name, merges=0)).model
    return _MODELS


# Where the patterns' branches meet: contraction letters in both cases, apostrophes, line
# breaks, every kind of space, digits, marks, upper/lower/title/modifier letters, slash.
SPECIAL_CHARS = list(
    "aAbBsStTdDmMlLrRvVeE" "0123456789" ".,;:!?-_\"()[]#$%&*+/<=>@\\^`{|}~" "''''"
    "     \t\n\n\n\r\r\x0b\x0c\x1c\x00"
    "\u00a0\u0085\u1680\u2009\u2028\u2029\u3000\u200b\u017f\u212a"
    "\u00e9\u00c9\u00df\u01c5\u02b0\u0301\u0308\u0416\u044f\u0928\u093f\u094d\u0903\u0967"
    "\u0663\u65e5\u30a2\u3002\u00b2\u00bd\u216b\u2019"
) + ["\U0001f600", "\U0001f3fd", "\u200d", "\U0001d400"]
FRAGMENTS = ["'s", "'S", "'ll", "'LL", "'re", "'Ve", "'d", " ", "  ", "\n", "\r\n", " \n",
             "\n/", "!\n", "Hello", "World", "HTTP", "iPhone", "1234", "e\u0301", " \u3000"]

any_char = st.characters(exclude_categories=("Cs", "Cn"))
texts = st.text(alphabet=st.one_of(st.sampled_from(SPECIAL_CHARS), any_char), max_size=60)
fragment_texts = st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.sampled_from(SPECIAL_CHARS)),
                          max_size=30).map("".join)
HYPOTHESIS = settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize(("name", "text", "words"), [
    ("gpt4", "it's IT'S 12345", ["it", "'s", " IT", "'S", " ", "123", "45"]),
    ("gpt4o", "it's IT'S 12345", ["it's", " IT'S", " ", "123", "45"]),
    ("gpt4", "HelloWorld a\n\n b", ["HelloWorld", " a", "\n", "\n", " b"]),
    ("gpt4o", "HelloWorld !\n/x", ["Hello", "World", " !\n", "/x"]),
    ("llama3", "it's IT'S 12345", ["it", "'s", " IT", "'S", " ", "123", "45"]),
    ("llama3", "a\n \t", ["a", "\n", " \t"]),  # gpt4: "\n \t" (`\s++$`)
])
def test_training_words_by_hand(name, text, words):
    assert _engine.pretokenize(text, name) == words == training_split(name, text)


@pytest.mark.parametrize("name", NAMES)
@HYPOTHESIS
@given(text=st.one_of(texts, fragment_texts))
def test_training_split_is_the_pattern_line_by_line(name, text):
    assert _engine.pretokenize(text, name) == training_split(name, text)


@pytest.mark.parametrize("name", NAMES)
@HYPOTHESIS
@given(text=st.one_of(texts, fragment_texts))
@example(text="\r\r\n")  # one CRLF read as LF: "\r\n" remains
def test_encoding_split_is_the_pattern_on_the_whole_text(name, text):
    # The encoder reads CRLF as LF, as everywhere in BPE Desktop.
    assert encoding_split(name, text) == COMPILED[name].findall(text.replace("\r\n", "\n"))


DATA_FILES = sorted(p for p in DATA_DIR.rglob("*") if p.suffix in (".txt", ".tsv"))


@pytest.mark.parametrize("name", NAMES)
def test_every_data_file_whole_and_line_by_line(name):
    for path in DATA_FILES:
        text = path.read_text(encoding="utf-8").replace("\r\n", "\n")
        assert _engine.pretokenize(text, name) == training_split(name, text), path
        assert encoding_split(name, text) == COMPILED[name].findall(text), path


def _check_training(name: str, text: str, merges: int) -> None:
    config = TrainConfig.preset(name, merges=merges)
    result = train(Corpus.from_texts([text]), config)
    words = ref.byte_level_words(training_split(name, text))
    expected = ref.train(words, boundary="none", ties="codepoint", min_frequency=1,
                         merges=merges, initial_alphabet="".join(ref.gpt2_byte_chars()),
                         specials=())
    assert [(m.left, m.right, m.count) for m in result.model.merges] == expected.merges
    assert sorted(result.model.alphabet) == expected.alphabet
    segmentation = {s.word: list(s.pieces) for s in result.word_segmentations()}
    assert segmentation == {w: p for w, _, p in expected.words}
    # Every training word, encoded as a text, gives its training segmentation.
    tok = result.model.tokenizer()
    originals = dict.fromkeys(training_split(name, text))
    for (_, _, pieces), original in zip(expected.words, originals, strict=True):
        assert [tok.id_to_piece(i) for i in tok.encode(original)] == pieces, original


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.lists(st.one_of(fragment_texts, texts), min_size=1, max_size=6).map("\n".join),
       merges=st.integers(0, 30))
def test_training_is_the_reference_on_the_patterns_words(name, text, merges):
    text = text.replace("\r", "") or "x"  # lines end in LF, as BPE Desktop reads CRLF
    _check_training(name, text, merges)


@pytest.mark.parametrize("name", NAMES)
def test_training_on_real_text_is_the_reference(name):
    text = (DATA_DIR / "udhr" / "eng.txt").read_text(encoding="utf-8")[:3000]
    _check_training(name, text.replace("\r\n", "\n"), 60)
