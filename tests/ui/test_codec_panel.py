"""The Encode / Decode panel: live pieces, ids, decoding, round trip, statistics, steps."""

from __future__ import annotations

import re

import pytest
from PySide6.QtCore import QEvent, QPoint, Qt
from PySide6.QtGui import QColor, QGuiApplication, QHelpEvent, QTextCursor
from PySide6.QtWidgets import QApplication, QToolTip

from bpe_desktop.core import Corpus, SpecialToken, TrainConfig, train
from bpe_desktop.ui.codec import decode_box
from bpe_desktop.ui.codec import panel as codec_panel
from bpe_desktop.ui.codec.panel import (
    CodecPanel,
    check_round_trip,
    first_difference,
    parse_ids,
)
from bpe_desktop.ui.codec.piece_view import merged_positions, plain
from bpe_desktop.ui.common import dialogs, theme
from tests.shared_data import corpus_path
from tests.ui.conftest import SEED_WORDS


@pytest.fixture
def panel(qtbot, toy_model, errors):
    widget = CodecPanel()
    qtbot.addWidget(widget)
    widget.set_model(toy_model)
    return widget


@pytest.fixture(scope="module")
def byte_model():
    texts = ["naïve 日本語 hello world", "a naïve café, 日本語の本", "hello <b>&amp; world\n"] * 3
    return train(Corpus.from_texts(texts), TrainConfig.preset("gpt2", vocab_size=300)).model


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
    assert panel.piece_view.plain_text().startswith("low\u2009est</w>")


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


def test_decoding_edited_ids(panel, qtbot, toy_model):
    low, est = toy_model.piece_to_id("low"), toy_model.piece_to_id("est</w>")
    new, low_end = toy_model.piece_to_id("new"), toy_model.piece_to_id("low</w>")
    panel.decode_edit.setPlainText(f"[{new}, {est}; {low}]\n({est}) {low_end}")
    qtbot.mouseClick(panel.decode_button, Qt.MouseButton.LeftButton)
    assert panel.decoded_edit.toPlainText() == "newest lowest low"
    # new + est</w> is not how the model segments "newest" (it has newest</w>).
    assert "not how the model segments" in panel.decode_label.text()


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
        panel.set_mode("greedy")
    assert panel.mode == "greedy"
    assert shown_pieces(panel) == greedy
    assert panel.ids == tok.encode("nest", mode="greedy")
    assert "merge rank: 2 tokens" in panel.compare_label.text()


def test_long_text_draws_only_the_first_pieces(qtbot, botchan_model, errors):
    widget = CodecPanel()
    qtbot.addWidget(widget)
    widget.set_model(botchan_model)
    text = corpus_path("botchan.txt").read_text(encoding="utf-8")
    with qtbot.waitSignal(widget.encoded, timeout=60_000):
        widget.set_text(text)  # long: encoded in the background
    assert widget._input_text() == text.removeprefix("\ufeff")
    tok = botchan_model.tokenizer()
    total = len(tok.encode(widget._input_text()))
    assert total > codec_panel.SHOW_LIMIT
    assert len(widget.piece_view.items) == codec_panel.SHOW_LIMIT
    assert f"Showing the first {codec_panel.SHOW_LIMIT:,} of {total:,} pieces" in \
        widget.shown_label.text()
    assert widget.stats.tokens == total  # statistics cover the whole text
    assert widget.ids == tok.encode(widget._input_text())
    # The pieces drawn are the first pieces of the text, line breaks kept.
    first = tok.encode(widget._input_text())[: codec_panel.SHOW_LIMIT]
    assert [item.id for item in widget.piece_view.items] == first
    assert widget.piece_view.document().blockCount() > 100


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


def test_missing_or_huge_file_is_an_error(panel, tmp_path, errors, monkeypatch):
    assert panel.open_text_file(str(tmp_path / "nope.txt")) is False
    assert "nope.txt" in errors[-1][1]
    big = tmp_path / "big.txt"
    big.write_text("low " * 100, encoding="utf-8")
    monkeypatch.setattr(codec_panel, "MAX_FILE_BYTES", 100)
    assert panel.open_text_file(str(big)) is False
    assert "bpe-desktop encode" in errors[-1][1]


