"""Running a recorded run again: its training options name the files it read, found from
the folder its command ran in, and its input files that are gone or changed are told."""

from __future__ import annotations

import hashlib
import os

from bpe_desktop.core.project import Project, recorded_run
from bpe_desktop.core.project.commands import command_record
from bpe_desktop.core.config import TrainConfig
from bpe_desktop.core.project.rerun import (
    file_languages,
    input_problems,
    recorded_training_config,
)


def _record(tmp_path, config: dict, inputs=(), cwd: str | None = None):
    with Project(tmp_path / "p.bpeproj") as project:
        with recorded_run(project, "train", config=config, inputs=inputs,
                          command=command_record(["train"], cwd=cwd)) as run:
            pass
        return project.run_details(run.id)


def test_files_the_options_name_are_found_from_the_folder_the_command_ran_in(tmp_path):
    folder = tmp_path / "work"
    (folder / "dev").mkdir(parents=True)
    (folder / "dev.tsv").write_text("en\tde\n", encoding="utf-8")
    details = _record(tmp_path, {
        "vocab_size": 300,
        "lang": ["en=eng.txt", "de=/data/deu.txt"],
        "weight": ["en=2", "de=1"],
        "gold_boundaries": ["gold/eng.tsv", "/gold/deu.tsv"],
        "morfessor": True, "morfessor_annotations": ["ann.txt"],
        "knockout": ["ko.tsv"],
        "parity_dev": ["en=dev.en", "dev.tsv", "dev"],
    }, cwd=str(folder))
    config = recorded_training_config(details)
    assert config.lang == (f"en={folder}/eng.txt", "de=/data/deu.txt")
    assert config.weight == ("en=2", "de=1")  # weights name no file
    assert config.gold_boundaries == (f"{folder}/gold/eng.tsv", "/gold/deu.tsv")
    assert config.morfessor_annotations == (f"{folder}/ann.txt",)
    assert config.knockout == (f"{folder}/ko.tsv",)
    # CODE=PATH, one table with a column per language, a folder of files named by language
    assert config.parity_dev == (f"en={folder}/dev.en", f"{folder}/dev.tsv", f"{folder}/dev")
    assert config.vocab_size == 300


def test_a_run_without_a_command_keeps_its_options_as_recorded(tmp_path):
    with Project(tmp_path / "p.bpeproj") as project:
        with recorded_run(project, "train", config={"lang": ["en=a.txt", "de=b.txt"]}) as run:
            pass
        details = project.run_details(run.id)
    assert recorded_training_config(details).lang == ("en=a.txt", "de=b.txt")


def test_a_language_given_as_a_folder_labels_each_of_its_files(tmp_path):
    (tmp_path / "en").mkdir()
    for name in ("b.txt", "a.txt"):
        (tmp_path / "en" / name).write_text("low lower\n", encoding="utf-8")
    (tmp_path / "de.txt").write_text("los\n", encoding="utf-8")
    config = TrainConfig(lang=(f"en={tmp_path}/en", f"de={tmp_path}/de.txt"), temperature=2.0)
    assert file_languages(config, word_counts=False) == (
        f"en={tmp_path}/en/a.txt", f"en={tmp_path}/en/b.txt", f"de={tmp_path}/de.txt")


def test_inputs_gone_or_changed_since_the_run_are_named_with_both_checksums(tmp_path):
    same, changed, gone = (tmp_path / n for n in ("same.txt", "changed.txt", "gone.txt"))
    for path in (same, changed, gone):
        path.write_text("low lower\n", encoding="utf-8")
    details = _record(tmp_path, {}, inputs=[("corpus", str(p)) for p in (same, changed, gone)])
    changed.write_text("low lowest\n", encoding="utf-8")  # same size, other content
    os.unlink(gone)
    problems = input_problems(details)
    assert [(p.input.path, p.gone) for p in problems] == [(str(changed), False),
                                                           (str(gone), True)]
    then = hashlib.sha256(b"low lower\n").hexdigest()
    now = hashlib.sha256(b"low lowest\n").hexdigest()
    assert problems[0].now_sha256 == now
    assert problems[0].describe() == (f"{changed}: changed since (SHA-256 {then[:12]}… then, "
                                      f"{now[:12]}… now)")
    assert problems[1].describe() == f"{gone}: no longer there (moved or deleted)"


def test_a_model_file_written_over_since_the_run_is_told(tmp_path):
    from bpe_desktop.core.model_file import save_model
    from bpe_desktop.core.project.rerun import model_file_changed
    from bpe_desktop.core.training import Corpus, train

    path = tmp_path / "model.json"
    models = [train(Corpus.from_texts(["low lower lowest newer"] * 3),
                    TrainConfig(merges=n)).model for n in (3, 5)]
    with Project(tmp_path / "p.bpeproj") as project:
        ids = []
        for model in models:  # the second run is given the same output
            with recorded_run(project, "train") as run:
                save_model(model, path)
                run.set_model(model, path=str(path))
            ids.append(run.id)
        first, second = (project.run_details(i) for i in ids)
    assert first.model_sha256 and first.model_sha256 != second.model_sha256
    assert second.model_sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    assert model_file_changed(first) and not model_file_changed(second)
    os.unlink(path)
    assert not model_file_changed(first)  # gone is not "changed": named as gone


def test_an_input_read_from_standard_input_is_told_as_not_kept(tmp_path):
    copy = tmp_path / "copy"
    copy.write_text("low lower\n", encoding="utf-8")
    with Project(tmp_path / "p.bpeproj") as project:
        with recorded_run(project, "train", inputs=[("corpus", str(copy))],
                          stand_ins={str(copy): "<stdin>"}) as run:
            pass
        details = project.run_details(run.id)
    copy.unlink()  # (the command's copy of standard input is gone once it ends)
    assert [(i.path, i.size, i.sha256) for i in details.inputs] == [
        ("<stdin>", 10, hashlib.sha256(b"low lower\n").hexdigest())]
    [problem] = input_problems(details)
    assert problem.describe() == ("<stdin>: the run read standard input, which is not "
                                  "kept; give the text as a file")
