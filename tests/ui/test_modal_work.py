"""Opening and saving a model off the GUI thread, the window painting meanwhile
(bpe_desktop.ui.common.modal_work and the main window's use of it)."""

from __future__ import annotations

import threading
import time

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QMainWindow, QProgressDialog, QPushButton

from bpe_desktop.core import load_model, save_model
from bpe_desktop.ui.common import modal_work
from bpe_desktop.ui.common.modal_work import Cancelled, run_modal
from bpe_desktop.ui.window import document as document_module

pytest_plugins = ["tests.ui.window_fixtures"]


@pytest.fixture
def host(qtbot):
    window = QMainWindow()
    button = QPushButton("press", window)
    window.setCentralWidget(button)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    return window


def _slow(seconds: float, result=None):
    def work():
        time.sleep(seconds)
        return result if result is not None else threading.current_thread()
    return work


def _later(ms: int, action) -> None:
    QTimer.singleShot(ms, action)


def test_the_work_runs_in_a_worker_while_the_window_keeps_its_timers(host):
    ticks = []
    timer = QTimer(host)
    timer.timeout.connect(lambda: ticks.append(time.perf_counter()))
    timer.start(10)
    thread = run_modal(host, "Working…", _slow(0.3))
    timer.stop()
    assert thread is not threading.current_thread()
    # ~30 due; one would be if the GUI thread had waited for the work
    assert len(ticks) >= 5


def test_an_error_is_raised_as_the_work_raised_it(host):
    def fails():
        raise OSError(28, "No space left on device", "/full/model.json")

    with pytest.raises(OSError) as caught:
        run_modal(host, "Saving…", fails)
    assert caught.value.errno == 28 and caught.value.filename == "/full/model.json"


def test_the_progress_dialog_appears_only_for_long_work(host):
    seen = {}

    def look(when):
        dialogs = host.findChildren(QProgressDialog)
        seen[when] = [d.isVisible() for d in dialogs]

    _later(0, lambda: look("early"))  # the first turn of the work's event loop
    _later(modal_work.SHOW_AFTER_MS + 200, lambda: look("late"))
    run_modal(host, "Saving big.json…", _slow((modal_work.SHOW_AFTER_MS + 400) / 1000))
    assert seen == {"early": [False], "late": [True]}
    assert not any(d.isVisible() for d in host.findChildren(QProgressDialog))


def test_quick_work_leaves_no_dialog_behind_for_the_next_dialog(host):
    """Save then Open (unsaved model, Ctrl+O, Save): the Open dialog's own event loop runs
    before the finished work's dialog is deleted; however long the user takes there (past
    QProgressDialog's own 4-second show timer), the Saving dialog must not show up."""
    from PySide6.QtCore import QEventLoop

    seen = []
    outer = QEventLoop()  # the application's loop, running the Ctrl+O handler

    def save_then_open():
        run_modal(host, "Saving toy.json…", _slow(0.05))
        nested = QEventLoop()  # as QFileDialog.exec() runs one, right after the save
        _later(4500, lambda: (
            seen.append([d.isVisible() for d in host.findChildren(QProgressDialog)]),
            nested.quit()))
        nested.exec()
        outer.quit()

    _later(0, save_then_open)
    outer.exec()
    assert seen and not any(seen[0])


def test_cancel_returns_at_once_and_drops_the_result(host, qtbot):
    def press_cancel():
        (dialog,) = [d for d in host.findChildren(QProgressDialog) if d.isVisible()]
        dialog.findChild(QPushButton).click()

    _later(modal_work.SHOW_AFTER_MS + 100, press_cancel)
    start = time.perf_counter()
    with pytest.raises(Cancelled):
        run_modal(host, "Opening big.json…", _slow(1.6), cancellable=True)
    assert time.perf_counter() - start < 1.3  # did not wait for the work
    modal_work.finish_abandoned()  # as the main window does when it closes


def test_without_cancel_the_dialog_has_no_cancel_button(host):
    buttons = {}
    _later(modal_work.SHOW_AFTER_MS + 100, lambda: buttons.update(
        found=[d.findChildren(QPushButton) for d in host.findChildren(QProgressDialog)
               if d.isVisible()]))
    run_modal(host, "Saving…", _slow((modal_work.SHOW_AFTER_MS + 300) / 1000))
    assert buttons["found"] == [[]]


def test_input_to_the_window_is_held_back_meanwhile(host):
    button = host.centralWidget()
    pressed, saved = [], []
    button.clicked.connect(lambda: pressed.append(1))
    action = QAction("Save", host)
    action.setShortcut(QKeySequence("Ctrl+S"))
    action.triggered.connect(lambda: saved.append(1))
    host.addAction(action)

    def poke():
        QTest.mouseClick(button, Qt.MouseButton.LeftButton)
        QTest.keyClick(button, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)

    _later(50, poke)
    run_modal(host, "Saving…", _slow(0.3))
    assert pressed == [] and saved == []
    poke()  # and afterwards it gets through again
    assert pressed == [1] and saved == [1]


def test_a_window_the_program_closes_meanwhile_does_close(host, qtbot):
    from PySide6.QtWidgets import QWidget

    other = QWidget()
    qtbot.addWidget(other)
    other.show()
    _later(50, other.close)  # not the user's input: not held back
    run_modal(host, "Saving…", _slow(0.3))
    assert not other.isVisible()


def test_the_waiting_window_stays_open_meanwhile(host):
    closed = []
    _later(50, lambda: closed.append(host.close()))
    run_modal(host, "Saving…", _slow(0.3))
    assert closed == [False] and host.isVisible()


def _record_threads(monkeypatch, name, function):
    threads = []

    def recorded(*args, **kwargs):
        threads.append(threading.current_thread())
        return function(*args, **kwargs)

    monkeypatch.setattr(document_module, name, recorded)
    return threads


def test_the_window_reads_and_writes_model_files_off_the_gui_thread(
        window, ui, tmp_path, toy_model, monkeypatch):
    path = tmp_path / "toy.json"
    save_model(toy_model, path)
    reads = _record_threads(monkeypatch, "load_model", load_model)
    writes = _record_threads(monkeypatch, "save_model", save_model)
    assert window.open_path(str(path))
    assert window.document.model.merges == toy_model.merges
    ui.save_path = str(tmp_path / "copy.json")
    assert window.save_as()
    assert load_model(ui.save_path).merges == toy_model.merges
    assert not window.document.dirty
    gui = threading.current_thread()
    assert len(reads) == 1 and len(writes) == 1
    assert reads[0] is not gui and writes[0] is not gui


def test_a_cancelled_open_keeps_the_open_model(window, tmp_path, toy_model, monkeypatch):
    first, second = tmp_path / "first.json", tmp_path / "second.json"
    save_model(toy_model, first)
    save_model(toy_model, second)
    assert window.open_path(str(first))
    model = window.document.model

    def slow_load(path):
        time.sleep(1.5)
        return load_model(path)

    monkeypatch.setattr(document_module, "load_model", slow_load)

    def press_cancel():
        for dialog in window.findChildren(QProgressDialog):
            if dialog.isVisible():
                dialog.findChild(QPushButton).click()

    _later(modal_work.SHOW_AFTER_MS + 100, press_cancel)
    assert not window.open_path(str(second))
    assert window.document.model is model
    assert window.document.path == str(first)
    assert "cancelled" in window.statusBar().currentMessage()
    assert modal_work._abandoned  # still reading: closing the window waits for it
    window.close_discarding()
    assert not modal_work._abandoned
