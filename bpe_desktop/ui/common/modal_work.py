"""Work the user waits for (opening or saving a model file), off the GUI thread.

Reading a 100,000-token model file takes ~0.3 s of Python and writing it ~0.1 s plus the
disk's flush, which on a slow or network disk can take seconds: on the GUI thread the
window would freeze meanwhile. :func:`run_modal` runs such work in a worker thread and
waits for it in a local event loop, as a modal dialog does: the window keeps painting and
its timers run, while the user's input to it is held back (the work's outcome decides what
happens next, as with a dialog). After :data:`SHOW_AFTER_MS` a progress dialog says what is
going on, with a Cancel button when the work may be abandoned.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from typing import TypeVar

from PySide6.QtCore import QEvent, QEventLoop, QObject, Qt, QTimer
from PySide6.QtGui import QShortcut
from PySide6.QtWidgets import QApplication, QProgressDialog, QWidget

from bpe_desktop.ui.common.workers import JobError, JobRunner

T = TypeVar("T")

#: The progress dialog appears only for work that takes longer than this.
SHOW_AFTER_MS = 400

#: The user's input, held back while the work runs (but for the progress dialog's).
_INPUT = frozenset({
    QEvent.Type.MouseButtonPress, QEvent.Type.MouseButtonRelease,
    QEvent.Type.MouseButtonDblClick, QEvent.Type.Wheel, QEvent.Type.KeyPress,
    QEvent.Type.KeyRelease, QEvent.Type.ShortcutOverride, QEvent.Type.Shortcut,
    QEvent.Type.Close, QEvent.Type.Drop, QEvent.Type.TouchBegin, QEvent.Type.ContextMenu,
})


class Cancelled(Exception):
    """The user cancelled the work; nothing changed."""


#: Runners of cancelled work that has not ended yet: kept here, not by a window that may
#: close first (a QThread destroyed while it runs aborts the process).
_abandoned: set[JobRunner] = set()


def finish_abandoned(timeout_ms: int = 30_000) -> None:
    """Wait for cancelled work that still runs (when the window closes)."""
    for runner in list(_abandoned):
        runner.shutdown(timeout_ms)
        _abandoned.discard(runner)


class _HoldInput(QObject):
    """An application-wide event filter that drops input to every window but ``dialog``,
    and keeps ``window`` (the one that waits) open."""

    def __init__(self, dialog: QWidget, window: QWidget) -> None:
        super().__init__(dialog)
        self._dialog = dialog
        self._window = window

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        kind = event.type()
        if kind not in _INPUT:
            return False
        if kind == QEvent.Type.Close:
            # Only the waiting window stays open (its closing would run a close handler
            # in the middle of the work); other windows close as asked.
            if watched is not self._window:
                return False
            event.ignore()  # left accepted, the close would go ahead, filtered or not
            return True
        if isinstance(watched, QShortcut):  # the dialog's own Esc (its Cancel) goes through
            owner = watched.parent()
            if isinstance(owner, QWidget) and owner.window() is self._dialog:
                return False
        if isinstance(watched, QWidget):
            if watched.window() is self._dialog:
                return False
        elif kind != QEvent.Type.Shortcut:
            return False  # a native window's event: its widget gets it next, and is asked
        if kind == QEvent.Type.ShortcutOverride:
            event.accept()  # no shortcut fires (Ctrl+S again): the key goes to the widget
        return True


def run_modal(parent: QWidget, label: str, work: Callable[[], T], *,
              cancellable: bool = False) -> T:
    """``work()``'s result, run in a worker thread (see the module's comment); its
    exception is raised here as it was raised there. :class:`Cancelled` when the user
    cancelled (``cancellable``): the work then finishes in the background and its result
    is dropped."""
    runner = JobRunner()
    outcome: dict[str, object] = {}
    loop = QEventLoop()

    def done(key: str, value: object) -> None:
        outcome.setdefault(key, value)
        loop.quit()

    runner.finished.connect(lambda result: done("result", result))
    runner.failed.connect(lambda error: done("error", error))
    runner.cancelled.connect(lambda: done("cancelled", True))
    dialog = QProgressDialog(label, "Cancel", 0, 0, parent)
    if not cancellable:
        dialog.setCancelButton(None)
    dialog.setWindowTitle(label.rstrip("…."))
    dialog.setWindowModality(Qt.WindowModality.WindowModal)
    dialog.setMinimumDuration(SHOW_AFTER_MS)  # shown by `shown` below, never sooner
    dialog.setAutoReset(False)
    dialog.setAutoClose(False)
    def on_cancel() -> None:
        done("cancelled", True)

    dialog.canceled.connect(on_cancel)
    holder = _HoldInput(dialog, parent.window())
    app = QApplication.instance()
    app.installEventFilter(holder)
    QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
    shown = QTimer(dialog, singleShot=True, interval=SHOW_AFTER_MS)
    shown.timeout.connect(dialog.show)
    try:
        runner.start(lambda _report, _cancel: work())
        shown.start()
        loop.exec()
    finally:
        shown.stop()
        app.removeEventFilter(holder)
        QApplication.restoreOverrideCursor()
        # Only our slot: Qt's own (canceled -> cancel) stops the dialog's show timer when
        # it closes; without it the dialog would appear seconds later, in whatever dialog
        # runs next (Save, then the Open dialog), waiting to be deleted.
        dialog.canceled.disconnect(on_cancel)
        dialog.close()
        dialog.deleteLater()
    if "cancelled" in outcome:
        if runner.running:  # its result, when it comes, is not wanted
            runner.cancel()
            _abandoned.add(runner)
            runner.stopped.connect(lambda: _abandoned.discard(runner))
        raise Cancelled
    if "error" in outcome:
        error = outcome["error"]
        assert isinstance(error, JobError)
        raise error.exception
    return outcome["result"]  # type: ignore[return-value]


def release_pipe_reader(path: str) -> None:
    """End a cancelled read that waits on the named pipe ``path`` for a writer: opening
    its write end (without waiting) and closing it gives the reader an end of file, so its
    thread finishes instead of holding the window's closing up. Anything else: nothing."""
    try:
        if not stat.S_ISFIFO(os.stat(path).st_mode):
            return
        os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
    except OSError:  # no reader waits any more (ENXIO), or the pipe is gone
        pass
