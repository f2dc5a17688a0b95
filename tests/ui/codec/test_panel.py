"""The Encode / Decode panel: live pieces, ids, decoding, round trip, statistics, pieces'
information, opening text files, a byte-level model, and the panel's helper functions."""

from __future__ import annotations

import gzip

import pytest
from PySide6.QtCore import QEvent, QPoint, Qt
from PySide6.QtGui import QColor, QGuiApplication, QHelpEvent, QTextCursor
from PySide6.QtWidgets import QApplication, QToolTip

from bpe_desktop.core import Corpus, SpecialToken, TrainConfig, train
from bpe_desktop.core.evaluation import evaluate_text
from bpe_desktop.ui.codec import panel as codec_panel
from bpe_desktop.ui.codec.panel import (
    CodecPanel,
    check_round_trip,
    first_difference,
    parse_ids,
)
from bpe_desktop.ui.codec.piece_view import merged_positions, plain
from bpe_desktop.ui.common import dialogs, theme
from tests.ui.conftest import SEED_WORDS


def shown_pieces(panel: CodecPanel) -> list[str]:
    return [item.piece for item in panel.piece_view.items]


def stat(panel: CodecPanel, key: str) -> str:
    return panel.stat_labels[key].text()


# -- encoding ---------------------------------------------------------------------------


def test_without_a_model_inputs_are_disabled_with_a_hint(qtbot, errors):
    widget = CodecPanel()
    qtbot.addWidget(widget)
    assert not widget.hint_label.isHidden()
    assert "open a model" in widget.hint_label.text()
    assert not widget.input_edit.isEnabled() and not widget.decode_button.isEnabled()
    widget.set_text("lowest")  # no model: nothing to encode, and no error
    assert widget.ids == [] and widget.piece_view.items == []
    assert errors == []


def test_lowest_is_shown_as_low_est(panel, toy_model):
    tok = toy_model.tokenizer()
    with_signal = []
    panel.encoded.connect(lambda: with_signal.append(True))
    panel.set_text("lowest")
    assert with_signal  # set_text encodes at once
    assert shown_pieces(panel) == ["low", "est</w>"]
    assert [item.text for item in panel.piece_view.items] == ["low", "est</w>"]
    assert panel.ids == tok.encode("lowest")
    assert panel.ids_edit.toPlainText() == " ".join(map(str, tok.encode("lowest")))
    # The view draws the pieces with a visible gap between them.
    assert plain(panel.piece_view.toPlainText()).startswith("low\u2009est</w>")


def test_typing_updates_live_after_a_debounce(panel, qtbot, toy_model):
    tok = toy_model.tokenizer()
    panel.set_text("")
    with qtbot.waitSignal(panel.encoded, timeout=3000):
        qtbot.keyClicks(panel.input_edit, "newest low")
        assert panel.ids == []  # not yet: the timer waits for a pause in typing
    assert panel.ids == tok.encode("newest low")
    assert shown_pieces(panel) == ["newest</w>", "low</w>"]


def test_empty_text_shows_no_round_trip_verdict(panel, qtbot, toy_model):
    panel.set_text("lowest")
    assert panel.round_trip_label.text().startswith("✓ round trip exact")
    panel.set_text("")
    assert panel.input_edit.toPlainText() == ""
    assert panel.round_trip_label.text() == ""
    assert check_round_trip("", "", toy_model, 0).message == ""


def test_round_trip_in_the_gui(panel, qtbot, toy_model):
    text = "lowest newest widest lower"
    panel.set_text(text)
    assert panel.round_trip.exact
    assert panel.round_trip_label.text().startswith("✓ round trip exact")
    qtbot.mouseClick(panel.to_decoder_button, Qt.MouseButton.LeftButton)
    assert parse_ids(panel.decode_edit.toPlainText(), toy_model.vocab_size) == panel.ids
    qtbot.mouseClick(panel.decode_button, Qt.MouseButton.LeftButton)
    assert panel.decoded_edit.toPlainText() == text
    assert "same ids" in panel.decode_label.text()


