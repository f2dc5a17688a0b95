"""Cyclic garbage collection on the GUI thread only.

Python's collector runs in whichever thread happens to allocate when a threshold is
crossed. When that is a worker thread and the garbage holds Qt objects (a closed dialog,
the menus of an earlier window), their C++ destructors run in the worker: Qt locks the
objects' mutexes there and the destructor then waits for the GIL, which the GUI thread
holds while it waits for one of those mutexes — both threads stop for good (seen in the
tests: a worker importing a model collected an earlier window's menu while the GUI thread
painted a plot). So automatic collection is switched off and a timer on the GUI thread
collects instead, by the same per-generation thresholds.
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QObject, QTimer

from bpe_desktop.core import chunked

#: How often the GUI thread looks at the allocation counts.
INTERVAL_MS = 500


class GuiThreadCollector(QObject):
    """Owns the process's cyclic garbage collection while it lives (one per application)."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        gc.disable()
        self._timer = QTimer(self)
        self._timer.timeout.connect(self.collect_due)
        self._timer.start(INTERVAL_MS)

    def collect_due(self) -> int | None:
        """Collect the oldest generation whose count is past its threshold, as the automatic
        collector would have; nothing while a background job has collection paused (see
        :func:`bpe_desktop.core.chunked.collector_paused`). Returns the generation."""
        if chunked.collection_paused():
            return None
        counts, thresholds = gc.get_count(), gc.get_threshold()
        due = [g for g in range(3) if counts[g] > thresholds[g]]
        if not due:
            return None
        gc.collect(due[-1])
        return due[-1]

    def stop(self) -> None:
        """Hand collection back to Python."""
        self._timer.stop()
        gc.enable()
