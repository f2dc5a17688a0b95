"""The History panel and the window's project: runs recorded as they happen, filtered,
sorted, inspected, reproduced, compared, reported on, deleted and restored."""

from __future__ import annotations

import json
import os
import re
import shlex
import sqlite3
import time

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QGuiApplication, QKeySequence
from PySide6.QtTest import QTest

from bpe_desktop.core.project import Metric, Project
from bpe_desktop.ui.history.table_model import COLUMNS
from bpe_desktop.ui.window.main_window import MainWindow
from tests.ui.window_helpers import held_back, train_toy

pytest_plugins = ["tests.ui.window_fixtures"]

DATA = os.path.join(os.path.dirname(__file__), "..", "data")
GOLD = os.path.join(DATA, "morph", "eng.word.dev.tsv")


def listed(window, qtbot) -> None:
    """Until the History table shows the list of runs asked for last (it is read in the
    background after a sort, a filter or a recorded run)."""
    QCoreApplication.processEvents()  # the recorder's queued signals
    qtbot.waitUntil(lambda: not window.history.model.busy, timeout=10_000)


def settle(window, qtbot, rows: int) -> None:
    """Until the recorder has written and the table shows ``rows`` runs."""
    window.projects.recorder.wait()
    listed(window, qtbot)
    qtbot.waitUntil(lambda: window.history.model.rowCount() == rows, timeout=10_000)


def column(name: str) -> int:
    return [c[1] for c in COLUMNS].index(name)


def cell(window, row: int, name: str) -> str:
    model = window.history.model
    return model.data(model.index(row, column(name)))


def select(window, *rows: int) -> None:
    table = window.history.table
    table.clearSelection()
    flags = table.selectionModel().SelectionFlag
    for row in rows:
        table.selectionModel().select(window.history.model.index(row, 0),
                                      flags.Select | flags.Rows)


def fill(path, runs: int) -> None:
    """``runs`` evaluations, quickly: vocabulary 100 + i, F1 = i / runs."""
    with Project(path) as p:
        now = time.time()
        with p.transaction():
            p.conn.executemany(
                "INSERT INTO runs (kind, status, started, duration, vocab_size, f1, preset, "
                "corpus_label) VALUES ('evaluate', 'finished', ?, 1.0, ?, ?, ?, 'x.txt')",
                [(now - i, 100 + i, i / runs, "gpt2" if i % 2 else "")
                 for i in range(runs)])


def test_the_window_opens_a_default_project_and_records_a_training(window, qtbot):
    project = window.projects.project
    assert os.path.basename(project.path) == "History.bpeproj"
    assert os.environ["BPE_DESKTOP_DATA_DIR"] in project.path
    train_toy(window, qtbot)
    settle(window, qtbot, 1)
    assert cell(window, 0, "kind") == "train" and cell(window, 0, "status") == "finished"
    run = project.run_details(window.history.model.run_at(0).id)
    assert run.has_stored_model and run.config["merges"] == 10
    assert run.summary.vocab_size == window.document.model.vocab_size
    assert {m.metric for m in run.metrics} >= {"vocab_size", "merges", "total_words"}
    assert "Finished in" in run.log


def test_an_evaluation_in_the_window_is_recorded_with_its_metrics(window, qtbot):
    train_toy(window, qtbot)
    window.evaluate.gold_files.add_paths([GOLD])
    with qtbot.waitSignal(window.evaluate.evaluated, timeout=60_000):
        window.evaluate.evaluate_button.click()
    settle(window, qtbot, 2)
    evaluation = window.history.model.run_at(0)  # newest first
    assert evaluation.kind == "evaluate"
    assert evaluation.f1 == window.evaluate.report.morphology["eng.word.dev.tsv"].f1
    assert cell(window, 0, "f1") == f"{evaluation.f1:.4f}"
    details = window.projects.project.run_details(evaluation.id)
    assert details.config["model.merges"] == 10  # the toy model's


def test_ctrl_6_shows_history(window, qtbot):
    action = next(a for a in window.actions() if a.shortcut().toString() == "Ctrl+6")
    action.trigger()
    assert window.tabs.currentWidget() is window.history


