"""The engine's GPT-2 pre-tokenizer equals the GPT-2 regex, as run by Python's ``regex`` module.

The engine splits text with a hand-written lexer (``engine/src/gpt2.rs``) instead of a regex
engine; this test holds it to the pattern used by HF ``tokenizers`` ByteLevel and tiktoken's
``gpt2``::

    's|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+

``bpe_desktop._engine.pretokenize(text, "gpt2")`` must return exactly ``regex.findall`` of
that pattern: the pre-tokens as ``str``, before the byte-to-unicode mapping, on the raw text
(no BOM stripping, no CRLF or Unicode normalization). The engine applies the pattern to each
``\n``-terminated line on its own, as HF ``tokenizers`` does with a file it trains from
(``TextRules::split_words`` in ``engine/src/text.rs``), so with ``LINE_BY_LINE`` the expected
pre-tokens are ``regex.findall`` of each line; this differs from ``regex.findall`` of the whole
text only on whitespace runs that contain a ``\n`` (``"\n\n"`` is one pre-token of the whole
text, two of its lines). Set ``LINE_BY_LINE = False`` if ``pretokenize`` ever takes the text
whole.

Unicode versions: the engine's letter/number tables are Unicode 16.0 (crate
``unicode-general-category`` 1.1); ``regex`` may be newer (2026.5.9 is Unicode 17.0). Generated
text therefore only uses code points assigned in this Python's own ``unicodedata`` (14.0 for
Python 3.11), on which all three agree. ``\\s`` is Unicode White_Space in both; note that
``str.isspace()`` (and the ``re`` module) also count U+001C..U+001F, ``regex`` does not.
"""

from __future__ import annotations

import random
import re

import pytest

regex = pytest.importorskip("regex")
_engine = pytest.importorskip("bpe_desktop._engine")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from tests.shared_data import DATA_DIR, corpus_path  # noqa: E402

GPT2_PATTERN = (
    r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
)
PAT = regex.compile(GPT2_PATTERN)

CORPORA = [
    "botchan",
    "tinyshakespeare",
    "ud_english",
    "ud_german",
    "ud_hindi",
    "ud_japanese",
    "ud_russian",
]


def engine_split(text: str) -> list[str]:
    return _engine.pretokenize(text, "gpt2")


#: True: the engine pre-tokenizes every ``\n``-terminated line on its own (see above).
LINE_BY_LINE = True


def expected(text: str) -> list[str]:
    if LINE_BY_LINE:
        return [tok for line in re.split(r"(?<=\n)", text) for tok in PAT.findall(line)]
    return PAT.findall(text)


def assert_same(text: str) -> None:
    got = engine_split(text)
    want = expected(text)
    if got != want:
        i = next((k for k, (a, b) in enumerate(zip(got, want)) if a != b), min(len(got), len(want)))
        raise AssertionError(
            f"pre-tokens differ for {text[:300]!r} (length {len(text)}) at pre-token {i}:\n"
            f"  engine {got[max(0, i - 3):i + 3]!r}\n  regex  {want[max(0, i - 3):i + 3]!r}"
        )


def count_mismatches(texts: list[str]) -> tuple[int, list[str]]:
    bad = [t for t in texts if engine_split(t) != expected(t)]
    return len(bad), bad[:5]


# --------------------------------------------------------------------------------------------
# The reference itself: a few expectations, so that a change in `regex` would be noticed.
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("Hello world", ["Hello", " world"]),
        ("  foo", [" ", " foo"]),
        ("\n\nfoo", ["\n", "\n", "foo"]),
        ("foo  ", ["foo", "  "]),
        ("it's IT'S", ["it", "'s", " IT", "'", "S"]),
        ("''s", ["''", "s"]),
        ("'then", ["'t", "hen"]),
        ("a\u00a0b", ["a", "\u00a0", "b"]),
        ("cafe\u0301", ["cafe", "\u0301"]),
        # U+001C is whitespace for str.isspace() and `re`, not for `regex` (nor White_Space)
        ("x\x1c\x1cy", ["x", "\x1c\x1c", "y"]),
    ],
)
def test_reference_pattern_behaves_as_documented(text, tokens):
    assert PAT.findall(text) == tokens


