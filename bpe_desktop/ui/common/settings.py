"""Typed access to the persistent settings (QSettings), so keys live in one place.

The application's settings are written to disk by a thread of their own. QSettings writes
its file when a changed object goes away (or syncs): two ``fdatasync`` calls and a rename,
which wait for the disk — tens of milliseconds while a model file or a corpus is being
written — and the GUI thread saved settings this way on every change of a training option
and at each training's start (seen blocked 18 ms there). Reads wait for the writes asked
before them, so a read sees every earlier write.
"""

from __future__ import annotations

import atexit
import json
import logging
import os
import queue
import threading
import time
from typing import Any

from PySide6.QtCore import QByteArray, QSettings

log = logging.getLogger(__name__)

MAX_RECENT = 10


class _Writer:
    """The thread that writes settings files, in the order the writes were asked for."""

    def __init__(self) -> None:
        self._jobs: queue.Queue = queue.Queue()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def put(self, path: str, fmt: QSettings.Format, key: str, value: Any) -> None:
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="bpe-settings",
                                                daemon=True)
                self._thread.start()
        self._jobs.put((path, fmt, key, value))

    def wait(self, timeout: float = 5.0) -> bool:
        """Whether every write asked for so far is on disk (waits ``timeout`` s at most)."""
        end = time.monotonic() + timeout
        while self._jobs.unfinished_tasks:
            if time.monotonic() >= end:
                return False
            time.sleep(0.0005)
        return True

    def _run(self) -> None:
        while True:
            batch = [self._jobs.get()]
            while True:  # what queued up meanwhile is written with one sync per file
                try:
                    batch.append(self._jobs.get_nowait())
                except queue.Empty:
                    break
            try:
                files: dict[tuple[str, QSettings.Format], QSettings] = {}
                for path, fmt, key, value in batch:
                    settings = files.get((path, fmt))
                    if settings is None:
                        settings = files[(path, fmt)] = QSettings(path, fmt)
                    settings.setValue(key, value)
                for settings in files.values():
                    settings.sync()
                    if settings.status() != QSettings.Status.NoError:
                        log.warning("could not write the settings to %s",
                                    settings.fileName())
                files.clear()
            except Exception:  # noqa: BLE001 - a settings write must not end the thread
                log.exception("could not write the settings")
            finally:
                for _ in batch:
                    self._jobs.task_done()


_WRITER = _Writer()
atexit.register(_WRITER.wait)


class Settings:
    """Window geometry, recent files, last folders and training defaults."""

    def __init__(self, qsettings: QSettings | None = None) -> None:
        #: Given a QSettings object (tests), reads and writes go straight to it.
        self._in_background = qsettings is None
        self._s = qsettings or QSettings()

    def _get(self, key: str, default: Any = None) -> Any:
        if self._in_background:
            _WRITER.wait()
        return self._s.value(key, default)

    def _set(self, key: str, value: Any) -> None:
        if self._in_background:
            _WRITER.put(self._s.fileName(), self._s.format(), key, value)
        else:
            self._s.setValue(key, value)

    # -- recent model files -------------------------------------------------------------

    def recent_files(self) -> list[str]:
        value = self._get("files/recent", [])
        if isinstance(value, str):  # QSettings gives a bare string for one-item lists
            value = [value]
        return [p for p in (value or []) if isinstance(p, str) and p]

    def add_recent_file(self, path: str) -> None:
        path = os.path.abspath(path)
        recent = [path] + [p for p in self.recent_files() if p != path]
        self._set("files/recent", recent[:MAX_RECENT])

    def remove_recent_file(self, path: str) -> None:
        self._set("files/recent", [p for p in self.recent_files() if p != path])

    def clear_recent_files(self) -> None:
        self._set("files/recent", [])

    # -- folders the file dialogs start in, one per kind of file ---------------------------

    def last_folder(self, kind: str) -> str:
        folder = self._get(f"folders/{kind}", "")
        return folder if isinstance(folder, str) and os.path.isdir(folder) else os.path.expanduser("~")

    def set_last_folder(self, kind: str, path: str) -> None:
        folder = path if os.path.isdir(path) else os.path.dirname(os.path.abspath(path))
        self._set(f"folders/{kind}", folder)

    # -- window ---------------------------------------------------------------------------

    def window_state(self) -> tuple[QByteArray | None, QByteArray | None]:
        geometry = self._get("window/geometry")
        state = self._get("window/state")
        return (geometry if isinstance(geometry, QByteArray) else None,
                state if isinstance(state, QByteArray) else None)

    def set_window_state(self, geometry: QByteArray, state: QByteArray) -> None:
        self._set("window/geometry", geometry)
        self._set("window/state", state)

    def value(self, key: str, default: Any = None) -> Any:
        return self._get(key, default)

    def set_value(self, key: str, value: Any) -> None:
        self._set(key, value)

    # -- training defaults (a JSON dict of TrainConfig fields and panel choices) -----------

    def training_defaults(self) -> dict[str, Any]:
        raw = self._get("training/defaults", "")
        try:
            data = json.loads(raw) if isinstance(raw, str) and raw else {}
        except ValueError:
            return {}
        return data if isinstance(data, dict) else {}

    def set_training_defaults(self, data: dict[str, Any]) -> None:
        self._set("training/defaults", json.dumps(data))

    def first_run_done(self) -> bool:
        return self._get("app/first_run_done", False) in (True, "true")

    def set_first_run_done(self) -> None:
        self._set("app/first_run_done", True)

    def sync(self) -> None:
        """Write everything set so far to disk now (the window does when it closes)."""
        _WRITER.wait()
        self._s.sync()
