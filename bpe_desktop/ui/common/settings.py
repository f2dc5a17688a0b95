"""Typed access to the persistent settings (QSettings), so keys live in one place."""

from __future__ import annotations

import json
import os
from typing import Any

from PySide6.QtCore import QByteArray, QSettings

MAX_RECENT = 10


class Settings:
    """Window geometry, recent files, last folders and training defaults."""

    def __init__(self, qsettings: QSettings | None = None) -> None:
        self._s = qsettings or QSettings()

    # -- recent model files -------------------------------------------------------------

    def recent_files(self) -> list[str]:
        value = self._s.value("files/recent", [])
        if isinstance(value, str):  # QSettings gives a bare string for one-item lists
            value = [value]
        return [p for p in (value or []) if isinstance(p, str) and p]

    def add_recent_file(self, path: str) -> None:
        path = os.path.abspath(path)
        recent = [path] + [p for p in self.recent_files() if p != path]
        self._s.setValue("files/recent", recent[:MAX_RECENT])

    def remove_recent_file(self, path: str) -> None:
        self._s.setValue("files/recent", [p for p in self.recent_files() if p != path])

    def clear_recent_files(self) -> None:
        self._s.setValue("files/recent", [])

    # -- folders the file dialogs start in, one per kind of file ---------------------------

    def last_folder(self, kind: str) -> str:
        folder = self._s.value(f"folders/{kind}", "")
        return folder if isinstance(folder, str) and os.path.isdir(folder) else os.path.expanduser("~")

    def set_last_folder(self, kind: str, path: str) -> None:
        folder = path if os.path.isdir(path) else os.path.dirname(os.path.abspath(path))
        self._s.setValue(f"folders/{kind}", folder)

    # -- window ---------------------------------------------------------------------------

    def window_state(self) -> tuple[QByteArray | None, QByteArray | None]:
        geometry = self._s.value("window/geometry")
        state = self._s.value("window/state")
        return (geometry if isinstance(geometry, QByteArray) else None,
                state if isinstance(state, QByteArray) else None)

    def set_window_state(self, geometry: QByteArray, state: QByteArray) -> None:
        self._s.setValue("window/geometry", geometry)
        self._s.setValue("window/state", state)

    def value(self, key: str, default: Any = None) -> Any:
        return self._s.value(key, default)

    def set_value(self, key: str, value: Any) -> None:
        self._s.setValue(key, value)

    # -- training defaults (a JSON dict of TrainConfig fields and panel choices) -----------

    def training_defaults(self) -> dict[str, Any]:
        raw = self._s.value("training/defaults", "")
        try:
            data = json.loads(raw) if isinstance(raw, str) and raw else {}
        except ValueError:
            return {}
        return data if isinstance(data, dict) else {}

    def set_training_defaults(self, data: dict[str, Any]) -> None:
        self._s.setValue("training/defaults", json.dumps(data))

    def first_run_done(self) -> bool:
        return self._s.value("app/first_run_done", False) in (True, "true")

    def set_first_run_done(self) -> None:
        self._s.setValue("app/first_run_done", True)

    def sync(self) -> None:
        self._s.sync()
