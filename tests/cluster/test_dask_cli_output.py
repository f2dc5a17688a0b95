"""``count --dask``: a bad file or Ctrl-C is one line for the user; Dask's own messages
(worker tracebacks, shutdown chatter) go to the log file."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from tests.cli.support import REPO


def _start(tmp_path, *inputs):
    env = dict(os.environ, PYTHONPATH=str(REPO), BPE_DESKTOP_DATA_DIR=str(tmp_path / "data"))
    return subprocess.Popen(
        [sys.executable, "-m", "bpe_desktop", "count", "--dask", "local:2", *map(str, inputs),
         "-o", str(tmp_path / "t.tsv"), "-q"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        # its own process group, as a terminal's foreground job: Ctrl-C reaches every
        # process of it, the workers too
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def test_a_bad_file_is_one_line(tmp_path):
    good, bad = tmp_path / "good.txt", tmp_path / "bad.txt"
    good.write_text("some words here\n" * 20, encoding="utf-8")
    bad.write_bytes(b"fine line\n\xff\xfe broken\n")
    proc = _start(tmp_path, good, bad)
    out, err = proc.communicate(timeout=180)
    assert proc.returncode == 1
    assert err.count("\n") == 1 and err.startswith("bpe-desktop: error: "), err
    assert str(bad) in err and "Traceback" not in err
    assert not (tmp_path / "t.tsv").exists()


def test_ctrl_c_while_the_cluster_starts_is_one_line(tmp_path):
    # Starting two worker processes takes a second or more; a signal at each of these
    # moments finds the command starting its cluster or, on a fast machine, already done
    # (then it finished its table and the signal changes nothing).
    text = tmp_path / "c.txt"
    text.write_text("some words here\n" * 2000, encoding="utf-8")
    interrupted = 0
    for delay in (0.3, 0.6, 1.0, 1.8):
        output = tmp_path / "t.tsv"
        output.unlink(missing_ok=True)
        proc = _start(tmp_path, text)
        time.sleep(delay)
        os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=180)
        if proc.returncode == 0:
            assert err == "" and output.read_text(encoding="utf-8").count("\t") == 3
            continue
        interrupted += 1
        # 130, or ended by SIGINT itself (a Ctrl-C landing while Dask's own threads start
        # or stop): a shell reports both as status 130, and the user sees the same line.
        assert proc.returncode in (130, -signal.SIGINT), err
        assert len(err.splitlines()) == 1 and err.startswith("bpe-desktop: error:"), err
        assert not output.exists()
    assert interrupted >= 1  # the early signals come while the cluster starts
