"""Autosave of unsaved work and its recovery after a crash.

The crash is real: a child process trains the toy example in a MainWindow, waits for
the autosave and kills itself with SIGKILL, leaving its autosave and lock behind.
"""

from __future__ import annotations

import errno
import logging
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

from bpe_desktop.core import load_model, save_model
from bpe_desktop.paths import user_data_dir
from bpe_desktop.ui.window import autosave as autosave_module
from bpe_desktop.ui.window.autosave import autosave_dir, pending_recoveries
from bpe_desktop.ui.window.main_window import MainWindow
from tests.ui.window_helpers import train_toy

#: The ``ui`` (recorded dialogs) and ``window`` fixtures.
pytest_plugins = ["tests.ui.window_fixtures"]

CRASHING_SESSION = textwrap.dedent("""
    import os, signal
    from PySide6.QtCore import QTimer
    from bpe_desktop.app import create_application
    app = create_application()
    from bpe_desktop.ui.window.main_window import MainWindow
    window = MainWindow()
    window.show()
    window.training.load_example(window.training.example("toy"))
    def crash(path):
        print(path, flush=True)
        os.kill(os.getpid(), signal.SIGKILL)
    window.autosave.saved.connect(crash)
    assert window.train()
    QTimer.singleShot(60_000, lambda: os._exit(3))
    app.exec()
""")


def autosaves() -> list[str]:
    return sorted(p.name for p in autosave_dir().glob("*.json"))


def wait_for_autosave(window, qtbot):
    qtbot.waitUntil(lambda: window.autosave.exists and not window.autosave.busy,
                    timeout=10_000)