# --------------------------------------------------------------------------------------------
# Hand-picked edge cases.
# --------------------------------------------------------------------------------------------
EDGE_CASES = [
    "", " ", "  ", "   ", "\n", "\n\n", "a", "Hello world", "Hello, world!", "  foo", "   foo",
    "foo  ", "foo ", "\n\nfoo", "\n \nfoo", "foo\n\n", "a\tb", "a \tb", "a\t b", "\t\tfoo",
    "\r\n", "line1\r\nline2", "a  \n  b", " \t", "\t ", "end   ",
    # contractions: case-sensitive, U+0027 only, matched even inside longer words
    "it's", "don't", "we're", "they've", "I'm", "you'll", "he'd", "'s", "'t", "'re", "'ve", "'m",
    "'ll", "'d", "'then", "'r", "'l", "'x", "'", "''", "'''s", "''s", "x''s", "'S", "IT'S",
    "DON'T", "'Re", "'LL", " 's", "  's", "\t's", "can't've", "'s's", "?'s", "it\u2019s", "`s",
    # digits, letters, punctuation
    "abc123def", "123abc", "3.14159", "1,000,000", " 42", "  42", "a1b2c3", "\u00bd cup",
    "\u216b chapter", "\u0663\u0664", "x\u00b2", "$100", " $100", "!!!", " !!!", "...?!",
    " -- ", "<|endoftext|>", "#include <stdio.h>", "__init__",
    # Unicode whitespace and near-whitespace
    "a\u00a0b", "a \u00a0b", "a\u00a0 b", "\u00a0\u00a0a", "a\u2028b", "a\u2029b", "a\u3000b",
    "\u3000\u3000x", "a\u0085b", "a\u1680b", "a\u2009b", "a\u202fb", "a\u205fb", "x\x0bx",
    "x\x0cx", "a\x1cb", "a\x1fb", " \x1c", "a\u200bb", "a\u180eb", "a\ufeffb", "\ufeffHello",
    # beyond ASCII
    "caf\u00e9", "cafe\u0301", "cafe\u0301 ok", " \u0301", "\u041f\u0440\u0438\u0432\u0435\u0442",
    "\u0928\u092e\u0938\u094d\u0924\u0947 \u0926\u0941\u0928\u093f\u092f\u093e",
    "\u65e5\u672c\u8a9e\u306e\u30c6\u30ad\u30b9\u30c8",
    "\u3053\u308c\u306f\u3001\u30c6\u30b9\u30c8\u3002",
    "\u01c5ungla", "\u02b0h", "Stra\u00dfe", "\ud55c\uad6d\uc5b4",
    # emoji, ZWJ sequences, symbols, controls, private use
    "\U0001f600", "hi \U0001f600", "hi\U0001f600there", "\U0001f44d\U0001f3fd",
    " \U0001f468\u200d\U0001f469\u200d\U0001f467", "a\u200db", "\u20ac5", "\U0001d400\U0001d401",
    "\U00020000x", "a\x00b", "a\x7fb", "\ue000", "a\U0010ffffb",
]


@pytest.mark.parametrize("text", EDGE_CASES)
def test_edge_cases(text):
    assert_same(text)


