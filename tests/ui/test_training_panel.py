"""The Training panel drives the real engine in a worker thread."""

from __future__ import annotations

import logging
import random
import threading
import time

import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent

from bpe_desktop.core import PRESETS, Corpus, TrainConfig, train
from bpe_desktop.core.formatting import format_seconds
from bpe_desktop.core.memory import MemoryEstimate
from bpe_desktop.ui.common import dialogs
from bpe_desktop.ui.training import jobs as training_jobs
from bpe_desktop.ui.training.options import CUSTOM, PRESET_LABELS, TrainingOptions
from bpe_desktop.ui.training.panel import TrainingPanel
from tests.shared_data import corpus_path


@pytest.fixture
def panel(training_panel):
    return training_panel


def test_the_step_axis_is_set_from_the_options_with_the_first_progress(panel, qtbot):
    """Not in the pass that starts the run (a change of range is a costly repaint there),
    but with the first progress: to the most merges the options allow, all learned at
    byte level, so the axis does not change again."""
    config = TrainConfig.preset("gpt2", vocab_size=1000)  # 744 merges
    panel.corpus.add_paths([str(corpus_path("botchan.txt"))])
    panel.options.set_config(config)
    at_start = panel.plot.shown_range()
    seen = []
    panel.progressed.connect(lambda u: seen.append((u.progress.stage, panel.plot.shown_range())))
    with qtbot.waitSignal(panel.trained, timeout=60_000) as blocker:
        assert panel.start()
        assert panel.plot.shown_range() == at_start
    assert config.merge_limit == len(blocker.args[0].model.merges) == 744
    assert seen and all(steps == 744 for _, (steps, _) in seen)
    assert panel.plot.shown_range()[0] == 744


def big_corpus(path, megabytes: int) -> str:
    """Random pseudo-words: slow enough to merge that a cancel lands mid-training."""
    rng = random.Random(7)
    letters = "abcdefghijklmnopqrstuvwxyz"
    words = ["".join(rng.choice(letters) for _ in range(rng.randint(3, 12))) for _ in range(60_000)]
    with open(path, "w", encoding="utf-8") as f:
        written = 0
        while written < megabytes << 20:
            line = " ".join(rng.choices(words, k=16)) + "\n"
            f.write(line)
            written += len(line)
    return str(path)


def test_gui_training_gives_the_engines_merges(panel, qtbot, errors):
    botchan = str(corpus_path("botchan.txt"))
    config = TrainConfig(vocab_size=2000)
    panel.corpus.add_paths([botchan])
    panel.options.set_config(config)
    updates = []
    panel.progressed.connect(updates.append)
    with qtbot.waitSignal(panel.trained, timeout=60_000) as blocker:
        qtbot.mouseClick(panel.train_button, Qt.MouseButton.LeftButton)
        assert panel.running and not panel.train_button.isEnabled()
    result = blocker.args[0]
    expected = train(Corpus.from_files([botchan]), config).model
    assert result.model.merges == expected.merges
    assert result.model.pieces == expected.pieces
    assert errors == []
    assert not panel.running and panel.train_button.isEnabled()
    assert panel.progress_bar.value() == 1000
    assert "Done: " in panel.stage_label.text()
    assert list(panel.plot.counts()) == [m.count for m in expected.merges]
    # the step axis ends at the last merge once training is done
    assert panel.plot.shown_range()[0] == len(expected.merges)
    # every merge count reached the plot through the throttled updates
    streamed = [c for u in updates for c in u.new_counts]
    assert streamed == [m.count for m in expected.merges][: len(streamed)]