def test_filters_and_sorting(window, qtbot, tmp_path):
    path = tmp_path / "p.bpeproj"
    fill(path, 50)
    with Project(path) as p:
        run = p.start_run("train", preset="gpt2")
        p.finish_run(run, "failed", message="boom")
    assert window.projects.open_project(str(path))
    history = window.history
    assert history.model.rowCount() == 51
    history.kind_combo.setCurrentText("train")
    listed(window, qtbot)
    assert history.model.rowCount() == 1 and cell(window, 0, "status") == "failed"
    history.kind_combo.setCurrentText("All")
    history.preset_combo.setCurrentText("gpt2")
    listed(window, qtbot)
    assert history.model.rowCount() == 26  # 25 odd evaluations and the training
    history.preset_combo.setCurrentText("All")
    history.table.sortByColumn(column("f1"), Qt.SortOrder.DescendingOrder)
    listed(window, qtbot)
    assert cell(window, 0, "f1") == f"{49 / 50:.4f}"
    history.table.sortByColumn(column("vocab_size"), Qt.SortOrder.AscendingOrder)
    listed(window, qtbot)
    assert cell(window, 0, "vocab_size") == ""  # runs without a value count as smallest
    assert cell(window, 1, "vocab_size") == "100"


def test_a_long_history_is_read_a_page_at_a_time(window, qtbot, tmp_path):
    path = tmp_path / "big.bpeproj"
    fill(path, 20_000)
    started = time.perf_counter()
    window.projects.open_project(str(path))
    window.tabs.setCurrentWidget(window.history)
    qtbot.wait(50)
    model = window.history.model
    assert model.rowCount() == 20_000
    assert len(model._pages) <= 1  # only what is on screen was read
    window.history.table.scrollToBottom()
    qtbot.wait(50)
    assert cell(window, 19_999, "vocab_size") == f"{100 + 19_999:,}"
    assert len(model._pages) <= 3
    assert time.perf_counter() - started < 10  # (the benchmark measures the real figure)


def test_sorting_and_filtering_read_the_order_away_from_the_window(window, qtbot, tmp_path):
    """The window's own connection reads only runs by id: which runs match, and in which
    order, is read in the background while the previous list stays on screen."""
    path = tmp_path / "big.bpeproj"
    fill(path, 20_000)
    window.projects.open_project(str(path))
    window.tabs.setCurrentWidget(window.history)
    history, model = window.history, window.history.model
    statements: list[str] = []
    window.projects.project.conn.set_trace_callback(statements.append)
    select(window, 5)
    chosen = history.selected_ids()
    history.table.sortByColumn(column("vocab_size"), Qt.SortOrder.DescendingOrder)
    assert model.busy and cell(window, 0, "vocab_size") == "100"  # still newest first
    listed(window, qtbot)
    assert cell(window, 0, "vocab_size") == "20,099" and history.selected_ids() == chosen
    assert model.row_of(chosen[0]) == 20_000 - 1 - 5
    history.preset_combo.setCurrentText("gpt2")
    history.table.sortByColumn(column("f1"), Qt.SortOrder.DescendingOrder)
    history.status_combo.setCurrentText("finished")  # each supersedes the one before
    listed(window, qtbot)
    assert model.rowCount() == 10_000 and cell(window, 0, "vocab_size") == "20,099"
    history.table.scrollToBottom()
    qtbot.wait(20)
    assert cell(window, 9_999, "vocab_size") == "101"  # gpt2: the odd ones
    window.projects.project.conn.set_trace_callback(None)
    # Rows by id, the selected run's details by its id: nothing that reads every run.
    assert any("WHERE id IN" in s for s in statements)
    assert all(re.search(r"WHERE (i\.run_)?(run_)?id (IN|=) ", s) for s in statements), statements