def test_tab_in_the_ids_box_moves_on_to_decode(panel, qtbot):
    """Tab typed a tab character into the ids: a keyboard user could not reach Decode."""
    panel.show()
    with qtbot.waitActive(panel):
        panel.activateWindow()
    panel.decode_edit.setPlainText("16 14")
    panel.decode_edit.setFocus()
    qtbot.keyClick(panel.decode_edit, Qt.Key.Key_Tab)
    assert panel.decode_edit.toPlainText() == "16 14"
    assert QApplication.focusWidget() is panel.decode_button


def test_decoding_edited_ids(panel, qtbot, toy_model):
    low, est = toy_model.piece_to_id("low"), toy_model.piece_to_id("est</w>")
    new, low_end = toy_model.piece_to_id("new"), toy_model.piece_to_id("low</w>")
    panel.decode_edit.setPlainText(f"[{new}, {est}; {low}]\n({est}) {low_end}")
    qtbot.mouseClick(panel.decode_button, Qt.MouseButton.LeftButton)
    assert panel.decoded_edit.toPlainText() == "newest lowest low"
    # new + est</w> is not how the model segments "newest" (it has newest</w>).
    assert "not how the model segments" in panel.decode_label.text()



def test_the_decoding_summary_counts_in_words_that_agree(panel, qtbot, toy_model):
    panel.decode_edit.setPlainText(str(toy_model.piece_to_id("low</w>")))
    qtbot.mouseClick(panel.decode_button, Qt.MouseButton.LeftButton)
    assert panel.decode_label.text().startswith("1 id → 3 characters. ")
    panel.decode_edit.setPlainText(str(toy_model.piece_to_id("w")))  # w alone is w</w>
    qtbot.mouseClick(panel.decode_button, Qt.MouseButton.LeftButton)
    assert panel.decode_label.text() == (
        "1 id → 1 character. Re-encoding gives 2 other ids: these ids are not how the "
        "model segments this text.")

@pytest.mark.parametrize("typed, message", [
    ("16 abc 14", "“abc” (item 2) is not a number"),
    ("16, 99", "Id 99 (item 2) is outside the vocabulary (0 to 21)"),
    ("-1", "Id -1 (item 1) is outside the vocabulary"),
    ("1.5", "“1.5” (item 1) is not a number"),
    ("   ", "Type or paste ids"),
    ("9" * 40, "is outside the vocabulary"),
])
def test_bad_ids_give_a_clear_message(panel, qtbot, typed, message):
    panel.decoded_edit.setPlainText("stale")
    panel.decode_edit.setPlainText(typed)
    qtbot.mouseClick(panel.decode_button, Qt.MouseButton.LeftButton)
    assert message in panel.decode_label.text()
    assert panel.decoded_edit.toPlainText() == ""


def test_unknown_characters_break_the_round_trip_with_a_warning(panel, toy_model):
    tok = toy_model.tokenizer()
    text = "lowest Xq low"
    panel.set_text(text)
    rt = panel.round_trip
    assert not rt.exact
    assert "outside the vocabulary became <unk>" in rt.message
    assert rt.position == text.index("X")
    assert "character 7" in panel.round_trip_label.text()
    assert [item.unknown for item in panel.piece_view.items].count(True) == 2
    assert stat(panel, "unknowns") == str(tok.unknown_count(tok.encode(text))) == "2"
    # Unknown pieces are drawn in red, not in a piece colour.
    red = QColor("#d62828")
    cursor = QTextCursor(panel.piece_view.document())
    start = panel.piece_view._starts[[i.unknown for i in panel.piece_view.items].index(True)]
    cursor.setPosition(start + 1)
    assert cursor.charFormat().background().color() == red


def test_collapsed_whitespace_is_explained(panel):
    panel.set_text("low  est\nlow")
    rt = panel.round_trip
    assert not rt.exact
    assert "spacing" in rt.message and rt.position == 4


def test_lowercasing_is_explained(qtbot, errors):
    model = train(Corpus.from_texts(["low lower newest widest"] * 3),
                  TrainConfig(lowercase=True)).model
    widget = CodecPanel()
    qtbot.addWidget(widget)
    widget.set_model(model)
    widget.set_text("Lowest")
    assert not widget.round_trip.exact
    assert "lowercases" in widget.round_trip.message
    assert widget.round_trip.position == 0


