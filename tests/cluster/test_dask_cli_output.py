"""``count --dask``: a bad file or Ctrl-C is one line for the user; Dask's own messages
(worker tracebacks, shutdown chatter, a dashboard moved to another port) are not."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time

from tests.cli.support import REPO

#: The port Dask's dashboard takes when it is free.
DASK_DASHBOARD_PORT = 8787


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


def _wait_until_the_command_runs(proc, timeout: float = 120.0) -> None:
    """Until the process has loaded the engine library (its command module imports it).

    Before that, a Ctrl-C finds Python itself starting up (site, .pth files): none of the
    program's code runs yet, so Python's own traceback is what a user sees then.
    """
    deadline = time.monotonic() + timeout
    while proc.poll() is None and time.monotonic() < deadline:
        try:
            with open(f"/proc/{proc.pid}/maps", encoding="utf-8") as maps:
                if "bpe_desktop/_engine" in maps.read():
                    return
        except OSError:  # no /proc: count from the start
            return
        time.sleep(0.01)


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
        _wait_until_the_command_runs(proc)
        time.sleep(delay)
        os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=180)
        if proc.returncode == 0:
            assert err == "" and output.read_text(encoding="utf-8").count("\t") == 3
            continue
        interrupted += 1
        # exit status 130, not an end by SIGINT (which a shell reports alike): a caller
        # reading the status from Python, or a Makefile, sees the command's own status
        assert proc.returncode == 130, err
        assert len(err.splitlines()) == 1 and err.startswith("bpe-desktop: error:"), err
        assert not output.exists()
    assert interrupted >= 1  # the early signals come while the cluster starts


#: ``python -m`` of this module is ``python -m bpe_desktop``, with a Ctrl-C arriving while
#: Dask is imported, inside a callback the import runs (as a module lock's weakref
#: callback is run): there Python cannot raise the KeyboardInterrupt, it prints it and goes on.
CTRL_C_IN_AN_IMPORT_CALLBACK = """
import signal, sys, weakref
class CtrlCInACallback:
    def find_spec(self, name, path=None, target=None):
        if name == "distributed.config":  # (imported by distributed, first)
            class Lock:
                pass
            lock = Lock()
            released = weakref.ref(lock, lambda _: signal.raise_signal(signal.SIGINT))
            del lock
        return None
if __name__ == "__main__":  # (the worker processes import this module too)
    sys.meta_path.insert(0, CtrlCInACallback())
    from bpe_desktop.launch import run
    raise SystemExit(run())
"""


def test_ctrl_c_in_a_callback_while_dask_is_imported_is_one_line(tmp_path):
    (tmp_path / "interrupted_program.py").write_text(CTRL_C_IN_AN_IMPORT_CALLBACK,
                                                      encoding="utf-8")
    text = tmp_path / "c.txt"
    text.write_text("some words here\n", encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), str(REPO)]),
               BPE_DESKTOP_DATA_DIR=str(tmp_path / "data"))
    proc = subprocess.run(
        [sys.executable, "-m", "interrupted_program", "count", "--dask", "local:2", str(text),
         "-o", str(tmp_path / "t.tsv"), "-q"],
        capture_output=True, text=True, timeout=180, env=env, cwd=tmp_path,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert proc.returncode == 130, proc.stderr
    assert proc.stderr == "bpe-desktop: error: interrupted\n"
    assert not (tmp_path / "t.tsv").exists()


def test_the_dashboard_port_taken_is_no_message(tmp_path):
    # Dask's dashboard port taken (by another cluster, or here) moves the dashboard
    # elsewhere; the table is written and nothing is said.
    text = tmp_path / "c.txt"
    text.write_text("some words here\n", encoding="utf-8")
    with socket.socket() as taken:
        try:
            taken.bind(("", DASK_DASHBOARD_PORT))
            taken.listen()
        except OSError:  # taken already
            pass
        proc = _start(tmp_path, text)
        _, err = proc.communicate(timeout=180)
    assert proc.returncode == 0, err
    assert err == ""
    assert (tmp_path / "t.tsv").read_text(encoding="utf-8").count("\t") == 3
