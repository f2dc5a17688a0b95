"""The base of the application's table models: one call from Qt into Python per cell.

Each call from Qt into Python takes the GIL, and while a worker runs Python (an autosave,
a model's loading) each such call waits up to one GIL turn for it. A view painting a table
asked a plain ``QAbstractTableModel`` subclass for ten roles per cell, each through
``data()``, and for both counts per index: ~3,000 calls for one paint of the vocabulary
table (a 100 ms stall of the window was one pass of the event loop spent mostly waiting
for the GIL beside an autosave). Here ``multiData`` answers a cell's roles in one call
(the delegate asks for them that way), and ``index`` checks the bounds itself: ~640 calls
for the same paint. A model that names the roles it answers (``ANSWERED_ROLES``) is not
asked for the others: the delegate asks for seven roles per cell, the vocabulary table
answers three of them (a full repaint of it 9.1 -> 8.5 ms).
"""

from __future__ import annotations

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QModelRoleDataSpan,
    QPersistentModelIndex,
)


class OneCallPerCell(QAbstractTableModel):
    """Subclasses implement ``rowCount``, ``columnCount`` and ``data`` as usual."""

    #: The roles ``data`` can answer (None: any); the others are cleared without a call.
    ANSWERED_ROLES: frozenset[int] | None = None

    def index(self, row: int, column: int,
              parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> QModelIndex:
        if (parent.isValid() or not 0 <= row < self.rowCount()
                or not 0 <= column < self.columnCount()):
            return QModelIndex()
        return self.createIndex(row, column)

    def multiData(self, index: QModelIndex | QPersistentModelIndex,
                  roleDataSpan: QModelRoleDataSpan) -> None:
        answered = self.ANSWERED_ROLES
        for role_data in roleDataSpan:
            role = role_data.role()
            if answered is not None and role not in answered:
                value = None
            else:
                value = self.data(index, role)
            if value is None:
                role_data.clearData()
            else:
                role_data.setData(value)