def test_closing_the_window_while_the_list_is_read_stops_its_reader(qtbot, ui, tmp_path):
    from bpe_desktop.ui.common.workers import all_threads

    path = tmp_path / "big.bpeproj"
    fill(path, 20_000)
    window = MainWindow()
    qtbot.addWidget(window)
    window.projects.open_project(str(path))
    window.history.table.sortByColumn(column("f1"), Qt.SortOrder.AscendingOrder)
    assert window.history.model.busy
    window.close_discarding()
    assert not any(t.isRunning() for t in list(all_threads))


def test_a_run_recorded_elsewhere_joins_the_list_and_the_selection_stays(window, qtbot,
                                                                         tmp_path):
    path = tmp_path / "p.bpeproj"
    fill(path, 3)
    window.projects.open_project(str(path))
    select(window, 1)
    chosen = window.history.selected_ids()
    with Project(path) as p:
        p.finish_run(p.start_run("count"), "finished")
    window.history.on_recorded()
    listed(window, qtbot)
    assert window.history.model.rowCount() == 4 and cell(window, 0, "kind") == "count"
    assert window.history.selected_ids() == chosen


def test_copy_as_command_and_rerun_reproduce_a_training(window, qtbot):
    train_toy(window, qtbot)
    settle(window, qtbot, 1)
    select(window, 0)
    window.history.copy_button.click()
    words = shlex.split(QGuiApplication.clipboard().text())
    assert words[2:5] == ["&&", "bpe-desktop", "train"]
    assert "--merges" in words and words[words.index("--merges") + 1] == "10"
    first = window.document.model
    window.training.options.set_config(window.training.options.config().replace(merges=3))
    with qtbot.waitSignal(window.document.model_changed, timeout=30_000):
        window.history.rerun_button.click()
    assert window.document.model.merges == first.merges
    settle(window, qtbot, 2)
    runs = [window.history.model.run_at(r) for r in range(2)]
    details = [window.projects.project.run_details(r.id) for r in runs]
    assert details[0].config == details[1].config


def test_a_training_that_went_on_with_replacement_characters_is_recorded_so(
        window, qtbot, ui, tmp_path):
    """Invalid UTF-8, and the user chose to go on reading it as �: the recorded run (its
    configuration and command) says so, and both Re-run and the command give its merges."""
    from bpe_desktop.cli import main
    from bpe_desktop.core import TrainConfig
    from bpe_desktop.core.model_file import load_model
    from bpe_desktop.core.project.commands import UNSAVED_MODEL

    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"the caf\xe9 was na\xefve and the caf\xe9 was new\n" * 20)
    window.training.corpus.clear_files()
    window.training.corpus.add_paths([str(bad)])
    window.training.options.set_config(TrainConfig(merges=12))
    with qtbot.waitSignal(window.document.model_changed, timeout=30_000):
        assert window.train()
    assert [title for title, _ in ui.questions] == ["Invalid bytes in the corpus"]
    first = window.document.model
    assert "\ufffd" in first.alphabet
    settle(window, qtbot, 1)
    details = window.projects.project.run_details(window.history.model.run_at(0).id)
    assert details.config["encoding_errors"] == "replace"
    argv = details.command["argv"]
    assert argv[argv.index("--encoding-errors") + 1] == "replace"
    again = tmp_path / "again.json"
    assert main([str(again) if a == UNSAVED_MODEL else a for a in argv] + ["-q"]) == 0
    assert load_model(again).merges == first.merges
    select(window, 0)
    with qtbot.waitSignal(window.document.model_changed, timeout=30_000):
        window.history.rerun_button.click()
    assert window.document.model.merges == first.merges
    assert len(ui.questions) == 1 and ui.errors == []  # not asked again


def test_open_model_and_compare_use_the_runs_models(window, qtbot, ui):
    first = train_toy(window, qtbot)
    window.training.options.set_config(window.training.options.config().replace(merges=4))
    with qtbot.waitSignal(window.document.model_changed, timeout=30_000):
        window.train()
    settle(window, qtbot, 2)
    select(window, 1)  # the older run
    window.history.open_button.click()
    assert window.document.model.merges == first.merges
    select(window, 0, 1)
    assert window.history.compare_button.isEnabled()
    window.history.compare_button.click()
    assert window.tabs.currentWidget() is window.compare
    assert sorted(s.name for s in window.compare.sources) == sorted(
        f"run {window.history.model.run_at(r).id}" for r in range(2))


