"""``encode_batch`` on several threads gives exactly the ids of one thread.

With more than one thread the engine cuts long texts into pieces (where no word of any
pre-tokenizer can span the cut), encodes the pieces in parallel and joins their ids per
text (``engine/src/encoder/batch.rs``). These tests compare threads=2 (and 0 and 3) with
threads=1 on every preset, both encoding modes, texts with every kind of boundary around
the cut points (spaces, runs of spaces, newlines before and after spaces, CRLF, tabs,
Unicode spaces, scripts without spaces, a final sigma), texts with no cut point at all,
and batch sizes on both sides of the engine's limits; byte-level ids also against
tiktoken, which shares no code with ours.
"""

from __future__ import annotations

import random

import pytest

from bpe_desktop.core import Corpus, TrainConfig, _native, train
from tests.core.test_encode_cache import tiktoken_of
from tests.shared_data import corpus_path as corpus

ENGINE = _native.engine()
SHARED = ENGINE.ENCODE_SHARED_MIN_BYTES  # batches under this stay on one thread
PIECE = ENGINE.ENCODE_PIECE_MIN_BYTES  # the smallest piece
UD = ("ud_english", "ud_german", "ud_russian", "ud_hindi", "ud_japanese")
PRESETS = ("sennrich", "subword-nmt", "gpt2", "sentencepiece")
#: What surrounds the words of the generated texts: every kind of boundary the cut rule
#: must respect or may use.
SEPARATORS = (" ", " ", " ", "\n", "  ", "   ", " \n", "\n ", "\n  ", "\n\n", "\r\n", " \r\n",
              "\t", "\t\n", "\n\t", "\u00a0", "\u3000", "\u2028", "", "'s ", " '")
WORDS = ("the", "Σοφίας", "ΣΣ", "naïve", "cafe\u0301", "日本語の", "123", "--", "…", "x",
         "Straße", "ﬁ", "\u00a8", "\u1fbd", "a'b", "ОДИН")


@pytest.fixture(scope="module")
def ud_text() -> str:
    return "".join(corpus(f"{n}.txt").read_text(encoding="utf-8") for n in UD)


def trained(preset: str, **options):
    """A model of the UD texts and generated ones, so that it has merges of white space
    runs (a wrong cut changes those words' ids, not only their boundaries)."""
    texts = [corpus(f"{n}.txt").read_text(encoding="utf-8") for n in UD]
    texts += [generated(seed, 50_000) for seed in range(4)]
    config = TrainConfig.preset(preset, vocab_size=2500, **options)
    return train(Corpus.from_texts(texts), config).model


@pytest.fixture(scope="module", params=PRESETS)
def model(request):
    extra = {"normalize": "nfkc", "lowercase": True} if request.param == "sennrich" else {}
    return trained(request.param, **extra)


def generated(seed: int, size: int) -> str:
    rng = random.Random(seed)
    parts, n = [], 0
    while n < size:
        part = rng.choice(WORDS) + rng.choice(SEPARATORS)
        parts.append(part)
        n += len(part.encode("utf-8"))
    return "".join(parts)


def first_bytes(text: str, n: int, start: int = 0) -> str:
    """About ``n`` UTF-8 bytes of ``text`` from character ``start`` (whole characters)."""
    return text[start:start + n].encode("utf-8")[:n].decode("utf-8", errors="ignore")


def batches(ud_text: str) -> dict[str, list[str]]:
    no_cut = "".join(corpus("ud_japanese.txt").read_text(encoding="utf-8").split())
    sizes = [SHARED - 1, SHARED, SHARED + 1, PIECE - 1, PIECE + 1, 2 * PIECE + 7, 3 * SHARED + 5]
    return {
        "one long text": [first_bytes(ud_text, 600_000)],
        "CRLF": [first_bytes(ud_text, 200_000, 1000).replace("\n", "\r\n")],
        "every boundary, 3 texts": [generated(s, 70_000 + 997 * s) for s in range(3)],
        "sizes around the limits": [first_bytes(ud_text, n, 17 * n % 5000) for n in sizes],
        "each size alone": [first_bytes(generated(9, SHARED + 3), SHARED + 1)],
        "no cut point": [no_cut, "a" * (2 * SHARED), "ab" * SHARED + " " + "b" * SHARED],
        "many small and one long": [*(first_bytes(ud_text, 40, 40 * i) for i in range(2000)),
                                    first_bytes(ud_text, 300_000, 9)],
        "uneven, empty ones between": ["", first_bytes(ud_text, 3 * SHARED, 5), "", "x",
                                       first_bytes(ud_text, PIECE, 77), ""],
    }


def flat(tok, texts, mode, threads):
    ids, lengths = tok.encode_batch_flat(texts, mode=mode, threads=threads)
    return ids.tolist(), lengths.tolist()


@pytest.mark.parametrize("mode", ["merges", "greedy"])
def test_threads_give_the_ids_of_one_thread(model, ud_text, mode):
    tok = model.tokenizer()
    for name, texts in batches(ud_text).items():
        want = flat(tok, texts, mode, 1)
        assert sum(want[1]) == len(want[0]) > 0, name
        for threads in (2, 0, 3):
            assert flat(tok, texts, mode, threads) == want, f"{name}, {threads} threads"
    # Each text alone, through the single-text call, as the batch's reference.
    texts = batches(ud_text)["every boundary, 3 texts"]
    ids, lengths = flat(tok, texts, mode, 2)
    assert lengths == [len(tok.encode(t, mode=mode)) for t in texts]
    assert ids == [i for t in texts for i in tok.encode(t, mode=mode)]


def test_generated_texts_at_many_cut_positions(model):
    # Texts whose cut points fall at different places in each run.
    tok = model.tokenizer()
    for seed in range(12):
        text = generated(100 + seed, SHARED + 4096 * seed)
        texts = [text[seed:], text[: len(text) // (seed + 2)], text]
        assert flat(tok, texts, "merges", 2) == flat(tok, texts, "merges", 1), seed


def test_byte_level_threads_match_tiktoken(ud_text):
    model = trained("gpt2")
    tok = model.tokenizer()
    reference = tiktoken_of(model)
    # (Without CR: we read CRLF as LF, tiktoken keeps the CR.)
    texts = [t.replace("\r", "") for t in batches(ud_text)["every boundary, 3 texts"]]
    texts.append(first_bytes(ud_text, 400_000, 3))
    ids = tok.encode_batch(texts, threads=2)
    for text, got in zip(texts, ids):
        assert got.tolist() == reference.encode_ordinary(text)


def test_errors_are_those_of_one_thread():
    # A model without an unknown token refuses unseen characters, naming the first one.
    config = TrainConfig.preset("gpt2", vocab_size=400).replace(pretokenizer="whitespace",
                                                               boundary="eow-symbol")
    model = train(Corpus.from_files([corpus("ud_english.txt")]), config)
    tok = model.model.tokenizer()
    clean = first_bytes(corpus("ud_english.txt").read_text(encoding="utf-8"), 4 * SHARED)
    texts = [clean, clean[:SHARED] + " 日 " + clean[SHARED:], clean + " Ж"]
    errors = []
    for threads in (1, 2):
        with pytest.raises(Exception) as caught:
            tok.encode_batch(texts, threads=threads)
        errors.append((type(caught.value), str(caught.value)))
    assert errors[0] == errors[1]
    assert "日" in errors[0][1]