@pytest.fixture(scope="module")
def crashed_data(tmp_path_factory):
    """A user data folder as a crashed session leaves it: autosave + stale lock."""
    data = tmp_path_factory.mktemp("crashed") / "data"
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", BPE_DESKTOP_DATA_DIR=str(data),
               XDG_CONFIG_HOME=str(data.parent / "config"))
    done = subprocess.run([sys.executable, "-c", CRASHING_SESSION], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == -9, done.stderr  # killed, never closed
    saved = done.stdout.strip()
    assert saved.startswith(str(data / "autosave")) and os.path.exists(saved)
    assert os.path.exists(saved[:-len(".json")] + ".lock")
    return data


@pytest.fixture
def after_crash(crashed_data):
    """This test's data folder holds the crashed session's files."""
    shutil.copytree(crashed_data / "autosave", user_data_dir() / "autosave")
    [path] = autosave_dir().glob("*.json")
    return path


def new_window(qtbot) -> MainWindow:
    win = MainWindow()
    qtbot.addWidget(win)
    win.show()
    return win


def test_a_finished_training_is_autosaved_until_saved(window, qtbot, ui, tmp_path):
    assert autosaves() == []
    model = train_toy(window, qtbot)
    wait_for_autosave(window, qtbot)
    assert autosaves() == [window.autosave.path.name]
    assert load_model(window.autosave.path).merges == model.merges
    ui.save_path = str(tmp_path / "kept.json")
    assert window.save_as()
    assert autosaves() == []
    assert not window.document.dirty


def test_discarding_knowingly_removes_the_autosave(window, qtbot, ui):
    train_toy(window, qtbot)
    wait_for_autosave(window, qtbot)
    ui.save_answer = "cancel"
    window.new_action.trigger()
    assert autosaves() != []  # still open and unsaved: the copy stays
    ui.save_answer = "discard"
    window.new_action.trigger()
    assert window.document.model is None and autosaves() == []


def test_closing_after_discarding_removes_the_autosave_and_its_lock(qtbot, ui):
    win = new_window(qtbot)
    train_toy(win, qtbot)
    wait_for_autosave(win, qtbot)
    ui.save_answer = "discard"
    assert win.close()
    assert ui.asked_to_save == 1
    assert list(autosave_dir().iterdir()) == []


def test_an_import_is_autosaved_too(window, qtbot, ui, toy_model, tmp_path):
    from bpe_desktop.core import formats

    formats.export_model(toy_model, "subword-nmt", tmp_path / "codes")
    with qtbot.waitSignal(window.interop.done, timeout=30_000):
        window.interop.import_path("subword-nmt", str(tmp_path / "codes"))
    wait_for_autosave(window, qtbot)
    assert load_model(window.autosave.path).merges == window.document.model.merges


def test_scheduled_covers_the_delay_before_the_write_and_the_write(window, qtbot, toy_model):
    autosave = window.autosave
    assert not autosave.scheduled
    window.document.set_imported(toy_model)
    # Due a second later: not yet busy, already scheduled.
    assert autosave.scheduled and not autosave.writing and not autosave.exists
    qtbot.waitUntil(lambda: autosave.exists and not autosave.scheduled, timeout=10_000)
    assert not autosave.busy


def test_after_a_crash_the_model_is_offered_back_and_restored_unsaved(qtbot, ui, after_crash):
    crashed = load_model(after_crash)
    win = new_window(qtbot)
    assert autosaves() == [after_crash.name]  # nothing touched before asking
    win.first_run_hint()  # what the application does once the window is shown
    [(title, question)] = ui.questions
    assert title == "Recover unsaved model"
    assert "Recover the unsaved model from today at " in question
    assert "10 merges" in question
    assert win.document.model.merges == crashed.merges
    assert win.document.dirty and win.document.path is None
    assert win.windowTitle() == "Untitled[*] — BPE Desktop"
    # the crashed session's copy became this session's: still one autosave, no stale lock
    assert autosaves() == [win.autosave.path.name]
    assert load_model(win.autosave.path).merges == crashed.merges
    assert sorted(p.suffix for p in autosave_dir().iterdir()) == [".json", ".lock"]
    ui.save_answer = "discard"
    win.close()
    assert list(autosave_dir().iterdir()) == []


def test_a_declined_recovery_deletes_the_autosave(qtbot, ui, after_crash):
    ui.yes = False
    win = new_window(qtbot)
    win.first_run_hint()
    assert len(ui.questions) == 1
    assert win.document.model is None
    assert autosaves() == [] and not after_crash.with_suffix(".lock").exists()
    win.close()


def test_the_autosave_of_a_running_instance_is_not_offered(qtbot, ui):
    first = new_window(qtbot)
    train_toy(first, qtbot)
    wait_for_autosave(first, qtbot)
    second = new_window(qtbot)
    second.first_run_hint()
    assert ui.questions == [] and second.document.model is None
    assert first.autosave.exists
    second.close()
    assert first.autosave.exists  # the other window's copy is left alone
    first.close_discarding()


def test_an_unreadable_autosave_is_kept_aside_and_the_user_told(qtbot, ui, caplog):
    broken = autosave_dir() / "20000101-000000-1-abcdef.json"
    broken.write_text('{"format": "bpe-desktop-model", "version": 1, "merges": [')
    win = new_window(qtbot)
    with caplog.at_level(logging.ERROR, logger=autosave_module.__name__):
        win.first_run_hint()
    assert ui.questions == [] and not broken.exists()
    kept = broken.with_name(broken.name + ".unreadable")
    assert kept.read_text().endswith('"merges": [')
    (title, message), = ui.errors
    assert title == "Autosave not recovered" and str(kept) in message
    assert "cannot be read" in caplog.text and broken.name in caplog.text
    win.close()
    assert pending_recoveries() == []  # not offered again


def test_temporary_files_of_killed_autosaves_go_at_start(qtbot, ui):
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale = autosave_dir() / f".20000101-000000-1-abcdef.json.{dead.pid}-0123456789ab.tmp"
    stale.write_bytes(b'{"format": "bpe-desktop-model", "ver')
    win = new_window(qtbot)
    win.first_run_hint()
    assert not stale.exists()
    win.close()


def test_the_newest_of_several_crashed_autosaves_is_offered_first(qtbot, ui, toy_model,
                                                                   botchan_model):
    old, new = autosave_dir() / "old.json", autosave_dir() / "new.json"
    save_model(botchan_model, old)
    save_model(toy_model, new)
    os.utime(old, (1_000_000_000, 1_000_000_000))
    assert [r.path.name for r in pending_recoveries()] == ["new.json", "old.json"]
    for r in pending_recoveries():
        r.release()
    win = new_window(qtbot)
    win.first_run_hint()
    assert len(ui.questions) == 1 and win.document.model.merges == toy_model.merges
    assert old.exists()  # kept: offered at the next start
    ui.save_answer = "discard"
    win.close()
    assert autosaves() == ["old.json"]


def test_a_failed_autosave_is_reported_and_the_model_stays_open(window, qtbot, ui,
                                                                monkeypatch):
    def disk_full(model, path):
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(autosave_module, "save_model", disk_full)
    with qtbot.waitSignal(window.autosave.failed, timeout=30_000) as blocker:
        model = train_toy(window, qtbot)
    assert "No space left on device" in blocker.args[0]
    assert "Save it yourself" in window.statusBar().full_message()  # shown elided if long
    assert window.document.model is model and window.document.dirty
    assert autosaves() == []


# -- locks left by killed instances ------------------------------------------------------


def _write_lock(json_path, pid: int, written: float | None = None):
    """A lock file as QLockFile writes it, naming ``pid`` (written at ``written``)."""
    from PySide6.QtCore import QLockFile

    probe = json_path.parent / "probe.lock"
    real = QLockFile(str(probe))
    assert real.tryLock(0)
    lines = probe.read_text(encoding="utf-8").splitlines()
    real.unlock()
    lines[0] = str(pid)
    lock_path = json_path.with_suffix(".lock")
    lock_path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    if written is not None:
        os.utime(lock_path, (written, written))
    return lock_path


def _a_dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def _sleeping_python():
    """A live process running the same program as this one (python)."""
    return subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])


