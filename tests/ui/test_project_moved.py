"""The window's project file renamed, moved or deleted while the window has it open (in
a file manager, say), also while a training runs: no run is lost, the window follows the
file and records there, or closes the project saying why; a whole experiment folder
moved, its runs' model files open from where they are now."""

from __future__ import annotations

import os
import shutil

from PySide6.QtCore import QCoreApplication

from bpe_desktop.core.project import Project
from tests.ui.window_helpers import train_toy

pytest_plugins = ["tests.ui.window_fixtures"]


def _runs(path) -> list[tuple[str, str]]:
    with Project(path) as project:
        return [(d.summary.kind, d.summary.status)
                for d in map(project.run_details, project.run_ids())]


def test_runs_under_way_and_new_ones_are_recorded_in_the_renamed_file(window, qtbot,
                                                                      tmp_path):
    control = window.projects
    old = control.project.path
    under_way = control.recorder.start("count", config={}, command=None, inputs=[])
    control.recorder.wait()
    new = tmp_path / "moved" / "renamed.bpeproj"
    new.parent.mkdir()
    os.rename(old, new)
    train_toy(window, qtbot)  # its start is the first write after the move
    control.recorder.finish(under_way, "finished")
    control.recorder.wait()
    QCoreApplication.processEvents()
    assert control.project.path == str(new)
    assert window.history.project_label.text() == f"Project: {new}"
    window.close_discarding()
    assert _runs(new) == [("count", "finished"), ("train", "finished")]
    assert not os.path.exists(old) and not os.path.exists(old + "-wal")


def test_a_renamed_project_is_followed_while_the_window_is_idle(window, qtbot, tmp_path):
    control = window.projects
    train_toy(window, qtbot)
    control.recorder.wait()
    new = tmp_path / "renamed.bpeproj"
    os.rename(control.project.path, new)
    qtbot.waitUntil(lambda: control.project.path == str(new), timeout=5_000)
    qtbot.waitUntil(lambda: window.history.model.rowCount() == 1, timeout=10_000)
    window.close_discarding()
    assert _runs(new) == [("train", "finished")]


def test_a_project_deleted_while_open_is_closed_with_the_reason(window, qtbot, ui):
    control = window.projects
    path = control.project.path
    for name in (path, path + "-wal", path + "-shm"):
        if os.path.exists(name):
            os.remove(name)
    qtbot.waitUntil(lambda: control.project is None, timeout=5_000)
    [(title, message)] = ui.errors
    assert title == "Project moved"
    assert f"{path}: the project file was moved, renamed or deleted" in message
    assert window.history.project_label.text() == "No project open"
    train_toy(window, qtbot)  # trains, records nowhere, and creates no file at the old name
    control.recorder.wait()
    assert not os.path.exists(path)


def test_open_model_finds_the_model_file_of_a_moved_experiment(window, qtbot, ui, tmp_path,
                                                                monkeypatch):
    from bpe_desktop import cli

    made, moved = tmp_path / "made", tmp_path / "sent" / "moved"
    made.mkdir()
    (made / "corpus.txt").write_text("low lower lowest newer newest " * 20, encoding="utf-8")
    monkeypatch.chdir(made)
    assert cli.main(["train", "corpus.txt", "--merges", "10", "-o", "model.json",
                     "--project", "exp.bpeproj"]) == 0
    monkeypatch.chdir(tmp_path)
    shutil.move(made, moved)
    assert window.projects.open_project(str(moved / "exp.bpeproj"), in_worker=False)
    [run_id] = window.projects.project.run_ids()
    window.projects.open_model(run_id)
    assert ui.errors == []
    assert window.document.path == str(moved / "model.json")
    assert window.document.model.merge_count == 10


def test_deleted_runs_can_still_be_undone_after_the_project_moved(window, qtbot, tmp_path):
    control = window.projects
    for _ in range(2):
        train_toy(window, qtbot)
    control.recorder.wait()
    qtbot.waitUntil(lambda: window.history.model.rowCount() == 2, timeout=10_000)
    window.history.table.selectRow(0)
    window.history.delete_selected()
    qtbot.waitUntil(lambda: window.history.model.rowCount() == 1, timeout=10_000)
    new = tmp_path / "renamed.bpeproj"
    os.rename(control.project.path, new)
    qtbot.waitUntil(lambda: control.project.path == str(new), timeout=5_000)
    window.history.undo_delete()
    qtbot.waitUntil(lambda: window.history.model.rowCount() == 2, timeout=10_000)
    assert window.history.project_label.text() == f"Project: {new}"
    assert window.settings.value("projects/last") == str(new)
