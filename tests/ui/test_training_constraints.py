"""The Training panel's Linguistic constraints: the form section, a constrained run in the
worker (Morfessor's progress, the report in the log), the segmentation table (edit,
save, reuse as gold boundaries), and a cancelled Morfessor run keeping the model."""

from __future__ import annotations

import time

import pytest
from PySide6.QtCore import Qt

from bpe_desktop.core import TrainConfig
from bpe_desktop.core.evaluation import read_gold
from bpe_desktop.core.morfessor_source import SegmenterProgress
from bpe_desktop.ui.common import dialogs
from bpe_desktop.ui.training.options import CONSTRAINTS_TITLE, PRESET_LABELS
from bpe_desktop.ui.training.panel import TrainingPanel
from tests.ui.window_helpers import assert_fails_without_a_corpus_question

WORDS = [("walk", 30), ("walked", 20), ("walking", 25), ("walks", 15), ("talk", 30),
         ("talked", 20), ("talking", 25), ("talks", 15), ("jump", 20), ("jumped", 12),
         ("jumping", 14), ("jumps", 9), ("play", 22), ("played", 14), ("playing", 18),
         ("plays", 10)]


@pytest.fixture
def panel(qtbot, tmp_path):
    widget = TrainingPanel()
    qtbot.addWidget(widget)
    widget.train_requested.connect(widget.start)
    table = tmp_path / "words.tsv"
    table.write_text("".join(f"{w}\t{c}\n" for w, c in WORDS), encoding="utf-8")
    widget.corpus.add_paths([str(table)])
    widget.options.word_counts.setChecked(True)
    yield widget
    widget.shutdown()


def log_text(panel) -> str:
    return panel.log_view.toPlainText()


def test_the_form_has_a_constraints_section_that_presets_keep(panel, tmp_path):
    form = panel.options
    assert form.constraints_title.text() == CONSTRAINTS_TITLE
    gold = str(tmp_path / "g.tsv")
    form.gold_boundaries.setText(f"{gold}; {gold}2")
    form.knockout_rounds.setValue(7)
    assert form.config().gold_boundaries == (gold, gold + "2")
    form.preset.setCurrentText(next(l for l, k in PRESET_LABELS.items() if k == "gpt2"))
    config = form.config()
    assert config.pretokenizer == "gpt2"
    assert config.gold_boundaries == (gold, gold + "2") and config.knockout_rounds == 7


def test_the_share_kept_whole_steps_by_five_percent_and_names_zero(panel):
    share = panel.options.morfessor_keep_share
    assert share.value() == pytest.approx(0.65)
    share.stepUp()
    assert panel.options.config().morfessor_keep_share == pytest.approx(0.70)
    share.setValue(0)
    assert share.text() == "by count only"
    assert panel.options.config().morfessor_keep_share == 0


def test_a_morfessor_run_reports_progress_and_offers_its_segmentation(
        panel, qtbot, tmp_path, errors, monkeypatch):
    panel.options.set_config(TrainConfig(merges=20, morfessor=True))
    panel.runner.min_interval = 0.0  # every update reaches the panel
    updates = []
    panel.runner.progressed.connect(updates.append)
    with qtbot.waitSignal(panel.trained, timeout=60_000) as blocker:
        qtbot.mouseClick(panel.train_button, Qt.MouseButton.LeftButton)
    result = blocker.args[0]
    assert errors == []
    stages = [u.stage for u in updates if isinstance(u, SegmenterProgress)]
    assert stages[0] == "epoch 1" and stages[-1] == "segmenting"
    assert "Constraints: Morfessor boundaries." in log_text(panel)
    assert "Morfessor took" in log_text(panel)
    assert panel.segmentation == dict(result.segmentation)
    assert panel.segmentation_button.isEnabled()

    dialog = panel.show_segmentation()
    qtbot.addWidget(dialog)
    model = dialog.model
    row = next(i for i, (w, _) in enumerate(model.rows) if w == "walking")
    index = model.index(row, 1)
    assert not model.setData(index, "wal kin")  # does not spell the word: refused
    assert model.setData(index, "walk ing")
    monkeypatch.setattr(dialogs, "ask_yes_no", lambda *args: True)
    saved = tmp_path / "seg.tsv"
    assert dialog.save(str(saved))
    gold = {w.word: w.analyses[0] for w in read_gold(saved).words}
    assert gold["walking"] == ("walk", "ing")
    config = panel.options.config()
    assert config.gold_boundaries == (str(saved),) and not config.morfessor
    assert f"Segmentation saved to {saved}." in log_text(panel)