def test_metrics_of_several_evaluations_side_by_side(window, qtbot, tmp_path):
    path = tmp_path / "p.bpeproj"
    with Project(path) as p:
        for merges, values in ((10, (0.2, 0.3, 0.4)), (20, (0.3, 0.5, 0.6))):
            run = p.start_run("evaluate", config={"min_frequency": merges})
            p.finish_run(run, "finished", metrics=[
                Metric("vocab_size", 300), Metric("f1", values[-1], "g"),
                *(Metric("f1", v, "g", size) for v, size in zip(values, (100, 200, 300)))])
    window.projects.open_project(str(path))
    select(window, 0, 1)
    view = window.history.metrics
    assert window.history.side.currentWidget() is view
    assert view.table.rowCount() == 2
    view.metric_combo.setCurrentText("f1")
    view.x_combo.setCurrentText("vocabulary size")
    assert sorted(view.series()) == [("run 1", [(100, 0.2), (200, 0.3), (300, 0.4)]),
                                     ("run 2", [(100, 0.3), (200, 0.5), (300, 0.6)])]
    view.x_combo.setCurrentText("min_frequency")
    assert view.series() == [("f1 by min_frequency", [(10.0, 0.4), (20.0, 0.6)])]


def test_delete_can_be_undone_until_the_window_closes(qtbot, ui, tmp_path):
    path = tmp_path / "p.bpeproj"
    fill(path, 3)
    window = MainWindow()
    qtbot.addWidget(window)
    window.show()
    window.tabs.setCurrentWidget(window.history)
    qtbot.waitExposed(window)
    window.projects.open_project(str(path))
    select(window, 0, 1)
    window.history.delete_button.click()
    listed(window, qtbot)
    assert window.history.model.rowCount() == 1
    window.history.table.setFocus()
    QTest.keySequence(window.history.table, QKeySequence.StandardKey.Undo)
    listed(window, qtbot)
    assert window.history.model.rowCount() == 3
    assert [window.history.model.run_at(r).id for r in (0, 1)] == \
        window.history.selected_ids()  # the restored runs are selected again
    select(window, 2)
    window.history.delete_button.click()
    listed(window, qtbot)
    assert window.history.model.rowCount() == 2
    window.close_discarding()
    with sqlite3.connect(path) as c:
        assert c.execute("SELECT count(*) FROM runs").fetchone()[0] == 2


