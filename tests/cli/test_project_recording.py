"""``--project``: every command records its run; ``history`` lists them; a run's
recorded command reproduces it."""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import sqlite3

import pytest

from tests.cli.support import assert_one_error_line, run


@pytest.fixture
def gold(tmp_path):
    path = tmp_path / "gold.txt"
    path.write_text("lowest\tlow est\nnewer\tnew er\n", encoding="utf-8")
    return path


def history(capsys, project) -> list[dict]:
    status, out, err = run(capsys, "history", project, "--json")
    assert status == 0, err
    return json.loads(out)["runs"]


def test_each_command_records_its_run(capsys, tmp_path, corpus, gold):
    p = tmp_path / "p.bpeproj"
    m1, m2 = tmp_path / "m1.json", tmp_path / "m2.json"
    assert run(capsys, "train", corpus, "-o", m1, "--merges", "10", "-q", "--project", p)[0] == 0
    assert run(capsys, "train", corpus, "-o", m2, "--preset", "subword-nmt", "--merges", "14",
               "-q", "--project", p)[0] == 0
    assert run(capsys, "evaluate", "-m", m1, "--gold", gold, "--text", corpus, "--sweep", "3",
               "--project", p)[0] == 0
    assert run(capsys, "compare", "-m", m1, "-m", m2, "--text", corpus, "--project", p)[0] == 0
    assert run(capsys, "count", corpus, "-o", tmp_path / "t.tsv", "-q", "--project", p)[0] == 0
    runs = history(capsys, p)
    assert [r["kind"] for r in runs] == ["train", "train", "evaluate", "compare", "count"]
    assert all(r["status"] == "finished" for r in runs)
    train1, train2, evaluation, comparison, count = runs
    assert train1["config"]["merges"] == 10 and train2["preset"] == "subword-nmt"
    assert train1["model"] == {"path": str(m1), "stored": False,
                               "sha256": hashlib.sha256(m1.read_bytes()).hexdigest()}
    assert train1["inputs"][0]["path"] == str(corpus)
    # An evaluation keeps how its model was trained, to be plotted against.
    assert evaluation["config"]["model.merges"] == 10 and evaluation["config"]["sweep"] == 3
    metrics = {(m["metric"], m["source"], m["vocab_size"]): m["value"]
               for m in evaluation["metrics"]}
    status, out, _ = run(capsys, "evaluate", "-m", m1, "--gold", gold, "--text", corpus,
                         "--json")
    printed = json.loads(out)
    assert metrics[("f1", "gold.txt", None)] == printed["morphology"]["gold.txt"]["f1"]
    assert metrics[("fertility", "text", None)] == printed["text"]["fertility"]
    assert len({k[2] for k in metrics if k[2] is not None}) == 3  # the sweep's points
    assert {"agreement_f1", "identical_words"} <= {m["metric"] for m in comparison["metrics"]}
    assert {m["metric"]: m["value"] for m in count["metrics"]}["total_words"] == 25  # 5+2+6+3+9


def test_history_json_gives_counts_as_integers_as_evaluate_json_does(capsys, tmp_path,
                                                                     corpus):
    p, model = tmp_path / "p.bpeproj", tmp_path / "m.json"
    assert run(capsys, "train", corpus, "-o", model, "--merges", "10", "-q", "--project",
               p)[0] == 0
    assert run(capsys, "evaluate", "-m", model, "--text", corpus, "--project", p)[0] == 0
    status, out, _ = run(capsys, "history", p, "--json")
    assert '"value": 10,' in out and '"value": 10.0' not in out  # the merges
    training, evaluation = json.loads(out)["runs"]
    recorded = {m["metric"]: m["value"] for m in evaluation["metrics"] if m["source"] == "text"}
    printed = json.loads(run(capsys, "evaluate", "-m", model, "--text", corpus, "--json")[1])
    assert recorded == printed["text"]
    for key in ("tokens", "words"):
        assert type(recorded[key]) is int and recorded[key] == printed["text"][key]
    assert {m["metric"]: m["value"] for m in training["metrics"]}["merges"] == 10


def test_a_failing_run_is_recorded_as_failed_with_its_message(capsys, tmp_path, corpus):
    p = tmp_path / "p.bpeproj"
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"caf\xe9 ok\n")
    status, _, err = run(capsys, "train", bad, "-o", tmp_path / "m.json", "--project", p, "-q")
    assert status == 1
    [recorded] = history(capsys, p)
    assert recorded["status"] == "failed"
    assert "bad.txt" in recorded["message"] and "UTF-8" in recorded["message"]
    assert recorded["metrics"] == [] and recorded["model"] is None


