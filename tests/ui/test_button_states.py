"""Buttons enabled only when they can act: an Export while its table has rows, a Remove
while its list has a selected row; the Run menu's entries follow them."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QItemSelectionModel

from bpe_desktop.core import Corpus, TrainConfig, train
from bpe_desktop.ui.compare import ComparePanel
from bpe_desktop.ui.evaluate import EvaluatePanel

pytest_plugins = ["tests.ui.window_fixtures"]

DATA = Path(__file__).resolve().parents[1] / "data"
GOLD = DATA / "morph" / "eng.word.dev.tsv"
UDHR = sorted((DATA / "udhr").glob("*.txt"))[:3]


@pytest.fixture
def evaluate_panel(qtbot, toy_model):
    panel = EvaluatePanel()
    qtbot.addWidget(panel)
    panel.set_model(toy_model)
    yield panel
    panel.shutdown()


def _exports(panel: EvaluatePanel) -> dict[str, bool]:
    return {**{f"csv {k}": b.isEnabled() for k, b in panel.csv_buttons.items()},
            **{f"plot {k}": b.isEnabled() for k, b in panel.plot_buttons.items()}}


def _evaluate(panel: EvaluatePanel, qtbot) -> None:
    panel.gold_files.add_paths([str(GOLD)])
    panel.text_files.add_paths([str(UDHR[0])])
    panel.parallel_files.add_paths([str(p) for p in UDHR])
    panel.sweep_check.setChecked(True)
    panel.sweep_points.setValue(3)
    with qtbot.waitSignal(panel.evaluated, timeout=60_000):
        panel.evaluate_button.click()


def _select_row(view, row: int = 0) -> None:
    view.selectionModel().select(
        view.model().index(row, 0),
        QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows)


def test_evaluate_exports_follow_the_results(evaluate_panel, qtbot):
    panel = evaluate_panel
    assert not any(_exports(panel).values()), _exports(panel)
    _evaluate(panel, qtbot)
    assert all(_exports(panel).values()), _exports(panel)
    panel.set_model(train(Corpus.from_word_counts((("abc", 3),)), TrainConfig(merges=1)).model)
    assert not any(_exports(panel).values()), _exports(panel)  # another model clears them


def test_an_evaluation_without_texts_leaves_their_exports_off(evaluate_panel, qtbot):
    panel = evaluate_panel
    panel.pasted_edit.setPlainText("low lower newest")
    with qtbot.waitSignal(panel.evaluated, timeout=60_000):
        panel.evaluate_button.click()
    assert panel.csv_buttons["text"].isEnabled()
    assert not panel.csv_buttons["summary"].isEnabled()  # no gold file: no morphology
    assert not panel.plot_buttons["parity"].isEnabled()  # no translations


@pytest.mark.parametrize("which", ["gold_files", "text_files", "parallel_files"])
def test_a_file_list_s_remove_follows_its_selection(evaluate_panel, which):
    files = getattr(evaluate_panel, which)
    assert not files.remove_button.isEnabled()
    files.add_paths([str(p) for p in UDHR])
    assert not files.remove_button.isEnabled()  # nothing selected yet
    _select_row(files.list, 1)
    assert files.remove_button.isEnabled()
    files.remove_button.click()
    assert len(files.paths()) == 2
    assert not files.remove_button.isEnabled()
    _select_row(files.list)
    files.clear()
    assert not files.remove_button.isEnabled()


def test_the_character_map_s_remove_follows_its_selection(evaluate_panel):
    editor = evaluate_panel.character_map
    assert not editor.remove_button.isEnabled()
    editor.set_mapping({"C": "ç", "S": "ş"})
    assert not editor.remove_button.isEnabled()
    _select_row(editor.table)
    assert editor.remove_button.isEnabled()
    editor.remove_button.click()
    assert editor.mapping() == {"S": "ş"}
    assert not editor.remove_button.isEnabled()
    _select_row(editor.table)
    editor.set_mapping({})
    assert not editor.remove_button.isEnabled()


def test_the_corpus_list_s_remove_follows_its_selection(training_panel):
    panel = training_panel
    assert not panel.remove_button.isEnabled()
    panel.corpus.add_paths([str(p) for p in UDHR])
    assert not panel.remove_button.isEnabled()
    _select_row(panel.corpus)
    assert panel.remove_button.isEnabled()
    panel.remove_button.click()
    assert len(panel.corpus.paths()) == 2
    assert not panel.remove_button.isEnabled()
    _select_row(panel.corpus)
    panel.corpus.clear_files()
    assert not panel.remove_button.isEnabled()


def test_compare_s_remove_and_overlap_export(qtbot, toy_model):
    panel = ComparePanel()
    qtbot.addWidget(panel)
    panel.set_model(toy_model)
    assert not panel.remove_button.isEnabled() and not panel.export_button.isEnabled()
    panel.add_current()
    panel.add_model("other", train(Corpus.from_word_counts((("lowest", 4),)),
                                   TrainConfig(merges=3)).model)
    assert not panel.remove_button.isEnabled()
    panel.source_list.setCurrentRow(1)  # (as a click: Remove takes the current row)
    assert panel.remove_button.isEnabled()
    panel.set_text("lowest newer\nwidest low lowest")
    with qtbot.waitSignal(panel.compared, timeout=30_000):
        panel.compare_button.click()
    assert panel.export_button.isEnabled()  # both models share pieces
    panel.source_list.setCurrentRow(1)  # (as a click: Remove takes the current row)
    panel.remove_button.click()
    assert [s.name for s in panel.sources] == [panel.sources[0].name] != ["other"]
    assert not panel.remove_button.isEnabled()


def test_the_run_menu_entry_follows_its_button(window, qtbot, toy_model):
    entries = {b: a for a, b in window.panel_menus["evaluate"].entries}
    panel = window.evaluate
    action = entries[panel.csv_buttons["sizes"]]
    assert not action.isEnabled()
    window.document.set_imported(toy_model)
    _evaluate(panel, qtbot)
    assert action.isEnabled()
    window.document.new()  # no model: the results are cleared
    assert not action.isEnabled()
