"""The Evaluate panel: inputs remembered, a background run with cancel, tables, coloured
per-word boundaries, parity chart, sweep curves, "Use this size", exports."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QTableWidgetItem

from bpe_desktop.core import Corpus, TrainConfig, train
from bpe_desktop.core.evaluation import EvaluationRequest, WordResult, evaluate, read_gold
from bpe_desktop.ui.common.workers import running_threads
from bpe_desktop.ui.evaluate import EvaluatePanel
from bpe_desktop.ui.evaluate.table_models import (
    HTML_ROLE,
    WORD_HEADERS,
    WordTableModel,
    segmentation_html,
)

pytest_plugins = ["tests.ui.window_fixtures"]

DATA = Path(__file__).resolve().parents[1] / "data"
BOTCHAN = Path(__file__).resolve().parents[2] / "bpe_desktop/resources/examples/botchan.txt"
GOLD = DATA / "morph" / "eng.word.dev.tsv"
UDHR = sorted((DATA / "udhr").glob("*.txt"))


@pytest.fixture(scope="module")
def model():
    return train(Corpus.from_files([str(BOTCHAN)]), TrainConfig(vocab_size=600)).model


@pytest.fixture
def panel(qtbot, model):
    p = EvaluatePanel()
    qtbot.addWidget(p)
    p.set_model(model)
    return p


def _run(panel, qtbot):
    with qtbot.waitSignal(panel.evaluated, timeout=60_000):
        panel.evaluate_button.click()


def _fill(panel, *, sweep=5):
    panel.gold_files.add_paths([str(GOLD)])
    panel.text_files.add_paths([str(DATA / "udhr" / "eng.txt")])
    panel.parallel_files.add_paths([str(p) for p in UDHR])
    panel.reference_combo.setCurrentIndex(panel.reference_combo.findText("eng.txt"))
    panel.sweep_check.setChecked(True)
    panel.sweep_points.setValue(sweep)


def test_results_are_the_cores(panel, qtbot, model):
    _fill(panel)
    _run(panel, qtbot)
    expected = evaluate(model, EvaluationRequest(
        gold=[read_gold(GOLD)], text_files=[str(DATA / "udhr" / "eng.txt")],
        parallel_files=[str(p) for p in UDHR], reference=str(DATA / "udhr" / "eng.txt"),
        sweep=5))
    assert panel.report.to_json() == expected.to_json()
    row = panel.morphology_model.rows[0]
    r = expected.morphology["eng.word.dev.tsv"]
    assert row == ["eng.word.dev.tsv", r.words, r.evaluated, r.skipped, r.unsplit,
                   r.precision, r.recall, r.f1, r.morphscore, r.exact]
    assert panel.morphology_model.data(panel.morphology_model.index(0, 7)) == f"{r.f1:.4f}"
    assert [row[0] for row in panel.text_model.rows][:3] == [
        "tokens", "words", "fertility (tokens/word)"]
    assert panel.parity_chart.values == [r.parity for r in expected.parity.rows]
    assert panel.parity_chart.names[0] == "eng.txt" and panel.parity_chart.values[0] == 1.0
    assert panel.sizes_model.rowCount() == 5
    drawn = panel.sweep_plots.widgets["f1"].getPlotItem().listDataItems()
    x, y = {c.name(): c.getOriginalDataset() for c in drawn}["eng.word.dev.tsv"]
    assert list(x) == [p.vocab_size for p in expected.sweep]
    assert list(y) == [p.morphology["eng.word.dev.tsv"].f1 for p in expected.sweep]
    assert running_threads() == []


def test_word_table_colours_and_filters(panel, qtbot):
    panel.gold_files.add_paths([str(GOLD)])
    panel.sweep_check.setChecked(False)
    _run(panel, qtbot)
    words = panel.word_model
    everything = words.rowCount()
    assert everything == panel.report.morphology["eng.word.dev.tsv"].evaluated
    panel.only_missed.setChecked(True)
    assert 0 < words.rowCount() < everything
    assert all(r.missed for r in words.results)
    html = words.data(words.index(0, 2), HTML_ROLE)
    assert html == segmentation_html(words.results[0]) and "#e03131" in html  # missed: red
    panel.only_missed.setChecked(False)
    assert words.rowCount() == everything


def test_the_word_table_is_made_by_the_worker_not_the_gui_thread(panel, qtbot, monkeypatch):
    """A gold file of 40,000 words: making the table's rows when the results arrived held
    the window for half a second; the worker makes them (and each column's order)."""
    import threading

    on_gui_thread = []
    real = WordResult.missed
    monkeypatch.setattr(WordResult, "missed", property(
        lambda self: on_gui_thread.append(threading.current_thread() is threading.main_thread())
        or real.fget(self)))
    panel.gold_files.add_paths([str(GOLD)])
    panel.sweep_check.setChecked(False)
    _run(panel, qtbot)
    panel.only_missed.setChecked(True)
    panel.words_view.sortByColumn(WORD_HEADERS.index("gold"), Qt.SortOrder.DescendingOrder)
    assert on_gui_thread and not any(on_gui_thread)
    expected = [r for r in panel.report.morphology["eng.word.dev.tsv"].details
                if r.evaluated and real.fget(r)]
    assert sorted(panel.word_model.results, key=lambda r: r.line) == expected
    golds = [" ".join(r.gold_morphs) for r in panel.word_model.results]
    assert golds == sorted(golds, reverse=True)


def test_segmentation_html_marks_each_kind():
    from bpe_desktop.core.evaluation import WordResult

    r = WordResult("unhappy", 1, ("un", "happy"), ("un", "ha", "ppy"), frozenset({2}),
                   frozenset({2, 4}), 0)
    assert segmentation_html(r) == (
        "un<b style='color:#2f9e44'>|</b>ha<b style='color:#f08c00'>|</b>ppy")
    missed = WordResult("unhappy", 1, ("un", "happy"), ("unhappy",), frozenset({2}),
                        frozenset(), 0)
    assert segmentation_html(missed) == "un<b style='color:#e03131'>¦</b>happy"


def test_clicking_a_word_shows_its_merge_steps(panel, qtbot, model):
    panel.gold_files.add_paths([str(GOLD)])
    panel.sweep_check.setChecked(False)
    _run(panel, qtbot)
    panel.words_view.selectRow(0)
    word = panel.word_model.results[0].word
    steps = model.tokenizer().merge_steps(word)
    text = panel.step_view.toPlainText()
    assert steps[-1].pair is not None and steps[-1].pair[0] in text


def test_use_this_size_hands_over_the_truncated_model(panel, qtbot, model):
    panel.gold_files.add_paths([str(GOLD)])
    panel.sweep_points.setValue(4)
    panel.sweep_check.setChecked(True)
    _run(panel, qtbot)
    assert not panel.use_size_button.isEnabled()  # the current size is selected
    panel.select_size(1)
    point = panel.report.sweep[1]
    assert panel.use_size_button.isEnabled()
    with qtbot.waitSignal(panel.use_model) as got:
        panel.use_size_button.click()
    assert got.args[0].merges == model.merges[:point.merges]
    panel.set_model(got.args[0])  # as the main window does: the curves stay
    assert panel.report is not None and panel.sizes_model.rowCount() == 4


def test_cancel_stops_the_run(panel, qtbot):
    big = [str(DATA / "udhr" / f.name) for f in UDHR] * 1
    panel.text_files.add_paths(big)
    panel.gold_files.add_paths([str(p) for p in sorted((DATA / "morph").glob("*.tsv"))])
    panel.sweep_points.setValue(200)
    panel.sweep_check.setChecked(True)
    with qtbot.waitSignal(panel.runner.stopped, timeout=60_000):
        panel.evaluate_button.click()
        assert panel.cancel_button.isEnabled() and not panel.evaluate_button.isEnabled()
        panel.cancel()
    assert panel.report is None and "cancelled" in panel.status_label.text()
    assert panel.evaluate_button.isEnabled()


def test_a_gold_file_of_bad_lines_is_reported_with_its_line(panel, qtbot, tmp_path, errors):
    bad = tmp_path / "bad.tsv"
    bad.write_text("right\tr ight x\nwrong\tw rang\n", encoding="utf-8")
    panel.gold_files.add_paths([str(bad)])
    panel.gold_format_combo.setCurrentIndex(panel.gold_format_combo.findText("surface"))
    with qtbot.waitSignal(panel.runner.stopped, timeout=30_000):
        panel.evaluate_button.click()
    assert errors and f"{bad} line 1" in errors[0][1]
    assert panel.report is None


def test_one_bad_line_is_skipped_and_named_not_fatal(panel, qtbot, tmp_path, errors):
    gold = tmp_path / "some_bad.tsv"
    gold.write_text("walked\twalk ed\nwrong\tw rang\nhappy\thappy\n", encoding="utf-8")
    panel.gold_files.add_paths([str(gold)])
    panel.gold_format_combo.setCurrentIndex(panel.gold_format_combo.findText("surface"))
    _run(panel, qtbot)
    assert errors == []
    assert panel.gold_model.rows[0][:3] == ["some_bad.tsv", 2, 1]
    assert f"1 malformed line skipped ({gold} line 2:" in panel.gold_notes.text()


def test_a_gold_in_another_spelling_warns_and_the_mapping_fixes_it(qtbot):
    turkish = train(Corpus.from_files([str(DATA / "udhr" / "tur.txt")]),
                    TrainConfig.preset("subword-nmt", vocab_size=400)).model
    panel = EvaluatePanel()
    qtbot.addWidget(panel)
    panel.set_model(turkish)
    panel.gold_files.add_paths([str(DATA / "morph" / "tur.morpho-challenge.txt")])
    panel.sweep_check.setChecked(False)
    _run(panel, qtbot)
    assert "another spelling" in panel.gold_warning.text()
    assert "may not match the training text" in panel.status_label.text()
    assert "'I' ×8" in panel.gold_notes.text()
    before = panel.morphology_model.rows[0][7]
    choice = panel.character_map.choice
    choice.setCurrentIndex(choice.findText("Morpho Challenge Turkish", Qt.MatchFlag.MatchStartsWith))
    choice.activated.emit(choice.currentIndex())
    assert panel.character_map.mapping()["I"] == "ı" and panel.character_map.table.rowCount() == 6
    _run(panel, qtbot)
    assert panel.gold_warning.text() == ""
    assert panel.gold_model.rows[0][4] == "0 (0.0%)" and "C→ç" in panel.gold_model.rows[0][7]
    assert panel.morphology_model.rows[0][7] != before
    # the table is remembered
    again = EvaluatePanel()
    qtbot.addWidget(again)
    assert again.character_map.mapping() == panel.character_map.mapping()


def test_a_mapping_row_of_more_than_one_character_is_refused_with_its_row(panel, qtbot):
    """As ``--char-map`` refuses it: the row was left out of the scoring without a word."""
    panel.gold_files.add_paths([str(DATA / "morph" / "tur.morpho-challenge.txt")])
    editor = panel.character_map
    editor.set_mapping({"C": "ç"})
    editor.table.insertRow(1)
    editor.table.setItem(1, 0, QTableWidgetItem("Ch"))
    editor.table.setItem(1, 1, QTableWidgetItem("č"))
    panel.evaluate_button.click()
    assert not panel.runner.running and panel.report is None
    assert panel.status_label.text() == (
        "Character mapping, row 2: write one character in the gold column (it has “Ch”), "
        "or remove the row.")
    editor.table.item(1, 0).setText("")
    editor.table.item(1, 1).setText("")  # a blank row is ignored
    _run(panel, qtbot)
    assert panel.report is not None


def test_each_text_has_a_column_and_parity_marks_unknown_scripts(panel, qtbot):
    texts = [str(DATA / "udhr" / "eng.txt"), str(DATA / "udhr" / "jpn.txt")]
    panel.text_files.add_paths(texts)
    panel.parallel_files.add_paths(texts)
    panel.reference_combo.setCurrentIndex(panel.reference_combo.findText("eng.txt"))
    panel.sweep_check.setChecked(False)
    _run(panel, qtbot)
    assert panel.text_model.headers == ["measure", "eng.txt", "jpn.txt", "all texts"]
    tokens = panel.text_model.rows[0]
    assert tokens[0] == "tokens" and tokens[1] + tokens[2] == tokens[3]
    rows = {r[0]: r for r in panel.parity_model.rows}
    assert panel.parity_model.headers[3] == "unknown rate"
    assert rows["jpn.txt"][3] > 0.5 and "many unknown" in rows["jpn.txt"][4]
    assert rows["eng.txt (reference)"][4] == ""
    assert "unknown" in panel.parity_chart.labels[1] and "\n" not in panel.parity_chart.labels[0]



def test_a_parity_bar_s_unknown_rate_line_is_not_cut_off(panel, qtbot):
    from PySide6.QtGui import QFontMetrics

    texts = [str(DATA / "udhr" / "eng.txt"), str(DATA / "udhr" / "jpn.txt")]
    panel.parallel_files.add_paths(texts)
    panel.reference_combo.setCurrentIndex(panel.reference_combo.findText("eng.txt"))
    panel.sweep_check.setChecked(False)
    panel.resize(1200, 800)
    panel.show()
    qtbot.waitExposed(panel)
    _run(panel, qtbot)
    axis = panel.parity_chart.getPlotItem().getAxis("bottom")
    lines = QFontMetrics(axis.style["tickFont"] or panel.parity_chart.font()).lineSpacing()
    # (the axis kept one line's height: "⚠ 95% unknown" was cut in half)
    qtbot.waitUntil(lambda: axis.height() >= 2 * lines + axis.style["tickTextOffset"][1])
    panel.parallel_files.clear()
    panel.parallel_files.add_paths([texts[0], texts[0]])
    _run(panel, qtbot)
    assert "\n" not in "".join(panel.parity_chart.labels)
    qtbot.waitUntil(lambda: axis.height() < 2 * lines)  # one line again

def test_gold_file_dialog_shows_all_files_first(panel):
    # Morpho Challenge's files have no extension: the formats are recognised by content
    assert panel.gold_files.filters.startswith("All files (*)")


def test_inputs_are_remembered(qtbot, model, tmp_path):
    first = EvaluatePanel()
    qtbot.addWidget(first)
    first.gold_files.add_paths([str(GOLD)])
    first.parallel_files.add_paths([str(p) for p in UDHR[:2]])
    first.reference_combo.setCurrentIndex(1)
    first.gold_format_combo.setCurrentIndex(first.gold_format_combo.findText("sigmorphon"))
    second = EvaluatePanel()
    qtbot.addWidget(second)
    assert second.gold_files.paths() == [str(GOLD)]
    assert second.reference_combo.currentData() == str(UDHR[1])
    assert second.gold_format_combo.currentText() == "sigmorphon"


def test_exports(panel, qtbot, tmp_path):
    _fill(panel, sweep=3)
    _run(panel, qtbot)
    panel.export_csv("summary", str(tmp_path / "m.csv"))
    assert (tmp_path / "m.csv").read_text(encoding="utf-8").splitlines()[1].startswith(
        "eng.word.dev.tsv,300,")
    panel.export_csv("words", str(tmp_path / "w.csv"))
    assert (tmp_path / "w.csv").read_text(encoding="utf-8").startswith(
        "word,gold,segmentation,hits,missed,spurious,line")
    panel.export_plot("parity", str(tmp_path / "p.png"))
    panel.export_plot("f1", str(tmp_path / "f1.svg"))
    assert (tmp_path / "p.png").read_bytes()[:4] == b"\x89PNG"
    assert b"<svg" in (tmp_path / "f1.svg").read_bytes()[:2000]


def test_a_sorted_table_is_exported_in_the_order_shown(panel, qtbot, tmp_path):
    _fill(panel, sweep=0)
    _run(panel, qtbot)
    view = panel.words_view
    before = [r.word for r in panel.word_model.results]
    view.sortByColumn(WORD_HEADERS.index("missed"), Qt.SortOrder.DescendingOrder)
    shown = [view.model().index(row, 0).data() for row in range(view.model().rowCount())]
    assert shown != before  # the sort changed the order
    panel.export_csv("words", str(tmp_path / "w.csv"))
    with open(tmp_path / "w.csv", encoding="utf-8", newline="") as stream:
        rows = list(csv.reader(stream))
    assert [row[0] for row in rows[1:]] == shown


def test_sorting_a_large_word_table_asks_for_the_cells_shown_only(panel, qtbot, monkeypatch):
    """A table of 20,000 gold words sorts at once: a sort that asked the model for a value
    per comparison (hundreds of thousands of calls) froze the window for seconds."""
    words = [WordResult(f"w{n:05d}", n + 1, ("w", f"{n:05d}"), (f"w{n:05d}",),
                        frozenset({1}), frozenset({1}) if n % 3 else frozenset(), 0)
             for n in range(20_000)]
    panel.word_model.set_results(words)
    asked = []
    real = WordTableModel.data
    monkeypatch.setattr(WordTableModel, "data",
                        lambda self, *args: asked.append(1) or real(self, *args))
    panel.words_view.sortByColumn(WORD_HEADERS.index("missed"), Qt.SortOrder.DescendingOrder)
    assert len(asked) < len(words) // 2
    shown = [panel.word_model.index(row, 0).data() for row in range(3)]
    assert shown == ["w00000", "w00003", "w00006"]  # a missed boundary each, in line order
    panel.only_missed.setChecked(True)  # the sort holds when the rows change
    assert panel.word_model.rowCount() == 6667 and panel.word_model.rows[-1][0] == "w19998"


def test_panel_in_the_window(window, qtbot):
    from tests.ui.window_helpers import train_toy

    assert window.tabs.tabText(window.EVALUATE) == "Eva&luate"
    train_toy(window, qtbot)
    assert window.evaluate.evaluate_button.isEnabled()
    window.evaluate.gold_files.add_paths([str(GOLD)])
    window.evaluate.sweep_points.setValue(3)
    window.evaluate.sweep_check.setChecked(True)
    with qtbot.waitSignal(window.evaluate.evaluated, timeout=60_000):
        window.evaluate.evaluate_button.click()
    window.evaluate.select_size(0)
    window.evaluate.use_selected_size()
    assert window.document.model.merges == ()
    assert window.document.dirty and window.document.path is None
    assert "0 merges" in window.model_label.text()
    assert window.evaluate.report is not None



def test_esc_cancels_the_evaluation_in_view(window, qtbot, monkeypatch):
    from bpe_desktop.ui.evaluate import panel as evaluate_panel
    from tests.ui.window_helpers import held_back, train_toy

    train_toy(window, qtbot)
    go_on = held_back(monkeypatch, evaluate_panel, "evaluate")
    window.tabs.setCurrentIndex(window.EVALUATE)
    window.evaluate.pasted_edit.setPlainText("lowest newer widest")
    window.evaluate.evaluate_button.click()
    assert window.cancel_action.isEnabled()
    window.tabs.setCurrentIndex(window.TRAINING)  # Esc there is not for this run
    assert not window.cancel_action.isEnabled()
    window.tabs.setCurrentIndex(window.EVALUATE)
    with qtbot.waitSignal(window.evaluate.runner.cancelled, timeout=20_000):
        qtbot.keyClick(window, Qt.Key.Key_Escape)
        go_on.set()
    assert window.evaluate.report is None
    assert "cancelled" in window.evaluate.status_label.text()
    assert not window.cancel_action.isEnabled()

def test_parallel_files_of_one_name_are_told_apart_by_their_folder(panel, qtbot, tmp_path):
    for folder, source in (("en", "eng"), ("de", "deu")):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "udhr.txt").write_bytes((DATA / "udhr" / f"{source}.txt").read_bytes())
    panel.parallel_files.add_paths([str(tmp_path / "de" / "udhr.txt"),
                                    str(tmp_path / "en" / "udhr.txt")])
    combo = panel.reference_combo
    assert [combo.itemText(i) for i in range(combo.count())] == ["de/udhr.txt", "en/udhr.txt"]
    combo.setCurrentIndex(combo.findText("en/udhr.txt"))
    _run(panel, qtbot)
    assert [r.name for r in panel.report.parity.rows] == ["en/udhr.txt", "de/udhr.txt"]
    assert panel.parity_chart.names == ["en/udhr.txt", "de/udhr.txt"]
    # the bars are labelled apart too (not "udhr" twice)
    ticks = panel.parity_chart.getPlotItem().getAxis("bottom")._tickLevels[0]
    assert [label.split("\n")[0] for _, label in ticks] == ["en/udhr", "de/udhr"]


