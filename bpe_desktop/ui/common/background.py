"""Background jobs of which only the newest matters (the current model, the current text):
:class:`LatestJob` runs them in a :class:`~bpe_desktop.ui.common.workers.JobRunner` thread;
submitting while one runs cancels it, and its result never arrives. The work itself is cut
into chunks with :mod:`bpe_desktop.core.chunked`.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, Signal, Slot

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
