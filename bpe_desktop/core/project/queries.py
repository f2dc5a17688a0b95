"""The History table's questions to the project: which runs match a filter, in a chosen
order, and the rows of some of them.

Every sortable column and every filter has an index, so a page of a 100,000-run project
is read in a few milliseconds. A filter whose index does not also give the order (say
preset `gpt2` sorted by status) makes SQLite sort every matching run, tens of
milliseconds: so the window asks for the whole order, :func:`run_order` (the ids only),
in a worker on a connection of its own (:func:`open_reader`), and then reads the rows it
shows by id (:func:`runs_by_id`), which costs the same for any filter, order or offset.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from bpe_desktop.core.project.store import BUSY_TIMEOUT_MS, SUMMARY_COLUMNS, Project, RunSummary

#: The columns the History table can sort by.
SORTABLE = ("id", "kind", "status", "started", "duration", "preset", "corpus_label",
            "vocab_size", "f1", "fertility")

#: The date filter's choices: label -> how many days back (None: any time).
PERIODS = {"any time": None, "today": 1, "last 7 days": 7, "last 30 days": 30,
           "last 365 days": 365}


@dataclass(frozen=True)
class RunQuery:
    """Which runs, in which order. Empty strings match everything."""

    kind: str = ""
    status: str = ""
    preset: str = ""
    corpus: str = ""
    period: str = "any time"
    order_by: str = "started"
    descending: bool = True

    def __post_init__(self) -> None:
        if self.order_by not in SORTABLE:
            raise ValueError(f"cannot sort runs by {self.order_by!r}")
        if self.period not in PERIODS:
            raise ValueError(f"unknown period {self.period!r}")

    def sorted_by(self, column: str, descending: bool) -> "RunQuery":
        return replace(self, order_by=column, descending=descending)

    def where(self, now: float | None = None, hidden_exist: bool = True
              ) -> tuple[str, list]:
        # Without deleted runs waiting for an undo, the clause is left out: with it,
        # every filter would read each row instead of only its index.
        clauses, params = ["hidden = 0"] if hidden_exist else ["1"], []
        for column in ("kind", "status", "preset"):
            value = getattr(self, column)
            if value:
                clauses.append(f"{column} = ?")
                params.append(value)
        if self.corpus:
            clauses.append("corpus_label = ?")
            params.append(self.corpus)
        days = PERIODS[self.period]
        if days is not None:
            clauses.append("started >= ?")
            params.append((time.time() if now is None else now) - days * 86400)
        return " AND ".join(clauses), params


#: Columns indexed together with the start time.
_GROUPED_BY_TIME = ("kind", "status", "preset", "corpus_label")


def count_runs(project: Project, query: RunQuery) -> int:
    where, params = query.where(hidden_exist=_any_hidden(project.conn))
    return project.conn.execute(f"SELECT count(*) FROM runs WHERE {where}",
                                params).fetchone()[0]


def page_of_runs(project: Project, query: RunQuery, offset: int,
                 limit: int) -> list[RunSummary]:
    where, params = query.where(hidden_exist=_any_hidden(project.conn))
    rows = project.conn.execute(
        f"SELECT {', '.join(SUMMARY_COLUMNS)} FROM runs WHERE {where} "
        f"ORDER BY {_order(query)} LIMIT ? OFFSET ?", [*params, limit, offset]).fetchall()
    return [RunSummary(*r) for r in rows]


def run_order(conn: sqlite3.Connection, query: RunQuery) -> np.ndarray:
    """The ids of the runs ``query`` matches, in its order (int64). Another thread may
    stop it with ``conn.interrupt()`` (``sqlite3.OperationalError``)."""
    where, params = query.where(hidden_exist=_any_hidden(conn))
    # One text of all the ids, parsed by NumPy: a row per id would cost 5x the time,
    # taking and letting go of the GIL for each. (The LIMIT keeps SQLite from dropping
    # the subquery's order, which the aggregate would not need otherwise.)
    text = conn.execute(
        f"SELECT group_concat(id) FROM (SELECT id FROM runs WHERE {where} "
        f"ORDER BY {_order(query)} LIMIT -1)", params).fetchone()[0]
    if not text:
        return np.empty(0, dtype=np.int64)
    return np.fromstring(text, dtype=np.int64, sep=",")


def runs_by_id(conn: sqlite3.Connection, ids: Sequence[int]) -> list[RunSummary | None]:
    """The rows of these runs, in the order given; None for a run no longer there."""
    ids = [int(i) for i in ids]
    found: dict[int, RunSummary] = {}
    for start in range(0, len(ids), _IDS_PER_QUERY):
        chunk = ids[start:start + _IDS_PER_QUERY]
        for row in conn.execute(
                f"SELECT {', '.join(SUMMARY_COLUMNS)} FROM runs WHERE id IN "
                f"({', '.join('?' * len(chunk))})", chunk):
            found[row[0]] = RunSummary(*row)
    return [found.get(i) for i in ids]


@dataclass(frozen=True, eq=False)
class RunList:
    """What the History table shows for a query, read in one go away from the window:
    the matching runs' ids in order, the rows of the first ``page_size`` of them, and
    the values the preset and corpus filters offer."""

    query: RunQuery
    ids: np.ndarray
    first_page: list[RunSummary | None]
    presets: list[str]
    corpora: list[str]


def read_run_list(conn: sqlite3.Connection, query: RunQuery, page_size: int) -> RunList:
    ids = run_order(conn, query)
    return RunList(query, ids, runs_by_id(conn, ids[:page_size]),
                   _distinct(conn, "preset"), _distinct(conn, "corpus_label"))


def open_reader(path: str) -> sqlite3.Connection:
    """A read-only connection to a project, for a thread of its own (a connection serves
    one thread at a time). WAL: it reads while others write."""
    conn = sqlite3.connect(f"{Path(path).absolute().as_uri()}?mode=ro", uri=True,
                           timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None,
                           check_same_thread=False)
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    return conn


#: Below SQLite's smallest limit of parameters in one statement (999).
_IDS_PER_QUERY = 900


def _order(query: RunQuery) -> str:
    """The order of an index (column, then the start time for the text columns, then the
    row id), so SQLite reads it from the index instead of sorting; id breaks ties so the
    order is total (pages never overlap)."""
    direction = "DESC" if query.descending else "ASC"
    keys = [query.order_by]
    if query.order_by in _GROUPED_BY_TIME:
        keys.append("started")
    if query.order_by != "id":
        keys.append("id")
    return ", ".join(f"{k} {direction}" for k in keys)


def _any_hidden(conn: sqlite3.Connection) -> bool:
    """Whether deleted runs wait for an undo (see :meth:`RunQuery.where`)."""
    return conn.execute("SELECT 1 FROM runs WHERE hidden = 1 LIMIT 1").fetchone() is not None


def _distinct(conn: sqlite3.Connection, column: str) -> list[str]:
    """The values a filter can choose from (presets, corpora)."""
    if column not in ("preset", "corpus_label"):
        raise ValueError(column)
    return [r[0] for r in conn.execute(
        f"SELECT DISTINCT {column} FROM runs WHERE {column} != '' ORDER BY {column}")]


def all_runs(project: Project, query: RunQuery = RunQuery()) -> list[RunSummary]:
    return page_of_runs(project, query, 0, -1)
