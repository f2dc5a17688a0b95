"""Ctrl-C landing where the command's own handling is not yet or no longer running (its
imports, code Python runs from source text, its report, its end) ends it as a Ctrl-C
mid-work does: one line, exit status 130 (not an end by SIGINT), no traceback."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from bpe_desktop.cli.train import HOLD_FOR_CANCEL_ENV
from tests.cli.support import REPO

#: The installed script's code, saying when it is about to start the command.
STARTER = ("import sys; from bpe_desktop.launch import run; sys.stderr.write('ready\\n'); "
           "sys.stderr.flush(); sys.exit(run())")


@pytest.mark.parametrize("delay", [0.01, 0.05, 0.15])
def test_ctrl_c_during_imports_exits_130_quietly(tmp_path, corpus, delay):
    # training holds until cancelled, so a late signal cannot find the command finished
    env = dict(os.environ, PYTHONPATH=str(REPO), **{HOLD_FOR_CANCEL_ENV: "1"})
    proc = subprocess.Popen(
        [sys.executable, "-c", STARTER, "train", str(corpus), "-o", str(tmp_path / "m.json"),
         "-q"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        # as from a terminal (a background test run would pass SIGINT on ignored)
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        assert proc.stderr.readline() == "ready\n"
        time.sleep(delay)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert "Traceback" not in err
    assert proc.returncode == 130, err
    assert err.splitlines()[-1].startswith("bpe-desktop: error: ")
    assert len(err.splitlines()) == 1, err
    assert not (tmp_path / "m.json").exists()


def test_an_import_interrupted_in_process_is_exit_130(monkeypatch, capsys):
    """The same, without timing: the import of the command line itself is interrupted."""
    from bpe_desktop import launch

    class Interrupting:
        def find_spec(self, name, path=None, target=None):
            if name == "bpe_desktop.cli":
                raise KeyboardInterrupt
            return None

    monkeypatch.delitem(sys.modules, "bpe_desktop.cli")
    monkeypatch.setattr(sys, "meta_path", [Interrupting(), *sys.meta_path])
    assert launch.main(["--version"]) == 130
    assert capsys.readouterr().err == "bpe-desktop: error: interrupted\n"


#: An import that, as an extension module may, runs Python code through the C API while
#: a Ctrl-C arrives. A KeyboardInterrupt inside such code marks the interpreter, which then
#: ends itself by SIGINT (status -2) at exit, whatever the command returned.
C_API_IMPORT = """
import ctypes, signal, sys
signal.signal(signal.SIGINT, signal.default_int_handler)
class CodeRunningImport:
    def find_spec(self, name, path=None, target=None):
        if name == "bpe_desktop.cli":
            ctypes.pythonapi.PyRun_SimpleString(
                b"import os, signal; os.kill(os.getpid(), signal.SIGINT)")
        return None
sys.meta_path.insert(0, CodeRunningImport())
from bpe_desktop.launch import run
raise SystemExit(run())
"""


def test_ctrl_c_during_an_import_that_runs_code_through_the_c_api_is_exit_130():
    proc = subprocess.run([sys.executable, "-c", C_API_IMPORT, "--version"],
                          capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, PYTHONPATH=str(REPO)))
    assert proc.returncode == 130, proc.stderr
    assert proc.stderr == "bpe-desktop: error: interrupted\n"


#: ``python -m`` of this module is ``python -m bpe_desktop`` with a Ctrl-C arriving inside
#: code run from source text, as namedtuple and dataclasses run it when a module (Dask's,
#: psutil's) is imported: CPython then marks the interpreter to end itself by SIGINT.
SOURCE_TEXT_INTERRUPTED = """
import signal, sys
class SourceTextOnImport:
    def find_spec(self, name, path=None, target=None):
        if name == "bpe_desktop.core.counting":
            exec("import os, signal; os.kill(os.getpid(), signal.SIGINT)", {})
        return None
