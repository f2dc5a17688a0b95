"""Pieces drawn in a right-to-left line: each left-to-right run that mixes letters and
punctuation, or holds a bracket, is a left-to-right isolate (``</w>`` is not mirrored into
``<w/>``); right-to-left letters and lone markers keep the line's direction; the isolates
are for drawing only."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bpe_desktop.core.config import TrainConfig
from bpe_desktop.core.pieces import (
    bidi_display,
    bidi_joined,
    display_piece,
    isolated_if_rtl,
    without_isolates,
)

LRI, FSI, PDI = "\u2066", "\u2068", "\u2069"


def test_end_of_word_marker_is_a_left_to_right_isolate():
    assert bidi_display("كتاب</w>") == "كتاب" + LRI + "</w>" + PDI
    assert bidi_display("</w>") == LRI + "</w>" + PDI
    assert bidi_display("שלום</w>") == "שלום" + LRI + "</w>" + PDI


def test_stray_bytes_and_special_tokens_are_isolated():
    shown = display_piece("\u0120\u00d8", TrainConfig.preset("gpt2"))  # space + a lone byte
    assert shown == "␣<0xD8>"
    assert bidi_display(shown) == LRI + "␣<0xD8>" + PDI
    assert bidi_display("<unk>") == LRI + "<unk>" + PDI


def test_lone_markers_and_plain_letters_are_left_alone():
    # ▁ and @@ are neither mirrored nor split: they stay at the word's start or end as read
    for shown in ("▁كتاب", "كتاب@@", "▁", "@@", "كتاب", "hello", "12"):
        assert bidi_display(shown) == shown


def test_latin_letters_with_a_marker_read_left_to_right():
    assert bidi_display("hello@@") == LRI + "hello@@" + PDI
    assert bidi_display("▁hello") == LRI + "▁hello" + PDI
    # combining marks stay with the right-to-left letter they follow
    assert bidi_display("كِتاب</w>") == "كِتاب" + LRI + "</w>" + PDI


def test_right_to_left_cell_holds_the_isolated_marker():
    assert isolated_if_rtl("كتاب</w>") == FSI + "كتاب" + LRI + "</w>" + PDI + PDI
    assert isolated_if_rtl("hello</w>") == "hello</w>"


def test_joined_pieces_isolate_markers_only_among_right_to_left_letters():
    assert bidi_joined(["كت", "اب</w>"], " · ") == "كت · اب" + LRI + "</w>" + PDI
    assert bidi_joined(["low", "er</w>"], " · ") == "low · er</w>"


@given(st.text())
def test_isolates_are_for_display_only(piece):
    text = display_piece(piece, TrainConfig.preset("subword-nmt"))  # never holds an isolate
    assert without_isolates(bidi_display(text)) == text
    assert without_isolates(isolated_if_rtl(text)) == text
