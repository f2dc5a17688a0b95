"""The Encode tab's chunks come from the engine's cut rule, stated once in
``engine/src/encoder/batch.rs`` (``encode_batch`` cuts its pieces there too).

The view hands a text to the per-word call in chunks (``encoding_view.split_points``);
the chunks must rejoin to the text and their ids, joined, must be the whole text's ids,
for every preset (byte-level or not), both modes, and texts of every script and boundary.
"""

from __future__ import annotations

import pytest

from bpe_desktop.core.evaluation import evaluate_text
from bpe_desktop.views.encoding_view import (
    CHUNK_CHARS,
    _Collector,
    _walk_words,
    encode_text,
    split_points,
)
from tests.core.test_encode_threads import UD, generated, model  # noqa: F401 (fixture)
from tests.shared_data import corpus_path as corpus


def _texts() -> list[str]:
    """Texts with many cut points of every kind and stretches with none (CJK, a long word)."""
    ud = "".join(corpus(f"{n}.txt").read_text(encoding="utf-8")[:20_000] for n in UD)
    return [generated(seed, 30_000) for seed in range(3)] + [
        ud,
        "x" * 9000 + " tail\n end",
        "日本語の文章" * 2000 + "\n次 の行",
        " \n  lead\r\n\tand\u3000trail  " * 400,
    ]


def _chunks(text: str, points: list[int], start: int = 0) -> list[str]:
    out, last = [], start
    for p in points:
        out.append(text[last:p])
        last = p
    return out


def test_split_points_are_character_offsets_a_little_over_the_size_apart():
    text = "日本\n語 x"  # cuts after the newline (character 3), before the space (4)
    assert split_points(text, size=1) == [3, 4, 6]
    assert split_points(text, size=3) == [4, 6]
    assert split_points(text, 3, 6, size=1) == [4, 6]  # offsets stay the text's
    assert split_points("abcdef", size=1) == [6]  # no cut point: one chunk
    assert split_points("", size=4) == [0]
    text = generated(0, 20_000)
    for size in (1, 7, 100, CHUNK_CHARS):
        points = split_points(text, size=size)
        assert points[-1] == len(text) and points == sorted(set(points))
        assert all(b - a >= size for a, b in zip([0] + points, points[:-1]))
        assert "".join(_chunks(text, points)) == text


@pytest.mark.parametrize("mode", ["merges", "greedy"])
def test_each_chunk_encodes_as_in_the_whole_text(model, mode):  # noqa: F811
    tok = model.tokenizer()
    for text in _texts():
        whole = tok.encode(text, mode=mode)
        for size in (50, 997):
            chunks = _chunks(text, split_points(text, size=size))
            assert len(chunks) > 1 and "".join(chunks) == text
            joined = [i for c in chunks for _, ids in tok.encode_words(c, mode=mode) for i in ids]
            assert joined == whole, (model.config.pretokenizer, size)


@pytest.mark.parametrize("limit", [100, 10**6])  # lines drawn: the first few, or all
def test_the_views_chunks_give_the_whole_texts_ids(model, limit, caplog):  # noqa: F811
    tok = model.tokenizer()
    for text in _texts():
        walk = _walk_words(tok, text, "merges", _Collector(tok, limit), lambda: None)
        assert len(walk.chunk_ids) > 1
        assert [i for ids in walk.chunk_ids for i in ids] == tok.encode(text)
        # encode_text takes the same chunks: no warning that it fell back to the whole text
        with caplog.at_level("WARNING"):
            stats = encode_text(tok, text, "merges", limit=limit).stats
        # words and characters as Evaluate counts them on the text's lines
        evaluated = evaluate_text(model, text.split("\n"))
        assert (stats.words, stats.characters) == (evaluated.words, evaluated.characters)
        assert not caplog.records
