"""The History panel's phases of bench_gui_latency.py: a project of 100,000 runs opened,
then sorted by every column, filtered and scrolled, all in the running window.

``make_project`` writes the project the way runs are recorded (one transaction per run
would take minutes; the rows are the same): kinds, presets, corpora and statuses mixed,
each evaluation with 12 metrics and 5 sweep points, each training with its model row.
"""

from __future__ import annotations

import random
import time
from pathlib import Path

RUNS = 100_000
KINDS = ("train", "evaluate", "evaluate", "compare", "count")
PRESETS = ("", "gpt2", "sennrich", "subword-nmt", "sentencepiece")
CORPORA = tuple(f"corpus-{i}.txt" for i in range(40))


def make_project(path: Path, runs: int = RUNS, seed: int = 35) -> Path:
    from bpe_desktop.core.project import Project

    rng = random.Random(seed)
    now = time.time()
    path.unlink(missing_ok=True)
    with Project(path) as p, p.transaction():
        rows, metrics, models = [], [], []
        for i in range(1, runs + 1):
            kind = rng.choice(KINDS)
            status = rng.choices(("finished", "failed", "cancelled"), (90, 6, 4))[0]
            vocab = rng.choice((1000, 2000, 4000, 8000, 16000, 32000))
            f1 = rng.random() if kind == "evaluate" else None
            fertility = 1 + rng.random() if kind == "evaluate" else None
            rows.append((i, kind, status, now - (runs - i) * 60, rng.uniform(0.5, 90),
                         rng.choice(PRESETS), rng.choice(CORPORA),
                         vocab if kind in ("train", "evaluate") else None, f1, fertility,
                         '{"vocab_size": %d, "min_frequency": 2}' % vocab))
            if kind == "evaluate":
                for name in ("precision", "recall", "f1", "morphscore", "fertility",
                             "chars_per_token", "bytes_per_token", "unknown_rate",
                             "utilisation", "renyi_efficiency", "vocab_size", "merges"):
                    metrics.append((i, name, rng.random(), "gold.tsv", None))
                for size in (500, 1000, 2000, 4000, 8000):
                    metrics.append((i, "f1", rng.random(), "gold.tsv", size))
            elif kind == "train" and status == "finished":
                models.append((i, f"/models/run-{i}.json", vocab, vocab - 300))
        p.conn.executemany(
            "INSERT INTO runs (id, kind, status, started, duration, preset, corpus_label, "
            "vocab_size, f1, fertility, config) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
        p.conn.executemany("INSERT INTO metrics (run_id, metric, value, source, vocab_size) "
                           "VALUES (?, ?, ?, ?, ?)", metrics)
        p.conn.executemany("INSERT INTO models (run_id, path, vocab_size, merges) "
                           "VALUES (?, ?, ?, ?)", models)
    return path


def history_uses(app, window, measured, spin, gui_pass, project: Path) -> dict:
    """``opening_100k_run_history`` (File > Open project, until the table shows the runs
    and the check of every page in the background has ended) and
    ``sorting_filtering_history`` (every column sorted both ways, each filter, scrolling
    to the end and back), each action one GUI pass, then the event loop until the new
    list of runs, read in the background, is shown and painted."""
    from PySide6.QtCore import Qt

    history = window.history
    window.tabs.setCurrentWidget(history)
    spin(app, 0.3)
    # (Opened in a worker while the window waits in a local event loop.)
    opened = measured(app, lambda: window.projects.open_project(str(project)),
                      lambda: history.model.rowCount() == RUNS
                      and not window.projects.verifier.running, runs_a_loop=True)
    actions: list[tuple[str, object]] = []
    table = history.table
    for column in range(history.model.columnCount()):
        for order in (Qt.SortOrder.AscendingOrder, Qt.SortOrder.DescendingOrder):
            actions.append((f"sort {column} {order.name}",
                            lambda c=column, o=order: table.sortByColumn(c, o)))
    for combo, values in ((history.kind_combo, ("evaluate", "train", "All")),
                          (history.status_combo, ("failed", "All")),
                          (history.preset_combo, ("gpt2", "All")),
                          (history.corpus_combo, ("corpus-7.txt", "All")),
                          (history.period_combo, ("last 7 days", "any time"))):
        for value in values:
            actions.append((f"filter {value}",
                            lambda cb=combo, v=value: cb.setCurrentText(v)))
    actions += [("scroll to end", table.scrollToBottom), ("scroll to top", table.scrollToTop)]
    slowest: list[tuple[float, str]] = []

    def run_all() -> None:
        for name, action in actions:
            start = time.perf_counter()
            gui_pass(action)
            spin(app, until=lambda: not history.model.busy)
            slowest.append((time.perf_counter() - start, name))
            spin(app, 0.05)  # painted: the rows on screen were read

    sorting = measured(app, run_all, lambda: True, runs_a_loop=True)
    slowest.sort(reverse=True)
    sorting["actions"] = len(actions)
    sorting["slowest_actions_ms"] = [[round(s * 1000, 1), n] for s, n in slowest[:5]]
    return {"opening_100k_run_history": opened, "sorting_filtering_history": sorting}
