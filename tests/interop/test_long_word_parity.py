"""Long words (more than 48 symbols: the engine's bucket-queue merge, `long_merge.rs`)
give HF tokenizers' and tiktoken's ids: runs of one letter around the powers of two,
random letters, and each script's text with its spaces removed."""

from __future__ import annotations

import importlib
import random
import string

import pytest

from tests.interop.conftest import normalized_text
from tests.interop.test_encode_parity import GPT2_PATTERN, OTHERS, models  # noqa: F401
from tests.shared_data import corpus_path, gpt2_chars

tiktoken = importlib.import_module("tiktoken")


def _long_words() -> dict[str, str]:
    rng = random.Random(17)
    out = {f"a*{n}": "a" * n for n in (49, 50, 63, 64, 65, 127, 128, 129, 1000, 4097, 65_537)}
    out["ab*5000"] = "ab" * 5000
    out["random letters"] = "".join(rng.choices(string.ascii_letters, k=200_000))
    out["random a/b"] = "".join(rng.choices("ab", k=50_000))
    for name in OTHERS:
        out[f"{name} without spaces"] = "".join(normalized_text(corpus_path(name)).split())[:100_000]
    return out


@pytest.fixture(scope="module")
def tiktoken_ours(models):  # noqa: F811
    ours, _ = models
    to_bytes = {c: b for b, c in enumerate(gpt2_chars())}
    ranks = {bytes(to_bytes[c] for c in piece): i for i, piece in enumerate(ours.pieces)}
    return tiktoken.Encoding("ours", pat_str=GPT2_PATTERN, mergeable_ranks=ranks,
                             special_tokens={})


@pytest.mark.parametrize("name", list(_long_words()))
def test_long_words_equal_hf_and_tiktoken(models, tiktoken_ours, name):  # noqa: F811
    ours, hf = models
    text = _long_words()[name]
    ids = ours.tokenizer().encode(text)
    assert ids == tiktoken_ours.encode_ordinary(text)
    assert ids == hf.encode(text).ids
