"""The History table: runs read from the project one page at a time.

The model knows only how many runs match the filter; a row's values are read with the
page holding it (:data:`PAGE_SIZE` runs in one indexed query) when the view first asks
for it, and the last :data:`KEPT_PAGES` pages are kept. So a project of 100,000 runs
opens, scrolls, sorts and filters without reading them all.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import replace

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt

from bpe_desktop.core.project import Project, RunQuery, RunSummary, count_runs, page_of_runs
from bpe_desktop.core.project.report import seconds, when
from bpe_desktop.ui.common.table_base import OneCallPerCell

PAGE_SIZE = 200
KEPT_PAGES = 20
SEARCHED_PAGES = 3

#: (header, RunSummary field / sort key)
COLUMNS = (("Run", "id"), ("Kind", "kind"), ("Status", "status"), ("Started", "started"),
           ("Duration", "duration"), ("Preset", "preset"), ("Corpus", "corpus_label"),
           ("Vocabulary", "vocab_size"), ("F1", "f1"), ("Fertility", "fertility"))
_NUMERIC = {"id", "duration", "vocab_size", "f1", "fertility"}

Index = QModelIndex | QPersistentModelIndex


class RunTableModel(OneCallPerCell):
    ANSWERED_ROLES = frozenset({Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole,
                                Qt.ItemDataRole.TextAlignmentRole})

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.project: Project | None = None
        self.query = RunQuery()
        self._count = 0
        self._pages: OrderedDict[int, list[RunSummary]] = OrderedDict()

    # -- what is shown ----------------------------------------------------------------------

    def set_project(self, project: Project | None) -> None:
        self.project = project
        self.refresh()

    def set_query(self, query: RunQuery) -> None:
        if query == self.query:
            return
        same_runs = replace(query, order_by=self.query.order_by,
                            descending=self.query.descending) == self.query
        self.query = query
        if same_runs and self.project is not None:  # only the order changed
            self.beginResetModel()
            self._pages.clear()
            self.endResetModel()
        else:
            self.refresh()

    def refresh(self) -> None:
        """Read the count again and forget the pages (runs were added or removed)."""
        self.beginResetModel()
        self._pages.clear()
        self._count = count_runs(self.project, self.query) if self.project else 0
        self.endResetModel()

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        key = COLUMNS[column][1]
        self.set_query(self.query.sorted_by(key, order == Qt.SortOrder.DescendingOrder))

    def run_at(self, row: int) -> RunSummary | None:
        if not 0 <= row < self._count or self.project is None:
            return None
        number = row // PAGE_SIZE
        page = self._pages.get(number)
        if page is None:
            page = page_of_runs(self.project, self.query, number * PAGE_SIZE, PAGE_SIZE)
            self._pages[number] = page
            if len(self._pages) > KEPT_PAGES:
                self._pages.popitem(last=False)
        else:
            self._pages.move_to_end(number)
        offset = row - number * PAGE_SIZE
        return page[offset] if offset < len(page) else None

    def row_of(self, run_id: int) -> int | None:
        """The row of a run among the pages read so far or the first
        :data:`SEARCHED_PAGES` (where new and selected runs usually are); None if not
        there."""
        for number in range(min(SEARCHED_PAGES, -(-self._count // PAGE_SIZE))):
            self.run_at(number * PAGE_SIZE)  # reads the page if it is not kept
        for number, page in self._pages.items():
            for offset, run in enumerate(page):
                if run.id == run_id:
                    return number * PAGE_SIZE + offset
        return None

    # -- Qt ---------------------------------------------------------------------------------

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else self._count

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802
                   role: int = Qt.ItemDataRole.DisplayRole):
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section][0]
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole):
        key = COLUMNS[index.column()][1]
        if role == Qt.ItemDataRole.TextAlignmentRole:
            if key in _NUMERIC:
                return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            return None
        run = self.run_at(index.row())
        if run is None:
            return None
        if role == Qt.ItemDataRole.ToolTipRole:
            return run.message or None
        return cell(run, key)


def cell(run: RunSummary, key: str) -> str:
    value = getattr(run, key)
    if key == "started":
        return when(value)
    if key == "duration":
        return seconds(value)
    if key in ("f1", "fertility"):
        return "" if value is None else f"{value:.4f}"
    if key == "vocab_size":
        return "" if value is None else f"{value:,}"
    return str(value)

