"""Outputs written so that nothing is lost: stale temporary files removed, sets of files
written with their checksum list, a mixed set refused on import."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bpe_desktop.core import Corpus, TrainConfig, train
from bpe_desktop.core.errors import ModelFileError
from bpe_desktop.core.formats import export_model, import_model
from bpe_desktop.core.model_file import save_model
from bpe_desktop.core.safe_write import remove_stale_temps, write_output

def _rules(model):
    return [(m.left, m.right) for m in model.merges]


TEXT = "low lower lowest newer newest wider widest the new ones\n" * 30


@pytest.fixture(scope="module")
def two_models(tmp_path_factory):
    corpus = tmp_path_factory.mktemp("corpus") / "c.txt"
    corpus.write_text(TEXT, encoding="utf-8")
    return [train(Corpus.from_files([str(corpus)]),
                  TrainConfig.preset(preset, merges=merges)).model
            for preset, merges in (("gpt2", 6), ("gpt2", 12))]


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_a_save_removes_temporary_files_of_ended_processes_only(tmp_path, two_models):
    dead = tmp_path / f".model.json.{_dead_pid()}-0123456789ab.tmp"
    alive = tmp_path / f".model.json.{os.getppid()}-0123456789ab.tmp"
    old_style = tmp_path / ".other.json.0123456789ab.tmp"
    unrelated = tmp_path / ".notes.tmp"
    for p in (dead, alive, old_style, unrelated):
        p.write_bytes(b"partial")
    past = time.time() - 3600  # before this process started
    os.utime(old_style, (past, past))
    save_model(two_models[0], tmp_path / "model.json")
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == sorted([alive.name, unrelated.name, "model.json"])


def test_a_temporary_file_of_a_reused_pid_is_stale(tmp_path):
    # the process with this id started after the file was last written: not its writer
    temp = tmp_path / f".t.{os.getppid()}-0123456789ab.tmp"
    temp.write_bytes(b"x")
    os.utime(temp, (1_000_000, 1_000_000))
    assert remove_stale_temps(tmp_path) == 1 and not temp.exists()


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path):
    target = tmp_path / "t.txt"
    target.write_text("old", encoding="utf-8")

    def failing(fh):
        fh.write(b"new but")
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError, match="t.txt"):
        write_output(target, failing)
    assert target.read_text(encoding="utf-8") == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["t.txt"]


@pytest.mark.parametrize("fmt, options, name", [
    ("gpt2", {}, "vocab.json"),
    ("tiktoken", {}, "r.tiktoken"),
])
def test_a_set_interrupted_between_renames_is_refused_on_import(tmp_path, two_models, fmt,
                                                               options, name):
    old, new = tmp_path / "old", tmp_path / "new"
    old.mkdir()
    new.mkdir()
    target = lambda d: (d / "") if fmt == "gpt2" else d / name  # noqa: E731
    old_files = export_model(two_models[0], fmt, target(old), **options)
    new_files = export_model(two_models[1], fmt, target(new), **options)
    assert (old / (name + ".sha256")).is_file()
    assert _rules(import_model(fmt, target(old))) == _rules(two_models[0])
    # as a kill after the list's rename and the first file's: list and first file new
    shutil.copy(new / (name + ".sha256"), old / (name + ".sha256"))
    shutil.copy(new_files[0], old_files[0])
    with pytest.raises(ModelFileError, match="different exports"):
        import_model(fmt, target(old))
    # the whole new set is fine again
    shutil.copy(new_files[1], old_files[1])
    assert _rules(import_model(fmt, target(old))) == _rules(two_models[1])


def test_a_set_written_by_another_tool_has_no_list_and_imports(tmp_path, two_models):
    export_model(two_models[0], "gpt2", tmp_path / "")
    (tmp_path / "vocab.json.sha256").unlink()
    assert _rules(import_model("gpt2", tmp_path / "")) == _rules(two_models[0])


def test_the_list_is_sha256sum_format(tmp_path, two_models):
    export_model(two_models[0], "gpt2", tmp_path / "")
    if shutil.which("sha256sum"):
        done = subprocess.run(["sha256sum", "-c", "vocab.json.sha256"], cwd=tmp_path,
                              capture_output=True, text=True)
        assert done.returncode == 0, done.stdout + done.stderr
    lines = (tmp_path / "vocab.json.sha256").read_text(encoding="utf-8").splitlines()
    assert [ln.split("  ")[1] for ln in lines] == ["vocab.json", "merges.txt"]
    assert Path(tmp_path / "merges.txt").is_file()
