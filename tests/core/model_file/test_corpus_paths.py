"""Corpus files named by a model file: relative to the model's folder when near it (so
an experiment folder moved or copied as a whole still names them), absolute otherwise;
older files naming a file relative to the folder their command ran in still load."""

from __future__ import annotations

import json
import os
import shutil

from bpe_desktop.core import Corpus, TrainConfig, train
from bpe_desktop.core.model import CorpusFile, CorpusInfo
from bpe_desktop.core.model_file import load_model, save_model
from tests.core.model_file.helpers import small_model


def _written(path) -> list[str]:
    return [f["path"] for f in json.loads(path.read_text(encoding="utf-8"))["corpus"]["files"]]


def test_a_moved_experiment_folder_names_its_corpus_where_it_is_now(tmp_path, monkeypatch):
    made = tmp_path / "made"
    (made / "corpora").mkdir(parents=True)
    (made / "models").mkdir()
    (made / "corpora" / "c.txt").write_text("low lower lowest newer\n" * 5, encoding="utf-8")
    (made / "models" / "c.txt").write_text("low\n", encoding="utf-8")
    monkeypatch.chdir(made)  # the paths given relative to it, as on a command line
    model = train(Corpus.from_files(["corpora/c.txt", "models/c.txt"]),
                  TrainConfig(merges=5)).model
    assert [f.path for f in model.corpus.files] == [str(made / "corpora" / "c.txt"),
                                                    str(made / "models" / "c.txt")]
    save_model(model, made / "models" / "m.json")
    assert _written(made / "models" / "m.json") == ["../corpora/c.txt", "c.txt"]
    monkeypatch.chdir(tmp_path)
    shutil.move(made, tmp_path / "elsewhere")
    loaded = load_model(tmp_path / "elsewhere" / "models" / "m.json")
    paths = [f.path for f in loaded.corpus.files]
    assert paths == [str(tmp_path / "elsewhere" / "corpora" / "c.txt"),
                     str(tmp_path / "elsewhere" / "models" / "c.txt")]
    assert all(os.path.isfile(p) for p in paths)


def test_a_corpus_far_from_the_model_is_named_by_its_absolute_path(tmp_path):
    far = tmp_path / "shared" / "corpora" / "big.txt"
    model = small_model(corpus=CorpusInfo("files", (CorpusFile(str(far), 34, ""),), 7, 2, 27, 0))
    target = tmp_path / "a" / "b" / "m.json"
    target.parent.mkdir(parents=True)
    save_model(model, target)
    assert _written(target) == [str(far)]
    assert load_model(target).corpus == model.corpus


def test_save_as_in_another_folder_names_the_corpus_from_there(tmp_path):
    (tmp_path / "exp" / "out").mkdir(parents=True)
    first = tmp_path / "exp" / "m.json"
    corpus = (CorpusFile(str(tmp_path / "exp" / "c.txt"), 34, ""),)
    model = small_model(corpus=CorpusInfo("files", corpus, 7, 2, 27, 0))
    save_model(model, first)
    assert _written(first) == ["c.txt"]
    save_model(load_model(first), tmp_path / "exp" / "out" / "m.json")
    assert _written(tmp_path / "exp" / "out" / "m.json") == ["../c.txt"]


def test_an_older_file_naming_its_corpus_as_the_command_was_given_loads(tmp_path):
    # Written before: the path as given on the command line, relative to where it ran.
    model = small_model()
    save_model(model, tmp_path / "m.json")
    data = json.loads((tmp_path / "m.json").read_text(encoding="utf-8"))
    data["corpus"]["files"][0]["path"] = "corpus.txt"
    (tmp_path / "old.json").write_text(json.dumps(data), encoding="utf-8")
    loaded = load_model(tmp_path / "old.json")
    assert loaded.corpus.files[0].path == str(tmp_path / "corpus.txt")
    assert loaded.merges == model.merges


def test_standard_input_is_named_as_such_wherever_the_model_is_saved(tmp_path):
    # "<stdin>" names no file: it is never made a path relative to a folder.
    stdin = (CorpusFile("<stdin>", 34, ""),)
    model = small_model(corpus=CorpusInfo("files", stdin, 7, 2, 27, 0))
    (tmp_path / "a").mkdir()
    save_model(model, tmp_path / "a" / "m.json")
    assert _written(tmp_path / "a" / "m.json") == ["<stdin>"]
    assert load_model(tmp_path / "a" / "m.json").corpus.files[0].path == "<stdin>"
