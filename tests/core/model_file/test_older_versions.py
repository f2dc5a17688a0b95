"""Older model files: a version 1 file (no ``ids``) loads, is held by the engine, encodes as
before and is saved as the current version; upgrades run through the migration hook."""

from __future__ import annotations

import copy
import json

from bpe_desktop.core import Corpus, TrainConfig, model_file, train
from bpe_desktop.core.model_file import VERSION, dumps, loads
from tests.core.model_file.helpers import small_model, text_of, valid_dict


def _as_version_1(model) -> bytes:
    data = json.loads(dumps(model))
    data["version"] = 1
    del data["ids"]
    return json.dumps(data).encode("utf-8")


def test_a_version_1_file_loads_into_the_engine_with_the_same_tokens():
    model = train(Corpus.from_texts(["low lower lowest newer wider " * 20]),
                  TrainConfig(merges=12, keep_words=10)).model
    old = loads(_as_version_1(model))
    assert old.engine_model() is not None
    assert old.ids is None
    assert old.merges == model.merges and old.pieces == model.pieces
    assert old.tokenizer().encode("lowest wider") == model.tokenizer().encode("lowest wider")


def test_a_version_1_file_is_saved_as_the_current_version():
    old = loads(_as_version_1(small_model()))
    data = json.loads(dumps(old))
    assert data["version"] == VERSION and data["ids"] is None
    assert loads(dumps(old)) == old


def test_the_migration_hook_leaves_a_current_file_as_it_is():
    data = valid_dict()
    assert model_file.migrate(copy.deepcopy(data), VERSION) == data


def test_the_migration_hook_runs_each_registered_step(monkeypatch):
    # Pretend the current version is 2 and version 1 files need one step to reach it.
    def v1_to_v2(d):
        d = dict(d)
        d["version"] = 2
        return d

    monkeypatch.setattr(model_file, "VERSION", 2)
    monkeypatch.setitem(model_file.MIGRATIONS, 1, v1_to_v2)
    assert model_file.migrate({"version": 1}, 1) == {"version": 2}
    assert loads(text_of(valid_dict())) == small_model()


def test_how_invalid_utf8_was_read_is_kept_and_a_file_without_it_read_strictly(tmp_path):
    """Reading invalid UTF-8 as U+FFFD changes the counts: the file says so (and only
    then, so a file of a strict reading is as earlier versions wrote and read it)."""
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"the caf\xe9 was na\xefve, the caf\xe9 new\n" * 9)
    replaced = train(Corpus.from_files([bad], errors="replace"), TrainConfig(merges=8)).model
    strict = train(Corpus.from_texts(["the cafe was new " * 9]), TrainConfig(merges=8)).model
    assert replaced.corpus.encoding_errors == "replace"
    assert json.loads(dumps(replaced))["corpus"]["encoding_errors"] == "replace"
    assert loads(dumps(replaced)) == replaced
    assert "encoding_errors" not in json.loads(dumps(strict))["corpus"]
    assert loads(dumps(strict)).corpus.encoding_errors == "strict"
