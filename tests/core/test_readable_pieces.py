"""A vocabulary's readable pieces, surface texts and byte lengths in bulk
(``readable_columns``) are exactly what the per-piece definitions give, whatever mixture
of pieces a vocabulary holds."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_desktop.core.config import TrainConfig
from bpe_desktop.core.pieces import (
    BYTE_CHARS,
    display_piece,
    piece_bytes,
    readable_columns,
    surface_text,
)

CONFIGS = [TrainConfig.preset(name) for name in ("gpt2", "sentencepiece", "subword-nmt")]
BYTE_PIECES = st.text(st.sampled_from(BYTE_CHARS), max_size=6)
ANY_PIECES = st.text(st.characters(blacklist_categories=("Cs",)), max_size=6)


def per_piece(pieces, config, special_ids):
    display = [display_piece(p, config) for p in pieces]
    surface = [surface_text(p, config) for p in pieces]
    return display, surface, [len(piece_bytes(p, config)) for p in pieces]


@settings(max_examples=200, deadline=None)
@given(pieces=st.lists(st.one_of(BYTE_PIECES, ANY_PIECES), max_size=30),
       config=st.sampled_from(CONFIGS), data=st.data())
def test_bulk_equals_the_per_piece_definitions(pieces, config, data):
    special_ids = set(data.draw(st.sets(st.integers(0, max(0, len(pieces) - 1)), max_size=3)))
    display, surface, nbytes = readable_columns(pieces, config, special_ids)
    ordinary = [i for i in range(len(pieces)) if i not in special_ids]
    expected = per_piece([pieces[i] for i in ordinary], config, ())
    assert [display[i] for i in ordinary] == expected[0]
    assert [surface[i] for i in ordinary] == expected[1]
    assert [nbytes[i] for i in ordinary] == expected[2]
    for i in special_ids & set(range(len(pieces))):  # shown as spelled when printable
        p = pieces[i]
        assert surface[i] == surface_text(p, config)
        assert nbytes[i] == len(piece_bytes(p, config))
        assert display[i] == (p if p.isprintable() and " " not in p
                              else display_piece(p, config))


def test_a_byte_level_piece_reads_as_its_text_beside_pieces_of_other_characters():
    config = TrainConfig.preset("gpt2")
    display, surface, nbytes = readable_columns(["Ġthe", "<|endoftext|>", "é", "ĠÃ©"],
                                                config, {1})
    assert display == ["␣the", "<|endoftext|>", "<0xE9>", "␣é"]
    assert surface == [" the", "<|endoftext|>", "\ufffd", " é"]
    assert nbytes == [4, 13, 1, 3]
