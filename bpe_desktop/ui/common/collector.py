"""Cyclic garbage collection on the GUI thread only, in passes short enough not to stall it.

Python's collector runs in whichever thread happens to allocate when a threshold is
crossed. When that is a worker thread and the garbage holds Qt objects (a closed dialog,
the menus of an earlier window), their C++ destructors run in the worker: Qt locks the
objects' mutexes there and the destructor then waits for the GIL, which the GUI thread
holds while it waits for one of those mutexes — both threads stop for good (seen in the
tests: a worker importing a model collected an earlier window's menu while the GUI thread
painted a plot). So automatic collection is switched off and a timer on the GUI thread
collects instead, by the same per-generation thresholds.

A pass walks every object of the generations it collects, holding the GIL: ~0.7 µs an
object, so ~70 ms per 100,000 objects. Such batches arrive all at once, made by a worker
(a model made in Python, a vocabulary's table, a long text's encoding; a model the engine
holds is a few objects) and live as long as they are shown;
their objects hold strings and numbers, no reference cycles. So when a pass would walk more
than :data:`FREEZE_OVER` objects, the collector does not walk them (again and again, as they
age) but moves them to the permanent generation (``gc.freeze()``, which takes no time). The
objects are counted, not read off ``gc.get_count()``: that count is allocations less
deallocations, and a model built while the one it replaces is freed (on the release thread)
left it at a few hundred over a young generation of ~100,000 objects, whose pass then held
the GUI thread for 31 ms. Reference counting still frees frozen objects, only cyclic
garbage among them escapes (a model and its cached tokenizer refer to each other; the
document breaks that cycle when it replaces its model, ``core.release.retire``, but
other panels' and temporary models keep theirs). So once the user has left the
application (another window is active, or it is hidden), everything frozen is handed back
and collected in one full pass, and what is still alive frozen again: the stall then
happens while nobody is looking.
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtGui import QGuiApplication

from bpe_desktop.core import chunked

#: How often the GUI thread looks at the allocation counts.
INTERVAL_MS = 500
#: A pass that would walk more objects than this (longer than a frame on the GUI
#: thread) freezes them instead.
FREEZE_OVER = 8_000
#: What :meth:`GuiThreadCollector.collect_due` returns when it froze the young objects,
#: and when it collected everything frozen (the user away).
FROZEN = "frozen"
THAWED = "thawed"


class GuiThreadCollector(QObject):
    """Owns the process's cyclic garbage collection while it lives (one per application)."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._was_enabled = gc.isenabled()  # what stop() hands back
        gc.disable()
        self._froze = False  # objects frozen since the last full pass over them
        self._holds_frozen = False  # the permanent generation holds objects it froze
        self._timer = QTimer(self)
        self._timer.timeout.connect(self.collect_due)
        self._timer.start(INTERVAL_MS)

    def collect_due(self) -> int | str | None:
        """Collect the oldest generation whose count is past its threshold, as the automatic
        collector would have, or freeze what that pass would walk when it is more than
        :data:`FREEZE_OVER` objects (a large batch of new objects: :data:`FROZEN`), or,
        the user away, collect what was frozen (:data:`THAWED`); nothing while a background
        job has collection paused (see :func:`bpe_desktop.core.chunked.collector_paused`).
        Returns the generation, or what it did instead."""
        if chunked.collection_paused():
            return None
        if self._froze and not _user_is_here():
            self.collect_frozen()
            return THAWED
        counts, thresholds = gc.get_count(), gc.get_threshold()
        due = [g for g in range(3) if counts[g] > thresholds[g]]
        if objects_walked(due[-1] if due else 0) > FREEZE_OVER:
            gc.freeze()
            self._froze = self._holds_frozen = True
            return FROZEN
        if not due:
            return None
        gc.collect(due[-1])
        return due[-1]

    def collect_frozen(self) -> None:
        """Collect everything, what was frozen included, then freeze what is still alive:
        one full pass over every object the process holds."""
        gc.unfreeze()
        gc.collect()
        gc.freeze()
        self._froze = False
        self._holds_frozen = True

    def stop(self) -> None:
        """Hand collection back to Python as it was before this collector started: what it
        froze is unfrozen (else cyclic garbage among it is never collected, and a later
        collector or test finds a permanent generation it did not make), and automatic
        collection is on again only if it was on then."""
        self._timer.stop()
        if self._holds_frozen:
            gc.unfreeze()
            self._froze = self._holds_frozen = False
        if self._was_enabled:
            gc.enable()


def objects_walked(generation: int) -> int:
    """How many objects a pass collecting ``generation`` (and the younger ones) visits:
    ~10 ns an object to count, against ~0.7 µs an object to collect.

    Counted in C from start to end (``map``, ``len``, ``sum``), so that the GIL is never let
    go while a list of the generation's objects exists: that list holds a reference to a
    tuple another thread is still building (``tuple(generator)``), and the other thread,
    resuming, cannot resize its tuple and fails with a ``SystemError`` (a recount job did,
    in CI, when this was a generator expression)."""
    return sum(map(len, map(gc.get_objects, range(generation + 1))))


def _user_is_here() -> bool:
    """Whether one of the application's windows is the active one."""
    return QGuiApplication.applicationState() == Qt.ApplicationState.ApplicationActive
