"""The Encode / Decode panel's long texts, long id lists and large models: prepared and
encoded in a worker thread while the panel stays usable, only the newest request shown."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextCursor

from bpe_desktop.ui.codec import decode_box
from bpe_desktop.ui.codec import panel as codec_panel
from bpe_desktop.ui.codec.panel import CodecPanel, check_round_trip
from tests.shared_data import corpus_path


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
    assert widget.stats.words == len(text.split())
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
        mode = "greedy" if i % 2 else "merges"
        panel.mode_combo.setCurrentIndex(panel.mode_combo.findData(mode))
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
