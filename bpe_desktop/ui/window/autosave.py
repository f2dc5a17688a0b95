"""Autosave of the unsaved model, and its recovery after a crash.

While the open model has unsaved work (a finished training, an import, a recount), a
copy is kept in ``<user data>/autosave/``, written atomically by
:func:`bpe_desktop.core.save_model` in a background job. The copy is removed when the
model is saved, or when it is replaced or the window closed after the user chose to
discard it. If the application ends without removing it (a crash, a killed process, a
power cut), the next start offers it back (:func:`offer_recovery`).

Several instances may run at once: each writes its own ``<session>.json`` and holds
``<session>.lock`` (a :class:`QLockFile`) while it runs, so an instance offers only the
files whose owner has gone. A lock names its process (PID); a lock whose process has
ended, or whose PID now belongs to a process started after the lock was written, is
stale: its autosave is offered and the lock removed (:func:`_owner_gone`).
"""

from __future__ import annotations

import logging
import os
import secrets
import socket
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from PySide6.QtCore import QLockFile, QObject, QTimer, Signal, Slot

from bpe_desktop.core import BpeError, BPEModel, load_model, save_model
from bpe_desktop.core.safe_write import process_alive, remove_stale_temps
from bpe_desktop.paths import user_data_dir
from bpe_desktop.ui.common import dialogs
from bpe_desktop.ui.common.background import WhenIdle
from bpe_desktop.ui.common.modal_work import run_modal
from bpe_desktop.ui.common.workers import JobError, JobRunner
from bpe_desktop.ui.window.document import ModelDocument

if TYPE_CHECKING:
    from bpe_desktop.ui.window.host import WindowHost

log = logging.getLogger(__name__)

SUFFIX = ".json"
LOCK_SUFFIX = ".lock"


#: What an autosave that could not be read is renamed to (kept, never offered again).
UNREADABLE_SUFFIX = ".unreadable"


def autosave_dir() -> Path:
    folder = user_data_dir() / "autosave"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _lock(path: Path) -> QLockFile:
    lock = QLockFile(str(path.with_suffix(LOCK_SUFFIX)))
    lock.setStaleLockTime(0)  # stale only when its process is gone, however long it ran
    return lock


def _owner_gone(lock_path: Path) -> bool:
    """Whether the process named in a lock file (PID on its first line) has ended.

    QLockFile alone takes a PID that a later process got, running under the same program
    name (python3), for its owner still running, and would keep the lock for ever. Here
    the PID must also be older than the lock file. Only locks written on this machine are
    judged; elsewhere (and on Windows, where os.kill would end the process) QLockFile's
    own check stays.
    """
    if os.name != "posix":
        return False
    try:
        lines = lock_path.read_text(encoding="utf-8", errors="replace").splitlines()
        written = lock_path.stat().st_mtime
        pid = int(lines[0])
    except (OSError, ValueError, IndexError):
        return False
    if len(lines) > 2 and lines[2] and lines[2] != socket.gethostname():
        return False
    if pid <= 0 or pid == os.getpid():
        return False
    # a process started after the lock was written cannot be the one that wrote it
    return not process_alive(pid, since=written)


def _remove(path: Path) -> None:
    try:
        path.unlink()
    except FileNotFoundError:
        pass
    except OSError as exc:
        log.warning("could not remove the autosave %s: %s", path, exc)


#: How long after a new unsaved model arrives it is written.
DELAY_MS = 1000


class Autosave(QObject):
    """Keeps this session's autosave file in step with the document's unsaved model."""

    #: The unsaved model was written (payload: the file path).
    saved = Signal(str)
    #: Writing failed (payload: a sentence for the status bar); the model stays open.
    failed = Signal(str)

    def __init__(self, document: ModelDocument, parent: QObject | None = None, *,
                 busy: Callable[[], bool] | None = None) -> None:
        """``busy``: whether the panels are still taking a model over, or other work
        runs in the background (the write waits)."""
        super().__init__(parent)
        self.document = document
        folder = autosave_dir()
        session = f"{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}-{secrets.token_hex(3)}"
        self.path = folder / f"{session}{SUFFIX}"
        self._lock = _lock(self.path)
        if not self._lock.tryLock(0):
            log.warning("cannot lock %s (error %s): another instance may offer this "
                        "session's autosave as if it had crashed", self.path,
                        self._lock.error())
        self._runner = JobRunner(self)
        self._runner.finished.connect(self._on_written)
        self._runner.failed.connect(self._on_failed)
        self._runner.stopped.connect(self.sync)
        #: The model the file holds now, and the one being written.
        self._written: BPEModel | None = None
        self._writing: BPEModel | None = None
        #: A model whose write failed: not retried until the document changes model.
        self._failed_for: BPEModel | None = None
        self._closed = False
        # A new model is written a moment after it arrives, and not while the panels are
        # still taking it over: saving is pure Python and would compete for the GIL.
        self._due = QTimer(self, singleShot=True, interval=DELAY_MS)
        self._idle = WhenIdle(busy or (lambda: False), self)
        self._due.timeout.connect(lambda: self._idle.request(self._write_due))
        document.state_changed.connect(self.sync)

    @property
    def exists(self) -> bool:
        return self.path.exists()

    @property
    def busy(self) -> bool:
        """A write runs, or waits for the panels."""
        return self._runner.running or self._idle.pending

    @property
    def scheduled(self) -> bool:
        """A write is due in a moment, waits for the panels, or runs."""
        return self._due.isActive() or self.busy

    @property
    def writing(self) -> bool:
        """A write runs now (not merely waits for its turn)."""
        return self._runner.running

    @Slot()
    def sync(self) -> None:
        """Write the unsaved model (after DELAY_MS), or remove the file when nothing is unsaved."""
        wanted = self._wanted()
        if wanted is None:
            self._due.stop()
            self._idle.cancel()
            if not self._closed and not self._runner.running:
                self._written = self._failed_for = None
                _remove(self.path)
            return
        if not self._closed and not self._runner.running and not self._due.isActive():
            self._due.start()

    def _wanted(self) -> BPEModel | None:
        """The model the file should hold, None when nothing is unsaved."""
        doc = self.document
        return doc.model if doc.model is not None and doc.dirty else None

    @Slot()
    def _write_due(self) -> None:
        if self._closed or self._runner.running:
            return  # a write in progress: sync runs again when it stops
        wanted = self._wanted()
        if wanted is None or wanted is self._written or wanted is self._failed_for:
            return
        self._writing = wanted
        path = self.path
        self._runner.start(lambda report, cancel: save_model(wanted, path))

    @Slot(object)
    def _on_written(self, _result) -> None:
        self._written, self._writing = self._writing, None
        self.saved.emit(str(self.path))

    @Slot(object)
    def _on_failed(self, error: JobError) -> None:
        self._failed_for, self._writing = self._writing, None
        exc = error.exception
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else error.message
        self.failed.emit(f"Could not autosave the unsaved model to {self.path.parent}: "
                         f"{reason}. Save it yourself to keep it.")

    def adopt(self, recovery: Recovery, model: BPEModel) -> None:
        """Take over a crashed session's file as this session's autosave of ``model``."""
        self._runner.shutdown()
        try:
            os.replace(recovery.path, self.path)
        except OSError as exc:  # then this session writes its own copy
            log.warning("could not take over %s: %s", recovery.path, exc)
        else:
            self._written = model
        recovery.release()

    def close(self) -> None:
        """The window closes: the user saved or chose to discard, so the copy goes."""
        self._closed = True
        self._due.stop()
        self._idle.cancel()
        self._runner.shutdown()
        _remove(self.path)
        self._lock.unlock()


