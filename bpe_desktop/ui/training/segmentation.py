"""Reviewing Morfessor's segmentation: a table of words and their morphs (editable), saved
as a ``word<TAB>morphs`` file that the *Gold boundaries* option (and Evaluate) reads."""

from __future__ import annotations

from typing import Any, Mapping

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QSortFilterProxyModel, Qt, Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QLineEdit,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from bpe_desktop.core import BpeError
from bpe_desktop.core.constraints import write_segmentation
from bpe_desktop.ui.common import dialogs
from bpe_desktop.views.write_errors import write_failure

#: How morphs are written in the table (and in the saved file): separated by spaces.
SEPARATOR = " "


class SegmentationModel(QAbstractTableModel):
    """Rows (word, morphs); the morphs column is editable and must spell the word."""

    HEADERS = ("Word", "Morphs")
    #: An edit refused, as the reason (the cell keeps its morphs).
    refused = Signal(str)

    def __init__(self, segmentation: Mapping[str, tuple[str, ...]], parent=None) -> None:
        super().__init__(parent)
        self.rows: list[tuple[str, tuple[str, ...]]] = sorted(segmentation.items())

    def rowCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: N802 (Qt)
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: N802 (Qt)
        return 0 if parent.isValid() else 2

    def headerData(self, section: int, orientation, role=Qt.ItemDataRole.DisplayRole) -> Any:  # noqa: N802
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return self.HEADERS[section]
        return None

    def data(self, index: QModelIndex, role=Qt.ItemDataRole.DisplayRole) -> Any:
        if role not in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole):
            return None
        word, morphs = self.rows[index.row()]
        return word if index.column() == 0 else SEPARATOR.join(morphs)

    def flags(self, index: QModelIndex) -> Qt.ItemFlag:
        flags = super().flags(index)
        return flags | Qt.ItemFlag.ItemIsEditable if index.column() == 1 else flags

    def setData(self, index: QModelIndex, value: Any, role=Qt.ItemDataRole.EditRole) -> bool:  # noqa: N802
        """Accept an edit only when the morphs spell the word (else the cell keeps its value)."""
        if index.column() != 1 or role != Qt.ItemDataRole.EditRole:
            return False
        word, _ = self.rows[index.row()]
        morphs = tuple(m for m in str(value).split(SEPARATOR) if m)
        if "".join(morphs) != word:
            self.refused.emit(f"'{value}' does not spell '{word}': its morphs stay "
                              f"'{SEPARATOR.join(self.rows[index.row()][1])}'.")
            return False
        self.rows[index.row()] = (word, morphs)
        self.dataChanged.emit(index, index)
        return True

    def segmentation(self) -> dict[str, tuple[str, ...]]:
        return dict(self.rows)


class SegmentationDialog(QDialog):
    """The table with a filter; Save writes the (edited) segmentation to a file."""

    #: The file a segmentation was saved to.
    saved = Signal(str)

    def __init__(self, segmentation: Mapping[str, tuple[str, ...]],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Morfessor segmentation")
        #: The run's segmentation shown (the table holds the edits).
        self.source = segmentation
        self.model = SegmentationModel(segmentation, self)
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(self.model)
        self.proxy.setFilterKeyColumn(0)
        self.filter = QLineEdit()
        self.filter.setPlaceholderText("Filter words…")
        self.filter.textChanged.connect(self.proxy.setFilterFixedString)
        self.table = QTableView()
        self.table.setModel(self.proxy)
        self.table.horizontalHeader().setStretchLastSection(True)
        split = sum(len(m) > 1 for _, m in self.model.rows)
        note = QLabel(f"{len(self.model.rows):,} words, {split:,} of them cut. Edit the morphs "
                      "(separated by spaces; they must spell the word), then save the file "
                      "to reuse it as gold boundaries.")
        note.setWordWrap(True)
        self.message = QLabel()  # why an edit was refused
        self.message.setWordWrap(True)
        self.message.setStyleSheet("color: #d9480f;")
        self.model.refused.connect(self.message.setText)
        self.model.dataChanged.connect(lambda *_: self.message.clear())
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save
                                   | QDialogButtonBox.StandardButton.Close)
        buttons.accepted.connect(self.ask_save)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        for w in (note, self.filter, self.table, self.message, buttons):
            layout.addWidget(w)
        self.resize(560, 600)

    def ask_save(self) -> None:
        path = dialogs.ask_save_path(self, "Save the segmentation", "segmentation",
                                     "Segmentations (*.tsv);;All files (*)", "morfessor.tsv")
        if path:
            self.save(path)

    def save(self, path: str) -> bool:
        try:
            write_segmentation(path, sorted(self.model.segmentation().items()))
        except (BpeError, OSError) as exc:
            dialogs.show_error(self, "Could not save the segmentation",
                               write_failure(path, exc) if isinstance(exc, OSError)
                               else str(exc))
            return False
        self.saved.emit(path)
        return True
