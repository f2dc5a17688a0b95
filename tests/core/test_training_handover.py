"""The trained result crosses from the engine typed (``TrainOutput``, its ``TrainedModel``):
read as the Python lists a refused model is built from, it is the same as the engine's
word table read another way (``word_segmentations``) and as the engine-held model."""

from __future__ import annotations

from collections import Counter

import pytest

from bpe_desktop.core import Corpus, TrainConfig, _native, train
from bpe_desktop.core.training import MAX_KEPT_WORD_CHARS, _python_model, result_from_engine

TEXTS = [
    "naïve café 東京 東京都 über straße 🙂🙂 a\u0301 e\u0301e\u0301 " * 3,
    "ᄀ ᄀ ᄀ 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𝔘𝔫𝔦 तुम तुम्हारा " * 4,
    "plain ascii words words words and more words",
]


@pytest.mark.parametrize("preset", ["default", "gpt2", "sennrich"])
def test_the_trained_lists_read_in_python_make_the_engine_held_model(preset):
    """Tokens, merges (as token indices), kept words and final counts of every width of
    character: the model built from them in Python equals the one the engine built."""
    cfg = TrainConfig.preset(preset, vocab_size=300) if preset != "default" else \
        TrainConfig(vocab_size=300)
    corpus, cfg = Corpus.from_texts(TEXTS), cfg.with_byte_tokens()
    output = _native.engine().train(corpus, cfg)
    model = result_from_engine(output, corpus, cfg, 0.0).model
    trained = output.trained
    tokens = trained.tokens()
    assert all(type(t) is str for t in tokens) and len(set(tokens)) == len(tokens)
    assert all(type(n) is int for m in trained.merges() for n in m)
    rebuilt = _python_model(trained, cfg, model.corpus, None)
    assert [(m.left, m.right, m.count) for m in rebuilt.merges] == \
        [(m.left, m.right, m.count) for m in model.merges]
    assert rebuilt.pieces == model.pieces
    assert rebuilt.words == model.words
    assert rebuilt.final_counts == model.final_counts
    assert all(len(w) <= MAX_KEPT_WORD_CHARS for w, _ in rebuilt.words)


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

def _u32(values) -> bytes:
    import numpy as np

    return np.array(values, dtype=np.uint32).tobytes()


def _native_tokenizer(cfg, text: str, ends: list[int], merge_parts: str = "",
                      part_ends: list[int] | None = None):
    """The engine's Tokenizer on packed pieces and merge parts; the parts' ends default to
    one character each."""
    from bpe_desktop.core import _native

    if part_ends is None:
        part_ends = list(range(1, len(merge_parts) + 1))
    return _native.engine().Tokenizer(cfg, text, _u32(ends), merge_parts, _u32(part_ends),
                                      None, {})


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
    ("abc", [1, 2], "", "longer than their ends say"),
    ("abc", [1, 4], "", "piece 1 ends at character 4, past"),
    ("abc", [2, 1, 3], "", "piece 1 ends at character 1, before its start 2"),
    ("abc", [1, 2, 3], "abc", "merges: 3 parts is not a whole number of pairs"),
])
def test_malformed_packed_tokenizer_input_is_a_config_error(text, ends, merges, message):
    from bpe_desktop.core.errors import ConfigError

    with pytest.raises(ConfigError, match=message):
        _native_tokenizer(TrainConfig(), text, ends, merges)


def test_merges_cross_as_their_pieces_and_truncations_reuse_them():
    """Merges cross as their pieces' text, l0 r0 l1 r1 ... (the engine looks the ids up
    without the GIL); a truncated model slices its parent's packing and encodes as the
    same model built afresh."""
    from bpe_desktop.core import BPEModel

    text = "é東 🙂a a\u0301 é東 🙂a Ġthe Ġthe low lower lowest newer wider " * 20
    model = train(Corpus.from_texts([text]), TrainConfig(vocab_size=60)).model
    for cut in (model, model.truncated(7), model.truncated(0)):
        parts, ends = cut.packed_merges()
        starts = [0, *ends[:-1]]
        assert [parts[a:b] for a, b in zip(starts, ends)] == \
            [p for m in cut.merges for p in (m.left, m.right)]
        fresh = BPEModel(cut.config, cut.alphabet, cut.merges)
        assert cut.tokenizer().encode(text) == fresh.tokenizer().encode(text)
        assert fresh.packed_merges()[0] == parts


def test_merges_naming_an_unknown_piece_or_a_piece_twice_are_refused_as_before():
    from bpe_desktop.core.errors import ConfigError, EncodeError

    cfg = TrainConfig()
    # "a", "b", "ab": merge (a, c) names "c", no token; Python's repr names it
    with pytest.raises(EncodeError, match=r"^merge 1 refers to unknown token 'c'$"):
        _native_tokenizer(cfg, "abab", [1, 2, 4], "abac")
    with pytest.raises(EncodeError, match=r"^merge 0 refers to unknown token 'ab'$"):
        _native_tokenizer(cfg, "ab", [1, 2], "ab")  # the result "ab" is no token
    with pytest.raises(EncodeError, match=r"unknown token 'x\\n'"):
        _native_tokenizer(cfg, "ab", [1, 2], "x\nb", [2, 3])
    with pytest.raises(ConfigError, match=r"token 'a' occurs twice in the vocabulary "
                                          r"\(ids 0 and 2\)"):
        _native_tokenizer(cfg, "aba", [1, 2, 3])
