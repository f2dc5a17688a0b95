"""``-o`` to something that is not a regular file: streams are streamed into, never
renamed over; ``-o -`` is standard output; other special files are refused."""

from __future__ import annotations

import os
import socket
import stat
import subprocess
import sys
import threading

import pytest

from bpe_desktop.core.model_file import loads
from tests.cli.support import REPO, assert_one_error_line, run


def _cli(*argv, **kwargs) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.run([sys.executable, "-m", "bpe_desktop", *map(str, argv)], env=env,
                          timeout=120, **kwargs)


def test_train_into_a_fifo_streams_the_model_and_keeps_the_fifo(tmp_path, corpus):
    fifo = tmp_path / "model.fifo"
    os.mkfifo(fifo)
    received = []

    def reader():  # what a consumer on the other end gets
        with open(fifo, "rb") as fh:
            received.append(fh.read())

    thread = threading.Thread(target=reader, daemon=True)
    thread.start()
    done = _cli("train", corpus, "-o", fifo, "--merges", "5", "-q", capture_output=True,
                text=True)
    thread.join(10)  # (a FIFO replaced by a file would leave the reader waiting)
    assert done.returncode == 0, done.stderr
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert len(loads(received[0]).merges) == 5
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_count_to_dev_stdout_appends_to_a_redirected_log(tmp_path, corpus):
    log = tmp_path / "log"
    log.write_text("earlier entries\n", encoding="utf-8")
    with open(log, "a", encoding="utf-8") as out:
        done = _cli("count", corpus, "-o", "/dev/stdout", "-q", stdout=out,
                    stderr=subprocess.PIPE, text=True)
    assert done.returncode == 0, done.stderr
    text = log.read_text(encoding="utf-8")
    assert text.startswith("earlier entries\n")
    assert "\nlow\t5\n" in text
    assert stat.S_ISREG(os.stat(log).st_mode)


def test_export_to_dev_stderr_appends_to_the_error_log(tmp_path, trained):
    err_log = tmp_path / "err.log"
    err_log.write_text("kept\n", encoding="utf-8")
    with open(err_log, "a", encoding="utf-8") as err:
        done = _cli("export", "-m", trained, "--format", "vocab", "-o", "/dev/stderr", "-q",
                    stdout=subprocess.PIPE, stderr=err, text=True)
    assert done.returncode == 0
    lines = err_log.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "kept" and len(lines) > 5


def test_dash_is_standard_output_and_the_summary_goes_to_stderr(capsysbinary, tmp_path,
                                                                corpus):
    done = _cli("train", corpus, "-o", "-", "--merges", "4", capture_output=True)
    assert done.returncode == 0, done.stderr
    assert len(loads(done.stdout).merges) == 4
    assert b"saved -" in done.stderr
    assert not (tmp_path / "-").exists() and not os.path.exists("-")


def test_table_and_single_file_export_to_standard_output(tmp_path, corpus, trained):
    table = _cli("count", corpus, "-o", "-", "-q", capture_output=True, text=True)
    assert table.returncode == 0 and "newest\t6" in table.stdout
    codes = _cli("export", "-m", trained, "--format", "subword-nmt", "-o", "-",
                 capture_output=True, text=True)
    assert codes.returncode == 0, codes.stderr
    assert codes.stdout.startswith("#version: 0.") and "wrote -" in codes.stderr


@pytest.mark.parametrize("fmt, extra", [("gpt2", []), ("tiktoken", []),
                                        ("fastbpe", ["--with-vocab"])])
def test_a_format_of_several_files_refuses_a_stream(capsys, tmp_path, monkeypatch, fmt,
                                                     extra):
    monkeypatch.chdir(tmp_path)
    model = tmp_path / "m.json"
    preset = "subword-nmt" if fmt == "fastbpe" else "gpt2"
    corpus = tmp_path / "c.txt"
    corpus.write_text("low lower lowest newer newest\n" * 20, encoding="utf-8")
    assert run(capsys, "train", corpus, "-o", model, "--preset", preset, "--merges",
               "5", "-q")[0] == 0
    before = sorted(p.name for p in tmp_path.iterdir())
    status, out, err = run(capsys, "export", "-m", model, "--format", fmt, "-o", "-", *extra)
    assert status == 1 and out == ""
    assert_one_error_line(err, "-: is a stream", "give a")
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_a_socket_is_refused_before_training(capsys, tmp_path, corpus):
    path = tmp_path / "s.sock"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    try:
        status, _, err = run(capsys, "train", corpus, "-o", path, "--merges", "3")
    finally:
        server.close()
    assert status == 1
    assert_one_error_line(err, f"{path}: is a socket")
    assert stat.S_ISSOCK(os.stat(path).st_mode)


def _null_device(tmp_path) -> str:
    """A character device to write to: as root, a null device made in tmp_path (a
    regression must not replace the system's /dev/null); otherwise /dev/null, which a
    user cannot replace anyway."""
    if os.geteuid() != 0:
        return os.devnull
    path = tmp_path / "null"
    os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    return str(path)


def test_a_character_device_stays_a_device(capsys, tmp_path, corpus, trained):
    device = _null_device(tmp_path)
    before = os.stat(device)
    for argv in (("train", corpus, "-o", device, "--merges", "3", "-q"),
                 ("count", corpus, "-o", device, "-q"),
                 ("export", "-m", trained, "--format", "subword-nmt", "-o", device, "-q")):
        status, _, err = run(capsys, *argv)
        assert status == 0, err
        after = os.stat(device)
        assert stat.S_ISCHR(after.st_mode) and after.st_ino == before.st_ino


def test_import_to_standard_output_writes_a_loadable_model(tmp_path, trained):
    codes = tmp_path / "codes"
    assert _cli("export", "-m", trained, "--format", "subword-nmt", "-o", codes,
                "-q").returncode == 0
    done = _cli("import", "--format", "subword-nmt", codes, "-o", "-", capture_output=True)
    assert done.returncode == 0, done.stderr
    assert len(loads(done.stdout).merges) == 15
    assert b"saved -" in done.stderr


def test_verify_needs_files_on_disk(capsys, trained, corpus):
    status, out, err = run(capsys, "export", "-m", trained, "--format", "subword-nmt", "-o",
                           "-", "--verify", corpus)
    assert status == 1 and out == ""
    assert_one_error_line(err, "--verify", "is a stream")


def test_dash_in_process_writes_to_sys_stdout(capsys, corpus):
    status, out, err = run(capsys, "count", corpus, "-o", "-")
    assert status == 0, err
    assert "newest\t6" in out and "saved -" in err


def test_dev_stdout_into_a_pipe(trained):
    done = _cli("export", "-m", trained, "--format", "subword-nmt", "-o", "/dev/stdout", "-q",
                capture_output=True, text=True)  # stdout is a pipe here
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("#version: 0.") and done.stderr == ""