def test_the_click_starts_the_run_and_the_form_locks_in_a_later_pass(panel, qtbot):
    """Train is answered at once (job started, buttons flipped); locking the form, which
    repaints every option, then saving the defaults and the log line follow in later
    passes, in that order."""
    panel.corpus.add_paths([str(corpus_path("botchan.txt"))])
    panel.options.set_config(TrainConfig(vocab_size=400, threads=1))
    order = []
    set_enabled, save, log = panel.options.setEnabled, panel._save_defaults, panel.log
    panel.options.setEnabled = lambda on: (order.append("unlock" if on else "lock"),
                                           set_enabled(on))
    panel._save_defaults = lambda: (order.append("save"), save())
    panel.log = lambda text: (order.append(text.split(":")[0]), log(text))
    with qtbot.waitSignal(panel.trained, timeout=30_000):
        assert panel.start()
        assert panel.running and not panel.train_button.isEnabled()
        assert panel.cancel_button.isEnabled() and not panel.examples_button.isEnabled()
        assert order == [] and panel.options.isEnabled()  # nothing more in the click's pass
    assert order[:2] == ["lock", "save"] and order[2].startswith("Training on 1 file(s)")
    assert order[-2] == "unlock" and order[-1].startswith("Finished in")
    assert len(order) == 5 and panel.options.isEnabled()


def test_a_run_stopped_before_its_later_passes_still_logs_and_unlocks(panel, qtbot):
    panel.corpus.add_paths([str(corpus_path("botchan.txt"))])
    panel.options.set_config(TrainConfig(vocab_size=400, threads=1))
    assert panel.start()
    panel.shutdown()  # the window closes in the same pass
    assert not panel.running and panel.options.isEnabled()
    text = panel.log_view.toPlainText()
    assert "Training on 1 file(s)" in text
    qtbot.wait(50)  # no step is left to run later
    assert panel.log_view.toPlainText() == text and panel.options.isEnabled()


def test_progress_reaches_the_gui_at_most_ten_times_a_second(panel, qtbot, tmp_path):
    panel.corpus.add_paths([big_corpus(tmp_path / "big.txt", 12)])
    panel.options.set_config(TrainConfig(vocab_size=6000, threads=1))
    updates = []
    panel.progressed.connect(updates.append)
    started = time.monotonic()
    with qtbot.waitSignal(panel.trained, timeout=120_000):
        panel.start()
    elapsed = time.monotonic() - started
    merges = [c for u in updates for c in u.new_counts]
    assert len(merges) > 1000  # far more merges than updates: they came in batches
    # One update per 0.1 s at most, plus the first and the final flush of held-back
    # counts. A loaded machine only makes the run longer and the bound looser; the
    # throttle's exact timing is checked against a clock of known times in test_workers.
    assert 2 <= len(updates) <= elapsed / 0.1 + 2


def test_cancel_mid_training_stops_and_reports(panel, qtbot, tmp_path):
    panel.corpus.add_paths([big_corpus(tmp_path / "big.txt", 12)])
    panel.options.set_config(TrainConfig(vocab_size=200_000, min_frequency=1, threads=1))
    with qtbot.waitSignal(panel.progressed, timeout=60_000,
                          check_params_cb=lambda u: u.progress.stage == "merging"):
        panel.start()
    trained = []
    panel.trained.connect(trained.append)
    started = time.monotonic()
    with qtbot.waitSignal(panel.cancelled, timeout=10_000):
        qtbot.mouseClick(panel.cancel_button, Qt.MouseButton.LeftButton)
    assert time.monotonic() - started < 2.0
    assert trained == []
    assert not panel.running
    assert "Cancelled" in panel.stage_label.text()


def test_bad_corpus_fails_with_file_and_offset(panel, qtbot, tmp_path, errors, monkeypatch):
    bad = tmp_path / "latin1.txt"
    bad.write_bytes(b"good words here\ncaf\xe9 au lait\n")
    panel.corpus.add_paths([str(bad)])
    asked = []
    monkeypatch.setattr(dialogs, "ask_action",
                        lambda parent, title, text, action: asked.append((text, action)) or False)
    with qtbot.waitSignal(panel.failed, timeout=30_000) as blocker:
        panel.start()
    message = blocker.args[0].message
    assert "latin1.txt" in message and "byte offset 19" in message
    [(text, action)] = asked  # the choice to go on instead of an error box
    assert message in text and action == "Continue with replacement characters"
    assert errors == []
    assert not panel.running and "unchanged" in panel.stage_label.text()


