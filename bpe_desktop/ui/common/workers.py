"""Background jobs: a QObject worker moved to a QThread, driven by a GUI-side runner.

The worker calls a plain function ``job(report, cancel)`` in its thread: the function
reports progress through ``report(payload)`` and checks ``cancel`` (a core
:class:`CancelToken`, which the engine itself checks between merges). Its return value
or exception comes back as a signal.

:class:`JobRunner` lives in the GUI thread and re-emits the worker's signals from its
own slots, so every listener, including tests waiting with ``qtbot.waitSignal``, runs in
the GUI thread (a PySide6 cross-thread signal connected to a plain Python callable would
run that callable in the worker thread). Progress is throttled: at most one update per
``min_interval`` seconds reaches the GUI; ``report`` returns whether the payload went
out, so a job can batch what was held back and send it with ``report(x, force=True)``.
"""

from __future__ import annotations

import logging
import time
import traceback
import weakref
from dataclasses import dataclass
from typing import Any, Callable

from PySide6.QtCore import QObject, Qt, QThread, Signal, Slot

from bpe_desktop.core import CancelToken, TrainingCancelled

log = logging.getLogger(__name__)

Job = Callable[[Callable[..., bool], CancelToken], Any]

#: Every QThread started here (weakly held), so tests can assert none is left running.
all_threads: "weakref.WeakSet[QThread]" = weakref.WeakSet()

@dataclass(frozen=True)
class JobError:
    """A failed job: the exception and its formatted traceback (for the details box)."""

    exception: BaseException
    details: str

    @property
    def message(self) -> str:
        """What the window says: an option the error names by its form label, not its flag."""
        from bpe_desktop.views.option_messages import form_message

        return form_message(self.exception) or type(self.exception).__name__

    @property
    def by_input(self) -> bool:
        """Bad input or a file problem (a documented BpeError, an OSError): the message says
        it all. Anything else is a bug, whose traceback is worth showing."""
        from bpe_desktop.core.errors import BpeError

        return isinstance(self.exception, (BpeError, OSError))

    @property
    def details_if_bug(self) -> str | None:
        """The traceback for the details box, only when the failure is not the input's."""
        return None if self.by_input else self.details


class Worker(QObject):
    """Runs one job in its thread; never lets an exception escape."""

    progressed = Signal(object)
    finished = Signal(object)
    failed = Signal(object)  # JobError
    cancelled = Signal()

    def __init__(self, job: Job, cancel: CancelToken, min_interval: float,
                 clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(None)  # no parent: it is moved to its own thread
        self._job = job
        self._cancel = cancel
        self._min_interval = min_interval
        self._clock = clock
        self._last_emit: float | None = None

    def _report(self, payload: Any, *, force: bool = False) -> bool:
        """Emit ``payload`` unless one went out less than ``min_interval`` ago.

        Returns whether it was emitted, so a job can batch what was not delivered.
        """
        now = self._clock()
        if force or self._last_emit is None or now - self._last_emit >= self._min_interval:
            self._last_emit = now
            self.progressed.emit(payload)
            return True
        return False

    @Slot()
    def run(self) -> None:
        # (At the GUI thread's priority: see ui.common.scheduling for why jobs are not
        # lowered, and the engine's threads they start are.)
        try:
            result = self._job(self._report, self._cancel)
        except TrainingCancelled:
            self.cancelled.emit()
        except BaseException as exc:  # noqa: BLE001 - nothing may escape a thread silently
            if self._cancel.cancelled:
                self.cancelled.emit()
            else:
                self.failed.emit(JobError(exc, traceback.format_exc()))
        else:
            if self._cancel.cancelled:
                self.cancelled.emit()
            else:
                self.finished.emit(result)


class JobRunner(QObject):
    """Runs one background job at a time; all its signals arrive in the GUI thread."""

    started = Signal()
    progressed = Signal(object)
    finished = Signal(object)
    failed = Signal(object)  # JobError
    cancelled = Signal()
    #: Emitted after any of finished/failed/cancelled, once the thread has stopped.
    stopped = Signal()

    def __init__(self, parent: QObject | None = None, *, min_interval: float = 0.1,
                 clock: Callable[[], float] = time.monotonic) -> None:
        """``clock`` times the throttle (tests give their own)."""
        super().__init__(parent)
        self.min_interval = min_interval
        self.clock = clock
        self._thread: QThread | None = None
        self._worker: Worker | None = None
        self._cancel: CancelToken | None = None

    @property
    def running(self) -> bool:
        return self._thread is not None

    def start(self, job: Job) -> None:
        if self._thread is not None:
            raise RuntimeError("a job is already running")
        self._cancel = CancelToken()
        thread = QThread()
        thread.setObjectName("bpe-desktop-job")
        worker = Worker(job, self._cancel, self.min_interval, self.clock)
        worker.moveToThread(thread)
        thread.started.connect(worker.run)
        worker.progressed.connect(self._on_progressed)
        worker.finished.connect(self._on_finished)
        worker.failed.connect(self._on_failed)
        worker.cancelled.connect(self._on_cancelled)
        for done in (worker.finished, worker.failed, worker.cancelled):
            # Direct: quit from the worker thread, so it stops even while the GUI thread
            # is blocked in shutdown()'s wait().
            done.connect(thread.quit, Qt.ConnectionType.DirectConnection)
        self._thread, self._worker = thread, worker
        all_threads.add(thread)
        thread.start()
        self.started.emit()

    def cancel(self) -> None:
        """Ask the job to stop; the engine notices before its next merge."""
        if self._cancel is not None:
            self._cancel.cancel()

    def shutdown(self, timeout_ms: int = 30_000) -> bool:
        """Cancel and wait for the thread (used when the window closes)."""
        thread = self._thread
        if thread is None:
            return True
        self.cancel()
        stopped = thread.wait(timeout_ms)
        self._finish_thread()
        return stopped

    # -- relays (run in the GUI thread) ---------------------------------------------------

    def _current(self) -> bool:
        """Whether the signal being handled comes from the running job's worker (events
        from a job that shutdown() already abandoned are dropped)."""
        return self._worker is not None and self.sender() is self._worker

    @Slot(object)
    def _on_progressed(self, payload: Any) -> None:
        if self._current():
            self.progressed.emit(payload)

    @Slot(object)
    def _on_finished(self, result: Any) -> None:
        if not self._current():
            return
        self._finish_thread()
        self.finished.emit(result)
        self.stopped.emit()

    @Slot(object)
    def _on_failed(self, error: JobError) -> None:
        if not self._current():
            return
        self._finish_thread()
        log.error("background job failed: %s\n%s", error.message, error.details)
        self.failed.emit(error)
        self.stopped.emit()

    @Slot()
    def _on_cancelled(self) -> None:
        if not self._current():
            return
        self._finish_thread()
        self.cancelled.emit()
        self.stopped.emit()

    def _finish_thread(self) -> None:
        thread = self._thread
        if thread is None:
            return
        thread.quit()
        thread.wait()
        self._thread = self._worker = None
        self._cancel = None
        thread.deleteLater()


def running_threads() -> list[QThread]:
    """Threads started by JobRunner that are still running (for tests and shutdown)."""
    return [t for t in list(all_threads) if t.isRunning()]
