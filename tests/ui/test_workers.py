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


def _nice(tid: int) -> int:
    return os.getpriority(os.PRIO_PROCESS, tid)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread nice is Linux's")
def test_jobs_keep_the_gui_threads_priority_and_the_engines_threads_run_below_it(qtbot):
    """Jobs run Python, so they keep the GUI thread's priority (lowered, one holding the
    GIL would wait for a core while the GUI thread waits for it); the threads the engine
    starts for them run ENGINE_NICENESS steps lower, as the application sets at start-up."""
    from bpe_desktop.core import Corpus, TrainConfig, lower_engine_threads, train
    from bpe_desktop.ui.common.background import LatestJob
    from bpe_desktop.ui.common.scheduling import ENGINE_NICENESS

    gui = _nice(threading.get_native_id())
    seen: dict = {"engine": set()}

    def training_job(report, cancel):
        me = threading.get_native_id()
        seen["job"] = _nice(me)

        def on_progress(_progress) -> None:  # on this thread, while the engine's run
            for task in os.listdir("/proc/self/task"):
                if int(task) != me:
                    seen["engine"].add(_nice(int(task)))

        text = open(os.path.join(os.path.dirname(__file__), "..", "data", "ud_english.txt"),
                    encoding="utf-8").read()
        return train(Corpus.from_texts([text]), TrainConfig(vocab_size=500, threads=2),
                     on_progress=on_progress)

    before = lower_engine_threads(ENGINE_NICENESS)
    try:
        runner = JobRunner()
        with qtbot.waitSignal(runner.stopped, timeout=60_000):
            runner.start(training_job)
        latest = LatestJob()
        with qtbot.waitSignal(latest.finished, timeout=10_000):
            latest.submit(lambda report, cancel: seen.update(latest=_nice(threading.get_native_id())))
        latest.shutdown()
    finally:
        lower_engine_threads(before)
    assert seen["job"] == gui and seen["latest"] == gui
    assert min(19, gui + ENGINE_NICENESS) in seen["engine"]  # the engine's pool and reader
    assert _nice(threading.get_native_id()) == gui  # the GUI thread keeps its own


def test_the_engines_threads_are_lowered_by_0_to_19_steps():
    from bpe_desktop.core import lower_engine_threads

    for steps in (-1, 20):
        with pytest.raises(ConfigError, match="from 0 to 19"):
            lower_engine_threads(steps)