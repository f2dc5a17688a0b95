"""The report's comparison of runs: each run's figure of several gold files is the mean
of their values, worked out by hand."""

from __future__ import annotations

import pytest

from bpe_desktop.core.project import Metric, Project
from bpe_desktop.core.project.report import build_report


def test_runs_compare_the_mean_over_their_gold_files(tmp_path):
    with Project(tmp_path / "p.bpeproj") as project:
        ids = []
        for f1s in ((0.5, 0.7), (0.4,)):  # two gold files, then one
            run = project.start_run("evaluate")
            project.finish_run(run, "finished", metrics=[
                Metric("vocab_size", 1000), Metric("fertility", 1.5, "text"),
                *(Metric("f1", f1, f"gold{k}.tsv") for k, f1 in enumerate(f1s))])
            ids.append(run)
        overview = build_report(project, ids).sections[0]
    table = overview.blocks[1]
    assert table.head == ("run", "vocabulary", "f1", "fertility")
    # run 1: (0.5 + 0.7) / 2; run 2: its one file's F1
    assert [row[2] for row in table.rows] == [pytest.approx(0.6), 0.4]
    assert [row[3] for row in table.rows] == [1.5, 1.5]
