"""``-`` as an input file reads standard input, as in ``zcat corpus.gz | bpe-desktop
train - ...``: the result is the one of the same text given as a file, the model file and
History record ``<stdin>`` with its size and SHA-256, and errors name ``<stdin>``."""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.support import CORPUS, REPO

DATA = CORPUS.encode("utf-8")


def _cli(*argv, stdin: bytes = b"") -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.run([sys.executable, "-m", "bpe_desktop", *map(str, argv)],
                          input=stdin, capture_output=True, env=env, timeout=120, check=False)


def _model(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def test_training_on_standard_input_learns_what_the_file_gives(tmp_path, corpus):
    from_file, from_stdin = tmp_path / "file.json", tmp_path / "stdin.json"
    assert _cli("train", corpus, "-o", from_file, "--merges", "12", "-q").returncode == 0
    done = _cli("train", "-", "-o", from_stdin, "--merges", "12", "-q", stdin=DATA)
    assert done.returncode == 0, done.stderr
    assert done.stdout == done.stderr == b""
    a, b = _model(from_file), _model(from_stdin)
    assert a["merges"] == b["merges"] and len(b["merges"]) == 12
    assert b["corpus"]["files"] == [{"path": "<stdin>", "size": len(DATA),
                                     "sha256": hashlib.sha256(DATA).hexdigest()}]


def test_a_gzip_stream_on_standard_input_is_read_as_its_text(tmp_path, corpus):
    model = tmp_path / "m.json"
    done = _cli("train", "-", "-o", model, "--merges", "12", "-q",
                stdin=gzip.compress(DATA))
    assert done.returncode == 0, done.stderr
    assert _model(model)["corpus"]["total_words"] == len(CORPUS.split())


def test_encoding_a_gzip_stream_on_standard_input_reads_its_text(trained):
    plain = _cli("encode", "-m", trained, "--ids", stdin=DATA)
    done = _cli("encode", "-m", trained, "--ids", stdin=gzip.compress(DATA))
    assert done.returncode == 0, done.stderr
    assert done.stdout == plain.stdout and len(done.stdout.splitlines()) == 5
    back = _cli("decode", "-m", trained, stdin=gzip.compress(done.stdout))
    assert back.returncode == 0 and back.stdout == DATA
    broken = _cli("encode", "-m", trained, stdin=gzip.compress(DATA)[:-12])
    assert broken.returncode == 1
    assert broken.stderr.decode().startswith("bpe-desktop: error: <stdin>: not a readable gzip")


def test_counting_standard_input_writes_the_files_table(corpus):
    from_file = _cli("count", corpus, "-o", "-", "-q")
    from_stdin = _cli("count", "-", "-o", "-", "-q", stdin=DATA)
    assert from_stdin.returncode == 0, from_stdin.stderr
    assert from_stdin.stdout == from_file.stdout and b"newest\t6" in from_stdin.stdout


def test_evaluating_standard_input_as_a_text_or_a_file_argument(trained, corpus):
    expected = json.loads(_cli("evaluate", "-m", trained, "--text", corpus, "--json").stdout)
    for argv in (("--text", "-"), ("-",)):
        done = _cli("evaluate", "-m", trained, *argv, "--json", stdin=DATA)
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout) == expected
    assert expected["text"]["words"] == len(CORPUS.split())


def test_gold_segmentations_on_standard_input_are_scored_as_stdin(trained, tmp_path):
    gold = tmp_path / "gold.tsv"
    gold.write_text("lowest\tlow est\nnewer\tnew er\nwidest\twid est\n", encoding="utf-8")
    expected = json.loads(_cli("evaluate", "-m", trained, "--gold", gold, "--json").stdout)
    done = _cli("evaluate", "-m", trained, "--gold", "-", "--json",
                stdin=gold.read_bytes())
    assert done.returncode == 0, done.stderr
    scored = json.loads(done.stdout)
    assert scored["morphology"] == {"<stdin>": expected["morphology"]["gold.tsv"]}
    assert scored["morphology"]["<stdin>"]["words"] == 3


def test_comparing_on_standard_input(trained, model_path, corpus):
    def compared(*text, stdin=b""):
        done = _cli("compare", "-m", trained, "-m", model_path, *text, "--json", stdin=stdin)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    assert compared("--text", "-", stdin=DATA) == compared("--text", corpus)


def test_extending_on_standard_input_records_stdin(trained, tmp_path):
    out = tmp_path / "extended.json"
    done = _cli("extend", "-m", trained, "--merges", "3", "-", "-o", out, "-q", stdin=DATA)
    assert done.returncode == 0, done.stderr
    assert [f["path"] for f in _model(out)["corpus"]["files"]] == ["<stdin>"]


