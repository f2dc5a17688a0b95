"""Garbage is collected on the GUI thread, by the collector's thresholds, never in a worker."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import threading
import weakref
from pathlib import Path

from PySide6.QtCore import QObject

from bpe_desktop.core import chunked

ROOT = Path(__file__).resolve().parents[2]


class _Cycle(QObject):
    def __init__(self) -> None:
        super().__init__()
        self.me = self  # a reference cycle: only the cyclic collector frees it


def test_automatic_collection_is_off_and_the_gui_thread_collects(qtbot, gui_thread_collector):
    assert not gc.isenabled()
    gc.collect()  # counts from zero: earlier tests' objects are not a batch to freeze
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
        junk = [[] for _ in range(gc.get_threshold()[0] + 500)]  # past generation 0's threshold
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


def test_a_large_batch_of_new_objects_is_frozen_not_walked(gui_thread_collector,
                                                           monkeypatch):
    """Objects made in one go (a model, a table) leave the collector's passes; reference
    counting still frees them, and small batches are collected as before."""
    from bpe_desktop.ui.common import collector
    from bpe_desktop.ui.common.collector import FREEZE_OVER, FROZEN

    monkeypatch.setattr(collector, "_user_is_here", lambda: True)
    gc.collect()
    frozen_before = gc.get_freeze_count()
    try:
        batch = [[i] for i in range(FREEZE_OVER + 1_000)]
        assert gui_thread_collector.collect_due() == FROZEN
        assert gc.get_freeze_count() >= frozen_before + len(batch)
        probe = weakref.ref(_Cycle())  # made after the freeze: collected as before
        item = batch[5]
        del batch  # frozen objects are still freed by reference counting
        assert sys.getrefcount(item) == 2  # only `item` (and the call's argument) hold it
        junk = [[] for _ in range(gc.get_threshold()[0] + 500)]
        assert gui_thread_collector.collect_due() == 0  # a small batch: collected as before
        del junk
        assert probe() is None  # the cycle made after the freeze was collected
    finally:
        gc.unfreeze()


def test_a_batch_made_while_older_objects_are_freed_is_frozen_too(gui_thread_collector,
                                                                  monkeypatch):
    """The allocation count is allocations less deallocations: a model built while the one
    it replaces is freed leaves it low over a large young generation. The collector counts
    the objects a pass would walk, and freezes them instead of walking them."""
    from bpe_desktop.ui.common import collector
    from bpe_desktop.ui.common.collector import FREEZE_OVER, FROZEN

    monkeypatch.setattr(collector, "_user_is_here", lambda: True)
    gc.collect()
    old = [[i] for i in range(2 * FREEZE_OVER)]
    gc.freeze()  # as a retired model's objects are when the release thread frees them
    try:
        new = []
        for i in range(2 * FREEZE_OVER):
            new.append([i])
            old[i] = None  # a frozen object freed: the count goes down by one again
        assert gc.get_count()[0] < gc.get_threshold()[0]  # the count does not show the batch
        assert collector.objects_walked(0) >= len(new)
        assert gui_thread_collector.collect_due() == FROZEN
        assert collector.objects_walked(0) < 1_000  # nothing left for a pass to walk
        frozen = gc.get_freeze_count()
        del new
        assert gc.get_freeze_count() <= frozen - 2 * FREEZE_OVER  # still freed by refcount
    finally:
        gc.unfreeze()


def test_objects_walked_counts_the_generations_a_pass_collects(gui_thread_collector):
    from bpe_desktop.ui.common.collector import objects_walked

    kept = [[i] for i in range(5_000)]
    gc.collect()  # everything alive is in the oldest generation now
    assert objects_walked(0) < 1_000 and objects_walked(1) < 1_000  # other threads: a few
    assert objects_walked(2) >= len(kept)
    more = [[i] for i in range(3_000)]  # automatic collection is off: all of it stays young
    assert objects_walked(0) >= len(more)
    assert objects_walked(1) >= objects_walked(0)
    assert objects_walked(2) >= len(kept) + len(more)


def test_counting_never_disturbs_a_tuple_another_thread_is_building():
    """objects_walked lists a generation's objects: if the GIL were let go while that list
    exists, a tuple another thread is building from a generator (its references counted
    twice) could not be resized, and that thread's tuple() would raise SystemError. With
    a generator expression here, this test raised it dozens of times (3.11 and 3.13)."""
    import time

    from bpe_desktop.ui.common.collector import objects_walked

    class Item:
        __slots__ = ("n",)

        def __init__(self, n: int) -> None:
            self.n = n

    stop = threading.Event()
    errors: list[BaseException] = []
    built = [0]

    def build() -> None:
        numbers = range(2000)
        while not stop.is_set():
            try:
                tuple(Item(n) for n in numbers)
                built[0] += 1
            except SystemError as exc:
                errors.append(exc)

    gc.collect()  # the young generation, walked below, holds what this test makes
    interval = sys.getswitchinterval()
    sys.setswitchinterval(0.0002)  # switch often, as the application does
    worker = threading.Thread(target=build)
    worker.start()
    walks = 0
    try:
        end = time.monotonic() + 10.0
        while time.monotonic() < end and (walks < 500 or built[0] < 50):
            objects_walked(0)  # the tuples being built are young
            walks += 1
    finally:
        stop.set()
        worker.join()
        sys.setswitchinterval(interval)
    assert errors == []
    assert walks >= 500 and built[0] >= 50  # both threads ran, turn by turn


def test_a_replaced_model_is_freed_without_the_cyclic_collector(qapp, botchan_model):
    """A model that built its tokenizer (which refers back to it) is freed by reference
    counting once the document replaces it, so freezing it never keeps it alive; freed on
    the release thread (core.release), not on the GUI thread."""
    import threading
    import time

    from bpe_desktop.core import load_model, save_model
    from bpe_desktop.ui.window.document import ModelDocument

    document = ModelDocument()
    gc.disable()
    try:
        import tempfile
        with tempfile.TemporaryDirectory() as folder:
            path = f"{folder}/m.json"
            save_model(botchan_model, path)
            old = load_model(path)
        old.tokenizer().encode("a cat")
        document.set_imported(old)
        ref = weakref.ref(old)
        freed_on = []
        weakref.finalize(old, lambda: freed_on.append(threading.current_thread().name))
        del old
        gc.freeze()  # as the GUI-thread collector may have done meanwhile
        document.set_imported(botchan_model)
        # (Models retired by earlier tests may still be held: wait for this one only.)
        deadline = time.monotonic() + 10
        while ref() is not None and time.monotonic() < deadline:
            time.sleep(0.01)
        assert ref() is None
        assert freed_on == ["bpe-release"]
        assert botchan_model.tokenizer().encode("a cat")  # the new one still works
    finally:
        gc.unfreeze()


def test_what_was_frozen_is_collected_once_the_user_is_away(gui_thread_collector,
                                                            monkeypatch):
    """Cyclic garbage frozen with a batch is not lost: when no window of the application
    is active, everything is collected in one pass and what lives is frozen again."""
    from bpe_desktop.ui.common import collector
    from bpe_desktop.ui.common.collector import FREEZE_OVER, FROZEN, THAWED

    here = [True]
    monkeypatch.setattr(collector, "_user_is_here", lambda: here[0])
    gc.collect()
    try:
        cycle = _Cycle()
        garbage, alive = weakref.ref(cycle), [[i] for i in range(FREEZE_OVER + 1_000)]
        del cycle  # garbage in a reference cycle, young when the batch is frozen
        assert gui_thread_collector.collect_due() == FROZEN
        assert gui_thread_collector.collect_due() != THAWED  # the user is still here
        assert garbage() is not None
        here[0] = False
        assert gui_thread_collector.collect_due() == THAWED
        assert garbage() is None
        assert gc.get_freeze_count() >= len(alive)  # the living are frozen again
        assert gui_thread_collector.collect_due() != THAWED  # nothing new frozen since
    finally:
        gc.unfreeze()


def test_stop_hands_collection_back_as_it_was(monkeypatch):
    """A stopped collector leaves nothing frozen and automatic collection as it found it:
    on if it was on, off if it was off (the process's state, shared by later code)."""
    from bpe_desktop.ui.common import collector
    from bpe_desktop.ui.common.collector import FREEZE_OVER, FROZEN, GuiThreadCollector

    monkeypatch.setattr(collector, "_user_is_here", lambda: True)
    was_enabled = gc.isenabled()  # off: the test's own collector owns collection
    try:
        for enabled in (True, False):
            (gc.enable if enabled else gc.disable)()
            gc.collect()
            own = GuiThreadCollector()
            assert not gc.isenabled()
            batch = [[i] for i in range(FREEZE_OVER + 1_000)]
            assert own.collect_due() == FROZEN and gc.get_freeze_count() >= len(batch)
            own.stop()
            assert gc.get_freeze_count() == 0
            assert gc.isenabled() is enabled
            del batch
    finally:
        gc.unfreeze()
        (gc.enable if was_enabled else gc.disable)()


def test_a_main_window_test_does_not_disturb_the_next_test():
    """In this order, the window closed at the end of the first test used to be destroyed
    during the second one's waitUntil (pytest-qt's deleteLater), and the objects it freed
    kept the allocation count under the threshold the second test waits for. Run in a child
    pytest, as the order is what is tested."""
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(ROOT))
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
         "tests/ui/test_bad_input.py::test_an_empty_corpus_list_is_explained",
         "tests/ui/test_collector.py::test_automatic_collection_is_off_and_the_gui_thread_collects"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "2 passed" in done.stdout
