"""A command started with standard output or error closed (``>&-``, ``2>&-``, a daemon's
launcher) still does its work: what it would print there is dropped, as Python's own
``print`` drops it, and the model is written."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from bpe_desktop.core.model_file import load_model
from tests.cli.support import REPO

pytestmark = pytest.mark.skipif(os.name != "posix", reason="closes descriptors")


def _run_with_closed(fds, *argv) -> subprocess.CompletedProcess:
    def close():
        for fd in fds:
            os.close(fd)

    env = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.run([sys.executable, "-m", "bpe_desktop", *map(str, argv)], env=env,
                          stdin=subprocess.DEVNULL, stderr=subprocess.PIPE if 2 not in fds
                          else None, preexec_fn=close, timeout=120)


@pytest.mark.parametrize("fds", [(1,), (2,), (1, 2)])
def test_training_with_a_closed_stream_writes_the_model(tmp_path, corpus, fds):
    model = tmp_path / "m.json"
    done = _run_with_closed(fds, "train", corpus, "-o", model, "--merges", "5")
    assert done.returncode == 0
    assert len(load_model(model).merges) == 5


def test_an_error_with_standard_error_closed_keeps_its_exit_status(tmp_path):
    done = _run_with_closed((2,), "info", "-m", tmp_path / "missing.json")
    assert done.returncode == 1


def test_reading_a_closed_standard_input_is_a_one_line_error(tmp_path, corpus):
    model = tmp_path / "m.json"
    assert _run_with_closed((), "train", corpus, "-o", model, "--merges", "5",
                            "-q").returncode == 0
    for argv in (("encode", "-m", model), ("decode", "-m", model, "-"),
                 ("train", "-", "-o", tmp_path / "new.json"), ("count", "-", "-o", "-")):
        done = _run_with_closed((0,), *argv)
        assert done.returncode == 1, argv
        assert done.stderr.decode() == ("bpe-desktop: error: <stdin>: standard input is "
                                        "closed; give a file instead of -\n"), argv
    assert not (tmp_path / "new.json").exists()