def test_statistics(panel, toy_model):
    tok = toy_model.tokenizer()
    text = "lowest newest widest low lowest"
    panel.set_text(text)
    ids = tok.encode(text)
    s = panel.stats
    assert s.tokens == len(ids) == 9
    assert s.characters == len(text) == 31
    assert s.words == len(tok.encode_words(text)) == 5
    assert s.distinct == len(set(ids)) == 6
    assert s.unknowns == 0
    assert stat(panel, "tokens") == "9"
    assert stat(panel, "characters") == "31"
    assert stat(panel, "chars_per_token") == f"{31 / 9:.2f}"
    assert stat(panel, "words") == "5"
    assert stat(panel, "tokens_per_word") == f"{9 / 5:.2f}"
    assert stat(panel, "distinct") == "6"
    assert stat(panel, "unknowns") == "0"


def test_statistics_count_words_and_characters_as_evaluate_does(qtbot, errors, byte_model):
    widget = CodecPanel()
    qtbot.addWidget(widget)
    widget.set_model(byte_model)
    # hello Ġworld , Ġcafé ! (5 tokens; 5 pre-tokens, but 3 words: "world," "café!")
    widget.set_text("hello world, café!")
    s = widget.stats
    assert (s.tokens, s.characters, s.words) == (5, 18, 3)
    assert stat(widget, "tokens_per_word") == f"{5 / 3:.2f}"
    evaluated = evaluate_text(byte_model, ["hello world, café!"])
    assert (s.tokens_per_word, s.chars_per_token) == (evaluated.fertility,
                                                      evaluated.chars_per_token)
    # + Ċ a Ġcafé: the line break is a token of this byte-level model, not a character
    widget.set_text("hello world, café!\na café")
    s = widget.stats
    assert (s.tokens, s.characters, s.words) == (8, 18 + 6, 5)
    assert stat(widget, "chars_per_token") == f"{24 / 8:.2f}"


def test_greedy_and_merge_rank_differ(panel, qtbot, toy_model):
    tok = toy_model.tokenizer()
    merges = tok.encode_as_pieces("nest")
    greedy = tok.encode_as_pieces("nest", mode="greedy")
    assert merges == ["n", "est</w>"] and greedy == ["ne", "s", "t", "</w>"]
    panel.set_text("nest")
    assert shown_pieces(panel) == merges
    assert "merge rank: 2 tokens" in panel.compare_label.text()
    assert "greedy longest match: 4 tokens" in panel.compare_label.text()
    with qtbot.waitSignal(panel.encoded, timeout=3000):
        panel.mode_combo.setCurrentIndex(panel.mode_combo.findData("greedy"))
    assert panel.mode == "greedy"
    assert shown_pieces(panel) == greedy
    assert panel.ids == tok.encode("nest", mode="greedy")
    assert "merge rank: 2 tokens" in panel.compare_label.text()


def test_model_without_unknown_token_shows_the_error_inline(qtbot, errors):
    model = train(Corpus.from_word_counts(SEED_WORDS),
                  TrainConfig(merges=10, special_tokens=())).model
    widget = CodecPanel()
    qtbot.addWidget(widget)
    widget.set_model(model)
    with qtbot.waitSignal(widget.encoded):
        widget.set_text("lowest X")
    assert not widget.error_label.isHidden()
    assert "Cannot encode" in widget.error_label.text() and "'X'" in widget.error_label.text()
    assert widget.ids == [] and widget.piece_view.items == []
    widget.set_text("lowest")  # the next good text clears the message
    assert widget.error_label.isHidden() and widget.ids == model.tokenizer().encode("lowest")


def test_set_model_none_clears_and_disables(panel):
    panel.set_text("lowest")
    panel.set_model(None)
    assert panel.ids == [] and panel.piece_view.items == []
    assert not panel.input_edit.isEnabled() and not panel.hint_label.isHidden()
    assert panel.input_edit.toPlainText() == "lowest"  # the text stays for the next model


# -- pieces: info, copy, theme --------------------------------------------------------------


