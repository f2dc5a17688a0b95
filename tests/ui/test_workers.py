"""JobRunner: results, errors and cancellation arrive on the GUI thread; threads end."""

from __future__ import annotations

import os
import sys
import threading
import time

import pytest

from bpe_desktop.core import ConfigError
from bpe_desktop.ui.common.workers import JobError, JobRunner, running_threads


def test_result_arrives_on_the_gui_thread(qtbot):
    runner = JobRunner()
    seen = {}

    def job(report, cancel):
        seen["job_thread"] = threading.current_thread()
        return 42

    runner.finished.connect(lambda r: seen.update(result=r, slot_thread=threading.current_thread()))
    with qtbot.waitSignal(runner.stopped, timeout=10_000):
        runner.start(job)
    assert seen["result"] == 42
    assert seen["job_thread"] is not threading.main_thread()
    assert seen["slot_thread"] is threading.main_thread()
    assert not runner.running and running_threads() == []


def test_progress_is_throttled_and_held_back_payloads_are_reported(qtbot):
    # The job moves the runner's clock itself, so the throttle is checked against known
    # times rather than against how fast a loaded machine runs the job.
    now = [0.0]
    runner = JobRunner(min_interval=0.125, clock=lambda: now[0])
    received, emitted = [], []
    runner.progressed.connect(received.append)

    def job(report, cancel):
        for step in range(22):  # a report every 1/32 s (binary fractions: exact sums)
            now[0] = step / 32
            if report(step):
                emitted.append(step)
        report("last", force=True)  # held-back counts go out at once
        return step

    with qtbot.waitSignal(runner.stopped, timeout=10_000):
        runner.start(job)
    assert received == emitted + ["last"]
    # the first report goes out, then one each time 0.125 s has passed since the last
    assert emitted == [0, 4, 8, 12, 16, 20]


def test_exception_becomes_failed_with_details(qtbot):
    runner = JobRunner()
    errors: list[JobError] = []
    runner.failed.connect(errors.append)

    def job(report, cancel):
        raise ConfigError("vocab_size must be at least 1")

    with qtbot.waitSignal(runner.stopped, timeout=10_000):
        runner.start(job)
    assert len(errors) == 1
    assert errors[0].message == "vocab_size must be at least 1"
    assert "ConfigError" in errors[0].details


def test_cancel_reaches_the_job_and_emits_cancelled(qtbot):
    runner = JobRunner()
    started = threading.Event()
    outcomes = []
    runner.cancelled.connect(lambda: outcomes.append("cancelled"))
    runner.finished.connect(lambda r: outcomes.append("finished"))

    def job(report, cancel):
        started.set()
        while not cancel.cancelled:
            time.sleep(0.001)
        return "too late"

    runner.start(job)
    assert started.wait(10)
    with qtbot.waitSignal(runner.stopped, timeout=10_000):
        runner.cancel()
    assert outcomes == ["cancelled"]


def test_only_one_job_at_a_time_and_shutdown_waits(qtbot):
    runner = JobRunner()
    gate = threading.Event()
    runner.start(lambda report, cancel: gate.wait(5) or cancel.cancelled)
    with pytest.raises(RuntimeError):
        runner.start(lambda report, cancel: None)
    gate.set()
    assert runner.shutdown(10_000)
    assert not runner.running and running_threads() == []


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread nice is Linux's")
def test_jobs_and_the_threads_they_start_run_below_the_gui_threads_priority(qtbot):
    """A job's thread, and the engine's threads it starts (they inherit it), yield the
    cores to the GUI thread: their nice value is JOB_NICENESS above the GUI thread's."""
    from bpe_desktop.ui.common.workers import JOB_NICENESS

    def nice() -> int:
        return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    runner = JobRunner()
    seen = {}

    def job(report, cancel):
        seen["job"] = nice()
        child = threading.Thread(target=lambda: seen.update(child=nice()))
        child.start()
        child.join()

    gui = nice()
    with qtbot.waitSignal(runner.stopped, timeout=10_000):
        runner.start(job)
    assert seen == {"job": min(19, gui + JOB_NICENESS), "child": min(19, gui + JOB_NICENESS)}
    assert nice() == gui  # the GUI thread keeps its own



@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread nice is Linux's")
def test_python_jobs_keep_the_gui_threads_priority(qtbot, monkeypatch):
    """Jobs that mostly run Python hold the GIL in turns: niced, they would wait for a core
    while holding it, and the GUI thread with them. Their runners keep the GUI thread's
    priority: the vocabulary's loading and filters, the memory estimate (the training
    panel's runner, whose training job lowers its own) and the autosave."""
    from bpe_desktop.ui.common.background import LatestJob
    from bpe_desktop.ui.training.panel import TrainingPanel
    from bpe_desktop.ui.vocabulary.filtering import TableFilter
    from bpe_desktop.ui.vocabulary.panel import VocabPanel
    from bpe_desktop.ui.window.autosave import Autosave
    from bpe_desktop.ui.window.document import ModelDocument

    def nice() -> int:
        return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    gui, seen = nice(), {}
    runner = JobRunner(lower_priority=False)
    with qtbot.waitSignal(runner.stopped, timeout=10_000):
        runner.start(lambda report, cancel: seen.update(runner=nice()))
    latest = LatestJob(lower_priority=False)
    with qtbot.waitSignal(latest.finished, timeout=10_000):
        latest.submit(lambda report, cancel: seen.update(latest=nice()))
    latest.shutdown()
    assert seen == {"runner": gui, "latest": gui}
    assert JobRunner().lower_priority and LatestJob()._runner.lower_priority

    training, vocabulary = TrainingPanel(), VocabPanel()
    qtbot.addWidget(training)
    qtbot.addWidget(vocabulary)
    autosave = Autosave(ModelDocument())
    assert not training.runner.lower_priority
    assert not vocabulary._jobs._runner.lower_priority
    assert not autosave._runner.lower_priority
    assert not vocabulary._filter._jobs._runner.lower_priority
    assert isinstance(vocabulary._filter, TableFilter)
    autosave.close()

    # The training job itself runs niced, and the engine's threads it starts with it.
    from types import SimpleNamespace

    from bpe_desktop.ui.common.workers import JOB_NICENESS
    from bpe_desktop.ui.training import panel as training_panel

    def fake_train(*args, **kwargs):
        seen["training"] = nice()
        return SimpleNamespace(model=SimpleNamespace(piece_ids={}))

    monkeypatch.setattr(training_panel, "train", fake_train)
    same_as_the_panels = JobRunner(lower_priority=training.runner.lower_priority)
    with qtbot.waitSignal(same_as_the_panels.stopped, timeout=10_000):
        same_as_the_panels.start(training_panel._training_job(None, None))
    assert seen["training"] == min(19, gui + JOB_NICENESS)
