"""Garbage is collected on the GUI thread, by the collector's thresholds, never in a worker."""

from __future__ import annotations

import gc
import threading
import weakref

from PySide6.QtCore import QObject

from bpe_desktop.core import chunked


class _Cycle(QObject):
    def __init__(self) -> None:
        super().__init__()
        self.me = self  # a reference cycle: only the cyclic collector frees it


def test_automatic_collection_is_off_and_the_gui_thread_collects(qtbot, gui_thread_collector):
    assert not gc.isenabled()
    ran = []

    def watch(phase, info):
        if phase == "stop":
            ran.append(threading.current_thread() is threading.main_thread())

    cycle = _Cycle()
    ref = weakref.ref(cycle)
    del cycle
    assert ref() is not None  # a cycle is not freed by reference counting
    gc.callbacks.append(watch)
    try:
        # Kept alive: the count is allocations less deallocations.
        junk = [[] for _ in range(gc.get_threshold()[0] + 10)]  # past generation 0's threshold
        qtbot.waitUntil(lambda: bool(ran), timeout=5_000)  # the timer collected, unasked
        del junk
    finally:
        gc.callbacks.remove(watch)
    assert all(ran)
    gc.collect()  # the cycle may have been promoted to an older generation meanwhile
    assert ref() is None


def test_no_collection_runs_in_a_worker_thread(gui_thread_collector):
    collected_in = []

    def watch(phase, info):
        if phase == "start":
            collected_in.append(threading.current_thread() is threading.main_thread())

    gc.callbacks.append(watch)
    try:
        def allocate():
            for _ in range(20):
                cycles = [[] for _ in range(5_000)]
                for c in cycles:
                    c.append(c)
        worker = threading.Thread(target=allocate)
        worker.start()
        worker.join()
    finally:
        gc.callbacks.remove(watch)
    assert False not in collected_in


def test_a_paused_job_holds_collection_back(gui_thread_collector):
    gc.collect()
    junk = [[] for _ in range(gc.get_threshold()[0] + 10)]
    with chunked.collector_paused():
        assert gui_thread_collector.collect_due() is None
    assert gui_thread_collector.collect_due() == 0
    del junk
