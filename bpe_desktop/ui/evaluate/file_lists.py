"""A remembered list of files with Add… / Remove buttons (gold files, texts, translations)."""

from __future__ import annotations

import os

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QListWidget,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from bpe_desktop.ui.common import dialogs
from bpe_desktop.ui.common.enabled_states import enable_with_selection
from bpe_desktop.ui.common.settings import Settings


class FileList(QWidget):
    """Files chosen by the user, kept in the settings under ``evaluate/<key>``."""

    changed = Signal()

    def __init__(self, key: str, title: str, filters: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.key, self.title, self.filters = key, title, filters
        self.list = QListWidget()
        self.list.setObjectName(f"{key}_list")
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        # Paths in one folder differ at their end: cut in the middle, whole in the tooltip.
        self.list.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.setMaximumHeight(90)
        self.add_button = QPushButton("Add…")
        self.remove_button = QPushButton("Remove")
        self.add_button.clicked.connect(self.ask_add)
        self.remove_button.clicked.connect(self.remove_selected)
        enable_with_selection(self.remove_button, self.list)
        buttons = QVBoxLayout()
        buttons.addWidget(self.add_button)
        buttons.addWidget(self.remove_button)
        buttons.addStretch(1)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.list, 1)
        layout.addLayout(buttons)
        saved = Settings().value(f"evaluate/{key}", [])
        if isinstance(saved, str):  # QSettings gives a bare string for one-item lists
            saved = [saved]
        self.add_paths([p for p in saved or [] if isinstance(p, str) and os.path.isfile(p)],
                       remember=False)

    def paths(self) -> list[str]:
        return [self.list.item(i).text() for i in range(self.list.count())]

    def add_paths(self, paths: list[str], *, remember: bool = True) -> None:
        present = set(self.paths())
        for path in paths:
            path = os.path.abspath(path)
            if path not in present:
                self.list.addItem(path)
                self.list.item(self.list.count() - 1).setToolTip(path)
                present.add(path)
        if remember:
            self._remember()

    def ask_add(self) -> None:
        self.add_paths(dialogs.ask_open_paths(self, self.title, "evaluate", self.filters,
                                              multiple=True))

    def remove_selected(self) -> None:
        for item in self.list.selectedItems():
            self.list.takeItem(self.list.row(item))
        self._remember()

    def clear(self) -> None:
        self.list.clear()
        self._remember()

    def _remember(self) -> None:
        Settings().set_value(f"evaluate/{self.key}", self.paths())
        self.changed.emit()
