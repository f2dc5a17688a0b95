"""The History table's queries: counts, pages and the order of ids under every filter and
order, rows by id, and the list read on a connection of its own."""

from __future__ import annotations

import sqlite3
import threading
import time

import pytest

from bpe_desktop.core.project import Metric, Project, RunQuery, count_runs, page_of_runs
from bpe_desktop.core.project.queries import (
    SORTABLE,
    all_runs,
    open_reader,
    read_run_list,
    run_order,
    runs_by_id,
)

KINDS = ("train", "evaluate", "count")


@pytest.fixture
def project(tmp_path):
    """30 runs: kinds in turn, two presets, F1 = id / 100 for evaluations, the first ten
    started 40 days ago, run 7 failed and run 8 hidden (deleted, undo pending)."""
    with Project(tmp_path / "p.bpeproj") as p:
        for i in range(1, 31):
            kind = KINDS[(i - 1) % 3]
            run = p.start_run(kind, preset="gpt2" if i % 2 else "sennrich")
            metrics = [Metric("f1", i / 100), Metric("vocab_size", 1000 + i)] \
                if kind == "evaluate" else []
            p.finish_run(run, "failed" if i == 7 else "finished", metrics=metrics)
        p.conn.execute("UPDATE runs SET started = started - 40 * 86400 WHERE id <= 10")
        p.hide_runs([8])
        yield p


def ids(rows):
    return [r.id for r in rows]


def test_filters_combine(project):
    assert count_runs(project, RunQuery()) == 29
    assert count_runs(project, RunQuery(kind="evaluate")) == 9  # 2, 5, … 29 but 8
    assert count_runs(project, RunQuery(kind="evaluate", preset="gpt2")) == 5
    assert count_runs(project, RunQuery(status="failed")) == 1
    assert count_runs(project, RunQuery(period="last 30 days")) == 20
    assert ids(all_runs(project, RunQuery(kind="count", period="last 30 days",
                                          order_by="id", descending=False))) == \
        [12, 15, 18, 21, 24, 27, 30]


def test_sorting_by_a_metric_puts_runs_without_it_last(project):
    rows = all_runs(project, RunQuery(order_by="f1", descending=True))
    assert ids(rows[:3]) == [29, 26, 23]
    assert all(r.f1 is not None for r in rows[:9]) and all(r.f1 is None for r in rows[9:])


@pytest.mark.parametrize("column", SORTABLE)
def test_pages_tile_the_sorted_list(project, column):
    for descending in (False, True):
        q = RunQuery(order_by=column, descending=descending)
        whole = ids(all_runs(project, q))
        pages = [ids(page_of_runs(project, q, offset, 7)) for offset in range(0, 35, 7)]
        assert [i for page in pages for i in page] == whole
        assert sorted(whole) == [i for i in range(1, 31) if i != 8]


def test_filter_values_come_from_the_runs(project):
    assert read_run_list(project.conn, RunQuery(), 5).presets == ["gpt2", "sennrich"]


def test_a_query_refuses_unknown_columns():
    with pytest.raises(ValueError):
        RunQuery(order_by="config; DROP TABLE runs")


def test_the_date_filter_counts_back_from_now():
    where, params = RunQuery(period="today").where(now=1_000_000.0)
    assert "started >= ?" in where and params == [1_000_000.0 - 86400]
    assert time.time() > 0


@pytest.mark.parametrize("column", SORTABLE)
def test_the_order_of_ids_is_the_order_of_the_pages(project, column):
    for query in (RunQuery(order_by=column), RunQuery(order_by=column, descending=False),
                  RunQuery(order_by=column, preset="gpt2", status="finished"),
                  RunQuery(order_by=column, kind="evaluate", period="last 30 days")):
        assert run_order(project.conn, query).tolist() == ids(all_runs(project, query))


def test_rows_are_read_by_id_in_the_order_asked(project):
    rows = runs_by_id(project.conn, [29, 2, 30])
    assert ids(rows) == [29, 2, 30]
    assert rows[0].f1 == pytest.approx(0.29) and rows[0].vocab_size == 1029
    project.delete_runs([2])
    assert [r and r.id for r in runs_by_id(project.conn, [29, 2, 30])] == [29, None, 30]
    every = runs_by_id(project.conn, range(1, 1001))  # more than one statement's worth
    assert [r.id for r in every if r] == [i for i in range(1, 31) if i != 2]


def test_a_run_list_is_read_on_a_connection_of_its_own(project):
    """The window's worker reads while the project's own connection writes (WAL)."""
    reader = open_reader(project.path)
    try:
        with project.transaction():
            project.conn.execute("UPDATE runs SET preset = 'bpe' WHERE id = 1")
            runs = read_run_list(reader, RunQuery(kind="evaluate"), page_size=4)
            assert runs.presets == ["gpt2", "sennrich"]  # before the commit
        runs = read_run_list(reader, RunQuery(kind="evaluate"), page_size=4)
        assert runs.presets == ["bpe", "gpt2", "sennrich"]
        assert runs.corpora == []
        assert runs.ids.tolist() == [29, 26, 23, 20, 17, 14, 11, 5, 2]  # newest first; not 8
        assert ids(runs.first_page) == [29, 26, 23, 20]
        with pytest.raises(sqlite3.OperationalError):
            reader.execute("DELETE FROM runs")  # read-only
    finally:
        reader.close()


def test_reading_the_order_can_be_stopped_from_another_thread(project):
    with project.transaction():
        project.conn.executemany("INSERT INTO runs (kind, status, started) VALUES "
                                 "('count', 'finished', ?)", [(i,) for i in range(200_000)])
    reader = open_reader(project.path)
    done = threading.Event()

    def stop() -> None:  # what the window does when a newer list is asked for
        while not done.is_set():
            reader.interrupt()
            time.sleep(0.001)
    stopper = threading.Thread(target=stop)
    stopper.start()
    try:
        with pytest.raises(sqlite3.OperationalError, match="interrupt"):
            run_order(reader, RunQuery(order_by="duration", status="finished"))
    finally:
        done.set()
        stopper.join()
    assert len(run_order(reader, RunQuery())) == 200_029  # the connection reads on
    reader.close()