def test_a_training_on_languages_records_each_language_file_with_its_language(
        capsys, tmp_path, corpus):
    p = tmp_path / "p.bpeproj"
    folder = tmp_path / "de"
    folder.mkdir()
    (folder / "a.txt").write_text("die neue Welt\n", encoding="utf-8")
    (folder / "b.txt").write_text("der neueste Tag\n", encoding="utf-8")
    status, _, err = run(capsys, "train", "--lang", f"en={corpus}", f"de={folder}",
                         "--temperature", "2", "--merges", "10", "-o", tmp_path / "m.json",
                         "-q", "--project", p)
    assert status == 0, err
    [recorded] = history(capsys, p)
    assert [(i["role"], i["path"], i["language"]) for i in recorded["inputs"]] == [
        ("corpus", str(corpus), "en"), ("corpus", str(folder / "a.txt"), "de"),
        ("corpus", str(folder / "b.txt"), "de")]
    status, out, _ = run(capsys, "history", p)
    assert "corpus.txt, a.txt, b.txt" in out


def test_history_lists_runs_as_a_table(capsys, tmp_path, corpus):
    p = tmp_path / "p.bpeproj"
    run(capsys, "train", corpus, "-o", tmp_path / "m.json", "--merges", "3", "-q",
        "--project", p)
    status, out, err = run(capsys, "history", p, "--kind", "train")
    assert status == 0, err
    head, row = out.splitlines()[1:3]
    assert head.split()[:3] == ["id", "kind", "status"]
    assert row.split()[:3] == ["1", "train", "finished"]
    status, out, _ = run(capsys, "history", p, "--kind", "count")
    assert out.startswith("0 run(s)")


def test_the_recorded_command_reproduces_the_model(capsys, tmp_path, corpus, monkeypatch):
    monkeypatch.chdir(tmp_path)
    p = tmp_path / "p.bpeproj"
    run(capsys, "train", "corpus.txt", "-o", "first.json", "--vocab-size", "40", "--ties",
        "lexicographic", "-q", "--project", str(p))
    [recorded] = history(capsys, p)
    words = shlex.split(recorded["command"])
    assert words[:4] == ["cd", str(tmp_path), "&&", "bpe-desktop"]
    argv = [("again.json" if w == "first.json" else w) for w in words[4:]]
    monkeypatch.chdir("/")
    os.chdir(words[1])
    assert run(capsys, *argv)[0] == 0
    first = json.loads((tmp_path / "first.json").read_text())
    again = json.loads((tmp_path / "again.json").read_text())
    assert first["merges"] == again["merges"] and first["config"] == again["config"]
    assert [r["status"] for r in history(capsys, p)] == ["finished", "finished"]


