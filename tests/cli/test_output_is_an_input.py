"""An output file that is one of the command's inputs is refused before any work, whatever
way the input was given: inside a folder or a glob pattern, as a language's folder, or as
a gold, protected-strings or development file. The input stays as it was."""

from __future__ import annotations

import pytest

from tests.cli.support import CORPUS, assert_one_error_line, run


@pytest.fixture
def folder(tmp_path):
    path = tmp_path / "texts"
    path.mkdir()
    for name in ("a.txt", "b.txt"):
        (path / name).write_text(CORPUS, encoding="utf-8")
    return path


def _refused(capsys, argv, kept):
    before = kept.read_bytes()
    status, out, err = run(capsys, *argv)
    assert status == 1 and out == ""
    assert_one_error_line(err, str(kept), "refusing to overwrite it")
    assert kept.read_bytes() == before


@pytest.mark.parametrize("given", ["{folder}", "{folder}/*.txt"])
def test_count_into_a_file_of_a_folder_or_pattern_it_reads(capsys, folder, given):
    _refused(capsys, ["count", given.format(folder=folder), "-o", folder / "b.txt", "-q"],
             folder / "b.txt")


def test_train_into_a_file_of_a_language_folder(capsys, folder, corpus):
    _refused(capsys, ["train", "--lang", f"en={folder}", f"de={corpus}", "-o",
                      folder / "a.txt", "--merges", "5", "-q"], folder / "a.txt")


@pytest.mark.parametrize("option, content", [
    ("--gold-boundaries", "lowest\tlow est\n"),
    ("--protect", "newest\n"),
])
def test_train_into_a_constraint_file(capsys, tmp_path, corpus, option, content):
    given = tmp_path / "given.tsv"
    given.write_text(content, encoding="utf-8")
    _refused(capsys, ["train", corpus, option, given, "-o", given, "--merges", "5", "-q"],
             given)


def test_train_into_a_development_file(capsys, tmp_path, corpus):
    dev_en, dev_de = tmp_path / "dev.en", tmp_path / "dev.de"
    dev_en.write_text("the lowest\n", encoding="utf-8")
    dev_de.write_text("der niedrigste\n", encoding="utf-8")
    _refused(capsys, ["train", "--lang", f"en={corpus}", f"de={corpus}", "--parity-dev",
                      f"en={dev_en}", f"de={dev_de}", "-o", dev_en, "--merges", "5", "-q"],
             dev_en)


@pytest.mark.parametrize("command", [
    ["export", "-m", "{model}", "--format", "subword-nmt", "--verify", "{text}"],
    ["extend", "-m", "{model}", "{corpus}", "--merges", "3", "--held-out", "{text}"],
    ["extend", "-m", "{model}", "{corpus}", "--merges", "3", "--out-format", "subword-nmt",
     "--verify", "{text}"],
    ["trim", "-m", "{model}", "--text", "{corpus}", "--id-map", "{tmp}/map.json",
     "--held-out", "{text}"],
])
def test_writing_over_the_text_it_verifies_or_reports_on(capsys, tmp_path, corpus, trained,
                                                         command):
    text = tmp_path / "held_out.txt"
    text.write_text("the lowest of the new\n", encoding="utf-8")
    names = dict(model=trained, corpus=corpus, text=text, tmp=tmp_path)
    _refused(capsys, [*(a.format(**names) for a in command), "-o", text, "-q"], text)


def test_trim_s_id_map_over_a_held_out_text(capsys, tmp_path, corpus, trained):
    text = tmp_path / "held_out.csv"
    text.write_text("the lowest of the new\n", encoding="utf-8")
    _refused(capsys, ["trim", "-m", trained, "--text", corpus, "--id-map",
                      tmp_path / "held_out.json", "--held-out", text, "-o",
                      tmp_path / "t.json", "-q"], text)


@pytest.mark.parametrize("exists", [True, False])
def test_writing_over_the_project_that_records_the_run(capsys, tmp_path, corpus, exists):
    project = tmp_path / "runs.bpeproj"
    if exists:
        assert run(capsys, "count", corpus, "-o", tmp_path / "t.tsv", "-q", "--project",
                   project)[0] == 0
        _refused(capsys, ["train", corpus, "-o", project, "--merges", "5", "-q",
                          "--project", project], project)
        assert "count" in run(capsys, "history", project)[1]
    else:
        status, _, err = run(capsys, "train", corpus, "-o", project, "--merges", "5", "-q",
                             "--project", project)
        assert status == 1
        assert_one_error_line(err, str(project), "--project")
        assert not project.exists()