# -- step-through -------------------------------------------------------------------------


def test_step_through_shows_each_merge_in_rank_order(panel, qtbot, toy_model):
    tok = toy_model.tokenizer()
    panel.word_edit.setText("lowest")
    assert panel.steps == tok.merge_steps("lowest")
    assert [s.rank for s in panel.steps] == [None, 0, 1, 2, 3, 4]
    assert panel.step_index == 0 and not panel.back_button.isEnabled()
    first = plain(panel.step_view.toPlainText())
    assert "start: the symbols" in first and "l · o · w · e · s · t · </w>" in first
    assert "rank" not in first  # one row so far: the symbols
    for _ in range(4):
        qtbot.mouseClick(panel.step_button, Qt.MouseButton.LeftButton)
    assert panel.step_index == 4
    rows = plain(panel.step_view.toPlainText())
    assert "rank 3: merge (l, o)" in rows
    assert "lo · w · est</w>" in rows
    assert "rank 4" not in rows  # not stepped to yet
    assert "Step 4 of 5" in panel.step_label.text()
    qtbot.mouseClick(panel.back_button, Qt.MouseButton.LeftButton)
    assert panel.step_index == 3
    panel.step_slider.setValue(5)
    assert panel.step_index == 5 and not panel.step_button.isEnabled()
    assert "low · est</w>" in panel.step_label.text()
    qtbot.mouseClick(panel.reset_button, Qt.MouseButton.LeftButton)
    assert panel.step_index == 0 and panel.step_slider.value() == 0
    qtbot.mouseClick(panel.end_button, Qt.MouseButton.LeftButton)
    assert panel.step_index == 5


def test_step_through_method_shows_every_step(panel, toy_model):
    panel.step_through("widest")
    assert panel.steps == toy_model.tokenizer().merge_steps("widest")
    assert panel.step_index == len(panel.steps) - 1
    assert panel.word_edit.text() == "widest"
    panel.step_through("lowest", to_end=False)
    assert panel.step_index == 0


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
    drawn = widget.piece_view.plain_text()
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


# -- long texts: encoded in the background ---------------------------------------------------


