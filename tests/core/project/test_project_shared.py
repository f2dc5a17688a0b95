"""One project file used by several connections of one program (the window's History
and its recorder) while other programs (commands with ``--project``) record into it:
every run of each is kept."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from bpe_desktop.core.project import Project

ROOT = Path(__file__).resolve().parents[3]

#: Another program recording runs, opening the project for each as a command does.
RECORD = """
import sys
from bpe_desktop.core.project import Project
for i in range(5):
    with Project(sys.argv[1]) as project:
        project.finish_run(project.start_run("count"), "finished")
"""


def test_a_second_connection_and_other_programs_lose_no_run(tmp_path):
    # Opening the file a second time once read its header through a descriptor of its
    # own; closing that dropped every lock the first connection held, so the other
    # programs' SQLite deleted the journal this one still wrote to: runs were lost.
    path = tmp_path / "p.bpeproj"
    history = Project(path)
    recorder = Project(path)
    for _ in range(3):
        subprocess.run([sys.executable, "-c", RECORD, str(path)], check=True, cwd=ROOT,
                       env=dict(os.environ, PYTHONPATH=str(ROOT)))
        recorder.finish_run(recorder.start_run("train"), "finished")
    assert len(history.run_ids()) == 18
    history.close()
    recorder.close()
    with Project(path) as project:
        assert project.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        kinds = [project.run_details(i).summary.kind for i in project.run_ids()]
    assert sorted(kinds) == ["count"] * 15 + ["train"] * 3
