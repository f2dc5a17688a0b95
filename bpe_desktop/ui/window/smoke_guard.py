"""``--smoke-test`` as a check that cannot pass by accident: any problem means exit 1.

:func:`bpe_desktop.ui.window.selftest.run_smoke_test` trains the toy vocabulary in the real
window. Around it, :func:`run` turns the other ways a build can be broken into a
failure, because in normal use each of them is deliberately survivable:

* an exception that reaches the crash guard (normally a dialog, and the app goes on);
* an error dialog shown by any panel (non-blocking, so the run would go on);
* a Qt critical message, or a warning about an image or SVG (a damaged resource);
* a missing or unreadable bundled resource: every icon is drawn and every help page
  opened, with its images and links;
* a hang, e.g. a modal dialog waiting for a click: a watchdog ends the process with
  exit status 1 after :data:`TIMEOUT` seconds.
"""

from __future__ import annotations

import os
import sys
import threading
import traceback
from typing import Callable

from PySide6.QtCore import QtMsgType, qInstallMessageHandler
from PySide6.QtWidgets import QApplication, QWidget

from bpe_desktop.ui.common import dialogs, icons
from bpe_desktop.ui.window import help_dialogs

#: Seconds before a smoke test that has not finished is failed.
TIMEOUT = 180.0
#: Qt warning categories that mean a shipped image or icon is damaged.
_RESOURCE_CATEGORIES = ("qt.svg", "qt.gui.imageio", "qt.gui.icc")


def run(app: QApplication, window: QWidget,
        smoke_test: Callable[[QApplication, QWidget], tuple[int, str]]) -> int:
    """Run ``smoke_test(app, window)`` -> (status, summary); print OK only if all went well."""
    problems: list[str] = []
    watchdog = threading.Timer(TIMEOUT, _time_out)
    watchdog.daemon = True
    watchdog.start()
    hook, show_error = sys.excepthook, dialogs.show_error

    def record_exception(kind, value, tb) -> None:
        traceback.print_exception(kind, value, tb, file=sys.stderr)
        problems.append(f"unexpected {kind.__name__}: {value}")

    def record_error_dialog(parent, title, message, details=None):
        problems.append(f"error dialog: {title}: {message}")
        return show_error(parent, title, message, details)

    def record_qt_message(kind: QtMsgType, context, message: str) -> None:
        sys.stderr.write(f"{message}\n")
        category = context.category or ""
        if kind in (QtMsgType.QtCriticalMsg, QtMsgType.QtFatalMsg) or (
                kind == QtMsgType.QtWarningMsg and category.startswith(_RESOURCE_CATEGORIES)):
            problems.append(f"Qt: {message}")

    sys.excepthook = record_exception
    dialogs.show_error = record_error_dialog
    previous_handler = qInstallMessageHandler(record_qt_message)
    try:
        problems.extend(icons.check_icons())
        problems.extend(help_dialogs.check_help(window))
        status, summary = smoke_test(app, window)
    except Exception as exc:  # noqa: BLE001 - reported as a failure below
        traceback.print_exc()
        problems.append(f"smoke test raised {type(exc).__name__}: {exc}")
        status, summary = 1, "did not finish"
    finally:
        watchdog.cancel()
        qInstallMessageHandler(previous_handler)
        sys.excepthook, dialogs.show_error = hook, show_error
    for problem in problems:
        print(f"smoke test problem: {problem}", file=sys.stderr)
    if problems or status:
        print(f"smoke test FAILED: {summary}; {len(problems)} problem(s)", file=sys.stderr)
        return 1
    print(f"smoke test OK: {summary}", flush=True)
    return 0


def _time_out() -> None:
    print(f"smoke test FAILED: not finished after {TIMEOUT:.0f} s", file=sys.stderr, flush=True)
    os._exit(1)  # the GUI thread is stuck: nothing else would end the process
