"""Background jobs of which only the newest matters (the current model, the current text):
:class:`LatestJob` runs them in a :class:`~bpe_desktop.ui.common.workers.JobRunner` thread;
submitting while one runs cancels it, and its result never arrives. The work itself is cut
into chunks with :mod:`bpe_desktop.core.chunked`. :class:`WhenIdle` holds back work that
can wait until the panels have shown a new model.
"""

from __future__ import annotations

import time
from typing import Any, Callable

from PySide6.QtCore import QObject, QTimer, Signal, Slot

from bpe_desktop.ui.common.workers import Job, JobError, JobRunner


class LatestJob(QObject):
    """Runs background jobs of which only the newest matters.

    ``submit`` while a job runs cancels that job (its result is dropped) and starts the
    new one once the old thread has stopped. Signals arrive in the GUI thread.
    """

    #: The newest job's result.
    finished = Signal(object)
    #: The newest job failed (JobError).
    failed = Signal(object)
    #: A progress payload of the newest job (``report(payload, force=True)`` in the job).
    progressed = Signal(object)
    #: True when a job starts with none running, False when the last one has stopped.
    busy_changed = Signal(bool)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._runner = JobRunner(self, min_interval=0.0)
        self._runner.finished.connect(self._on_finished)
        self._runner.failed.connect(self._on_failed)
        self._runner.cancelled.connect(self._on_cancelled)
        self._runner.progressed.connect(self._on_progressed)
        self._pending: Job | None = None
        self._wanted = False  # whether the running job's result is still wanted
        self._busy = False

    @property
    def busy(self) -> bool:
        """A job is running or waiting to run."""
        return self._busy

    def submit(self, job: Job) -> None:
        """Run ``job(report, cancel)``; any earlier job's result will not arrive."""
        if self._runner.running:
            self._pending = job
            self._runner.cancel()
        else:
            self._start(job)

    def discard(self) -> None:
        """Drop the running and the waiting job: nothing more arrives."""
        self._pending = None
        self._wanted = False
        if self._runner.running:
            self._runner.cancel()
        else:
            self._set_busy(False)

    def shutdown(self) -> None:
        """Cancel and wait for the thread (the panel is closing)."""
        self._pending = None
        self._runner.shutdown()
        self._set_busy(False)

    def _start(self, job: Job) -> None:
        self._set_busy(True)
        self._wanted = True
        self._runner.start(job)

    def _next(self) -> bool:
        """Start the waiting job, if any (True when one started)."""
        job, self._pending = self._pending, None
        if job is None:
            return False
        self._start(job)
        return True

    def _set_busy(self, busy: bool) -> None:
        if busy != self._busy:
            self._busy = busy
            self.busy_changed.emit(busy)

    def _done(self, signal, payload) -> None:
        """The running job ended: start the waiting one, or deliver ``payload``."""
        if self._next():  # superseded, even if it ended before it saw the cancel
            return
        wanted, self._wanted = self._wanted, False
        if wanted and signal is not None:
            signal.emit(payload)
        self._set_busy(self._runner.running)  # a listener may have submitted again

    @Slot(object)
    def _on_finished(self, result: Any) -> None:
        self._done(self.finished, result)

    @Slot(object)
    def _on_failed(self, error: JobError) -> None:
        self._done(self.failed, error)

    @Slot()
    def _on_cancelled(self) -> None:
        self._done(None, None)

    @Slot(object)
    def _on_progressed(self, payload: Any) -> None:
        if self._wanted and self._pending is None:
            self.progressed.emit(payload)


class WhenIdle(QObject):
    """Runs work that can wait (an autosave, the export checks) once nothing else runs.

    A worker's Python competes with the GUI thread for the GIL, and with two workers
    running Python the GUI thread waits for both: the autosave and the export checks
    beside the vocabulary's loading job would keep it waiting for several turns at a
    time. So :meth:`request` calls ``action`` only once ``busy()`` (the
    panels loading, or other such work running) is False, checked every ``poll_ms``, or
    after ``limit_ms`` at the latest (a panel that is always busy must not put it off
    for ever). A newer request replaces a waiting one.
    """

    def __init__(self, busy: Callable[[], bool], parent: QObject | None = None, *,
                 poll_ms: int = 100, limit_ms: int = 10_000,
                 clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(parent)
        self._busy = busy
        self._limit = limit_ms / 1000
        self._clock = clock  # seconds; tests pass their own
        self._action: Callable[[], None] | None = None
        self._since = 0.0
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(poll_ms)
        self._timer.timeout.connect(self._try)

    @property
    def pending(self) -> bool:
        """A request is waiting for the panels."""
        return self._action is not None

    def request(self, action: Callable[[], None]) -> None:
        """Call ``action`` now if nothing is busy, else once nothing is (see the class); a
        request that replaces a waiting one keeps its deadline."""
        if self._action is None:
            self._since = self._clock()
        self._action = action
        self._try()

    def cancel(self) -> None:
        self._action = None
        self._timer.stop()

    @Slot()
    def _try(self) -> None:
        action = self._action
        if action is None:
            return
        if self._busy() and self._clock() - self._since < self._limit:
            self._timer.start()
            return
        self._action = None
        action()
