"""Where History finds a run's model: the user's model file, the copy kept in the
project (a model written in another tool's format, or not saved), or, for a run
recorded before such copies were kept, the other tool's file read through its importer."""

from __future__ import annotations

import pytest

from bpe_desktop.core import Corpus, TrainConfig, train
from bpe_desktop.core.adapted_output import write_model
from bpe_desktop.core.model_file import save_model
from bpe_desktop.core.project import Project, ProjectError, recorded_run
from bpe_desktop.core.project.run_model import read_run_model, run_model_source

TEXT = "the lower the newer the lowest the widest " * 10


@pytest.fixture(scope="module")
def model():
    return train(Corpus.from_texts([TEXT]), TrainConfig.preset("gpt2", merges=20)).model


def _recorded(project, model, path, fmt) -> int:
    with recorded_run(project, "trim") as run:
        run.set_model(model, path=path, fmt=fmt)
    return run.id


def _encodes(a, b) -> bool:
    return list(a.tokenizer().encode(TEXT)) == list(b.tokenizer().encode(TEXT))


def test_a_model_file_is_opened_as_that_file_and_another_format_is_kept(tmp_path, model):
    save_model(model, tmp_path / "m.json")
    write_model(model, "hf", tmp_path / "t.json")
    with Project(tmp_path / "p.bpeproj") as p:
        own = run_model_source(p, _recorded(p, model, str(tmp_path / "m.json"), "model"))
        kept = run_model_source(p, _recorded(p, model, str(tmp_path / "t.json"), "hf"))
        unsaved = run_model_source(p, _recorded(p, model, None, "model"))
    assert own.own_file and own.path == str(tmp_path / "m.json") and own.data is None
    assert not kept.own_file and kept.path is None and kept.data is not None
    assert unsaved.data is not None and unsaved.describe() == "kept in the project"
    for source in (own, kept, unsaved):
        assert read_run_model(source).merges == model.merges


@pytest.mark.parametrize("fmt, name", [("hf", "t.json"), ("gpt2", "folder/"),
                                       ("gpt2", "prefix"), ("transformers", "tf")])
def test_an_earlier_record_of_another_format_is_read_by_its_importer(tmp_path, model,
                                                                     fmt, name):
    write_model(model, fmt, f"{tmp_path}/{name}")
    path = f"{tmp_path}/{name}".rstrip("/")
    with Project(tmp_path / "p.bpeproj") as p:
        with recorded_run(p, "trim") as run:  # as versions before the copy recorded it
            run.model = (path, None, (model.vocab_size, len(model.merges)))
        source = run_model_source(p, run.id)
    assert not source.own_file and source.data is None
    assert source.describe() == f"imported from {path}"
    assert _encodes(read_run_model(source), model)


def test_a_model_file_that_is_gone_or_no_model_is_said_so(tmp_path, model):
    save_model(model, tmp_path / "m.json")
    with Project(tmp_path / "p.bpeproj") as p:
        gone = _recorded(p, model, str(tmp_path / "m.json"), "model")
        (tmp_path / "m.json").unlink()
        with recorded_run(p, "evaluate") as run:
            pass
        with pytest.raises(ProjectError, match=r"m\.json is gone"):
            run_model_source(p, gone)
        with pytest.raises(ProjectError, match="kept no model"):
            run_model_source(p, run.id)


def test_a_model_file_written_over_since_is_refused_unless_the_project_kept_a_copy(
        tmp_path, model):
    from bpe_desktop.core.model_file import dumps
    from bpe_desktop.core.project.rerun import model_file_changed

    path = tmp_path / "m.json"
    save_model(model, path)
    with Project(tmp_path / "p.bpeproj") as p:
        own = _recorded(p, model, str(path), "model")
        with recorded_run(p, "train") as run:  # a record with both the file and a copy
            run.model = (str(path), dumps(model).encode("utf-8"),
                         (model.vocab_size, len(model.merges)))
        both = run.id
        later = train(Corpus.from_texts([TEXT]), TrainConfig.preset("gpt2", merges=5)).model
        save_model(later, path)  # the next run given the same -o
        changed = {i for i in (own, both) if model_file_changed(p.run_details(i))}
        assert changed == {own, both}
        with pytest.raises(ProjectError, match=r"m\.json was written over since"):
            run_model_source(p, own, changed)
        kept = run_model_source(p, both, changed)
        assert run_model_source(p, own).own_file  # unchecked: the file as it is
    assert kept.data is not None and read_run_model(kept).merges == model.merges
