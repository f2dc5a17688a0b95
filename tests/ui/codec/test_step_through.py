"""The Encode / Decode panel's step-through: a word's merges one by one, in rank order."""

from __future__ import annotations

import re

from PySide6.QtCore import Qt
from PySide6.QtGui import QTextCursor

from bpe_desktop.ui.codec.piece_view import plain


def test_step_through_shows_each_merge_in_rank_order(panel, qtbot, toy_model):
    tok = toy_model.tokenizer()
    panel.word_edit.setText("lowest")
    assert panel.steps == tok.merge_steps("lowest")
    assert [s.rank for s in panel.steps] == [None, 0, 1, 2, 3, 4]
    assert panel.step_slider.value() == 0 and not panel.back_button.isEnabled()
    first = plain(panel.step_view.toPlainText())
    assert "start: the symbols" in first and "l · o · w · e · s · t · </w>" in first
    assert "rank" not in first  # one row so far: the symbols
    for _ in range(4):
        qtbot.mouseClick(panel.step_button, Qt.MouseButton.LeftButton)
    assert panel.step_slider.value() == 4
    rows = plain(panel.step_view.toPlainText())
    assert "rank 3: merge (l, o)" in rows
    assert "lo · w · est</w>" in rows
    assert "rank 4" not in rows  # not stepped to yet
    assert "Step 4 of 5" in panel.step_label.text()
    qtbot.mouseClick(panel.back_button, Qt.MouseButton.LeftButton)
    assert panel.step_slider.value() == 3
    panel.step_slider.setValue(5)
    assert "Step 5 of 5" in panel.step_label.text() and not panel.step_button.isEnabled()
    assert "low · est</w>" in panel.step_label.text()
    qtbot.mouseClick(panel.reset_button, Qt.MouseButton.LeftButton)
    assert panel.step_slider.value() == 0 and not panel.back_button.isEnabled()
    qtbot.mouseClick(panel.end_button, Qt.MouseButton.LeftButton)
    assert panel.step_slider.value() == 5


def test_step_through_method_shows_every_step(panel, toy_model):
    panel.step_through("widest")
    assert panel.steps == toy_model.tokenizer().merge_steps("widest")
    assert panel.step_slider.value() == len(panel.steps) - 1
    assert panel.word_edit.text() == "widest"
    panel.step_through("lowest", to_end=False)
    assert panel.step_slider.value() == 0


def test_step_rows_highlight_the_merged_pieces(panel):
    panel.word_edit.setText("lowest")
    panel.step_slider.setValue(1)
    html = panel.step_view.toHtml()
    # rank 0 merges (e, s): the new "es" (and only it) is drawn in the accent colour.
    accent = "background-color:#d9480f;"
    assert re.search(accent + r'">es</span>', html)
    assert html.count(accent) == 1


def test_step_through_takes_the_first_of_several_words(panel, toy_model):
    tok = toy_model.tokenizer()
    panel.word_edit.setText("low est")
    assert panel.steps == tok.merge_steps("low")
    assert "2 words" in panel.step_label.text() and "“low”" in panel.step_label.text()
    panel.word_edit.setText("   ")
    assert panel.steps == []
    panel.word_edit.setText("")
    assert panel.steps == [] and "Type a word" in panel.step_label.text()


def test_selecting_a_word_in_the_text_steps_through_it(panel, toy_model):
    panel.set_text("newest widest")
    cursor = panel.input_edit.textCursor()
    cursor.setPosition(7)
    cursor.movePosition(QTextCursor.MoveOperation.EndOfWord, QTextCursor.MoveMode.KeepAnchor)
    panel.input_edit.setTextCursor(cursor)
    assert panel.word_edit.text() == "widest"
    assert panel.steps == toy_model.tokenizer().merge_steps("widest")


def test_step_through_unknown_characters(panel, toy_model):
    panel.word_edit.setText("lowX")
    assert panel.steps == toy_model.tokenizer().merge_steps("lowX")
    assert "<unk>" in panel.steps[0].pieces


def test_step_through_fuses_a_run_of_unknowns_as_the_encoder_does(qtbot, toy_model, errors):
    from dataclasses import replace

    from bpe_desktop.ui.codec.panel import CodecPanel

    fused = replace(toy_model, config=replace(toy_model.config, fuse_unk=True))
    panel = CodecPanel()
    qtbot.addWidget(panel)
    panel.set_model(fused)
    tok = fused.tokenizer()
    word = "lowXXXXXXXXXXX"  # 11 characters outside the vocabulary
    panel.step_through(word)
    # one <unk> from the first row on, and the step-through ends where the encoder does
    assert panel.steps[0].pieces.count("<unk>") == 1
    assert list(panel.steps[-1].pieces) == [fused.id_to_piece(i) for i in tok.encode(word)]
    assert plain(panel.step_view.toPlainText()).count("<unk>") == len(panel.steps)
    # the round trip counts characters, not tokens
    panel.set_text(word)
    message = panel.round_trip.message
    assert "11 character(s) outside the vocabulary became <unk>" in message
    assert "(1 <unk>: one per run of unknown characters)" in message
