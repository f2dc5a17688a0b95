"""A project file renamed, moved to another folder or deleted while a program has it
open: the runs recorded before and after stay in the file where it is now, or the next
write says what happened."""

from __future__ import annotations

import os

import pytest

from bpe_desktop.core.project import Metric, Project, ProjectError

def _statuses(path) -> list[tuple[int, str]]:
    with Project(path) as project:
        return [(i, project.run_details(i).summary.status) for i in project.run_ids()]


def test_runs_recorded_before_and_after_a_rename_are_in_the_renamed_file(tmp_path):
    old, new = tmp_path / "old.bpeproj", tmp_path / "sub" / "new.bpeproj"
    new.parent.mkdir()
    project = Project(old)
    first = project.start_run("count")
    project.finish_run(first, "finished", metrics=[Metric("total_words", 7)])
    running = project.start_run("train")  # a training under way while the file moves
    os.rename(old, new)
    project.finish_run(running, "finished")
    assert project.path == str(new)
    later = project.start_run("count")
    project.finish_run(later, "finished")
    project.close()
    assert sorted(os.listdir(tmp_path)) == ["sub"]  # no journal left at the old name
    assert _statuses(new) == [(first, "finished"), (running, "finished"),
                              (later, "finished")]
    with Project(new) as project:
        assert project.run_details(first).metrics == (Metric("total_words", 7.0),)


def test_a_project_deleted_while_open_is_named_at_the_next_write(tmp_path):
    path = tmp_path / "p.bpeproj"
    project = Project(path)
    run = project.start_run("count")
    for name in os.listdir(tmp_path):
        os.remove(tmp_path / name)
    with pytest.raises(ProjectError, match=r"p\.bpeproj: the project file was moved, "
                                           "renamed or deleted while it was open"):
        project.finish_run(run, "finished")
    with pytest.raises(ProjectError, match="moved, renamed or deleted"):  # and stays so
        project.start_run("count")
    project.close()
    assert not path.exists()  # not created again, empty, under the old name
