"""The gold files' character mapping: a small editable table, with ready-made choices.

A gold file written in another spelling than the training text (Morpho Challenge's
Turkish: C I S G O U for ç ı ş ğ ö ü) is rewritten character by character before
scoring (:func:`bpe_desktop.core.evaluation.map_gold`). The table is remembered.
"""

from __future__ import annotations

import json

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from bpe_desktop.core.evaluation import CHARACTER_MAPS
from bpe_desktop.ui.common.enabled_states import enable_with_selection
from bpe_desktop.ui.common.settings import Settings

SETTINGS_KEY = "evaluate/character_map"
#: The choices' labels, as the combo box shows them.
CHOICES = {"morpho-challenge-turkish": "Morpho Challenge Turkish"}
NO_MAPPING = "No mapping"


class CharacterMapEditor(QWidget):
    """Pairs "in the gold" → "in the training text"; a blank row is ignored, a row whose
    left cell is not one character is a :meth:`problem` (as ``--char-map`` refuses it)."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.choice = QComboBox()
        self.choice.addItem("Ready-made mapping…", None)
        self.choice.addItem(NO_MAPPING, {})
        for name, mapping in CHARACTER_MAPS.items():
            self.choice.addItem(CHOICES.get(name, name), mapping)
            self.choice.setItemData(self.choice.count() - 1, " ".join(
                f"{a}→{b}" for a, b in mapping.items()), Qt.ItemDataRole.ToolTipRole)
        # The panel's inputs column stays narrow; the list opens as wide as its entries.
        self.choice.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.choice.setMinimumContentsLength(12)
        self.choice.activated.connect(self._choose)
        self.table = QTableWidget(0, 2)
        self.table.setObjectName("character_map_table")
        self.table.setHorizontalHeaderLabels(["in the gold", "in the training text"])
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.table.verticalHeader().hide()
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setMaximumHeight(110)
        self.table.setToolTip("Each character of the left column is replaced by the right "
                              "column's text in the gold words and morphs before scoring")
        self.table.itemChanged.connect(self._edited)
        self.add_button = QPushButton("Add")
        self.add_button.clicked.connect(lambda: self._add_row("", ""))
        self.remove_button = QPushButton("Remove")
        self.remove_button.clicked.connect(self._remove_rows)
        enable_with_selection(self.remove_button, self.table)
        buttons = QVBoxLayout()
        buttons.addWidget(self.add_button)
        buttons.addWidget(self.remove_button)
        buttons.addStretch(1)
        rows = QHBoxLayout()
        rows.addWidget(self.table, 1)
        rows.addLayout(buttons)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.choice)
        layout.addLayout(rows)
        try:
            saved = json.loads(Settings().value(SETTINGS_KEY, "{}") or "{}")
        except (TypeError, ValueError):
            saved = {}
        self.set_mapping(saved if isinstance(saved, dict) else {}, remember=False)

    def mapping(self) -> dict[str, str]:
        """The table's pairs whose left cell is one character."""
        out = {}
        for row in range(self.table.rowCount()):
            source, target = (self.table.item(row, c) for c in (0, 1))
            if source is not None and len(source.text()) == 1:
                out[source.text()] = target.text() if target is not None else ""
        return out

    def problem(self) -> str | None:
        """Why the table cannot be used as it stands (a row whose left cell is not one
        character), or None."""
        for row in range(self.table.rowCount()):
            source, target = (self.table.item(row, c) for c in (0, 1))
            texts = ["" if item is None else item.text() for item in (source, target)]
            if any(texts) and len(texts[0]) != 1:
                return (f"Character mapping, row {row + 1}: write one character in the gold "
                        f"column (it has “{texts[0]}”), or remove the row.")
        return None

    def set_mapping(self, mapping: dict[str, str], *, remember: bool = True) -> None:
        self.table.blockSignals(True)
        self.table.setRowCount(0)
        for source, target in mapping.items():
            self._add_row(str(source), str(target))
        self.table.blockSignals(False)
        if remember:
            self._edited()

    def _choose(self, index: int) -> None:
        mapping = self.choice.itemData(index)
        if mapping is not None:
            self.set_mapping(dict(mapping))
        self.choice.setCurrentIndex(0)

    def _add_row(self, source: str, target: str) -> None:
        row = self.table.rowCount()
        self.table.insertRow(row)
        self.table.setItem(row, 0, QTableWidgetItem(source))
        self.table.setItem(row, 1, QTableWidgetItem(target))

    def _remove_rows(self) -> None:
        for row in sorted({i.row() for i in self.table.selectedIndexes()}, reverse=True):
            self.table.removeRow(row)
        self._edited()

    def _edited(self, *_args) -> None:
        Settings().set_value(SETTINGS_KEY, json.dumps(self.mapping(), ensure_ascii=False))
        self.changed.emit()
