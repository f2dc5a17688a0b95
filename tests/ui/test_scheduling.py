"""The GUI thread's short scheduler slice, and threads run below it
(bpe_desktop.ui.common.scheduling)."""

from __future__ import annotations

import os
import platform
import re
import sys
import threading

from bpe_desktop.ui.common.scheduling import (
    GUI_SLICE_NS,
    favour_this_thread,
    lower_this_thread,
    this_threads_slice_ns,
)


def _kernel_takes_slices() -> bool:
    """Linux 6.12 or later on a machine whose system call numbers the module knows."""
    if not sys.platform.startswith("linux") or platform.machine() not in ("x86_64", "aarch64"):
        return False
    major, minor = map(int, re.match(r"(\d+)\.(\d+)", platform.release()).groups())
    return (major, minor) >= (6, 12)


def _in_a_thread(fn):
    """``fn()``'s result, run in a thread of its own (this process's threads keep their
    slices)."""
    out = {}
    thread = threading.Thread(target=lambda: out.setdefault("result", fn()))
    thread.start()
    thread.join()
    return out["result"]


def test_the_favoured_thread_gets_the_short_slice_and_keeps_its_niceness():
    def favour():
        tid = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, tid, os.getpriority(os.PRIO_PROCESS, tid) + 2)
        nice = os.getpriority(os.PRIO_PROCESS, tid)
        taken = favour_this_thread()
        return taken, this_threads_slice_ns(), nice, os.getpriority(os.PRIO_PROCESS, tid)

    taken, slice_ns, nice_before, nice_after = _in_a_thread(favour)
    assert taken == _kernel_takes_slices()
    if taken:
        assert slice_ns == GUI_SLICE_NS
    else:  # nothing changed
        assert slice_ns != GUI_SLICE_NS
    assert nice_after == nice_before


def test_threads_it_starts_keep_the_normal_slice():
    def favour_then_start_one():
        taken = favour_this_thread()
        return taken, _in_a_thread(this_threads_slice_ns)

    taken, child_slice = _in_a_thread(favour_then_start_one)
    assert taken == _kernel_takes_slices()
    assert child_slice != GUI_SLICE_NS
    if taken:
        assert child_slice > GUI_SLICE_NS  # the kernel's default, 0.7 ms and up


def test_the_application_prioritises_the_thread_that_creates_it(monkeypatch):
    """create_application (the GUI thread) applies both rules: here its engine setting."""
    from bpe_desktop.app import create_application
    from bpe_desktop.core import lower_engine_threads
    from bpe_desktop.ui.common import scheduling

    called = []
    monkeypatch.setattr(scheduling, "prioritise_gui_thread", lambda: called.append(True))
    create_application()
    assert called == [True]

    before = lower_engine_threads(0)
    try:
        monkeypatch.undo()  # the real one
        _in_a_thread(scheduling.prioritise_gui_thread)
        assert lower_engine_threads(0) == scheduling.ENGINE_NICENESS
    finally:
        lower_engine_threads(before)


def test_a_lowered_thread_is_lowered_alone():
    """The project's page check runs below the GUI thread; nothing else is lowered."""
    me = threading.get_native_id()
    before = os.getpriority(os.PRIO_PROCESS, me)

    def lower():
        tid = threading.get_native_id()
        start = os.getpriority(os.PRIO_PROCESS, tid)
        taken = lower_this_thread(10)
        return taken, os.getpriority(os.PRIO_PROCESS, tid) - start
    taken, steps = _in_a_thread(lower)
    assert taken == sys.platform.startswith("linux")
    assert steps == (min(10, 19 - before) if taken else 0)
    assert os.getpriority(os.PRIO_PROCESS, me) == before
