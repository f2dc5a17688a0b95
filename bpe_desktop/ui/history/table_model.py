"""The History table: runs of the project in the order and under the filter chosen.

Which runs match and in which order is read in a worker, on a connection of its own
(:func:`~bpe_desktop.core.project.queries.read_run_list`: the ids only; for 100,000 runs
50-100 ms, which on the GUI thread would stall the window at every sort and filter); the
table shows the previous order until the new one is swapped in. The rows themselves are
read by id when the view first asks for them, :data:`PAGE_SIZE` runs in one query of
under a millisecond at any offset, and the last :data:`KEPT_PAGES` pages are kept.
"""

from __future__ import annotations

import sqlite3
from collections import OrderedDict

import numpy as np
from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt, QTimer, Signal

from bpe_desktop.core import CancelToken
from bpe_desktop.core.project import Project, ProjectError, RunQuery, RunSummary
from bpe_desktop.core.project.queries import RunList, open_reader, read_run_list, runs_by_id
from bpe_desktop.core.project.report import seconds, when
from bpe_desktop.ui.common.background import LatestJob
from bpe_desktop.ui.common.table_base import OneCallPerCell
from bpe_desktop.ui.common.workers import JobError

PAGE_SIZE = 200
KEPT_PAGES = 20

#: (header, RunSummary field / sort key)
COLUMNS = (("Run", "id"), ("Kind", "kind"), ("Status", "status"), ("Started", "started"),
           ("Duration", "duration"), ("Preset", "preset"), ("Corpus", "corpus_label"),
           ("Vocabulary", "vocab_size"), ("F1", "f1"), ("Fertility", "fertility"))
_NUMERIC = {"id", "duration", "vocab_size", "f1", "fertility"}

Index = QModelIndex | QPersistentModelIndex


class RunTableModel(OneCallPerCell):
    ANSWERED_ROLES = frozenset({Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole,
                                Qt.ItemDataRole.TextAlignmentRole})

    #: A new list of runs is shown (RunList): after a sort, a filter, a new project, or
    #: runs recorded or deleted.
    listed = Signal(object)
    #: The runs could not be read (JobError; a ProjectError whose cause is the SQLite
    #: error).
    failed = Signal(object)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.project: Project | None = None
        self.query = RunQuery()
        self._ids = np.empty(0, dtype=np.int64)
        self._pages: OrderedDict[int, list[RunSummary | None]] = OrderedDict()
        self._reader = LatestJob(self)
        #: The connection the reader's worker reads on, while it does.
        self._reading: list[sqlite3.Connection] = []
        self._reader.finished.connect(self.show_list)
        self._reader.failed.connect(self.failed)

    # -- what is shown ----------------------------------------------------------------------

    @property
    def busy(self) -> bool:
        """A new list is being read (the table still shows the previous one)."""
        return self._reader.busy

    def set_project(self, project: Project | None, runs: RunList | None = None) -> None:
        """Show ``project``'s runs: ``runs`` when the caller read them already (in the
        worker that opened it), else read in the background."""
        self._reader.discard()
        self.project = project
        if runs is not None:
            self.query = runs.query
            self.show_list(runs)
        else:
            self.show_list(None)
            self.refresh()

    def set_query(self, query: RunQuery) -> None:
        if query != self.query:
            self.query = query
            self.refresh()

    def refresh(self) -> None:
        """Read the list again in the background (runs were added or removed, or the
        query changed); the rows on screen stay until it arrives."""
        if self.project is None:
            return
        path, query, reading = self.project.path, self.query, self._reading
        stale = list(reading)  # (taken first: the new job may start reading at once)
        self._reader.submit(lambda _report, cancel: read_runs(
            path, query, reading=reading, cancel=cancel))
        # The list still being read is not wanted: stop SQLite (the cancel is set now,
        # so the worker takes the interruption for what it is).
        for conn in stale:
            try:
                conn.interrupt()
            except sqlite3.ProgrammingError:  # that read has ended and closed it
                pass

    def show_list(self, runs: RunList | None) -> None:
        self.beginResetModel()
        self._pages.clear()
        if runs is None:
            self._ids = np.empty(0, dtype=np.int64)
        else:
            self._ids = runs.ids
            if runs.first_page:
                self._pages[0] = runs.first_page
        self.endResetModel()
        if runs is not None:
            self.listed.emit(runs)

    def shutdown(self) -> None:
        """Stop reading and wait for the reader's thread (the window is closing)."""
        self._reader.shutdown()

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        key = COLUMNS[column][1]
        self.set_query(self.query.sorted_by(key, order == Qt.SortOrder.DescendingOrder))

    def run_at(self, row: int) -> RunSummary | None:
        """The run on ``row``; None past the end, or for a run deleted by another program
        since the list was read (the next refresh drops it)."""
        if not 0 <= row < len(self._ids) or self.project is None:
            return None
        number = row // PAGE_SIZE
        page = self._pages.get(number)
        if page is None:
            start = number * PAGE_SIZE
            try:
                page = runs_by_id(self.project.conn, self._ids[start:start + PAGE_SIZE])
            except sqlite3.DatabaseError as exc:  # a damaged page, found while painting
                page = [None] * len(self._ids[start:start + PAGE_SIZE])
                error = ProjectError(f"{self.project.path}: the project file is damaged "
                                     f"({exc}); restore a backup copy")
                error.__cause__ = exc
                # (Not from inside the view's paint: the listener may close the project.)
                QTimer.singleShot(0, lambda: self.failed.emit(JobError(error, "")))
            self._pages[number] = page
            if len(self._pages) > KEPT_PAGES:
                self._pages.popitem(last=False)
        else:
            self._pages.move_to_end(number)
        offset = row - number * PAGE_SIZE
        return page[offset] if offset < len(page) else None

    def rows_of(self, run_ids: list[int]) -> list[int]:
        """The rows of these runs (those the list has), in row order."""
        return [int(r) for r in np.flatnonzero(np.isin(self._ids, run_ids))]

    def row_of(self, run_id: int) -> int | None:
        rows = self.rows_of([run_id])
        return rows[0] if rows else None

    # -- Qt ---------------------------------------------------------------------------------

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(self._ids)

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



def read_runs(path: str, query: RunQuery, conn: sqlite3.Connection | None = None, *,
              reading: list[sqlite3.Connection] | None = None,
              cancel: CancelToken | None = None) -> RunList:
    """The list of runs for ``query``, for a worker thread: on ``conn``, or on a
    connection of its own, listed in ``reading`` while it reads (so the GUI thread can
    stop it, with ``cancel`` set first); SQLite's errors named as the project's."""
    try:
        reader = open_reader(path) if conn is None else conn
        if reading is not None:
            reading.append(reader)
        try:
            return read_run_list(reader, query, PAGE_SIZE)
        finally:
            if reading is not None:
                reading.remove(reader)
            if reader is not conn:
                reader.close()
    except sqlite3.OperationalError as exc:
        if cancel is not None and cancel.cancelled:
            raise  # stopped by refresh(): the worker reports it as cancelled
        raise ProjectError(f"{path}: cannot read the project ({exc})") from exc
    except sqlite3.DatabaseError as exc:
        raise ProjectError(f"{path}: the project file is damaged ({exc}); restore a "
                           "backup copy") from exc