def _long_text(min_chars: int) -> str:
    """Botchan from its start, at least ``min_chars`` long (repeated if need be)."""
    text = corpus_path("botchan.txt").read_text(encoding="utf-8")
    return (text * (min_chars // len(text) + 1))[: max(min_chars, codec_panel.ASYNC_CHARS + 1)]


@pytest.fixture(params=["botchan", "byte-level"])
def long_case(request, botchan_model, byte_model):
    """A model and a text long enough to be encoded in the background."""
    if request.param == "botchan":
        return botchan_model, _long_text(400_000)
    text = "naïve 日本語\n  tabs\there, <b>&amp; world\r\n" * 1000 + _long_text(300_000)
    return byte_model, text


def test_long_text_encodes_in_the_background_as_the_tokenizer_does(qtbot, long_case, errors,
                                                                   monkeypatch):
    monkeypatch.setattr(codec_panel, "BUSY_DELAY_MS", 0)
    model, text = long_case
    tok = model.tokenizer()
    widget = CodecPanel()
    qtbot.addWidget(widget)
    widget.set_model(model)
    with qtbot.waitSignal(widget.encoded, timeout=60_000):
        widget.set_text(text)
        # set_text returned at once: the work goes on in a worker thread
        assert widget.is_busy() and widget.ids == []
        assert widget.input_edit.isReadOnly()  # until the text's document arrives
        qtbot.waitUntil(lambda: not widget.busy_bar.isHidden(), timeout=5000)
        assert widget.busy_label.text() == f"Encoding {len(codec_panel.as_typed(text)):,} " \
            "characters…"
    assert not widget.is_busy() and widget.busy_bar.isHidden()
    text = codec_panel.as_typed(text)  # as the text box holds it (\r\n is a line end)
    assert not widget.input_edit.isReadOnly() and widget._input_text() == text
    ids = tok.encode(text)
    assert widget.ids == ids
    assert widget.stats.tokens == len(ids)
    assert widget.stats.words == len(tok.encode_words(text))
    assert widget.stats.other_mode_tokens == len(tok.encode(text, mode="greedy"))
    assert widget.stats.distinct == len(set(ids))
    assert widget.round_trip == check_round_trip(text, tok.decode(ids), model,
                                                 widget.stats.unknowns)
    drawn = widget.piece_view.items
    assert len(drawn) == codec_panel.SHOW_LIMIT < len(ids)
    assert [item.id for item in drawn] == ids[: codec_panel.SHOW_LIMIT]
    assert f"Showing the first {codec_panel.SHOW_LIMIT:,} of {len(ids):,}" in \
        widget.shown_label.text()
    first_ids = widget.ids_edit.toPlainText().split()
    assert first_ids[:100] == [str(i) for i in ids[:100]] and first_ids[-1] == "…"
    assert errors == []


def test_the_gui_stays_usable_while_a_long_text_encodes(qtbot, panel, toy_model):
    with qtbot.waitSignal(panel.encoded, timeout=60_000):
        panel.set_text("lowest newest " * 20_000)
        assert panel.is_busy()
        panel.word_edit.setText("widest")  # the step-through answers meanwhile
        assert panel.steps == toy_model.tokenizer().merge_steps("widest")
    assert panel.stats.words == 40_000
    assert panel.ids == toy_model.tokenizer().encode("lowest newest " * 20_000)


def test_a_newer_long_text_supersedes_the_running_one(qtbot, panel, toy_model):
    tok = toy_model.tokenizer()
    results = []
    panel.encoded.connect(lambda: results.append(panel.ids))
    first, second = "lowest " * 30_000, "newest widest " * 20_000
    panel.set_text(first)
    panel.set_text(second)
    qtbot.waitUntil(lambda: bool(results), timeout=60_000)
    qtbot.waitUntil(lambda: not panel.is_busy(), timeout=60_000)
    qtbot.wait(50)  # anything the superseded job could still deliver
    assert results == [tok.encode(second)]  # the first text's result never arrived
    assert panel._input_text() == second


def test_a_short_text_replaces_a_long_one_still_encoding(qtbot, panel, toy_model):
    results = []
    panel.encoded.connect(lambda: results.append(panel.ids))
    panel.set_text("lowest " * 30_000)
    panel.set_text("newest")  # short: encoded at once, the long job dropped
    assert results == [toy_model.tokenizer().encode("newest")]
    qtbot.waitUntil(lambda: not panel.is_busy(), timeout=60_000)
    qtbot.wait(50)  # anything the dropped job could still deliver
    assert len(results) == 1 and panel.ids == toy_model.tokenizer().encode("newest")
    assert panel.input_edit.toPlainText() == "newest" and not panel.input_edit.isReadOnly()


def test_a_long_result_is_shown_in_turns_and_a_newer_text_stops_them(qtbot, panel,
                                                                      toy_model, monkeypatch):
    """The input document, then the pieces, each in its own turn of the event loop: a
    text set in between drops the rest of the older result."""
    results, turns = [], []
    panel.encoded.connect(lambda: results.append(panel.ids))
    install, show = panel._install_input, panel._show_result

    def install_then_type(document) -> None:
        install(document)
        turns.append("input")
        panel.set_text("newest")  # before the next step's timer fires

    monkeypatch.setattr(panel, "_install_input", install_then_type)
    monkeypatch.setattr(panel, "_show_result", lambda r: (turns.append("pieces"), show(r)))
    panel.set_text("lowest " * 30_000)
    qtbot.waitUntil(lambda: bool(turns) and not panel.is_busy(), timeout=60_000)
    qtbot.wait(50)  # the dropped steps' timer, had they not been dropped
    assert turns == ["input"]
    assert results == [toy_model.tokenizer().encode("newest")]
    assert panel.input_edit.toPlainText() == "newest"


def test_a_result_for_text_typed_over_since_is_dropped(qtbot, panel, toy_model, monkeypatch):
    monkeypatch.setattr(codec_panel, "DEBOUNCE_MS", 0)
    results = []
    panel.encoded.connect(lambda: results.append(panel.ids))
    panel.input_edit.setPlainText("lowest " * 30_000)  # as if pasted: debounced, then a job
    qtbot.waitUntil(panel.is_busy, timeout=10_000)
    panel.input_edit.moveCursor(QTextCursor.MoveOperation.End)
    panel.input_edit.insertPlainText("newest")  # typed while the job runs
    qtbot.waitUntil(lambda: bool(results), timeout=60_000)
    qtbot.waitUntil(lambda: not panel.is_busy(), timeout=60_000)
    expected = toy_model.tokenizer().encode("lowest " * 30_000 + "newest")
    assert results == [expected]  # only the text as it is now was shown


def test_a_large_model_is_prepared_in_the_background(qtbot, toy_model, errors, monkeypatch):
    monkeypatch.setattr(codec_panel, "INLINE_WORK", 0)
    widget = CodecPanel()
    qtbot.addWidget(widget)
    widget.set_model(toy_model)
    assert not widget.is_busy()  # hidden and empty: prepared when first shown
    with qtbot.waitSignal(widget.encoded, timeout=30_000):
        widget.show()
        assert widget.is_busy() and widget._tok is None
        widget._update_busy(True)  # what the indicator says once the short delay is over
        assert widget.busy_label.text() == "Preparing the model…"
        assert widget.input_edit.isEnabled()  # typing is possible meanwhile
        widget.word_edit.setText("lowest")
        assert "Preparing the model" in widget.step_label.text()
        widget.set_text("lowest newest")
    assert widget.ids == toy_model.tokenizer().encode("lowest newest")
    assert widget.steps == toy_model.tokenizer().merge_steps("lowest")  # then stepped
    assert errors == []


def test_a_hidden_panel_with_text_prepares_a_large_model_at_once(qtbot, toy_model, errors,
                                                                 monkeypatch):
    monkeypatch.setattr(codec_panel, "INLINE_WORK", 0)
    widget = CodecPanel()
    qtbot.addWidget(widget)
    widget.set_text("newest lowest")
    with qtbot.waitSignal(widget.encoded, timeout=30_000):
        widget.set_model(toy_model)
        assert widget.is_busy()
    assert widget.ids == toy_model.tokenizer().encode("newest lowest")


def test_long_ids_decode_in_the_background(qtbot, panel, toy_model):
    tok = toy_model.tokenizer()
    text = "lowest newest " * 10_000
    ids = tok.encode(text)
    panel.decode_edit.setPlainText(", ".join(map(str, ids)))
    assert len(panel.decode_edit.toPlainText()) > decode_box.DECODE_ASYNC_CHARS
    with qtbot.waitSignal(panel.decoded, timeout=60_000):
        qtbot.mouseClick(panel.decode_button, Qt.MouseButton.LeftButton)
        assert panel.decode_label.text() == "Decoding…"
    assert panel.decoded_edit.toPlainText() == tok.decode(ids)
    assert f"{len(ids):,} ids" in panel.decode_label.text() and "same ids" in \
        panel.decode_label.text()


# -- pieces are never broken across lines -------------------------------------------------------


def _line_starts(view) -> list[int]:
    """Document positions where a laid-out line starts (after the first of each block)."""
    doc = view.document()
    doc.documentLayout().documentSize()  # lay it all out
    starts = []
    block = doc.begin()
    while block.isValid():
        layout = block.layout()
        for n in range(1, layout.lineCount()):
            starts.append(block.position() + layout.lineAt(n).textStart())
        block = block.next()
    return starts


def _pieces_to_wrap():
    from bpe_desktop.ui.codec.piece_view import PieceItem

    texts = ["and</w>", "re-use", "日本語", "a/b/c", "(x)", "3.14", "क्षत्रिय", "مرحبا",
             "</w>", "word-final</w>"]
    return [PieceItem(i, t, t, False, i, "word" if i % 3 == 2 else "")
            for i, t in enumerate(texts * 12)]


def test_a_piece_is_never_split_across_lines(qtbot):
    from bpe_desktop.ui.codec.piece_view import PieceView

    view = PieceView()
    qtbot.addWidget(view)
    view.resize(170, 600)
    view.show()
    qtbot.waitExposed(view)
    items = _pieces_to_wrap()
    view.show_items(items)
    starts = _line_starts(view)
    assert len(starts) > 10  # lines do wrap, between pieces
    inside = [(p, i) for p in starts for i, (a, b) in enumerate(zip(view._starts, view._ends))
              if a < p < b]
    assert inside == []
    assert [view.plain_text()[a:b] for a, b in zip(view._starts, view._ends)] != []
    drawn = view.plain_text().replace("\u2009", " ").split()
    assert drawn == [item.text for item in items]  # the joiners are invisible


def test_without_joiners_those_pieces_would_split(qtbot):
    """The layout check above is meaningful: plain text of the same pieces breaks inside
    pieces at that width."""
    from PySide6.QtWidgets import QTextBrowser

    view = QTextBrowser()
    qtbot.addWidget(view)
    view.resize(170, 600)
    view.show()
    qtbot.waitExposed(view)
    items = _pieces_to_wrap()
    text, spans = "", []
    for item in items:
        spans.append((len(text), len(text) + len(item.text)))
        text += item.text + ("\u2009" if not item.after else " ")
    view.setPlainText(text)
    starts = _line_starts(view)
    assert any(a < p < b for p in starts for a, b in spans)


def test_unbreakable_joins_only_where_a_line_could_break():
    from bpe_desktop.ui.codec.piece_view import WORD_JOINER, unbreakable

    assert unbreakable("and</w>") == "and</" + WORD_JOINER + "w>"
    assert unbreakable("日本語") == WORD_JOINER.join("日本語")
    for kept in ("lowest", "क्षत्रिय", "مرحبا", "e\u0301t", "␣the", "x"):
        assert unbreakable(kept) == kept  # clusters and scripts that join stay untouched
    for text in ("and</w>", "re-use", "日本語", "a/b/c", "👩\u200d💻/x"):
        assert plain(unbreakable(text)) == text


def test_step_rows_do_not_break_pieces_either(panel):
    panel.word_edit.setText("lowest")
    panel.step_slider.setValue(5)
    assert "est</" + "\u2060" + "w>" in panel.step_view.toPlainText()


def test_a_long_text_reads_back_from_the_box_as_a_short_one_does(qtbot, panel):
    """The background builds the input box's document itself: it holds what setPlainText
    would have given (\r\n, \r and Qt's frame markers end lines; a leading BOM goes)."""
    from PySide6.QtWidgets import QPlainTextEdit

    odd = "\ufeffa\r\nb\rc\u2029d\u2028e\ufdd0f\ufdd1g\ufeffh\u00a0i\r\r\n"
    text = odd + ("lowest\r\n\ufeff" * 6000) + odd
    box = QPlainTextEdit()
    box.setPlainText(text)
    expected = box.document().toRawText().replace("\u2029", "\n")
    assert codec_panel.as_typed(text) == expected
    with qtbot.waitSignal(panel.encoded, timeout=60_000):
        panel.set_text(text)
    assert panel._input_text() == expected


def test_rapid_changes_end_with_the_last_request(qtbot, panel, toy_model, botchan_model):
    """Texts, modes and models replaced faster than the jobs finish: only the last
    request's result is shown, and nothing is left running."""
    results = []
    panel.encoded.connect(lambda: results.append((panel.mode, panel.ids)))
    texts = ["lowest newest " * (3000 + 500 * i) for i in range(6)]
    for i, text in enumerate(texts):
        panel.set_text(text)
        panel.set_mode("greedy" if i % 2 else "merges")
        if i == 2:
            panel.set_model(botchan_model)
        if i == 4:
            panel.set_model(toy_model)
        qtbot.wait(i * 7)  # some jobs get further than others before they are superseded
    qtbot.waitUntil(lambda: bool(results) and not panel.is_busy(), timeout=60_000)
    qtbot.wait(100)
    expected = toy_model.tokenizer().encode(texts[-1], mode="greedy")
    assert results[-1] == ("greedy", expected)
    assert panel.ids == expected and panel._input_text() == texts[-1]
