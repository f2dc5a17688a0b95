"""An experiment folder (project, corpus, model file) made with ``train --project`` and
relative paths, then moved or copied elsewhere: the run's model file and corpus are found
again where they are now, and a model file with other content is not taken for the run's."""

from __future__ import annotations

import shutil

import pytest

from bpe_desktop.core.model_file import load_model
from bpe_desktop.core.project import Project, ProjectError
from bpe_desktop.core.project.relocation import moved_model_file
from bpe_desktop.core.project.rerun import inputs_found
from bpe_desktop.core.project.run_model import run_model_source
from tests.cli.support import CORPUS, run


@pytest.fixture
def moved(tmp_path, capsys, monkeypatch):
    """The experiment made in ``made`` and moved to ``moved``; the moved project's path."""
    made = tmp_path / "made"
    made.mkdir()
    (made / "corpus.txt").write_text(CORPUS, encoding="utf-8")
    monkeypatch.chdir(made)
    status, _, err = run(capsys, "train", "corpus.txt", "--merges", "10", "-o", "model.json",
                         "--project", "exp.bpeproj")
    assert status == 0, err
    monkeypatch.chdir(tmp_path)
    shutil.move(made, tmp_path / "moved")
    return tmp_path / "moved" / "exp.bpeproj"


def _source(project_path):
    with Project(project_path) as project:
        [run_id] = project.run_ids()
        details = project.run_details(run_id)
        found = moved_model_file(details, str(project_path))
        return details, run_model_source(project, run_id, moved={run_id: found} if found
                                         else {})


def test_the_model_file_of_a_moved_experiment_is_found_where_it_is_now(moved):
    details, source = _source(moved)
    assert details.model_path == str(moved.parent.parent / "made" / "model.json")
    assert source.own_file and source.path == str(moved.parent / "model.json")
    assert load_model(source.path).merge_count == 10
    found, relocation, problems = inputs_found(details, str(moved))
    assert problems == [] and [i.path for i in found.inputs] == [
        str(moved.parent / "corpus.txt")]


def test_a_model_file_with_other_content_at_the_new_place_is_not_taken(moved, capsys,
                                                                        monkeypatch):
    monkeypatch.chdir(moved.parent)
    status, _, err = run(capsys, "train", "corpus.txt", "--merges", "5", "-o", "model.json")
    assert status == 0, err
    with pytest.raises(ProjectError, match=r"model file .*made/model\.json is gone"):
        _source(moved)
