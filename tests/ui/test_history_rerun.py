"""History's Re-run reproduces a run from what the project recorded: a command-line
training's files are found where its command ran, and a run whose files are gone, changed
or whose folder is gone is named before anything runs."""

from __future__ import annotations

import json
import os
import shutil

import pytest
from PySide6.QtCore import QCoreApplication

from bpe_desktop.cli import main
from bpe_desktop.core.model_file import dumps
from bpe_desktop.core.project import Project

pytest_plugins = ["tests.ui.window_fixtures"]

DATA = os.path.join(os.path.dirname(__file__), "..", "data")


def show_project(window, qtbot, path) -> None:
    window.history.watch.stop()  # (a list read again by it would drop the selection)
    window.projects.open_project(str(path))
    QCoreApplication.processEvents()
    qtbot.waitUntil(lambda: not window.history.model.busy, timeout=10_000)


def select_kind(window, qtbot, kind: str) -> int:
    """Select the newest run of this kind; its id."""
    model = window.history.model
    qtbot.waitUntil(lambda: not model.busy, timeout=10_000)
    row = next(r for r in range(model.rowCount()) if model.run_at(r).kind == kind)
    window.history.table.clearSelection()
    window.history.table.selectRow(row)
    run_id = model.run_at(row).id
    assert window.history.selected_ids() == [run_id]
    return run_id


def declined_rerun_names(window, qtbot, ui, kind: str, changed) -> None:
    """Re-run the newest run of ``kind``, declining when asked; the question names the run
    and the ``changed`` file."""
    run_id = select_kind(window, qtbot, kind)
    ui.yes = False
    window.history.rerun_button.click()
    [(title, text)] = ui.questions
    assert title == "Files changed since the run"
    assert f"Run {run_id} read" in text and f"{changed}: changed since (SHA-256" in text


def without_time(model_text: str) -> dict:
    data = json.loads(model_text)
    data.pop("created")
    return data


def rerun_training_as(window, qtbot, ui, model_file) -> tuple[dict, dict]:
    """Re-run the newest training, with no question or error; the model it made and the
    run's, from ``model_file``, as (again, first)."""
    select_kind(window, qtbot, "train")
    with qtbot.waitSignal(window.document.model_changed, timeout=60_000):
        window.history.rerun_button.click()
    assert not ui.errors and not ui.questions
    again = without_time(dumps(window.document.model))
    first = without_time(model_file.read_text(encoding="utf-8"))
    assert again["merges"] == first["merges"] and again["alphabet"] == first["alphabet"]
    return again, first


THREE = ["--lang", "en=eng.txt", "de=deu.txt", "fr=fra.txt"]


@pytest.mark.parametrize("options", [
    [*THREE, "--weight", "en=2", "de=1", "fr=1", "--gold-boundaries", "gold.tsv"],
    [*THREE, "--parity-dev", "en=eng.txt", "de=deu.txt", "fr=fra.txt",
     "--parity-dev-documents"],
    ["--lang", "en=english", "de=deu.txt", "--temperature", "2"],  # a folder of files
], ids=["weights-and-gold-boundaries", "parity-aware", "a-language-as-a-folder"])
def test_rerun_of_a_command_line_training_reads_the_files_its_options_named(
        window, qtbot, ui, tmp_path, monkeypatch, options):
    work = tmp_path / "work"
    work.mkdir()
    for name in ("eng.txt", "deu.txt", "fra.txt"):
        shutil.copy(os.path.join(DATA, "udhr", name), work / name)
    shutil.copy(os.path.join(DATA, "morph", "eng.word.dev.tsv"), work / "gold.tsv")
    (work / "english").mkdir()
    shutil.copy(work / "eng.txt", work / "english" / "udhr.txt")
    with open(os.path.join(DATA, "ud_english.txt"), encoding="utf-8") as text:
        (work / "english" / "ud.txt").write_text(text.read(20_000), encoding="utf-8")
    monkeypatch.chdir(work)
    assert main(["train", "-o", "model.json", "--vocab-size", "300", "-q", *options,
                 "--project", str(tmp_path / "p.bpeproj")]) == 0
    monkeypatch.chdir(tmp_path)  # the window runs elsewhere than the command did
    show_project(window, qtbot, tmp_path / "p.bpeproj")
    again, first = rerun_training_as(window, qtbot, ui, work / "model.json")
    assert again["constraints"] == first["constraints"]


def test_rerun_asks_before_running_on_a_file_changed_since(window, qtbot, ui, tmp_path):
    corpus = tmp_path / "c.txt"
    corpus.write_text("low lower lowest\n" * 5, encoding="utf-8")
    project = tmp_path / "p.bpeproj"
    assert main(["count", str(corpus), "-o", str(tmp_path / "t.tsv"), "-q",
                 "--project", str(project)]) == 0
    corpus.write_text("low lower newest\n" * 5, encoding="utf-8")  # the same size
    show_project(window, qtbot, project)
    declined_rerun_names(window, qtbot, ui, "count", corpus)
    assert not window.projects.run_again._processes  # nothing runs
    ui.yes = True
    window.history.rerun_button.click()
    qtbot.waitUntil(lambda: not window.projects.run_again._processes, timeout=60_000)
    window.history.on_recorded()
    qtbot.waitUntil(lambda: window.history.model.rowCount() == 2, timeout=10_000)