@pytest.mark.parametrize("where", ["corpus", "model", "under a file"])
def test_morfessor_s_segmentation_is_checked_before_training(capsys, tmp_path, corpus, where):
    model = tmp_path / "m.json"
    model.write_text("previous", encoding="utf-8")
    segmentation = {"corpus": corpus, "model": model,
                    "under a file": corpus / "segmentation.tsv"}[where]
    before = corpus.read_bytes()
    status, out, err = run(capsys, "train", corpus, "-o", model, "--merges", "5", "-q",
                           "--morfessor", "--save-segmentation", segmentation)
    assert status == 1 and out == ""
    assert_one_error_line(err, str(segmentation))
    assert model.read_text(encoding="utf-8") == "previous"
    assert corpus.read_bytes() == before


@pytest.mark.parametrize("fmt, model_name", [
    ("tiktoken", "g.json"),  # the settings file beside the ranks g
    ("gpt2", "g-vocab.json"),  # the vocab.json of the prefix g
])
def test_export_s_other_files_never_land_on_the_model(capsys, tmp_path, fmt, model_name):
    corpus = tmp_path / "c.txt"
    corpus.write_text("low lower lowest newer newest\n" * 20, encoding="utf-8")
    model = tmp_path / model_name
    assert run(capsys, "train", corpus, "-o", model, "--preset", "gpt2", "--merges", "5",
               "-q")[0] == 0
    before = model.read_bytes()
    status, out, err = run(capsys, "export", "-m", model, "--format", fmt, "-o",
                           tmp_path / "g")
    assert status == 1 and out == ""
    assert_one_error_line(err, str(model), "refusing to overwrite it")
    assert model.read_bytes() == before
    assert {p.name for p in tmp_path.iterdir()} == {"c.txt", model_name}


def test_fastbpe_s_vocabulary_file_never_lands_on_the_verify_text(capsys, tmp_path, trained):
    text = tmp_path / "codes.vocab"
    text.write_text("the lowest of the new\n", encoding="utf-8")
    corpus = tmp_path / "c.txt"
    corpus.write_text("low lower lowest newer newest\n" * 20, encoding="utf-8")
    model = tmp_path / "snmt.json"
    assert run(capsys, "train", corpus, "-o", model, "--preset", "subword-nmt", "--merges",
               "5", "-q")[0] == 0
    _refused(capsys, ["export", "-m", model, "--format", "fastbpe", "--with-vocab", "-o",
                      tmp_path / "codes", "--verify", text], text)


def test_extend_s_tiktoken_settings_file_never_lands_on_the_source(capsys, tmp_path, corpus):
    source = tmp_path / "g.json"
    assert run(capsys, "train", corpus, "-o", source, "--preset", "gpt2", "--merges", "5",
               "-q")[0] == 0
    _refused(capsys, ["extend", "-m", source, corpus, "--merges", "3", "--out-format",
                      "tiktoken", "-o", tmp_path / "g", "-q"], source)


@pytest.mark.parametrize("fmt, source, written", [
    ("gpt2", "gp", "gp-vocab.json"),  # the prefix's vocab.json
    ("tiktoken", "tk", "tk.json"),  # the settings beside the ranks
])
def test_import_never_writes_over_a_file_it_reads(capsys, tmp_path, corpus, fmt, source,
                                                   written):
    model = tmp_path / "g.json"
    assert run(capsys, "train", corpus, "-o", model, "--preset", "gpt2", "--merges", "5",
               "-q")[0] == 0
    assert run(capsys, "export", "-m", model, "--format", fmt, "-o", tmp_path / source,
               "-q")[0] == 0
    _refused(capsys, ["import", "--format", fmt, tmp_path / source, "-o",
                      tmp_path / written, "-q"], tmp_path / written)


def test_extend_never_writes_over_a_tiktoken_source_s_settings(capsys, tmp_path, corpus):
    model = tmp_path / "g.json"
    assert run(capsys, "train", corpus, "-o", model, "--preset", "gpt2", "--merges", "5",
               "-q")[0] == 0
    assert run(capsys, "export", "-m", model, "--format", "tiktoken", "-o", tmp_path / "tk",
               "-q")[0] == 0
    _refused(capsys, ["extend", "-m", tmp_path / "tk", "--format", "tiktoken", corpus,
                      "--merges", "3", "--out-format", "model", "-o", tmp_path / "tk.json",
                      "-q"], tmp_path / "tk.json")


def test_a_transformers_folder_s_files_never_land_on_the_model(capsys, tmp_path):
    corpus = tmp_path / "c.txt"
    corpus.write_text("low lower lowest newer newest\n" * 20, encoding="utf-8")
    folder = tmp_path / "out"
    folder.mkdir()
    model = folder / "tokenizer_config.json"
    assert run(capsys, "train", corpus, "-o", model, "--preset", "gpt2", "--merges", "5",
               "-q")[0] == 0
    before = model.read_bytes()
    status, out, err = run(capsys, "export", "-m", model, "--format", "transformers", "-o",
                           folder)
    assert status == 1 and out == ""
    assert_one_error_line(err, str(model), "refusing to overwrite it")
    assert model.read_bytes() == before
    assert [p.name for p in folder.iterdir()] == ["tokenizer_config.json"]