def test_an_autosave_locked_by_a_dead_pid_is_offered_and_its_lock_cleared(qtbot, ui,
                                                                          toy_model):
    saved = autosave_dir() / "20260101-000000-1-dead00.json"
    save_model(toy_model, saved)
    lock = _write_lock(saved, _a_dead_pid())
    win = new_window(qtbot)
    ui.yes = False  # declined: the autosave and its lock go
    win.first_run_hint()
    assert len(ui.questions) == 1 and "did not close normally" in ui.questions[0][1]
    assert not saved.exists() and not lock.exists()
    win.close()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_lock_whose_pid_now_belongs_to_a_newer_process_is_stale(qtbot, ui, toy_model):
    """The killed instance's PID was reused by another python process: still offered."""
    import time

    saved = autosave_dir() / "20260101-000000-2-reused.json"
    save_model(toy_model, saved)
    other = _sleeping_python()
    try:
        lock = _write_lock(saved, other.pid, written=time.time() - 3600)  # before it started
        win = new_window(qtbot)
        win.first_run_hint()
        assert len(ui.questions) == 1  # offered, not taken for a running instance's
        assert win.document.model.merges == toy_model.merges
        assert not lock.exists() and not saved.exists()  # adopted as this session's
        ui.save_answer = "discard"
        win.close()
    finally:
        other.kill()
        other.wait()


def test_a_lock_held_by_a_live_older_process_is_respected(qtbot, ui, toy_model):
    import time

    other = _sleeping_python()
    try:
        time.sleep(1.5)  # the lock is written after its owner started, as a real one is
        saved = autosave_dir() / "20260101-000000-3-live00.json"
        save_model(toy_model, saved)
        lock = _write_lock(saved, other.pid)
        win = new_window(qtbot)
        win.first_run_hint()
        assert ui.questions == [] and lock.exists() and saved.exists()
        win.close()
    finally:
        other.kill()
        other.wait()


def test_a_lock_without_an_autosave_left_by_a_dead_instance_is_removed(qtbot, ui):
    orphan = _write_lock(autosave_dir() / "20260101-000000-4-orphan.json", _a_dead_pid())
    assert [p.name for p in autosave_dir().glob("*.lock")] == [orphan.name]
    win = new_window(qtbot)
    win.first_run_hint()
    assert ui.questions == [] and not orphan.exists()
    win.close()