def test_a_gold_boundaries_run_logs_the_corpus_words_cut_and_warns_when_none(
        panel, qtbot, tmp_path, errors):
    gold = tmp_path / "gold.tsv"
    gold.write_text("walking\twalk ing\nTalked\tTalk ed\n", encoding="utf-8")
    panel.options.set_config(TrainConfig(merges=40, gold_boundaries=(str(gold),)))
    with qtbot.waitSignal(panel.trained, timeout=60_000):
        assert panel.start()
    assert errors == []
    assert "Gold boundaries cut 1 of the corpus's 16 distinct words (more would match: 1 " \
           "with lower-casing)." in log_text(panel)
    assert "Warning: no word of the corpus" not in log_text(panel)
    gold.write_text("kutya\tkuty a\n", encoding="utf-8")
    with qtbot.waitSignal(panel.trained, timeout=60_000):
        assert panel.start()
    assert "Gold boundaries cut 0 of the corpus's 16 distinct words." in log_text(panel)
    assert "Warning: no word of the corpus is in the gold files: their boundaries cut " \
           "nothing." in log_text(panel)


@pytest.mark.parametrize("option,extra,label,files", [
    ("knockout", {}, "Knockout gold files", "knockout gold files"),
    ("morfessor_annotations", {"morfessor": True}, "Morfessor annotations", "annotation files"),
])
def test_a_knockout_or_annotations_run_logs_the_corpus_words_matched_and_warns(
        panel, qtbot, tmp_path, errors, option, extra, label, files):
    gold = tmp_path / "gold.tsv"
    gold.write_text("Walking\tWalk ing\ntalked\ttalk ed\n", encoding="utf-8")
    panel.options.set_config(TrainConfig(merges=40, **{option: (str(gold),)}, **extra))
    with qtbot.waitSignal(panel.trained, timeout=60_000):
        assert panel.start()
    assert errors == []
    assert f"{label} match 1 of the corpus's 16 distinct words (more would match: 1 " \
           "with lower-casing)." in log_text(panel)
    gold.write_text("kutya\tkuty a\n", encoding="utf-8")
    with qtbot.waitSignal(panel.trained, timeout=60_000):
        assert panel.start()
    assert f"{label} match 0 of the corpus's 16 distinct words." in log_text(panel)
    assert f"Warning: no word of the corpus is in the {files}: " in log_text(panel)


@pytest.mark.parametrize("option", ["gold_boundaries", "knockout"])
def test_a_gold_file_with_invalid_utf8_is_an_error_naming_it_not_a_corpus_question(
        panel, qtbot, tmp_path, errors, monkeypatch, option):
    """Reading the corpus with replacement characters does not read the gold so: offering
    it would only run the training again into the same error."""
    gold = tmp_path / "latin1.tsv"
    gold.write_bytes(b"walking\twalk ing\ncaf\xe9s\tcaf\xe9 s\n")
    panel.options.set_config(TrainConfig(merges=20, **{option: (str(gold),)}))
    assert_fails_without_a_corpus_question(
        panel, qtbot, monkeypatch, errors,
        f"{gold} line 2: not valid UTF-8 (byte 4 of the line); save the file as UTF-8")


def test_a_knockout_run_logs_each_removed_merge(panel, qtbot, tmp_path, errors):
    gold = tmp_path / "gold.tsv"
    gold.write_text("walking\twalk ing\ntalked\ttalk ed\nplays\tplay s\njumped\tjump ed\n",
                    encoding="utf-8")
    panel.options.set_config(TrainConfig(merges=40, knockout=(str(gold),)))
    with qtbot.waitSignal(panel.trained, timeout=60_000) as blocker:
        assert panel.start()
    report = blocker.args[0].model.constraints
    assert errors == [] and report.knocked_out
    text = log_text(panel)
    assert "BPE-knockout removed" in text
    assert report.knocked_out[0] == ("walk", "ing</w>", 1, 0, 1)
    assert "round 1: walk + ing</w> — 1 crossing, 0 respects" in text  # nouns agree
    assert not panel.segmentation_button.isEnabled()