def test_invalid_utf8_continues_with_replacement_when_chosen(panel, qtbot, tmp_path, errors,
                                                            monkeypatch):
    bad = tmp_path / "latin1.txt"
    bad.write_bytes(b"caf\xe9 au lait\n" * 10)
    panel.corpus.add_paths([str(bad)])
    panel.options.set_config(TrainConfig(merges=3))
    asked = []
    monkeypatch.setattr(dialogs, "ask_action", lambda *args: asked.append(True) or True)
    locks = []
    set_enabled = panel.options.setEnabled
    panel.options.setEnabled = lambda on: (locks.append((on, len(asked))), set_enabled(on))
    with qtbot.waitSignal(panel.trained, timeout=30_000) as blocker:
        panel.start()
    model = blocker.args[0].model
    assert "\ufffd" in model.alphabet and model.corpus.characters > 0
    assert errors == []
    assert locks[-2:] == [(False, 1), (True, 1)]  # the form is locked for the second run too
    assert "replacement characters" in panel.log_view.toPlainText()


def test_invalid_options_are_refused_before_starting(panel, errors):
    panel.corpus.add_paths([str(corpus_path("botchan.txt"))])
    panel.options.special_tokens.setText("<unk>:0 <pad>:0")
    assert panel.start() is False
    assert errors and "share id 0" in errors[0][1]
    assert not panel.running


def test_no_corpus_is_explained(panel, errors):
    assert panel.start() is False
    assert errors[0][0] == "No corpus"


@pytest.mark.parametrize("label, key", list(PRESET_LABELS.items()))
def test_presets_give_the_core_presets(qtbot, label, key):
    form = TrainingOptions()
    qtbot.addWidget(form)
    form.preset.setCurrentText(label)
    config = form.config()
    expected = TrainConfig.preset(key, vocab_size=8000)
    for name in PRESETS[key]:
        assert getattr(config, name) == getattr(expected, name), name
    assert config.vocab_size == 8000


@pytest.mark.parametrize("words, boundary", [("gpt2", "none"), ("gpt4", "none"), ("llama3", "none"),
                                             ("gpt4o", "none"), ("sentencepiece", "bow-prefix")])
def test_words_with_their_own_space_marker_fix_the_boundary(qtbot, words, boundary):
    form = TrainingOptions()
    qtbot.addWidget(form)
    form.preset.setCurrentText("Sennrich et al. 2016 (as in the papers)")
    assert form.boundary.isEnabled()
    form.pretokenizer.setCurrentIndex(form.pretokenizer.findData(words))
    assert form.boundary.currentData() == boundary and not form.boundary.isEnabled()
    assert form.config().boundary == boundary  # a valid configuration, no error to show
    form.pretokenizer.setCurrentIndex(form.pretokenizer.findData("whitespace"))
    assert form.boundary.isEnabled()


def test_editing_an_option_makes_the_preset_custom_and_persists(qtbot):
    form = TrainingOptions()
    qtbot.addWidget(form)
    form.preset.setCurrentText("subword-nmt")
    form.min_frequency.setValue(5)
    assert form.preset.currentText() == CUSTOM
    saved = form.to_dict()
    other = TrainingOptions()
    qtbot.addWidget(other)
    other.from_dict(saved)
    assert other.config() == form.config()
    assert other.to_dict() == saved


def test_the_vocabulary_size_is_not_part_of_a_preset(qtbot):
    form = TrainingOptions()
    qtbot.addWidget(form)
    form.preset.setCurrentText("subword-nmt")
    changed = []
    form.changed.connect(lambda: changed.append(True))
    form.stop_value.setValue(12_345)
    form.stop.setCurrentIndex(form.stop.findData("merges"))
    assert form.preset.currentText() == "subword-nmt" and len(changed) == 2
    assert form.config().merges == 12_345