def test_export_report_writes_html_and_pdf(window, qtbot, ui, tmp_path):
    train_toy(window, qtbot)
    settle(window, qtbot, 1)
    select(window, 0)
    for name in ("r.html", "r.pdf"):
        ui.save_path = str(tmp_path / name)
        window.history.report_button.click()
        assert not ui.errors
    assert (tmp_path / "r.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert (tmp_path / "r.pdf").read_bytes().startswith(b"%PDF")


def test_command_recorded_for_a_window_training_runs_in_a_shell(window, qtbot, tmp_path):
    """The window's training has no model file: the command names one to write."""
    window.training.corpus.add_paths([os.path.join(DATA, "udhr", "eng.txt")])
    window.training.options.set_config(window.training.options.config().replace(
        merges=None, vocab_size=300))
    with qtbot.waitSignal(window.document.model_changed, timeout=30_000):
        window.train()
    settle(window, qtbot, 1)
    run = window.projects.project.run_details(window.history.model.run_at(0).id)
    assert run.command["argv"][:2] == ["train", os.path.abspath(
        os.path.join(DATA, "udhr", "eng.txt"))]
    assert "--vocab-size" in run.command["argv"]
    assert json.dumps(run.command)  # stored as JSON


def test_runs_recorded_by_the_command_line_appear_on_their_own(window, qtbot, tmp_path):
    from bpe_desktop.cli import main

    path = tmp_path / "p.bpeproj"
    window.projects.open_project(str(path))
    window.tabs.setCurrentWidget(window.history)
    window.history._check_for_changes()
    corpus = tmp_path / "c.txt"
    corpus.write_text("low lower lowest\n" * 5, encoding="utf-8")
    assert main(["count", str(corpus), "-o", str(tmp_path / "t.tsv"), "-q", "--project",
                 str(path), "--language", "en"]) == 0
    qtbot.waitUntil(lambda: window.history.model.rowCount() == 1, timeout=5_000)
    select(window, 0)
    run = window.history.selected_runs()[0]
    assert [(i.role, i.language) for i in run.inputs] == [("corpus", "en")]
    window.history.set_language(run.summary.id, "English")
    assert window.history.selected_runs()[0].inputs[0].language == "English"
    assert "English" in window.history.details.toPlainText()


def test_rerun_while_a_job_runs_says_to_wait_and_leaves_the_form(window, qtbot, monkeypatch):
    from bpe_desktop.ui.training import jobs as training_jobs

    train_toy(window, qtbot)
    settle(window, qtbot, 1)
    go_on = held_back(monkeypatch, training_jobs, "train")
    form = window.training.options
    form.set_config(form.config().replace(merges=3))
    assert window.train()
    select(window, 0)
    run_id = window.history.selected_runs()[0].summary.id
    window.history.rerun_button.click()
    assert window.statusBar().full_message() == (
        f"Wait for the running job to finish (Esc cancels it) before running run {run_id} "
        "again.")
    assert form.config().merges == 3 and window.training.running
    with qtbot.waitSignal(window.document.model_changed, timeout=30_000):
        go_on.set()
    assert window.document.model.merge_count == 3


def test_rerun_of_a_command_line_run_runs_its_command_again(window, qtbot, tmp_path):
    from bpe_desktop.cli import main

    path = tmp_path / "p.bpeproj"
    corpus = tmp_path / "c.txt"
    corpus.write_text("low lower lowest\n" * 5, encoding="utf-8")
    assert main(["count", str(corpus), "-o", str(tmp_path / "t.tsv"), "-q", "--project",
                 str(path)]) == 0
    window.projects.open_project(str(path))
    select(window, 0)
    assert window.history.rerun_button.isEnabled()
    window.history.rerun_button.click()
    qtbot.waitUntil(lambda: not window.projects.run_again._processes, timeout=60_000)
    listed(window, qtbot)
    assert window.history.model.rowCount() == 2
    again = window.history.model.run_at(0)
    assert (again.kind, again.status) == ("count", "finished")


def test_closing_the_window_stops_a_command_run_again_and_records_it_cancelled(qtbot, ui,
                                                                              tmp_path):
    fifo = tmp_path / "stream"  # a text that never ends: the command runs until stopped
    os.mkfifo(fifo)
    path, table = tmp_path / "p.bpeproj", tmp_path / "t.tsv"
    with Project(path) as p:
        p.finish_run(p.start_run("count", command={
            "argv": ["count", str(fifo), "-o", str(table), "-q"], "cwd": str(tmp_path)}),
            "finished")
    window = MainWindow()
    qtbot.addWidget(window)
    window.projects.open_project(str(path), in_worker=False)
    select(window, 0)
    window.history.rerun_button.click()

    def again():
        with Project(path) as p:
            return [p.run_details(i).summary.status for i in p.run_ids()][1:]

    qtbot.waitUntil(lambda: again() == ["running"], timeout=60_000)  # it has started
    started = time.monotonic()
    assert window.close_discarding()
    assert time.monotonic() - started < 15  # not the 30 s it was given to finish
    assert again() == ["cancelled"] and not table.exists()


def test_each_mnemonic_of_the_panel_is_its_own(window):
    """Alt+letter reaches one control of the History panel (a letter shared by two only
    moves the focus between them: a button is not pressed)."""
    from PySide6.QtWidgets import QAbstractButton, QLabel

    widgets = [*window.history.findChildren(QLabel), *window.history.findChildren(QAbstractButton)]
    texts = [w.text() for w in widgets if "&" in w.text()]
    letters = [t[t.index("&") + 1].lower() for t in texts]
    assert len(texts) >= 9  # (Preset, Date, Delete and Undo delete have no free letter)
    assert sorted(letters) == sorted(set(letters)), texts


def test_a_filter_read_that_starts_at_once_is_not_stopped(window, qtbot, tmp_path,
                                                          monkeypatch):
    """Choosing a filter stops only a list still being read for an earlier choice, not
    the new read when its thread was quicker than the GUI thread."""
    import threading

    from bpe_desktop.ui.history import table_model

    path = tmp_path / "p.bpeproj"
    fill(path, 6)
    with Project(path) as p:
        p.finish_run(p.start_run("train"), "finished")
    assert window.projects.open_project(str(path))
    model = window.history.model
    assert model.rowCount() == 7
    reading = threading.Event()
    real_read = table_model.read_run_list

    def slow_read(reader, query, size):
        # A statement that tells the GUI thread it is running, then runs on a while.
        reader.create_function("running", 0, lambda: reading.set() or 1)
        reader.execute("WITH RECURSIVE c(x) AS (SELECT running() UNION ALL SELECT x + 1 "
                       "FROM c WHERE x < 3000000) SELECT count(*) FROM c").fetchone()
        return real_read(reader, query, size)

    real_submit = model._reader.submit

    def submit_then_let_it_read(job):
        real_submit(job)
        assert reading.wait(10)  # the new read's thread has its connection in use

    monkeypatch.setattr(table_model, "read_run_list", slow_read)
    monkeypatch.setattr(model._reader, "submit", submit_then_let_it_read)
    failures = []
    model.failed.connect(failures.append)
    window.history.kind_combo.setCurrentText("train")
    listed(window, qtbot)
    assert failures == []
    assert model.rowCount() == 1 and cell(window, 0, "kind") == "train"


def test_a_model_file_written_over_by_a_later_run_is_not_opened_as_the_earlier_runs(
        window, qtbot, ui, tmp_path):
    from bpe_desktop.cli import main

    path, model = tmp_path / "p.bpeproj", tmp_path / "model.json"
    corpus = os.path.join(DATA, "udhr", "eng.txt")
    for ties in ("first-seen", "lexicographic"):  # both write model.json
        assert main(["train", corpus, "-o", str(model), "--merges", "30", "--ties", ties,
                     "-q", "--project", str(path)]) == 0
    window.projects.open_project(str(path))
    listed(window, qtbot)
    select(window, 1)  # the first run
    window.history.open_button.click()
    [(title, text)] = ui.errors
    assert title == "Model not available"
    assert text == (f"Run 1's model file {model} was written over since: it holds another "
                    "run's or program's model.")
    assert window.document.model is None
    select(window, 0, 1)
    window.history.compare_button.click()
    assert len(ui.errors) == 2 and not window.compare.sources
    select(window, 0)  # the run that wrote it last
    window.history.open_button.click()
    qtbot.waitUntil(lambda: window.document.path == str(model), timeout=10_000)
    assert window.document.model.config.ties == "lexicographic"




def test_open_model_while_a_training_runs_says_to_wait_and_keeps_the_model(
        window, qtbot, ui, monkeypatch):
    """As File ▸ Open does (it is disabled then): the training about to replace the
    model would replace the one opened, after the question about saving it."""
    from bpe_desktop.ui.training import jobs as training_jobs

    first = train_toy(window, qtbot)
    form = window.training.options
    form.set_config(form.config().replace(merges=4))
    with qtbot.waitSignal(window.document.model_changed, timeout=30_000):
        window.train()
    settle(window, qtbot, 2)
    go_on = held_back(monkeypatch, training_jobs, "train")
    form.set_config(form.config().replace(merges=3))
    assert window.train()
    select(window, 1)  # the first run, of 10 merges
    asked = ui.asked_to_save
    window.history.open_button.click()
    assert window.statusBar().full_message() == (
        "Wait for the running job to finish (Esc cancels it) before opening a model.")
    assert window.document.model.merge_count == 4 and ui.asked_to_save == asked
    with qtbot.waitSignal(window.document.model_changed, timeout=30_000):
        go_on.set()
    assert window.document.model.merge_count == 3
    window.history.open_button.click()
    assert window.document.model.merges == first.merges