@dataclass
class Recovery:
    """An autosave left by a session that ended without cleaning up."""

    path: Path
    modified: float
    lock: QLockFile

    def when(self) -> str:
        stamp = time.localtime(self.modified)
        if time.strftime("%Y-%m-%d", stamp) == time.strftime("%Y-%m-%d"):
            return time.strftime("today at %H:%M", stamp)
        return time.strftime("%A %d %B %Y at %H:%M", stamp)

    def discard(self) -> None:
        _remove(self.path)
        self.release()

    def release(self) -> None:
        self.lock.unlock()  # also removes the lock file


def pending_recoveries(folder: Path | None = None) -> list[Recovery]:
    """Autosaves whose session has ended, newest first, each locked for the caller.

    A file whose lock is held belongs to a running instance and is left alone.
    """
    folder = folder or autosave_dir()
    # writes of killed sessions (each can be as large as a model) go; live ones stay
    remove_stale_temps(folder)
    for lock_path in folder.glob(f"*{LOCK_SUFFIX}"):
        if _owner_gone(lock_path):  # a killed instance's: the file is offered, the lock goes
            _remove(lock_path)
    found = []
    for path in folder.glob(f"*{SUFFIX}"):
        lock = _lock(path)
        if not lock.tryLock(0):
            continue
        try:
            modified = path.stat().st_mtime
        except OSError:  # removed meanwhile
            lock.unlock()
            continue
        found.append(Recovery(path, modified, lock))
    found.sort(key=lambda r: r.modified, reverse=True)
    return found


def _set_aside(window: WindowHost, recovery: Recovery, exc: Exception) -> None:
    """An autosave that cannot be read: renamed so it is not offered again, and the
    user told where it is (it may still hold something worth a look)."""
    kept = recovery.path.with_name(recovery.path.name + UNREADABLE_SUFFIX)
    try:
        os.replace(recovery.path, kept)
    except OSError as move_error:
        log.error("could not set aside the unreadable autosave %s: %s", recovery.path,
                  move_error)
        kept = recovery.path
    recovery.release()
    log.error("the autosave %s cannot be read; kept as %s: %s", recovery.path, kept, exc)
    dialogs.show_error(window, "Autosave not recovered",
                       f"BPE Desktop did not close normally last time, but the model it "
                       f"autosaved {recovery.when()} cannot be read: {exc}\n\nThe file is "
                       f"kept as {kept}.")


def offer_recovery(window: WindowHost) -> bool:
    """At startup: offer the newest autosave left by a crash; True if one was recovered.

    Declined autosaves are deleted; one that cannot be read is renamed (``.unreadable``)
    and the user told. Autosaves older than an accepted one stay for the
    next start.
    """
    pending = pending_recoveries()
    for i, recovery in enumerate(pending):
        try:
            model = run_modal(window, "Reading the autosaved model…",
                              lambda path=recovery.path: load_model(path))
        except (BpeError, OSError) as exc:
            _set_aside(window, recovery, exc)
            continue
        question = (f"BPE Desktop did not close normally last time. Recover the unsaved "
                    f"model from {recovery.when()}?\n\n{model.vocab_size:,} tokens, "
                    f"{model.merge_count:,} merges ({model.config.pretokenizer}/"
                    f"{model.config.boundary}).\n\nNo deletes it.")
        if not dialogs.ask_yes_no(window, "Recover unsaved model", question):
            recovery.discard()
            continue
        if not window.maybe_save(window.BEFORE_RECOVERING):
            recovery.release()  # keep it for the next start
            for rest in pending[i + 1:]:
                rest.release()
            return False
        window.autosave.adopt(recovery, model)
        window.document.set_recovered(model)
        for rest in pending[i + 1:]:
            rest.release()
        return True
    return False