def test_pathological_inputs_are_fast():
    # Linear time: a backtracking-prone scanner would take minutes on these.
    mb = 1 << 20
    for text in [" " * mb, "a" * mb, " a" * (mb // 2), "  a" * (mb // 3), "\n" * mb + "a",
                 "'" * mb, "\u3000" * (mb // 3)]:
        tokens = engine_split(text)
        assert "".join(tokens) == text
        assert tokens == expected(text)


# --------------------------------------------------------------------------------------------
# Real text: every corpus line by line and as whole files.
# --------------------------------------------------------------------------------------------
@pytest.fixture(scope="module", params=CORPORA)
def corpus_text(request) -> str:
    return corpus_path(request.param).read_bytes().decode("utf-8")


def test_corpus_lines(corpus_text):
    lines = corpus_text.splitlines(keepends=True) + corpus_text.split("\n")
    n_bad, examples = count_mismatches(lines)
    assert n_bad == 0, f"{n_bad} of {len(lines)} lines differ, e.g. {examples!r}"


def test_corpus_whole_file(corpus_text):
    assert_same(corpus_text)


#: Every text file shipped in tests/data (UDHR translations in seven scripts, morphology
#: word lists, the treebank samples), whole and line by line.
DATA_FILES = sorted(p for p in DATA_DIR.rglob("*") if p.suffix in (".txt", ".tsv"))


@pytest.mark.parametrize("path", DATA_FILES, ids=lambda p: str(p.relative_to(DATA_DIR)))
def test_every_data_file(path):
    text = path.read_bytes().decode("utf-8")
    assert_same(text)
    n_bad, examples = count_mismatches(text.splitlines(keepends=True))
    assert n_bad == 0, f"{n_bad} lines differ, e.g. {examples!r}"


def test_data_files_are_found():
    assert len(DATA_FILES) >= 10


# --------------------------------------------------------------------------------------------
# Random text.
# --------------------------------------------------------------------------------------------
#: Characters where the pattern's branches meet: the contraction letters, apostrophes, every
#: kind of whitespace, marks, digits of other scripts, emoji parts.
SPECIAL_CHARS = list(
    "abcxyzABCSTXYZ" "srtvelmd" "0123456789" ".,;:!?-_\"()[]#$%&*+/<=>@\\^`{|}~" "'''''"
    "      \t\n\n\r\x0b\x0c\x1c\x1f\x00\x7f"
    "\u00a0\u0085\u1680\u2000\u2009\u200a\u2028\u2029\u202f\u205f\u3000\u180e\u200b\ufeff"
    "\u00e9\u00c9\u00df\u01c5\u02b0\u0301\u0308\u20dd\u0416\u044f\u0401\u0928\u092e\u093f\u094d"
    "\u0901\u0967\u0639\u0663\u65e5\u672c\u8a9e\u30a2\u30fc\u306e\u3002\u3001\u3007\ud55c"
    "\u00b2\u00bd\u216b\u20ac\u00a3\u2019\u2018\u00ab"
) + ["\U0001f600", "\U0001f44d", "\U0001f3fd", "\u200d", "\u200c", "\U0001f468", "\ufe0f",
     "\U0001d400", "\U00020000", "\ue000", "\U0010ffff"]

FRAGMENTS = ["'s", "'t", "'re", "'ve", "'m", "'ll", "'d", "'S", "'", " ", "  ", "\n", "\t",
             "\u00a0", "word", "Word", "123", "!?", "\u00e9", "e\u0301", "\u65e5\u672c",
             "\U0001f600", " \u3000"]

# Assigned (in this Python's unicodedata) code points only; surrogates cannot reach Rust.
any_char = st.characters(exclude_categories=("Cs", "Cn"))
texts = st.text(alphabet=st.one_of(st.sampled_from(SPECIAL_CHARS), any_char), max_size=80)
fragment_texts = st.lists(
    st.one_of(st.sampled_from(FRAGMENTS), st.sampled_from(SPECIAL_CHARS)), max_size=30
).map("".join)

HYPOTHESIS = settings(max_examples=1000, deadline=None,
                      suppress_health_check=[HealthCheck.too_slow])


@HYPOTHESIS
@given(texts)
def test_hypothesis_text(text):
    assert_same(text)


@HYPOTHESIS
@given(fragment_texts)
def test_hypothesis_fragments(text):
    assert_same(text)


def test_seeded_random_strings():
    rng = random.Random(20240611)
    cases = []
    for _ in range(20_000):
        k = rng.choice([rng.randint(0, 8), rng.randint(0, 40), rng.randint(0, 200)])
        # Now and then a small sub-alphabet, for long runs of one kind.
        alphabet = (SPECIAL_CHARS if rng.random() < 0.6
                    else rng.sample(SPECIAL_CHARS, rng.randint(2, 6)))
        cases.append("".join(rng.choice(alphabet) for _ in range(k)))
    n_bad, examples = count_mismatches(cases)
    assert n_bad == 0, f"{n_bad} of {len(cases)} random strings differ, e.g. {examples!r}"
