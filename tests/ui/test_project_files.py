"""The window's project file: a new one opened again on the next start, and one that is
not a project, damaged, locked by another program or not writable named with what to do
while the project open before stays open; a run ends in the project it started in."""

from __future__ import annotations

import sqlite3

import pytest

from bpe_desktop.core.project import Metric, Project
from bpe_desktop.ui.window.main_window import MainWindow

pytest_plugins = ["tests.ui.window_fixtures"]


def test_a_bad_project_is_named_and_the_open_one_stays(window, ui, tmp_path):
    before = window.projects.project.path
    bad = tmp_path / "bad.bpeproj"
    bad.write_text("not a database", encoding="utf-8")
    ui.open_paths = [str(bad)]
    window.projects.ask_open_project()
    [(title, message)] = ui.errors
    assert str(bad) in message and "not an SQLite database" in message
    assert window.projects.project.path == before


def test_a_new_project_is_opened_again_on_the_next_start(qtbot, ui, tmp_path):
    window = MainWindow()
    qtbot.addWidget(window)
    ui.save_path = str(tmp_path / "Experiments.bpeproj")
    window.projects.ask_new_project()
    assert window.projects.project.path == ui.save_path
    assert window.history.model.rowCount() == 0
    window.close_discarding()
    again = MainWindow()
    qtbot.addWidget(again)
    assert again.projects.project.path == ui.save_path
    assert again.projects.recent_projects()[0] == ui.save_path
    again.close_discarding()


def test_a_run_completes_in_the_project_it_started_in(qtbot, tmp_path):
    """Another project opened while a training runs: the training's end is recorded
    where its start was, not in the new project."""
    from bpe_desktop.ui.history.recorder import ProjectRecorder

    first, second = str(tmp_path / "a.bpeproj"), str(tmp_path / "b.bpeproj")
    recorder = ProjectRecorder()
    recorder.set_path(first)
    started = recorder.start("train", config={}, command=None, inputs=[])
    recorder.set_path(second)
    recorder.finish(started, "finished", metrics=[Metric("vocab_size", 7)])
    recorder.record("count", config={}, command=None, inputs=[], metrics=[])
    recorder.shutdown()
    with Project(first) as a, Project(second) as b:
        [run] = [a.run_details(i) for i in a.run_ids()]
        assert (run.summary.kind, run.summary.status, run.summary.vocab_size) == \
            ("train", "finished", 7)
        assert [b.run_details(i).summary.kind for i in b.run_ids()] == ["count"]


@pytest.mark.parametrize("where, title", [
    ("runs", "Cannot open project"),  # the table reads them at once
    ("metrics", "Damaged project"),  # found by the check in the background
])
def test_a_damaged_project_is_named_and_closed(window, qtbot, ui, tmp_path, where, title):
    path = tmp_path / "broken.bpeproj"
    with Project(path) as p:
        for _ in range(200):
            p.start_run("count", config={"n": "x" * 500})
        run = p.start_run("evaluate")
        p.finish_run(run, "finished", metrics=[Metric(f"m{i}", i) for i in range(3000)])
        p.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    data = bytearray(path.read_bytes())
    if where == "runs":
        data[8192:16384] = b"\xff" * 8192  # pages of the runs, the schema intact
    else:
        data[-8192:] = b"\xff" * 8192  # the last pages: the metrics added last
    path.write_bytes(bytes(data))
    window.projects.open_project(str(path))
    qtbot.waitUntil(lambda: bool(ui.errors), timeout=10_000)
    assert ui.errors[0][0] == title
    assert str(path) in ui.errors[0][1] and "damaged" in ui.errors[0][1]
    assert window.projects.project is None or window.projects.project.path != str(path)


def test_a_locked_project_is_named_with_what_to_do_and_the_open_one_stays(
        window, qtbot, ui, tmp_path, monkeypatch):
    from bpe_desktop.core.project import store

    monkeypatch.setattr(store, "BUSY_TIMEOUT_MS", 200)  # how long another's lock is waited for
    before = window.projects.project.path
    path = tmp_path / "locked.bpeproj"
    with Project(path) as p:
        p.finish_run(p.start_run("count"), "finished")
    other = sqlite3.connect(path, timeout=0)  # another program, in the middle of its work
    other.execute("PRAGMA locking_mode = EXCLUSIVE")
    other.execute("BEGIN EXCLUSIVE")
    try:
        window.projects.open_project(str(path))
        qtbot.waitUntil(lambda: bool(ui.errors), timeout=10_000)
    finally:
        other.rollback()
        other.close()
    assert ui.errors == [("Cannot open project", (
        f"{path}: cannot open the project: another program holds it locked (a database "
        "tool, or a BPE Desktop command still writing to it); close that program and open "
        "the project again\n\nThe project open before stays open."))]
    assert window.projects.project.path == before


def test_a_project_one_may_not_write_to_is_named_with_what_to_do_and_the_open_one_stays(
        window, qtbot, ui, tmp_path, monkeypatch):
    before = window.projects.project.path
    path = tmp_path / "elsewhere.bpeproj"
    Project(path).close()
    real_connect = sqlite3.connect  # the real error SQLite raises there (root writes anywhere)
    monkeypatch.setattr(sqlite3, "connect", lambda *a, **k: real_connect(
        tmp_path / "no-such-folder" / "x.db", *a[1:], **k))
    window.projects.open_project(str(path))
    qtbot.waitUntil(lambda: bool(ui.errors), timeout=10_000)
    title, message = ui.errors[0]
    assert title == "Cannot open project"
    assert message.startswith(f"{path}: cannot open the project: ")
    assert "copy the project to a folder you may write to" in message
    assert "unable to open database file" not in message
    assert window.projects.project.path == before
