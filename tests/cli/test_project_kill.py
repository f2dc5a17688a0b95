"""Killing command-line runs that record into one project, two at a time, at random
moments (every other pair's victim as soon as its run is recorded as running): the database
stays consistent, every run that finished is there once with its metrics, and a killed run
is at most one row, marked failed once its process is gone."""

from __future__ import annotations

import contextlib
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time

from bpe_desktop.core.project import Project
from bpe_desktop.core.project.store import DIED_MESSAGE
from tests.cli.support import REPO

RUNS = 50
SEED = 35


def _wait_until_running(project, proc: subprocess.Popen) -> None:
    """Until ``proc``'s run is in the project as running (or the process has ended)."""
    deadline = time.monotonic() + 60
    while proc.poll() is None and time.monotonic() < deadline:
        if project.exists():
            try:
                with contextlib.closing(sqlite3.connect(f"file:{project}?mode=ro", uri=True,
                                                        timeout=5)) as conn:
                    if conn.execute("SELECT 1 FROM runs WHERE pid = ? AND status = 'running'",
                                    (proc.pid,)).fetchone():
                        return
            except sqlite3.OperationalError:  # not created yet, or its tables not yet
                pass
        time.sleep(0.002)


def test_sigkill_at_random_moments_loses_and_duplicates_nothing(tmp_path):
    corpus = REPO / "tests" / "data" / "ud_english.txt"  # trains in ~0.25 s of ~1 s a run
    project = tmp_path / "p.bpeproj"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    rng = random.Random(SEED)
    outcomes: dict[int, int] = {}  # pid -> exit status (negative: killed)
    started = time.monotonic()
    for pair in range(RUNS // 2):
        procs = [subprocess.Popen(
            [sys.executable, "-m", "bpe_desktop.cli", "train", str(corpus), "-o",
             str(tmp_path / f"m{pair}-{k}.json"), "--merges", "3000", "-q", "--project",
             str(project)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for k in range(2)]
        victim = procs[rng.randrange(2)]
        if pair % 2:  # mid-run: as soon as its run is recorded as running
            _wait_until_running(project, victim)
        else:
            time.sleep(rng.uniform(0.0, 1.2))  # from start-up to after the run's commit
        victim.send_signal(signal.SIGKILL)
        for p in procs:
            outcomes[p.pid] = p.wait(timeout=60)
        with Project(project) as opened:  # also marks the killed run failed
            assert opened.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert time.monotonic() - started < 120

    with Project(project) as opened:
        rows = opened.conn.execute("SELECT id, pid, status, message FROM runs").fetchall()
        by_pid: dict[int, list] = {}
        for row in rows:
            by_pid.setdefault(row[1], []).append(row)
        assert set(by_pid) <= set(outcomes)
        assert all(len(v) == 1 for v in by_pid.values()), "a run recorded twice"
        finished = [pid for pid, code in outcomes.items() if code == 0]
        killed = [pid for pid, code in outcomes.items() if code == -signal.SIGKILL]
        assert len(finished) + len(killed) == RUNS
        assert len(finished) >= RUNS // 2 and killed
        for pid in finished:
            [(run_id, _, status, _)] = by_pid[pid]
            assert status == "finished"
            d = opened.run_details(run_id)
            assert {m.metric for m in d.metrics} >= {"vocab_size", "merges"}
            assert d.model_path and d.summary.vocab_size
        for pid in killed:
            for run_id, _, status, message in by_pid.get(pid, ()):
                assert status in ("failed", "finished")
                if status == "failed":
                    assert message == DIED_MESSAGE
                    assert opened.run_details(run_id).metrics == ()
        # Some kills land mid-run (a row left running, now failed), not all before it.
        assert any(r[2] == "failed" for r in rows)