def test_clicking_a_piece_shows_its_id_and_steps_its_word(panel, toy_model):
    panel.set_text("newest lowest")
    view = panel.piece_view
    cursor = view.textCursor()
    cursor.setPosition(view._starts[2] + 1)  # inside "est</w>" of "lowest"
    view.setTextCursor(cursor)
    est = toy_model.piece_to_id("est</w>")
    assert f"id {est}" in panel.piece_label.text()
    assert "merge rank 2" in panel.piece_label.text()
    assert panel.word_edit.text() == "lowest"
    assert view.tooltip_text(2).startswith(f"est</w>   id {est}")
    assert view.piece_at(view._ends[2]) is None  # the gap between pieces


def test_hovering_a_piece_shows_a_tooltip(panel, qtbot, toy_model):
    panel.resize(1000, 700)
    panel.show()
    qtbot.waitExposed(panel)
    panel.set_text("lowest")
    view = panel.piece_view
    cursor = view.textCursor()
    cursor.setPosition(view._starts[1] + 1)
    rect = view.cursorRect(cursor)
    point = QPoint(rect.x() + 2, rect.center().y())
    event = QHelpEvent(QEvent.Type.ToolTip, point, view.viewport().mapToGlobal(point))
    QApplication.sendEvent(view.viewport(), event)
    try:
        assert QToolTip.text() == view.tooltip_text(1)
        assert f"id {toy_model.piece_to_id('est</w>')}" in QToolTip.text()
    finally:
        QToolTip.hideText()


def test_copy_ids(panel, qtbot, toy_model):
    panel.set_text("lowest newest")
    messages = []
    panel.status_message.connect(messages.append)
    qtbot.mouseClick(panel.copy_button, Qt.MouseButton.LeftButton)
    ids = toy_model.tokenizer().encode("lowest newest")
    assert QGuiApplication.clipboard().text() == " ".join(map(str, ids))
    assert messages == [f"Copied {len(ids)} ids"]


def test_one_token_is_counted_in_the_singular(panel, qtbot, toy_model):
    panel.set_text("low")  # one token, low</w>, in both segmentations
    assert panel.compare_label.text() == "merge rank: 1 token · greedy longest match: 1 token"
    messages = []
    panel.status_message.connect(messages.append)
    qtbot.mouseClick(panel.copy_button, Qt.MouseButton.LeftButton)
    assert messages == ["Copied 1 id"]


def test_scheme_change_redraws_in_the_new_colours(panel, monkeypatch):
    panel.set_text("lowest")
    cursor = QTextCursor(panel.piece_view.document())
    cursor.setPosition(1)
    assert cursor.charFormat().background().color() == QColor(theme._LIGHT_PIECES[0])
    monkeypatch.setattr(theme, "is_dark", lambda: True)
    theme._the_notifier().changed.emit()
    cursor = QTextCursor(panel.piece_view.document())
    cursor.setPosition(1)
    assert cursor.charFormat().background().color() == QColor(theme._DARK_PIECES[0])
    assert shown_pieces(panel) == ["low", "est</w>"]


# -- opening text files -------------------------------------------------------------------


def test_open_text_button(panel, qtbot, tmp_path, monkeypatch, toy_model, errors):
    path = tmp_path / "words.txt"
    path.write_text("\ufefflowest\nnewest\n", encoding="utf-8")
    asked = []

    def fake_ask(parent, title, kind, filters, **kwargs):
        asked.append((kind, filters))
        return [str(path)]

    monkeypatch.setattr(dialogs, "ask_open_paths", fake_ask)
    with qtbot.waitSignal(panel.encoded):
        qtbot.mouseClick(panel.open_button, Qt.MouseButton.LeftButton)
    assert asked == [("text", "Text files (*.txt);;All files (*)")]
    assert panel.input_edit.toPlainText() == "lowest\nnewest\n"  # the BOM dropped
    assert panel.ids == toy_model.tokenizer().encode("lowest\nnewest\n")
    assert errors == []


def test_cancelled_open_changes_nothing(panel, qtbot, monkeypatch):
    panel.set_text("lowest")
    monkeypatch.setattr(dialogs, "ask_open_paths", lambda *a, **k: [])
    qtbot.mouseClick(panel.open_button, Qt.MouseButton.LeftButton)
    assert panel.input_edit.toPlainText() == "lowest"


def test_non_utf8_file_names_the_byte_and_keeps_the_text(panel, tmp_path, errors):
    panel.set_text("lowest")
    path = tmp_path / "latin1.txt"
    path.write_bytes("low café".encode("latin-1"))
    assert panel.open_text_file(str(path)) is False
    assert len(errors) == 1
    title, message = errors[0]
    assert "latin1.txt" in message and "offset 7" in message and "0xE9" in message
    assert panel.input_edit.toPlainText() == "lowest"