def test_sweep_legends_leave_the_curves_uncovered(panel, qtbot):
    """Each sweep plot names its curves under the axis, not over the data area."""
    _fill(panel, sweep=3)
    panel.resize(1024, 700)
    panel.show()
    _run(panel, qtbot)
    panel.results.setCurrentIndex(panel.results.count() - 1)  # Vocabulary size
    qtbot.waitUntil(lambda: panel.sweep_plots.widgets["f1"].getPlotItem().vb.width() > 50)
    for key, w in panel.sweep_plots.widgets.items():
        item = w.getPlotItem()
        assert item.legend.items, key
        assert item.legend.width() > 0, key
        legend = item.legend.sceneBoundingRect()
        assert not legend.intersects(item.vb.sceneBoundingRect()), key


def test_every_column_sorts_both_ways_and_the_filter_keeps_the_order(panel, qtbot):
    """The word table sorted by a header click: values ascending or descending, ties
    in line order, the "only missed" filter keeping that order and the selected word."""
    words = [WordResult(w, n + 1, tuple(w), (w[:2], w[2:]), frozenset(range(1, len(w))),
                        frozenset({2}) if n % 2 == 0 else frozenset(range(1, len(w))), 0)
             for n, w in enumerate(["pear", "fig", "apple", "fig", "kiwi", "banana", "açaí"])]
    panel.word_model.set_results(words)
    view, m = panel.words_view, panel.word_model
    for column in range(len(WORD_HEADERS)):
        for order in (Qt.SortOrder.AscendingOrder, Qt.SortOrder.DescendingOrder):
            view.sortByColumn(column, order)
            shown = [[m.index(r, c).data(Qt.ItemDataRole.DisplayRole)
                      for c in range(len(WORD_HEADERS))] for r in range(m.rowCount())]
            values = [row[column] for row in m.rows]
            assert values == sorted(values, reverse=order == Qt.SortOrder.DescendingOrder)
            for a, b in zip(m.rows, m.rows[1:]):  # ties in line order
                if a[column] == b[column]:
                    assert a[-1] < b[-1]
            assert [row[0] for row in shown] == [r.word for r in m.results]
    view.sortByColumn(WORD_HEADERS.index("word"), Qt.SortOrder.DescendingOrder)
    panel.only_missed.setChecked(True)
    assert [r.word for r in m.results] == ["pear", "kiwi", "açaí", "apple"]
    view.selectRow(1)
    assert panel.word_model.result_at(view.selectionModel().selectedRows()[0].row()).word \
        == "kiwi"
    panel.only_missed.setChecked(False)
    assert [r.word for r in m.results] == ["pear", "kiwi", "fig", "fig", "banana", "açaí",
                                            "apple"]
