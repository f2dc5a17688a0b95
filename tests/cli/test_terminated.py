"""SIGTERM (``kill``, a job scheduler's or a container's stop) ends a command as Ctrl-C
does: the work is cancelled, nothing half-written is left, the previous output stays,
one line on standard error, and exit status 143 (128 + SIGTERM)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

from bpe_desktop.cli.codec import BATCH_LINES
from bpe_desktop.cli.train import HOLD_FOR_CANCEL_ENV
from tests.cli.support import REPO

pytestmark = pytest.mark.skipif(os.name != "posix", reason="sends SIGTERM")


def _start(*argv, env_extra=None, stdin=subprocess.DEVNULL):
    env = dict(os.environ, PYTHONPATH=str(REPO), **(env_extra or {}))
    return subprocess.Popen([sys.executable, "-m", "bpe_desktop", *map(str, argv)],
                            stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env)


def _terminate(proc, seen=()) -> str:
    try:
        proc.send_signal(signal.SIGTERM)
        _out, rest = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return "".join(seen) + rest


def test_sigterm_during_training_cancels_it_and_keeps_the_old_model(tmp_path, corpus):
    model_path = tmp_path / "m.json"
    model_path.write_text("keep me", encoding="utf-8")
    # training holds at its first merging report until cancelled: only the signal ends it
    proc = _start("train", corpus, "-o", model_path, "--min-frequency", "1",
                  "--threads", "1", env_extra={HOLD_FOR_CANCEL_ENV: "1"})
    seen = []
    while True:
        line = proc.stderr.readline()
        assert line, "".join(seen)
        seen.append(line)
        if line.startswith("bpe-desktop: merging"):
            break
    err = _terminate(proc, seen)
    assert proc.returncode == 143, err
    assert "Traceback" not in err
    assert err.splitlines()[-1] == "bpe-desktop: error: training cancelled; nothing was written"
    assert model_path.read_text(encoding="utf-8") == "keep me"
    assert set(os.listdir(tmp_path)) == {"m.json", "corpus.txt"}


def test_sigterm_while_reading_standard_input_is_one_line(model_path):
    proc = _start("encode", "-m", model_path, stdin=subprocess.PIPE)
    # a whole batch of lines, so that its tokens come out while the command waits for more
    proc.stdin.write("low lower\n" * BATCH_LINES)
    proc.stdin.flush()
    assert proc.stdout.readline().strip()
    err = _terminate(proc)
    proc.stdin.close()
    assert proc.returncode == 143, err
    assert err == "bpe-desktop: error: terminated\n"
