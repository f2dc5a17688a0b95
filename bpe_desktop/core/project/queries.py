"""The History table's questions to the project: how many runs match, and one page of
them in a chosen order. Every sortable column and every filter has an index, so a page
of a 100,000-run project is read in a few milliseconds (the table reads only the pages
it shows)."""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

from bpe_desktop.core.project.store import SUMMARY_COLUMNS, Project, RunSummary

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
    where, params = query.where(hidden_exist=project.has_hidden_runs())
    return project.conn.execute(f"SELECT count(*) FROM runs WHERE {where}",
                                params).fetchone()[0]


def page_of_runs(project: Project, query: RunQuery, offset: int,
                 limit: int) -> list[RunSummary]:
    where, params = query.where(hidden_exist=project.has_hidden_runs())
    direction = "DESC" if query.descending else "ASC"
    # The order of an index (column, then the start time for the text columns, then the
    # row id), so a page is read from the index without sorting every run; id breaks
    # ties so pages never overlap.
    keys = [query.order_by]
    if query.order_by in _GROUPED_BY_TIME:
        keys.append("started")
    if query.order_by != "id":
        keys.append("id")
    order = ", ".join(f"{k} {direction}" for k in keys)
    rows = project.conn.execute(
        f"SELECT {', '.join(SUMMARY_COLUMNS)} FROM runs WHERE {where} ORDER BY {order} "
        "LIMIT ? OFFSET ?", [*params, limit, offset]).fetchall()
    return [RunSummary(*r) for r in rows]


def distinct_values(project: Project, column: str) -> list[str]:
    """The values a filter can choose from (presets, corpora)."""
    if column not in ("preset", "corpus_label"):
        raise ValueError(column)
    return [r[0] for r in project.conn.execute(
        f"SELECT DISTINCT {column} FROM runs WHERE {column} != '' ORDER BY {column}")]


def all_runs(project: Project, query: RunQuery = RunQuery()) -> list[RunSummary]:
    return page_of_runs(project, query, 0, -1)