def test_trimming_to_a_target_text_on_standard_input(trained, corpus, tmp_path):
    def trimmed(text: str, name: str, stdin: bytes = b"") -> tuple[dict, bytes]:
        out, id_map = tmp_path / f"{name}.json", tmp_path / f"{name}-map.json"
        done = _cli("trim", "-m", trained, "--text", text, "--id-map", id_map, "-o", out,
                    "-q", stdin=stdin)
        assert done.returncode == 0, done.stderr
        return _model(out)["merges"], id_map.read_bytes()

    target = tmp_path / "target.txt"
    target.write_text("lowest newest\n", encoding="utf-8")
    assert trimmed("-", "piped", target.read_bytes()) == trimmed(target, "file")


def test_invalid_text_on_standard_input_is_named_with_its_line(trained, tmp_path):
    bad = b"low lower\nnew \xff est\n"
    for argv in (("train", "-", "-o", tmp_path / "m.json", "-q"),
                 ("count", "-", "-o", "-", "-q"),
                 ("evaluate", "-m", trained, "-"),
                 ("encode", "-m", trained)):
        done = _cli(*argv, stdin=bad)
        err = done.stderr.decode()
        assert done.returncode == 1, (argv, err)
        assert err.startswith("bpe-desktop: error: <stdin>") and "line 2" in err, (argv, err)
        assert len(err.splitlines()) == 1 and "bpe-desktop-stdin" not in err, err
    assert not (tmp_path / "m.json").exists()


def test_empty_standard_input_is_an_error_not_an_empty_model(tmp_path):
    done = _cli("train", "-", "-o", tmp_path / "m.json", "-q", stdin=b"")
    assert done.returncode == 1
    assert done.stderr.decode() == "bpe-desktop: error: <stdin> is empty\n"
    assert not (tmp_path / "m.json").exists()


def test_evaluating_or_comparing_on_empty_standard_input_is_an_error(trained, model_path):
    for argv in (("evaluate", "-m", trained, "-"), ("evaluate", "-m", trained, "--text", "-",
                                                     "--json"),
                 ("compare", "-m", trained, "-m", model_path, "--text", "-", "--json")):
        done = _cli(*argv, stdin=b"\n \n")
        assert done.returncode == 1, argv
        assert done.stdout == b""
        assert done.stderr.decode().startswith("bpe-desktop: error: <stdin>: no words to ")


def test_an_empty_text_beside_others_is_evaluated_with_a_warning(trained, corpus):
    done = _cli("evaluate", "-m", trained, "--text", corpus, "-", "--json", stdin=b"")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["texts"]["<stdin>"]["words"] == 0
    assert done.stderr.decode() == ("bpe-desktop: warning: <stdin>: no words (the text is "
                                    "empty); its statistics are 0\n")


def test_standard_input_given_twice_is_a_usage_error(tmp_path):
    done = _cli("train", "-", "-", "-o", tmp_path / "m.json", stdin=DATA)
    assert done.returncode == 2
    assert b"standard input (-) can be given only once" in done.stderr


def test_history_records_each_standard_input_with_its_digest(tmp_path, trained):
    project, other = tmp_path / "p.bpeproj", DATA + b"lowest lowest\n"
    for data in (DATA, other):
        done = _cli("train", "-", "-o", tmp_path / "m.json", "--merges", "5", "-q",
                    "--project", project, stdin=data)
        assert done.returncode == 0, done.stderr
    done = _cli("evaluate", "-m", trained, "-", "--project", project, stdin=DATA)
    assert done.returncode == 0, done.stderr
    runs = json.loads(_cli("history", project, "--json").stdout)["runs"]
    inputs = [[(i["role"], i["path"], i["size"], i["sha256"]) for i in run["inputs"]]
              for run in runs]

    def digest(data: bytes) -> str:
        return hashlib.sha256(data).hexdigest()

    assert inputs[0] == [("corpus", "<stdin>", len(DATA), digest(DATA))]
    assert inputs[1] == [("corpus", "<stdin>", len(other), digest(other))]
    assert ("text", "<stdin>", len(DATA), digest(DATA)) in inputs[2]
    table = _cli("history", project).stdout.decode()
    assert table.count("<stdin>") == 3


@pytest.mark.skipif(os.name != "posix", reason="limits the size of files it writes")
def test_a_copy_of_standard_input_that_does_not_fit_says_where_and_what_to_do(tmp_path):
    def small_files():
        import resource
        import signal

        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # (a write then fails: EFBIG)
        resource.setrlimit(resource.RLIMIT_FSIZE, (100_000, 100_000))

    env = dict(os.environ, PYTHONPATH=str(REPO), TMPDIR=str(tmp_path))
    done = subprocess.run([sys.executable, "-m", "bpe_desktop", "train", "-", "-o",
                           tmp_path / "m.json"], input=DATA * 2000, capture_output=True,
                          env=env, preexec_fn=small_files, timeout=120, check=False)
    assert done.returncode == 1
    assert done.stderr.decode() == (
        f"bpe-desktop: error: <stdin>: cannot copy standard input into {tmp_path} (File "
        "too large); set TMPDIR to a folder with room, or give the text as a file\n")
    assert os.listdir(tmp_path) == []  # (the copy is removed)