sys.meta_path.insert(0, SourceTextOnImport())
from bpe_desktop.launch import run
raise SystemExit(run())
"""


def test_ctrl_c_inside_source_text_code_under_python_m_is_exit_130(tmp_path):
    (tmp_path / "interrupted_program.py").write_text(SOURCE_TEXT_INTERRUPTED, encoding="utf-8")
    text = tmp_path / "c.txt"
    text.write_text("some words here\n", encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "interrupted_program", "count", str(text),
         "-o", str(tmp_path / "t.tsv"), "-q"],
        capture_output=True, text=True, timeout=120, cwd=tmp_path,
        env=dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), str(REPO)])),
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert proc.returncode == 130, proc.stderr
    assert proc.stderr == "bpe-desktop: error: interrupted\n"
    assert not (tmp_path / "t.tsv").exists()


@pytest.fixture
def sigint_restored():
    """run() ignores Ctrl-C from its end on, as the process exits; the test run goes on."""
    previous = signal.getsignal(signal.SIGINT)
    yield
    signal.signal(signal.SIGINT, previous)


def _run_to_its_status() -> int:
    from bpe_desktop import launch

    try:
        return launch.run()
    except KeyboardInterrupt:  # (a failure of this test, not a stop of the test run)
        pytest.fail("the Ctrl-C escaped: a traceback and an end by SIGINT")


def test_a_second_ctrl_c_while_the_first_is_reported_is_exit_130(monkeypatch, capsys,
                                                                   sigint_restored):
    from bpe_desktop import launch

    def reporting_interrupted():
        raise KeyboardInterrupt  # as from main's own report of the first Ctrl-C

    monkeypatch.setattr(launch, "main", reporting_interrupted)
    assert _run_to_its_status() == 130
    assert "Traceback" not in capsys.readouterr().err


def test_a_ctrl_c_pending_as_the_command_ends_keeps_its_status(monkeypatch, sigint_restored):
    from bpe_desktop import launch

    real_signal = signal.signal
    pending = [KeyboardInterrupt()]

    def signal_with_a_pending_ctrl_c(signum, handler):
        if pending:  # Python raises a pending Ctrl-C before it changes the handler
            raise pending.pop()
        return real_signal(signum, handler)

    monkeypatch.setattr(launch, "main", lambda: 0)
    monkeypatch.setattr(launch.signal, "signal", signal_with_a_pending_ctrl_c)
    assert _run_to_its_status() == 0
    assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN


def test_a_ctrl_c_while_the_worker_thread_starts_waits_for_the_work_to_stop(monkeypatch,
                                                                            sigint_restored):
    """Ctrl-C landing in ``Thread.start`` (it waits for the new thread to run) cancels the
    work and waits for it, as one landing later does: the command must not end while the
    engine still runs, or the interpreter's exit aborts the process."""
    import threading

    from bpe_desktop.cli._common import _in_worker
    from bpe_desktop.core.errors import TrainingCancelled
    from bpe_desktop.core.training import CancelToken

    signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a terminal
    real_start = threading.Thread.start

    def start_then_ctrl_c(thread):
        real_start(thread)
        signal.raise_signal(signal.SIGINT)  # delivered before start returns

    monkeypatch.setattr(threading.Thread, "start", start_then_ctrl_c)
    cancel, stopped = CancelToken(), threading.Event()

    def work():  # runs until cancelled, as the engine does
        while not cancel.cancelled:
            time.sleep(0.01)
        time.sleep(0.2)  # the engine's last steps after it saw the request
        stopped.set()
        raise TrainingCancelled("cancelled")

    try:
        with pytest.raises(TrainingCancelled):
            _in_worker(work, cancel)
    except KeyboardInterrupt:
        pytest.fail("the Ctrl-C escaped while the work still ran")
    assert stopped.is_set()
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_ctrl_c_before_main_handles_it_is_reported_once(monkeypatch, capsys,
                                                          sigint_restored):
    """A Ctrl-C landing as main is entered (before its handler) still ends with the line."""
    from bpe_desktop import launch

    def interrupted_on_entry():
        raise KeyboardInterrupt

    monkeypatch.setattr(launch, "_reported", False)
    monkeypatch.setattr(launch, "main", interrupted_on_entry)
    assert _run_to_its_status() == 130
    assert capsys.readouterr().err == "bpe-desktop: error: interrupted\n"


def test_a_second_ctrl_c_does_not_repeat_the_line(monkeypatch, capsys, sigint_restored):
    from bpe_desktop import launch

    def reported_then_interrupted():
        launch.report_interrupted()
        raise KeyboardInterrupt  # as from main's own report of the first Ctrl-C

    monkeypatch.setattr(launch, "_reported", False)
    monkeypatch.setattr(launch, "main", reported_then_interrupted)
    assert _run_to_its_status() == 130
    assert capsys.readouterr().err == "bpe-desktop: error: interrupted\n"