def test_a_gzip_text_opens_unpacked_and_a_truncated_one_is_named(panel, tmp_path, errors):
    packed = gzip.compress(b"lowest newest\n" * 20)
    whole = tmp_path / "words.txt.gz"
    whole.write_bytes(packed)
    assert panel.open_text_file(str(whole)) is True
    assert panel.input_edit.toPlainText() == "lowest newest\n" * 20 and errors == []
    cut = tmp_path / "cut.txt.gz"
    cut.write_bytes(packed[:len(packed) // 2])
    assert panel.open_text_file(str(cut)) is False
    assert errors == [("Cannot open text", (
        f"{cut}: the compressed data is truncated or corrupt (Compressed file ended before "
        f"the end-of-stream marker was reached) near byte offset {len(packed) // 2} of the "
        "compressed file"))]
    assert panel.input_edit.toPlainText() == "lowest newest\n" * 20


def test_missing_or_huge_file_is_an_error(panel, tmp_path, errors, monkeypatch):
    assert panel.open_text_file(str(tmp_path / "nope.txt")) is False
    assert "nope.txt" in errors[-1][1]
    big = tmp_path / "big.txt"
    big.write_text("low " * 100, encoding="utf-8")
    monkeypatch.setattr(codec_panel, "MAX_FILE_BYTES", 100)
    assert panel.open_text_file(str(big)) is False
    assert "bpe-desktop encode" in errors[-1][1]
    packed = tmp_path / "big.txt.gz"  # small on disk, too large unpacked
    packed.write_bytes(gzip.compress(b"low " * 100))
    assert panel.open_text_file(str(packed)) is False
    assert f"{packed} unpacks to more than" in errors[-1][1]


# -- a byte-level model ---------------------------------------------------------------------


def test_byte_level_model_round_trips_non_ascii(qtbot, byte_model, errors):
    tok = byte_model.tokenizer()
    widget = CodecPanel()
    qtbot.addWidget(widget)
    widget.set_model(byte_model)
    text = "naïve 日本語\n  tabs\there, <b>&amp;"
    widget.set_text(text)
    assert widget.round_trip.exact, widget.round_trip.message
    assert widget.ids == tok.encode(text)
    assert [item.piece for item in widget.piece_view.items] == tok.encode_as_pieces(text)
    assert widget.stats.unknowns == 0
    drawn = plain(widget.piece_view.toPlainText())
    assert "␣" in drawn and "Ġ" not in drawn  # spaces drawn readably
    assert "<b>&amp;" in drawn.replace("\u2009", "")  # markup shown as text
    assert widget.piece_view.document().blockCount() == 2  # the newline piece breaks the line
    # Decode in the GUI gives the text back.
    widget.decode_edit.setPlainText(", ".join(map(str, tok.encode(text))))
    qtbot.mouseClick(widget.decode_button, Qt.MouseButton.LeftButton)
    assert widget.decoded_edit.toPlainText() == text


def test_byte_level_step_through(qtbot, byte_model, errors):
    tok = byte_model.tokenizer()
    widget = CodecPanel()
    qtbot.addWidget(widget)
    widget.set_model(byte_model)
    widget.word_edit.setText("naïve")
    assert widget.steps == tok.merge_steps("naïve")
    assert len(widget.steps) > 1
    qtbot.mouseClick(widget.end_button, Qt.MouseButton.LeftButton)
    rows = plain(widget.step_view.toPlainText())
    assert "<0xC3>" in rows  # a lone byte of "ï" in the first rows
    assert "naïve" in widget.step_label.text()
    widget.word_edit.setText("<>&")  # one punctuation word: drawn as text, not markup
    qtbot.mouseClick(widget.end_button, Qt.MouseButton.LeftButton)
    assert widget.steps == tok.merge_steps("<>&")
    assert "< · > · &" in plain(widget.step_view.toPlainText())


# -- helpers --------------------------------------------------------------------------------


def test_parse_ids_accepts_usual_forms():
    assert parse_ids("1 2 3", 10) == [1, 2, 3]
    assert parse_ids("[1, 2,3]", 10) == [1, 2, 3]
    assert parse_ids("(1;2)\n{3}", 10) == [1, 2, 3]
    assert parse_ids("+4", 10) == [4]
    with pytest.raises(ValueError, match="not a number"):
        parse_ids("1 ٣", 10)  # non-ASCII digits are not ids


def test_first_difference():
    assert first_difference("abc", "abc") is None
    assert first_difference("abc", "abd") == 2
    assert first_difference("ab", "abc") == 2


def test_merged_positions_replays_the_merge():
    assert merged_positions(("e", "s", "e", "s"), ("es", "es"), ("e", "s")) == {0, 1}
    assert merged_positions(("a", "a", "a"), ("aa", "a"), ("a", "a")) == {0}
    assert merged_positions(("l", "o", "w"), ("lo", "w"), ("l", "o")) == {0}
    assert merged_positions(("x",), ("x",), None) == set()


def test_check_round_trip_messages(toy_model):
    assert check_round_trip("low", "low", toy_model, 0).exact
    rt = check_round_trip("low\r\nlow", "low low", toy_model, 0)
    assert not rt.exact and "line ends" in rt.message and rt.position == 3


def test_special_tokens_show_as_special(qtbot, errors):
    config = TrainConfig(merges=10, special_tokens=(SpecialToken("<unk>", 0, "unk"),
                                                    SpecialToken("<s>", 1, "bos")))
    model = train(Corpus.from_word_counts(SEED_WORDS), config).model
    widget = CodecPanel()
    qtbot.addWidget(widget)
    widget.set_model(model)
    widget.decode_edit.setPlainText(f"1 {model.piece_to_id('low</w>')}")
    qtbot.mouseClick(widget.decode_button, Qt.MouseButton.LeftButton)
    assert widget.decoded_edit.toPlainText() == "low"  # bos is dropped by decode


def test_opening_a_pipe_with_no_writer_keeps_the_window_live_and_esc_cancels(panel, tmp_path,
                                                                             errors):
    """A named pipe nobody writes to (as a stalled network file): the read waits in a
    worker, the window keeps running, Esc in the progress dialog cancels it and the
    previous text stays."""
    import os
    import threading

    from PySide6.QtCore import QTimer
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QProgressDialog

    from bpe_desktop.ui.common import modal_work
    from bpe_desktop.ui.common.workers import running_threads

    panel.set_text("lowest")
    fifo = tmp_path / "stalled.txt"
    os.mkfifo(fifo)

    def unblock_if_frozen():  # a frozen GUI thread would otherwise wait here for ever
        with open(fifo, "wb"):
            pass

    rescue = threading.Timer(20, unblock_if_frozen)
    rescue.start()
    ticks = []
    ticker = QTimer(interval=50)
    ticker.timeout.connect(lambda: ticks.append(1))
    ticker.start()

    def press_esc():
        dialogs_shown = [d for d in panel.findChildren(QProgressDialog) if d.isVisible()]
        if dialogs_shown:
            QTest.keyClick(dialogs_shown[0], Qt.Key.Key_Escape)
        else:
            QTimer.singleShot(50, press_esc)

    QTimer.singleShot(modal_work.SHOW_AFTER_MS, press_esc)
    try:
        assert panel.open_text_file(str(fifo)) is False
    finally:
        ticker.stop()
        rescue.cancel()
    assert len(ticks) >= 5  # the event loop ran while the read waited
    assert panel.input_edit.toPlainText() == "lowest" and errors == []
    waited = 0
    while running_threads() and waited < 100:  # the cancelled read has let go
        QTest.qWait(50)
        waited += 1
    assert running_threads() == []


def test_a_pipe_that_is_written_to_opens(panel, tmp_path, errors):
    import os
    import threading

    fifo = tmp_path / "stream.txt"
    os.mkfifo(fifo)

    def feed():
        with open(fifo, "wb") as f:
            f.write("lowest newest\n".encode() * 10)

    writer = threading.Thread(target=feed)
    writer.start()
    try:
        assert panel.open_text_file(str(fifo)) is True
    finally:
        writer.join()
    assert panel.input_edit.toPlainText() == "lowest newest\n" * 10 and errors == []
