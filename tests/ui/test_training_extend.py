"""Training panel, Start from an existing tokenizer: the extension runs in the worker, the
report lands in the log, every existing id is kept; bad choices are refused."""

from __future__ import annotations

import gzip

import pytest

from bpe_desktop.core.formats import import_model
from bpe_desktop.ui.training.start_from import EXISTING, NEW_VOCABULARY
from tests.peer_sources import russian_and_held_out_files, sentencepiece_bpe


@pytest.fixture(scope="module")
def sources(tmp_path_factory):
    folder = tmp_path_factory.mktemp("extend-gui")
    return {"sp": sentencepiece_bpe(folder), **russian_and_held_out_files(folder)}


@pytest.fixture
def panel(training_panel):
    return training_panel


def extending_the_sentencepiece_source(panel, sources, merges: int):
    """The form set to learn ``merges`` merges on the corpus for the sentencepiece source."""
    panel.corpus.add_paths([str(sources["corpus"])])
    box = panel.start_from
    box.choice.setCurrentText(EXISTING)
    assert box.set_source(str(sources["sp"]))
    box.stop_mode.setCurrentIndex(0)
    box.stop_value.setValue(merges)
    return box


def test_extending_a_sentencepiece_model_from_the_panel(panel, qtbot, sources, errors):
    panel.corpus.add_paths([str(sources["corpus"])])
    box = panel.start_from
    box.choice.setCurrentText(EXISTING)
    assert not panel.options.isEnabled()  # the source's own settings apply
    assert box.set_source(str(sources["sp"]))
    assert "sentencepiece" in box.source_label.text()
    box.stop_mode.setCurrentIndex(0)
    box.stop_value.setValue(200)
    box.set_held_out([str(sources["held_ru"]), str(sources["held_en"])])
    with qtbot.waitSignal(panel.trained, timeout=60_000) as blocker:
        assert panel.start()
        assert panel.running  # (the form locks in the next event-loop pass)
    outcome = blocker.args[0]
    source = import_model("sentencepiece", sources["sp"])
    assert outcome.model.pieces[:source.vocab_size] == source.pieces
    assert outcome.result.new_merges == 200
    log = panel.log_view.toPlainText()
    assert "new characters: 'о'" in log and "every existing id kept" in log
    assert "held-out-ru.txt" in log and "held-out-en.txt" in log and "tokens per word" in log
    assert errors == []
    assert box.isEnabled() and not panel.options.isEnabled()
    box.choice.setCurrentText(NEW_VOCABULARY)
    assert panel.options.isEnabled()


def test_extending_without_a_tokenizer_is_refused(panel, sources, errors):
    panel.corpus.add_paths([str(sources["corpus"])])
    panel.start_from.choice.setCurrentText(EXISTING)
    assert not panel.start()
    assert errors and errors[0][0] == "No tokenizer"
    assert not panel.running


def test_a_file_that_is_no_tokenizer_is_refused_when_chosen(panel, tmp_path, errors):
    notes = tmp_path / "notes.py"
    notes.write_text("print('hello')\n", encoding="utf-8")
    assert not panel.start_from.set_source(str(notes))
    assert errors[0][0] == "Not a tokenizer" and "notes.py" in errors[0][1]
    assert panel.start_from.source_path is None


def test_new_tokens_take_the_ids_named_in_the_panel(panel, qtbot, sources, errors):
    panel.corpus.add_paths([str(sources["corpus"])])
    box = panel.start_from
    box.choice.setCurrentText(EXISTING)
    assert box.set_source(str(sources["sp"]))
    edit = box.option_edits["new_ids"]
    assert not edit.isHidden() and "50000-51999" in edit.placeholderText()
    assert "ascending order" in edit.toolTip()
    box.stop_mode.setCurrentIndex(0)
    box.stop_value.setValue(50)
    edit.setText("1500-")
    with qtbot.waitSignal(panel.trained, timeout=60_000) as blocker:
        assert panel.start()
    result = blocker.args[0].result
    assert result.new_ids[0] == 1500 and result.model.vocab_size == 1500 + len(result.new_ids)
    assert result.model.id_to_piece(1000) == "<reserved_1000>"
    assert errors == []