def _project_moved_with_its_corpus(tmp_path, monkeypatch):
    """A training and a count recorded by commands in ``before``, the folder then moved
    as a whole to ``after``; (before, after)."""
    before, after = tmp_path / "before", tmp_path / "after"
    before.mkdir()
    shutil.copy(os.path.join(DATA, "udhr", "eng.txt"), before / "eng.txt")
    monkeypatch.chdir(before)
    for argv in (["train", "eng.txt", "-o", "m.json", "--merges", "20"],
                 ["count", "eng.txt", "-o", "t.tsv"]):
        assert main([*argv, "-q", "--project", "p.bpeproj"]) == 0
    monkeypatch.chdir(tmp_path)
    shutil.move(before, after)
    return before, after


def test_rerun_after_moving_the_project_with_its_corpus_runs_on_the_moved_files(
        window, qtbot, ui, tmp_path, monkeypatch):
    before, after = _project_moved_with_its_corpus(tmp_path, monkeypatch)
    show_project(window, qtbot, after / "p.bpeproj")
    rerun_training_as(window, qtbot, ui, after / "m.json")
    window.projects.recorder.wait()
    project = window.projects.project
    rerun = project.run_details(max(project.run_ids()))
    assert [i.path for i in rerun.inputs] == [str(after / "eng.txt")]
    assert f"{before / 'eng.txt'} → {after / 'eng.txt'}" in rerun.log

    (after / "t.tsv").unlink()
    select_kind(window, qtbot, "count")
    window.history.rerun_button.click()
    assert "files found in" in window.statusBar().currentMessage()
    qtbot.waitUntil(lambda: not window.projects.run_again._processes, timeout=60_000)
    assert not ui.errors and (after / "t.tsv").is_file()  # written where it ran, now
    assert not before.exists()
    counted = project.run_details(max(project.run_ids()))
    assert counted.summary.kind == "count" and counted.summary.status == "finished"
    assert [i.path for i in counted.inputs] == [str(after / "eng.txt")]


def test_rerun_of_a_window_training_after_moving_its_folder_finds_corpus_and_gold(
        window, qtbot, ui, tmp_path):
    before, after = tmp_path / "before", tmp_path / "after"
    (before / "data").mkdir(parents=True)
    shutil.copy(os.path.join(DATA, "udhr", "eng.txt"), before / "data" / "eng.txt")
    shutil.copy(os.path.join(DATA, "morph", "eng.word.dev.tsv"), before / "data" / "gold.tsv")
    show_project(window, qtbot, before / "p.bpeproj")
    window.training.corpus.add_paths([str(before / "data" / "eng.txt")])
    window.training.options.set_config(window.training.options.config().replace(
        merges=None, vocab_size=300, gold_boundaries=(str(before / "data" / "gold.tsv"),)))
    with qtbot.waitSignal(window.document.model_changed, timeout=60_000):
        assert window.train()
    window.projects.recorder.wait()
    first = dumps(window.document.model)
    (tmp_path / "first.json").write_text(first, encoding="utf-8")
    show_project(window, qtbot, tmp_path / "other.bpeproj")  # (closes the moved one)
    shutil.move(before, after)
    show_project(window, qtbot, after / "p.bpeproj")
    again, _ = rerun_training_as(window, qtbot, ui, tmp_path / "first.json")
    assert again["constraints"] == json.loads(first)["constraints"]
    window.projects.recorder.wait()
    project = window.projects.project
    rerun = project.run_details(max(project.run_ids()))
    assert sorted(i.path for i in rerun.inputs) == [str(after / "data" / n)
                                                   for n in ("eng.txt", "gold.tsv")]
    assert rerun.config["gold_boundaries"] == [str(after / "data" / "gold.tsv")]


def test_rerun_after_moving_the_project_does_not_take_a_changed_file_for_the_run_s(
        window, qtbot, ui, tmp_path, monkeypatch):
    before, after = _project_moved_with_its_corpus(tmp_path, monkeypatch)
    with open(after / "eng.txt", "a", encoding="utf-8") as corpus:
        corpus.write("one more line\n")
    show_project(window, qtbot, after / "p.bpeproj")
    for kind in ("count", "train"):
        ui.errors.clear()
        run_id = select_kind(window, qtbot, kind)
        window.history.rerun_button.click()
        [(title, text)] = ui.errors
        assert title == "Cannot re-run" and f"Run {run_id} read files" in text
        assert f"{before / 'eng.txt'}: no longer there (moved or deleted)" in text
        assert not window.projects.run_again._processes and not window.training.running