def test_the_time_shown_covers_every_knockout_round(panel, qtbot, tmp_path, errors,
                                                    monkeypatch):
    from bpe_desktop.core import constrained

    def slow_knocked_out(*args):  # each round's analysis takes a measurable time
        time.sleep(0.2)
        return real_knocked_out(*args)

    real_knocked_out = constrained.knocked_out
    monkeypatch.setattr(constrained, "knocked_out", slow_knocked_out)
    gold = tmp_path / "gold.tsv"
    gold.write_text("walking\twalk ing\ntalked\ttalk ed\nplays\tplay s\n", encoding="utf-8")
    panel.options.set_config(TrainConfig(merges=40, knockout=(str(gold),)))
    with qtbot.waitSignal(panel.trained, timeout=60_000) as blocker:
        assert panel.start()
    total = blocker.args[0].timings["total"]
    assert errors == [] and total >= 0.4  # at least two rounds' analyses
    assert panel.stage_label.text().endswith(f"in {total:.2f} s.")
    assert f"Finished in {total:.2f} s" in log_text(panel)


def test_cancelling_morfessor_keeps_the_previous_model(panel, qtbot, errors):
    panel.options.set_config(TrainConfig(merges=20, morfessor=True))
    cancelled_at_progress = []

    def cancel_on_morfessor(update):
        if isinstance(update, SegmenterProgress) and not cancelled_at_progress:
            cancelled_at_progress.append(update)
            panel.cancel()

    panel.runner.progressed.connect(cancel_on_morfessor)
    trained = []
    panel.trained.connect(trained.append)
    with qtbot.waitSignal(panel.cancelled, timeout=60_000):
        assert panel.start()
    assert cancelled_at_progress and trained == [] and errors == []
    assert "Cancelled" in log_text(panel)


def test_a_refused_segmentation_edit_says_why(qtbot):
    from PySide6.QtWidgets import QLineEdit

    from bpe_desktop.ui.training.segmentation import SegmentationDialog

    dialog = SegmentationDialog({"walking": ("walking",), "talks": ("talk", "s")})
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    table = dialog.table

    def type_morphs(row: int, text: str) -> None:
        table.setCurrentIndex(dialog.proxy.index(row, 1))
        qtbot.keyClick(table, Qt.Key.Key_F2)
        editor = table.viewport().findChild(QLineEdit)
        editor.selectAll()
        qtbot.keyClicks(editor, text)
        qtbot.keyClick(editor, Qt.Key.Key_Return)
        editing = table.State.EditingState
        qtbot.waitUntil(lambda: table.state() != editing)  # (the commit is queued)

    type_morphs(1, "wal kin")  # the rows are sorted: talks, walking
    assert dialog.model.rows[1] == ("walking", ("walking",))
    assert dialog.message.text() == ("'wal kin' does not spell 'walking': its morphs stay "
                                     "'walking'.")
    type_morphs(1, "walk ing")
    assert dialog.model.rows[1] == ("walking", ("walk", "ing"))
    assert dialog.message.text() == ""


def test_the_segmentation_window_is_one_per_run_and_freed_when_closed(panel, qtbot):
    from shiboken6 import isValid

    from bpe_desktop.ui.training.segmentation import SegmentationDialog

    panel.segmentation = {"walking": ("walk", "ing"), "talks": ("talk", "s")}  # a run's
    first = panel.show_segmentation()
    assert first.model.setData(first.model.index(1, 1), "walking")  # an edit, not saved
    assert panel.show_segmentation() is first  # asked again: the same window, its edit kept
    assert first.model.rows[1] == ("walking", ("walking",))
    panel.segmentation = {"jumps": ("jump", "s")}  # the next run's
    second = panel.show_segmentation()
    qtbot.waitUntil(lambda: not isValid(first))
    assert panel.findChildren(SegmentationDialog) == [second]
    assert second.model.rows == [("jumps", ("jump", "s"))]
    second.close()
    qtbot.waitUntil(lambda: not isValid(second))
    assert panel.findChildren(SegmentationDialog) == []
