"""The window and command lines (``--project``) recording into one project file at the
same time: every run of each is kept, finished, and none of them meets "database is
locked"."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from bpe_desktop.core.project import Project
from tests.ui.window_helpers import train_toy

pytest_plugins = ["tests.ui.window_fixtures"]

ROOT = Path(__file__).resolve().parents[2]
COMMANDS, RUNS_EACH, WINDOW_RUNS = 3, 6, 4

#: A shell's loop of `count --project` runs, as a separate program.
LOOP = """
import sys
from bpe_desktop.cli import main
corpus, project, out, runs = sys.argv[1:]
for i in range(int(runs)):
    status = main(["count", corpus, "-o", f"{out}-{i}.tsv", "-q", "--project", project])
    if status:
        sys.exit(status)
"""


def test_the_window_and_command_lines_record_into_one_project_at_once(window, qtbot, tmp_path):
    path = tmp_path / "shared.bpeproj"
    assert window.projects.open_project(str(path), in_worker=False)
    window.tabs.setCurrentWidget(window.history)  # History reads as others write
    corpus = tmp_path / "c.txt"
    corpus.write_text("low lower lowest newer newest\n" * 200, encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    commands = [subprocess.Popen([sys.executable, "-c", LOOP, str(corpus), str(path),
                                  str(tmp_path / f"t{n}"), str(RUNS_EACH)], env=env,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                for n in range(COMMANDS)]
    for _ in range(WINDOW_RUNS):
        train_toy(window, qtbot)
    outcomes = [c.communicate(timeout=300) for c in commands]
    assert [c.returncode for c in commands] == [0] * COMMANDS, outcomes
    assert not any("locked" in err or "Traceback" in err for _, err in outcomes), outcomes
    window.projects.recorder.wait()
    total = COMMANDS * RUNS_EACH + WINDOW_RUNS
    qtbot.waitUntil(lambda: window.history.model.rowCount() == total, timeout=10_000)
    window.close_discarding()
    with Project(path) as project:
        runs = [project.run_details(i).summary for i in project.run_ids()]
        assert project.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert sorted((r.kind, r.status) for r in runs) == sorted(
        [("count", "finished")] * COMMANDS * RUNS_EACH + [("train", "finished")] * WINDOW_RUNS)
