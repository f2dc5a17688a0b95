"""A run's files moved with its project are found again at the same place relative to the
project's folder, and taken only with their recorded SHA-256."""

from __future__ import annotations

import shutil

from bpe_desktop.core.project import Project, recorded_run
from bpe_desktop.core.project.commands import command_record
from bpe_desktop.core.project.rerun import inputs_found, recorded_training_config


def _experiment(folder):
    """A project in ``folder`` and a window's training of files in its ``data`` folder,
    recorded while the window ran in another folder; the project file's path."""
    data = folder / "data"
    data.mkdir(parents=True)
    for name, text in (("eng.txt", "low lower lowest\n"), ("deu.txt", "tief tiefer\n"),
                       ("gold.tsv", "lowest\tlow est\n")):
        (data / name).write_text(text, encoding="utf-8")
    project = folder / "p.bpeproj"
    config = {"lang": [f"en={data / 'eng.txt'}", f"de={data / 'deu.txt'}"],
              "gold_boundaries": [str(data / "gold.tsv")], "vocab_size": 300}
    argv = ["train", "-o", "model.json", f"--lang=en={data / 'eng.txt'}",
            f"--lang=de={data / 'deu.txt'}", f"--gold-boundaries={data / 'gold.tsv'}"]
    with Project(project) as opened, recorded_run(
            opened, "train", config=config,
            command=command_record(argv, cwd=str(folder.parent.parent)),
            inputs=[("corpus", str(data / "eng.txt"), "en"),
                    ("corpus", str(data / "deu.txt"), "de"),
                    ("boundaries", str(data / "gold.tsv"))]):
        pass
    return project


def _details(project):
    with Project(project) as opened:
        return opened.run_details(opened.run_ids()[0])


def test_files_moved_with_the_project_are_named_where_they_are_now(tmp_path):
    before, after = tmp_path / "sent" / "before", tmp_path / "received"
    project = _experiment(before)
    shutil.move(before, after)
    project = after / "p.bpeproj"
    details, moved, problems = inputs_found(_details(project), str(project))
    assert problems == []
    data = after / "data"
    names = ("deu.txt", "eng.txt", "gold.tsv")
    assert sorted(i.path for i in details.inputs) == [str(data / n) for n in names]
    assert sorted(moved.found) == [(str(before / "data" / n), str(data / n)) for n in names]
    config = recorded_training_config(details)
    assert config.lang == (f"en={data / 'eng.txt'}", f"de={data / 'deu.txt'}")
    assert config.gold_boundaries == (str(data / "gold.tsv"),)
    assert details.command["argv"][3:] == [f"--lang=en={data / 'eng.txt'}",
                                           f"--lang=de={data / 'deu.txt'}",
                                           f"--gold-boundaries={data / 'gold.tsv'}"]
    assert details.command["argv"][:3] == ["train", "-o", "model.json"]


def test_a_moved_file_with_other_content_is_not_taken_for_the_run_s(tmp_path):
    before, after = tmp_path / "before", tmp_path / "after"
    _experiment(before)
    shutil.move(before, after)
    (after / "data" / "gold.tsv").write_text("lowest\tlowe st\n", encoding="utf-8")
    _, moved, problems = inputs_found(_details(after / "p.bpeproj"),
                                      str(after / "p.bpeproj"))
    assert moved is None
    assert sorted((p.input.path, p.gone) for p in problems) == [
        (str(before / "data" / n), True) for n in ("deu.txt", "eng.txt", "gold.tsv")]


def test_files_still_where_the_run_read_them_are_not_looked_for_elsewhere(tmp_path):
    before = tmp_path / "before"
    project = _experiment(before)
    shutil.copytree(before, tmp_path / "copy")  # a copy: the run's files are still there
    details, moved, problems = inputs_found(_details(tmp_path / "copy" / "p.bpeproj"),
                                            str(tmp_path / "copy" / "p.bpeproj"))
    assert moved is None and problems == []
    assert [i.path for i in details.inputs] == [i.path for i in _details(project).inputs]