def test_each_preset_says_what_it_can_be_exported_as(qtbot):
    from PySide6.QtCore import Qt

    form = TrainingOptions()
    qtbot.addWidget(form)
    form.preset.setCurrentText("Sennrich et al. 2016 (as in the papers)")
    assert form.reach_label.text().startswith("Exports as: subword-nmt codes, Vocabulary")
    assert "not as: Hugging Face tokenizer.json" in form.reach_label.text()
    form.preset.setCurrentText("subword-nmt")
    assert "Exports as: Hugging Face tokenizer.json" in form.reach_label.text()
    tip = form.preset.itemData(form.preset.findText("GPT-2 byte-level"),
                               Qt.ItemDataRole.ToolTipRole)
    assert "tiktoken ranks" in tip.split("; not as")[0]
    assert "Sennrich et al. 2016 (as in the papers): Exports as: subword-nmt codes" in \
        form.preset.toolTip()


@pytest.mark.parametrize("title", ["GPT-4 byte-level", "Llama 3 byte-level", "GPT-4o byte-level"])
def test_gpt4_style_presets_export_with_their_pattern_only(qtbot, title):
    from PySide6.QtCore import Qt

    form = TrainingOptions()
    qtbot.addWidget(form)
    tip = form.preset.itemData(form.preset.findText(title), Qt.ItemDataRole.ToolTipRole)
    can, cannot = tip.split("; not as")
    assert "tiktoken ranks" in can and "Hugging Face tokenizer.json" in can
    assert "GPT-2 vocab.json" in cannot  # those files hold no pattern


def test_training_options_persist_across_panels(qtbot):
    first = TrainingPanel()
    qtbot.addWidget(first)
    first.options.stop_value.setValue(1234)
    first.options.lowercase.setChecked(True)
    second = TrainingPanel()
    qtbot.addWidget(second)
    assert second.options.config().vocab_size == 1234
    assert second.options.config().lowercase is True


def test_folders_are_added_recursively_with_sizes_and_line_counts(panel, qtbot, tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "a.txt").write_text("one\ntwo\nthree\n")
    (tmp_path / "sub" / "b.txt").write_text("last line without newline")
    (tmp_path / "picture.png").write_bytes(b"\x89PNG")
    messages = []
    panel.corpus.message.connect(messages.append)
    panel.corpus.add_paths([str(tmp_path)])
    assert [p.rsplit("/", 1)[-1] for p in panel.corpus.paths()] == ["a.txt", "b.txt"]
    assert "1 non-text file(s) skipped" in messages[-1]
    qtbot.waitUntil(lambda: panel.corpus.topLevelItem(1).text(2) == "1", timeout=10_000)
    assert panel.corpus.topLevelItem(0).text(2) == "3"
    assert panel.corpus.topLevelItem(0).text(1) == "14 bytes"
    # adding the same files again changes nothing
    assert panel.corpus.add_paths([str(tmp_path / "a.txt")]) == 0