@pytest.mark.parametrize("ids, title, words", [
    ("9-3", "Invalid new ids", "ends before it starts"),
    ("5-", "Extending failed", "already the"),
])
def test_bad_new_ids_are_refused_with_the_reason(panel, qtbot, sources, errors, ids, title,
                                                 words):
    panel.corpus.add_paths([str(sources["corpus"])])
    box = panel.start_from
    box.choice.setCurrentText(EXISTING)
    assert box.set_source(str(sources["sp"]))
    box.option_edits["new_ids"].setText(ids)
    if title == "Invalid new ids":
        assert not panel.start()
    else:
        with qtbot.waitSignal(panel.failed, timeout=60_000):
            assert panel.start()
    qtbot.waitUntil(lambda: bool(errors))
    assert errors[0][0] == title and words in errors[0][1]
    qtbot.waitUntil(lambda: not panel.running)


def test_a_failed_extension_says_the_extension_failed(panel, qtbot, sources, errors):
    panel.corpus.add_paths([str(sources["corpus"])])
    box = panel.start_from
    box.choice.setCurrentText(EXISTING)
    assert box.set_source(str(sources["sp"]))
    box.option_edits["new_ids"].setText("5-")  # ids the source already has
    with qtbot.waitSignal(panel.failed, timeout=60_000):
        assert panel.start()
    assert panel.stage_label.text() == ("Extending the tokenizer failed; the current model "
                                        "is unchanged.")


def test_held_out_texts_are_read_as_every_text_is_before_the_extension(panel, qtbot, sources,
                                                                       tmp_path, errors,
                                                                       monkeypatch):
    from bpe_desktop.core import extend as extend_module

    box = extending_the_sentencepiece_source(panel, sources, merges=20)
    packed = tmp_path / "held-out-ru.txt.gz"  # the chooser offers .gz, as every text reader
    packed.write_bytes(gzip.compress(sources["held_ru"].read_bytes()))
    box.set_held_out([str(packed)])
    with qtbot.waitSignal(panel.trained, timeout=60_000):
        assert panel.start()
    assert "held-out-ru.txt.gz" in panel.log_view.toPlainText() and errors == []
    bad = tmp_path / "latin1.txt"
    bad.write_bytes("low\ncafé\n".encode("latin-1"))
    box.set_held_out([str(bad)])
    extended = []
    monkeypatch.setattr(extend_module, "extend",
                        lambda *a, **k: extended.append(1) or pytest.fail("extended"))
    with qtbot.waitSignal(panel.failed, timeout=60_000):
        assert panel.start()
    assert errors[0][1] == (f"{bad} line 2: not valid UTF-8 (byte 4 of the line); save the "
                            "file as UTF-8")
    assert extended == []  # refused before the work, not after it


def test_unseen_characters_kept_as_bytes_from_the_panel(panel, qtbot, sources, tmp_path,
                                                        errors):
    sp = sentencepiece_bpe(tmp_path, byte_fallback=True)
    panel.corpus.add_paths([str(sources["corpus"])])
    box = panel.start_from
    box.choice.setCurrentText(EXISTING)
    assert box.set_source(str(sp))
    menu = box.option_edits["unknown"]
    assert [menu.itemData(i) for i in range(menu.count())] == ["add", "keep", "bytes"]
    menu.setCurrentIndex(menu.findData("bytes"))
    box.stop_mode.setCurrentIndex(0)
    box.stop_value.setValue(30)
    with qtbot.waitSignal(panel.trained, timeout=60_000) as blocker:
        assert panel.start()
    result = blocker.args[0].result
    assert result.new_characters == () and dict(result.byte_characters)["я"] > 0
    assert "characters spelled in byte tokens (byte fallback)" in panel.log_view.toPlainText()
    assert errors == []


def test_held_out_lines_end_at_line_feeds_as_on_the_command_line(panel, qtbot, sources,
                                                                  tmp_path):
    held = tmp_path / "held.txt"
    # a form feed and U+2028 are characters of their line (the command line reads it so)
    held.write_text("мир\x0cдом\nthree\u2028four\r\n", encoding="utf-8")
    box = extending_the_sentencepiece_source(panel, sources, merges=20)
    box.set_held_out([str(held)])
    with qtbot.waitSignal(panel.trained, timeout=60_000) as blocker:
        assert panel.start()
    report = blocker.args[0].reports[0]
    # 2 lines, 4 words; UTF-8 bytes: 3×2 + 1 + 3×2 = 13 and 5 + 3 + 4 = 12
    assert (report.lines, report.words, report.utf8_bytes) == (2, 4, 25)