def test_a_training_reading_invalid_utf8_as_replacement_is_reproduced_by_its_command(
        capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.txt").write_bytes(b"the caf\xe9 was na\xefve, the caf\xe9 new\n" * 9)
    p = tmp_path / "p.bpeproj"
    assert run(capsys, "train", "bad.txt", "-o", "first.json", "--merges", "12",
               "--encoding-errors", "replace", "-q", "--project", str(p))[0] == 0
    [recorded] = history(capsys, p)
    assert recorded["config"]["encoding_errors"] == "replace"
    words = shlex.split(recorded["command"])
    assert run(capsys, *[("again.json" if w == "first.json" else w) for w in words[4:]])[0] == 0
    first = json.loads((tmp_path / "first.json").read_text())
    again = json.loads((tmp_path / "again.json").read_text())
    assert "\ufffd" in first["alphabet"] and first["merges"] == again["merges"]


@pytest.mark.parametrize("content, words", [
    (b"just text\n", ("not an SQLite database",)),
    (None, ("no such project",)),
])
def test_history_of_a_bad_file_is_one_line(capsys, tmp_path, content, words):
    path = tmp_path / "x.bpeproj"
    if content is not None:
        path.write_bytes(content)
    status, _, err = run(capsys, "history", path)
    assert status == 1
    assert_one_error_line(err, str(path), *words)


def test_a_project_from_a_newer_version_stops_the_command_before_it_runs(
        capsys, tmp_path, corpus):
    p = tmp_path / "p.bpeproj"
    run(capsys, "count", corpus, "-o", tmp_path / "t.tsv", "-q", "--project", p)
    with sqlite3.connect(p) as c:
        c.execute("PRAGMA user_version = 99")
    status, _, err = run(capsys, "train", corpus, "-o", tmp_path / "m.json", "-q",
                         "--project", p)
    assert status == 1
    assert_one_error_line(err, "newer BPE Desktop")
    assert not (tmp_path / "m.json").exists()


@pytest.mark.parametrize("options, roles", [
    (["--gold-boundaries", "{gold}", "--knockout", "{gold}"],
     [("boundaries", "{gold}"), ("boundaries", "{gold}")]),
    (["--lang", "en={corpus}", "de={de}", "--parity-dev", "en={corpus}", "de={de}",
      "--parity-dev-documents"], [("dev", "{corpus}"), ("dev", "{de}")]),
    (["--lang", "en={corpus}", "de={de}", "--parity-dev", "{table}"], [("dev", "{table}")]),
], ids=["gold-boundaries-and-knockout", "parity-development-files", "parity-table"])
def test_a_training_records_the_files_it_reads_besides_its_corpus(
        capsys, tmp_path, corpus, gold, options, roles):
    de = tmp_path / "de.txt"
    de.write_text("die neue Welt\nder neueste Tag\n", encoding="utf-8")
    table = tmp_path / "dev.tsv"
    table.write_text("en\tde\nlow lower\tdie neue Welt\n", encoding="utf-8")
    names = {"gold": gold, "corpus": corpus, "de": de, "table": table}
    p = tmp_path / "p.bpeproj"
    argv = [o.format(**names) for o in options]
    files = [] if "--lang" in argv else [corpus]
    status, _, err = run(capsys, "train", *files, *argv, "--merges", "10",
                         "-o", tmp_path / "m.json", "-q", "--project", p)
    assert status == 0, err
    [recorded] = history(capsys, p)
    others = [(i["role"], i["path"]) for i in recorded["inputs"] if i["role"] != "corpus"]
    assert others == [(role, path.format(**names)) for role, path in roles]
    status, out, _ = run(capsys, "history", p)
    assert "gold.txt" not in out and "dev.tsv" not in out  # the Corpus column: the corpus


def test_history_gives_the_checksum_of_the_model_file_each_run_wrote(capsys, tmp_path,
                                                                     corpus):
    p, model = tmp_path / "p.bpeproj", tmp_path / "model.json"
    for merges in ("5", "9"):  # the second run writes over the first one's model
        assert run(capsys, "train", corpus, "-o", model, "--merges", merges, "-q",
                   "--project", p)[0] == 0
    first, second = (r["model"] for r in history(capsys, p))
    assert second["sha256"] == hashlib.sha256(model.read_bytes()).hexdigest()
    assert first["path"] == second["path"] and len(first["sha256"]) == 64
    assert first["sha256"] != second["sha256"]


def test_a_model_written_to_standard_output_is_kept_in_the_project(capsys, tmp_path, corpus):
    from bpe_desktop.core.project import Project
    from bpe_desktop.core.project.run_model import read_run_model, run_model_source

    p = tmp_path / "p.bpeproj"
    status, out, err = run(capsys, "train", corpus, "-o", "-", "--merges", "6", "-q",
                           "--project", p)
    assert status == 0, err
    [recorded] = history(capsys, p)
    assert recorded["model"] == {"path": None, "stored": True, "sha256": None}
    with Project(p) as project:
        kept = read_run_model(run_model_source(project, recorded["id"]))
    assert [[m.left, m.right, m.count] for m in kept.merges] == json.loads(out)["merges"]


def test_a_project_in_a_folder_one_may_not_write_to_says_what_to_do(capsys, tmp_path, corpus,
                                                                    monkeypatch):
    p = tmp_path / "p.bpeproj"
    assert run(capsys, "count", corpus, "-o", tmp_path / "t.tsv", "-q", "--project", p)[0] == 0
    real_connect = sqlite3.connect  # the real error SQLite raises there (root writes anywhere)
    monkeypatch.setattr(sqlite3, "connect", lambda *a, **k: real_connect(
        tmp_path / "no-such-folder" / "x.db", *a[1:], **k))
    status, _, err = run(capsys, "train", corpus, "-o", tmp_path / "m.json", "-q",
                         "--project", p)
    assert status == 1
    assert_one_error_line(err, str(p), "copy the project to a folder you may write to")
    assert "unable to open database file" not in err
    assert not (tmp_path / "m.json").exists()
