"""The trained result crosses from the engine packed (strings back to back with their ends
in code points, numbers as bytes): unpacked, it is the same as the engine's word table
read another way (``word_segmentations``, built directly as Python objects)."""

from __future__ import annotations

import sys
from collections import Counter

import pytest

from bpe_desktop.core import Corpus, TrainConfig, train
from bpe_desktop.core.training import _numbers, _unpack_strings

TEXTS = [
    "naïve café 東京 東京都 über straße 🙂🙂 a\u0301 e\u0301e\u0301 " * 3,
    "ᄀ ᄀ ᄀ 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𝔘𝔫𝔦 तुम तुम्हारा " * 4,
    "plain ascii words words words and more words",
]


def test_packed_strings_round_trip_with_characters_of_every_width():
    items = ["a", "é", "東京", "🙂", "a\u0301", "x" * 1000, "Ġthe"]
    text = "".join(items).encode("utf-8")
    ends, total = [], 0
    for item in items:
        total += len(item)
        ends.append(total)
    packed_ends = b"".join(e.to_bytes(8, sys.byteorder) for e in ends)  # as the engine packs
    assert _unpack_strings(text, packed_ends) == items
    assert _unpack_strings(b"", b"") == []
    assert _numbers(b"", "Q") == []


@pytest.mark.parametrize("preset", ["default", "gpt2", "sennrich"])
def test_unpacked_result_matches_the_word_table(preset):
    cfg = TrainConfig.preset(preset, vocab_size=300) if preset != "default" else \
        TrainConfig(vocab_size=300)
    result = train(Corpus.from_texts(TEXTS), cfg)
    model = result.model
    rows = result.word_segmentations()
    # the kept words: the most frequent, ties in first-seen order
    expected = sorted(((s.word, s.count) for s in rows), key=lambda wc: -wc[1])
    assert list(model.words) == expected[: cfg.keep_words]
    # every merge names tokens that exist, and their results are the model's pieces
    pieces = set(model.pieces)
    assert all(m.left in pieces and m.right in pieces and m.result in pieces
               for m in model.merges)
    # final counts: each piece of each word's final segmentation, weighted by its count
    by_piece = Counter()
    for s in rows:
        for p in s.pieces:
            by_piece[p] += s.count
    ids = model.piece_ids
    assert {p: model.final_counts[ids[p]] for p in by_piece if p in ids} == \
        {p: c for p, c in by_piece.items() if p in ids}
    assert sum(model.final_counts) == sum(c for p, c in by_piece.items() if p in ids)


@pytest.mark.parametrize("keep", [0, 1, 3, 4, 6, 100])
def test_kept_words_are_the_most_frequent_with_ties_in_first_seen_order(keep):
    # counts: late 3, b 2, a 2, c 2, d 1, e 1 — the cut falls inside runs of ties
    text = "late d b a late c b a e c late"
    result = train(Corpus.from_texts([text]), TrainConfig(vocab_size=40, keep_words=keep))
    expected = [("late", 3), ("b", 2), ("a", 2), ("c", 2), ("d", 1), ("e", 1)]
    assert list(result.model.words) == expected[:keep]

# -- the other direction: a model's pieces and merges packed for the engine's Tokenizer ---

def _native_tokenizer(cfg, text: str, ends: list[int], merges: bytes = b""):
    import numpy as np

    from bpe_desktop.core import _native

    return _native.engine().Tokenizer(cfg, text, np.array(ends, dtype=np.uint32).tobytes(),
                                      merges, None, {})


def test_packed_tokenizer_input_keeps_every_piece_at_its_id():
    """Pieces of 1-4 UTF-8 bytes and combining marks: each id decodes to its own piece
    (a unpacking off by one character would shift every later piece)."""
    text = "é東 🙂a a\u0301 é東 🙂a Ġthe Ġthe " * 5
    model = train(Corpus.from_texts([text]), TrainConfig(vocab_size=40)).model
    tok = model.tokenizer()
    ids = tok.encode(text)
    assert tok.decode(ids) == text.strip()
    assert [tok.id_to_piece(i) for i in ids] == [model.pieces[i] for i in ids]
    for i, piece in enumerate(model.pieces):
        assert tok.decode([i]) == piece.removesuffix("</w>")


@pytest.mark.parametrize(("text", "ends", "merges", "message"), [
    ("abc", [1, 2], b"", "longer than their ends say"),
    ("abc", [1, 4], b"", "piece 1 ends at character 4, past"),
    ("abc", [2, 1, 3], b"", "piece 1 ends at character 1, before its start 2"),
    ("abc", [1, 2, 3], b"\0" * 5, "merges: 5 bytes is not a whole number of id triples"),
])
def test_malformed_packed_tokenizer_input_is_a_config_error(text, ends, merges, message):
    from bpe_desktop.core.errors import ConfigError

    with pytest.raises(ConfigError, match=message):
        _native_tokenizer(TrainConfig(), text, ends, merges)
