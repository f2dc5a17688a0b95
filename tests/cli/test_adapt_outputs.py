"""Where ``extend`` and ``trim`` write: a model on standard output stays a model (the
summary goes to standard error), and trim's id map never lands on the model or an input,
nor on a stream; a refused output is refused before anything is written."""

from __future__ import annotations

import json

import pytest

from bpe_desktop.core.model_file import loads
from tests.cli.support import assert_one_error_line, run


@pytest.mark.parametrize("command", [
    ["extend", "{corpus}", "--merges", "3"],
    ["trim", "--text", "{corpus}", "--id-map", "{tmp}/map.json"],
])
def test_a_model_on_standard_output_keeps_the_summary_on_standard_error(
        capsys, tmp_path, corpus, trained, command):
    argv = [a.format(corpus=corpus, tmp=tmp_path) for a in command]
    status, out, err = run(capsys, argv[0], "-m", trained, *argv[1:], "-o", "-")
    assert status == 0, err
    assert loads(out.encode("utf-8")).vocab_size > 0  # nothing but the model
    assert "wrote -" in err


def _trim(capsys, trained, corpus, id_map, output):
    return run(capsys, "trim", "-m", trained, "--text", corpus, "--id-map", id_map,
               "-o", output, "-q")


@pytest.mark.parametrize("id_map, output", [
    ("t.json", "t.json"),  # the map's JSON is the model
    ("t.csv", "t.json"),  # the JSON that goes beside the CSV is the model
    ("t.json", "t.csv"),  # the CSV that goes beside the JSON is the model
])
def test_an_id_map_on_the_model_is_refused_before_writing(capsys, tmp_path, corpus, trained,
                                                          id_map, output):
    (tmp_path / output).write_text("previous", encoding="utf-8")
    status, out, err = _trim(capsys, trained, corpus, tmp_path / id_map, tmp_path / output)
    assert status == 1 and out == ""
    assert_one_error_line(err, "id map", "-o")
    assert (tmp_path / output).read_text(encoding="utf-8") == "previous"
    assert {p.name for p in tmp_path.iterdir()} == {output, "corpus.txt", "model.json"}


def test_an_id_map_beside_a_target_text_is_refused(capsys, tmp_path, corpus, trained):
    text = tmp_path / "target.csv"
    text.write_bytes(corpus.read_bytes())
    status, _, err = run(capsys, "trim", "-m", trained, "--text", text, "--id-map",
                         tmp_path / "target.json", "-o", tmp_path / "t.json", "-q")
    assert status == 1
    assert_one_error_line(err, "target.csv", "target text")
    assert text.read_bytes() == corpus.read_bytes()
    assert not (tmp_path / "t.json").exists()


def test_an_id_map_to_a_stream_is_refused_before_the_model_is_written(capsys, tmp_path,
                                                                      corpus, trained):
    status, out, err = _trim(capsys, trained, corpus, "-", tmp_path / "t.json")
    assert status == 1 and out == ""
    assert_one_error_line(err, "--id-map", "two files")
    assert not (tmp_path / "t.json").exists()


def test_the_id_map_and_the_model_side_by_side(capsys, tmp_path, corpus, trained):
    status, _, err = _trim(capsys, trained, corpus, tmp_path / "map.json",
                           tmp_path / "t.json")
    assert status == 0, err
    mapping = json.loads((tmp_path / "map.json").read_text(encoding="utf-8"))
    assert len(mapping) == loads((tmp_path / "t.json").read_bytes()).vocab_size
    assert (tmp_path / "map.csv").read_text(encoding="utf-8").startswith("old_id,new_id,piece")