def test_rerun_of_a_command_whose_folder_is_gone_says_so(window, qtbot, ui, tmp_path,
                                                         monkeypatch):
    corpus, folder = tmp_path / "c.txt", tmp_path / "gone"
    corpus.write_text("low lower lowest\n", encoding="utf-8")
    folder.mkdir()
    monkeypatch.chdir(folder)
    assert main(["count", str(corpus), "-o", "t.tsv", "-q",
                 "--project", str(tmp_path / "p.bpeproj")]) == 0
    monkeypatch.chdir(tmp_path)
    shutil.rmtree(folder)
    show_project(window, qtbot, tmp_path / "p.bpeproj")
    run_id = select_kind(window, qtbot, "count")
    window.history.rerun_button.click()
    [(title, text)] = ui.errors
    assert title == "Cannot re-run"
    assert text.startswith(f"Run {run_id} ran in {folder}, which is no longer there")
    assert not window.projects.run_again._processes


def test_rerun_of_a_command_that_cannot_start_says_so(window, qtbot, ui, tmp_path,
                                                      monkeypatch):
    corpus = tmp_path / "c.txt"
    corpus.write_text("low lower lowest\n", encoding="utf-8")
    assert main(["count", str(corpus), "-o", str(tmp_path / "t.tsv"), "-q",
                 "--project", str(tmp_path / "p.bpeproj")]) == 0
    show_project(window, qtbot, tmp_path / "p.bpeproj")
    run_id = select_kind(window, qtbot, "count")
    monkeypatch.setattr("sys.executable", str(tmp_path / "no-such-program"))
    window.history.rerun_button.click()
    qtbot.waitUntil(lambda: bool(ui.errors), timeout=10_000)
    [(title, text)] = ui.errors
    assert title == "Cannot re-run" and text.startswith(f"Run {run_id}'s command could not start")
    assert not window.projects.run_again._processes


def test_rerun_of_a_window_training_asks_when_its_gold_file_changed(window, qtbot, ui,
                                                                     tmp_path):
    gold = tmp_path / "gold.tsv"
    shutil.copy(os.path.join(DATA, "morph", "eng.word.dev.tsv"), gold)
    show_project(window, qtbot, tmp_path / "p.bpeproj")
    window.training.corpus.add_paths([os.path.join(DATA, "udhr", "eng.txt")])
    window.training.options.set_config(window.training.options.config().replace(
        merges=None, vocab_size=300, gold_boundaries=(str(gold),)))
    with qtbot.waitSignal(window.document.model_changed, timeout=60_000):
        assert window.train()
    window.projects.recorder.wait()
    window.history.on_recorded()
    qtbot.waitUntil(lambda: window.history.model.rowCount() == 1, timeout=10_000)
    with open(gold, "a", encoding="utf-8") as more:
        more.write("lowest\tlow est\n")
    declined_rerun_names(window, qtbot, ui, "train", gold)
    assert not window.training.running


@pytest.mark.parametrize("preset_options, preset", [
    (["--preset", "gpt2"], "gpt2"), ([], "")], ids=["gpt2", "none"])
def test_a_training_run_again_keeps_its_preset(window, qtbot, ui, tmp_path, preset_options,
                                               preset):
    project = tmp_path / "p.bpeproj"
    assert main(["train", os.path.join(DATA, "udhr", "eng.txt"), *preset_options,
                 "--vocab-size", "300", "-o", str(tmp_path / "m.json"), "-q",
                 "--project", str(project)]) == 0
    show_project(window, qtbot, project)
    window.training.options.apply_preset("sentencepiece")  # what the form showed before
    select_kind(window, qtbot, "train")
    with qtbot.waitSignal(window.document.model_changed, timeout=60_000):
        window.history.rerun_button.click()
    window.projects.recorder.wait()
    first, again = (window.projects.project.run_details(i)
                    for i in window.projects.project.run_ids())
    assert (first.summary.preset, again.summary.preset) == (preset, preset)
    assert again.config == first.config


def test_rerun_records_the_new_run_in_the_project_shown(window, qtbot, ui, tmp_path,
                                                        monkeypatch):
    """A command that named another project (here the one this is a copy of) is run
    again into the project History shows: the new run appears in its table."""
    (tmp_path / "c.txt").write_text("low lower lowest\n" * 5, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["count", "c.txt", "-o", "t.tsv", "-q", "--project", "p.bpeproj"]) == 0
    shutil.copy(tmp_path / "p.bpeproj", tmp_path / "copy.bpeproj")
    show_project(window, qtbot, tmp_path / "copy.bpeproj")
    select_kind(window, qtbot, "count")
    window.history.rerun_button.click()
    qtbot.waitUntil(lambda: not window.projects.run_again._processes, timeout=60_000)
    assert not ui.errors
    window.history.on_recorded()
    qtbot.waitUntil(lambda: window.history.model.rowCount() == 2, timeout=10_000)
    with Project(tmp_path / "p.bpeproj") as original:
        assert len(original.run_ids()) == 1
