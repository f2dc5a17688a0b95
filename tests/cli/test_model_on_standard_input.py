"""``-m -`` reads the model from standard input, in every command that takes ``-m``: the
result is the one of the same model given as a file; errors name ``<stdin>`` with the
place in the JSON; standard input used for the text as well is a usage error."""

from __future__ import annotations

import gzip
import io
import json
import sys

import pytest

from tests.cli.support import CORPUS, assert_one_error_line, run


@pytest.fixture
def feed(monkeypatch):
    """Make ``data`` (bytes) the process's standard input."""
    def give(data: bytes) -> None:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))

    return give


def _both(capsys, feed, model, *argv):
    """(status, stdout, stderr) of the command with ``-m FILE``, then with ``-m -``."""
    with_file = run(capsys, *[model if a == "MODEL" else a for a in argv])
    feed(model.read_bytes())
    return with_file, run(capsys, *["-" if a == "MODEL" else a for a in argv])


@pytest.mark.parametrize("argv", [
    ("encode", "-m", "MODEL", "TEXT"),
    ("encode", "-m", "MODEL", "--ids", "TEXT"),
    ("decode", "-m", "MODEL", "IDS"),
    ("info", "-m", "MODEL", "--merges"),
    ("export", "-m", "MODEL", "--format", "vocab", "-o", "-", "-q"),
    ("evaluate", "-m", "MODEL", "--text", "TEXT", "--json"),
])
def test_each_command_gives_from_standard_input_what_it_gives_from_the_file(
        capsys, feed, trained, corpus, tmp_path, argv):
    ids = tmp_path / "ids.txt"
    ids.write_text("5 6 7\n0 1\n", encoding="utf-8")
    argv = [corpus if a == "TEXT" else ids if a == "IDS" else a for a in argv]
    from_file, from_stdin = _both(capsys, feed, trained, *argv)
    assert from_file[0] == 0 and from_file[1], from_file
    assert from_stdin == from_file


def test_info_names_standard_input_and_keeps_the_corpus_paths_as_written(
        capsys, feed, trained, corpus):
    (status, out, _), (status_stdin, out_stdin, err) = _both(
        capsys, feed, trained, "info", "-m", "MODEL", "--json")
    assert status == status_stdin == 0 and err == ""
    from_file, from_stdin = json.loads(out), json.loads(out_stdin)
    assert (from_file["model"], from_stdin["model"]) == (str(trained), "<stdin>")
    # A file's corpus paths are read against its folder; standard input has none.
    assert from_file["corpus"]["files"][0]["path"] == str(corpus)
    assert from_stdin["corpus"]["files"][0]["path"] == "corpus.txt"
    for key in ("model", "corpus"):
        del from_file[key], from_stdin[key]
    assert from_stdin == from_file
    feed(trained.read_bytes())
    status, out, _ = run(capsys, "info", "-m", "-")
    assert status == 0 and out.splitlines()[0].split() == ["model:", "<stdin>"]


def test_compare_names_the_model_from_standard_input(capsys, feed, trained, model_path,
                                                     corpus):
    feed(trained.read_bytes())
    status, out, err = run(capsys, "compare", "-m", "-", "-m", model_path, "--text", corpus,
                           "--json")
    assert status == 0, err
    assert [t["name"] for t in json.loads(out)["tokenizers"]] == ["<stdin>", "hand.json"]


@pytest.mark.parametrize("command", ["extend", "trim"])
def test_extend_and_trim_read_their_source_from_standard_input(capsys, feed, trained,
                                                               corpus, tmp_path, command):
    extra = (["--merges", "3"] if command == "extend" else
             ["--id-map", tmp_path / "map.json"])
    text = [corpus] if command == "extend" else ["--text", corpus]
    outputs = []
    for source, name in ((trained, "file.json"), ("-", "stdin.json")):
        if source == "-":
            feed(trained.read_bytes())
        status, _, err = run(capsys, command, "-m", source, *text, "-o", tmp_path / name,
                             "-q", *extra)
        assert status == 0, err
        outputs.append(json.loads((tmp_path / name).read_text(encoding="utf-8")))
    assert outputs[0]["merges"] == outputs[1]["merges"]
    assert len(outputs[1]["merges"]) == (18 if command == "extend" else 15)


@pytest.mark.parametrize("argv, both", [
    (("encode", "-m", "-"), "-m and the text (FILE; standard input when left out)"),
    (("decode", "-m", "-"), "-m and the text (FILE; standard input when left out)"),
    (("evaluate", "-m", "-", "-"), "-m and the text"),
    (("evaluate", "-m", "-", "--gold", "-"), "-m and --gold"),
    (("compare", "-m", "-", "-m", "-", "--text", "CORPUS"), "-m and -m"),
    (("export", "-m", "-", "--format", "vocab", "-o", "OUT", "--verify", "-"),
     "-m and --verify"),
    (("extend", "-m", "-", "-", "--merges", "2", "-o", "OUT"), "-m and the corpus"),
    (("trim", "-m", "-", "--text", "-", "--id-map", "MAP", "-o", "OUT"), "-m and the text"),
])
def test_standard_input_for_the_model_and_the_text_is_a_usage_error(
        capsys, feed, trained, corpus, tmp_path, argv, both):
    feed(trained.read_bytes())
    argv = [{"CORPUS": corpus, "OUT": tmp_path / "out.json",
             "MAP": tmp_path / "map.json"}.get(a, a) for a in argv]
    status, out, err = run(capsys, *argv)
    assert status == 2 and out == ""
    assert_one_error_line(err, f"standard input (-) can be given only once; here {both} "
                          f"read it (see 'bpe-desktop {argv[0]} --help')")
    assert not (tmp_path / "out.json").exists()


@pytest.mark.parametrize("data, message", [
    (b"", "<stdin>: the file is empty"),
    (b'{\n"format":', "<stdin>: line 2 column 10: the file is truncated: the JSON ends "
                      "before it is complete (Expecting value)"),
    (b'{"format": "bpe-desktop/model", "version": 2, "config": {}, "alphabet": ["a"], '
     b'"merges": [["a", "b", 1]]}',
     "<stdin>: merges[0][1]: 'b' is not a token defined before this merge"),
    (gzip.compress(CORPUS.encode()), "<stdin>: the file is gzip-compressed; a model file "
                                     "is UTF-8 text: decompress it first (gunzip, zcat)"),
])
def test_a_bad_model_on_standard_input_is_named_stdin_with_the_place(
        capsys, feed, corpus, data, message):
    feed(data)
    status, out, err = run(capsys, "encode", "-m", "-", corpus)
    assert status == 1 and out == ""
    assert_one_error_line(err, f"bpe-desktop: error: {message}")


def test_a_gzip_model_file_gets_the_same_message(capsys, trained, tmp_path, corpus):
    packed = tmp_path / "m.json.gz"  # model files are not compressed, as a file or a stream
    packed.write_bytes(gzip.compress(trained.read_bytes()))
    status, _, err = run(capsys, "info", "-m", packed)
    assert status == 1
    assert_one_error_line(err, f"{packed}: the file is gzip-compressed")