def test_dropping_files_adds_them(panel, tmp_path):
    f = tmp_path / "dropped.txt"
    f.write_text("some words\n")
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(f))])
    event = QDropEvent(QPointF(5, 5), Qt.DropAction.CopyAction, mime,
                       Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    panel.corpus.dropEvent(event)
    assert panel.corpus.paths() == [str(f)]


def test_examples_load_corpus_and_options(panel, qtbot):
    panel.load_example(panel.example("toy"))
    assert panel.corpus.paths()[0].endswith("seed_toy_words.tsv")
    assert panel.options.word_counts.isChecked()
    with qtbot.waitSignal(panel.trained, timeout=30_000) as blocker:
        panel.start()
    model = blocker.args[0].model
    assert len(model.merges) == 10
    assert model.tokenizer().encode_as_pieces("lowest") == ["low", "est</w>"]


def test_format_seconds():
    assert format_seconds(3.4) == "3 s"
    assert format_seconds(75) == "1 min 15 s"
    assert format_seconds(3 * 3600 + 120) == "3 h 02 min"


def _too_big(calls):
    def estimate(paths, config, **options):  # options: word_counts (the toy is a table)
        calls.append((list(paths), config, threading.current_thread()))
        return MemoryEstimate(bytes_needed=64 << 30, bytes_available=8 << 30,
                              warning="Training on this file needs about 68.7 GB of memory; "
                                      "this computer has 8.6 GB free.")
    return estimate


def test_a_memory_warning_asks_before_training_and_no_stops(panel, qtbot, errors, monkeypatch):
    calls, asked = [], []
    monkeypatch.setattr(training_jobs, "estimate_training_memory", _too_big(calls))
    monkeypatch.setattr(dialogs, "ask_yes_no",
                        lambda parent, title, text: asked.append((title, text)) or False)
    panel.load_example(panel.example("toy"))
    trained = []
    panel.trained.connect(trained.append)
    with qtbot.waitSignal(panel.cancelled, timeout=30_000):
        assert panel.start()
    [(title, text)] = asked
    assert title == "Not enough free memory"
    assert "68.7 GB" in text and text.endswith("Train anyway?")
    [(paths, config, thread)] = calls
    assert paths == panel.corpus.paths() and config == panel.options.config()
    assert thread is not threading.main_thread()  # the estimate reads the corpus: a worker
    assert trained == [] and errors == [] and not panel.running
    assert "68.7 GB" in panel.log_view.toPlainText()


def test_a_memory_warning_accepted_trains(panel, qtbot, errors, monkeypatch):
    calls = []
    monkeypatch.setattr(training_jobs, "estimate_training_memory", _too_big(calls))
    monkeypatch.setattr(dialogs, "ask_yes_no", lambda *args: True)
    panel.load_example(panel.example("toy"))
    with qtbot.waitSignal(panel.trained, timeout=30_000) as blocker:
        assert panel.start()
    assert len(blocker.args[0].model.merges) == 10 and len(calls) == 1


def test_no_question_without_a_memory_warning(panel, qtbot, monkeypatch):
    estimates = []

    def enough(paths, config, **options):
        estimates.append(MemoryEstimate(50_000_000, 8 << 30, None))
        return estimates[-1]

    monkeypatch.setattr(training_jobs, "estimate_training_memory", enough)
    monkeypatch.setattr(dialogs, "ask_yes_no", lambda *args: pytest.fail("asked"))
    panel.load_example(panel.example("toy"))
    with qtbot.waitSignal(panel.trained, timeout=30_000):
        assert panel.start()
    assert len(estimates) == 1


def test_a_failing_estimate_is_logged_and_training_goes_on(panel, qtbot, monkeypatch, caplog):
    def broken(paths, config, **options):
        raise RuntimeError("estimator bug")

    monkeypatch.setattr(training_jobs, "estimate_training_memory", broken)
    panel.load_example(panel.example("toy"))
    with caplog.at_level(logging.ERROR, logger=training_jobs.__name__):
        with qtbot.waitSignal(panel.trained, timeout=30_000):
            assert panel.start()
    assert "estimator bug" in caplog.text


def test_the_memory_check_can_be_cancelled(panel, qtbot, monkeypatch):
    gate = threading.Event()

    def slow(paths, config, **options):
        gate.wait(10)
        return MemoryEstimate(50_000_000, 8 << 30, None)

    monkeypatch.setattr(training_jobs, "estimate_training_memory", slow)
    panel.load_example(panel.example("toy"))
    trained = []
    panel.trained.connect(trained.append)
    assert panel.start()
    assert panel.running and "memory" in panel.stage_label.text()
    with qtbot.waitSignal(panel.cancelled, timeout=10_000):
        panel.cancel()
        gate.set()
    assert trained == [] and not panel.running
