"""A series of ``bench_gui_latency.py`` runs, each in a fresh process, summed up per phase.

One run says little on a shared virtual machine: a single tick late by 60 ms fails it, and
the host decides many such ticks. So the GUI goals are judged over a series (``--runs N``):
per phase, the range of each figure over the runs and how many runs were within both goals;
per run, whether every phase was; and for every stall over the goal, how much CPU time the
host gave other guests during it (Linux's steal counter, in 10 ms clock ticks). A stall
during which the host took none is the process's own; the series says how many there were.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_gui_latency import PHASES

#: The phases judged by the goals ("whole_run" spans reading and merging: not judged twice).
JUDGED = tuple(phase for phase in PHASES if phase != "whole_run")


def within(phase: dict, p99_goal: float, max_goal: float) -> bool:
    return phase.get("p99_ms", 0.0) <= p99_goal and phase.get("max_ms", 0.0) <= max_goal


def run_series(runs: int, child_args: list[str], out: Path, pause: float = 2.0) -> list[dict]:
    """``runs`` records of ``bench_gui_latency.py child_args``, one child process each (a
    fresh interpreter, heap and Qt: no run inherits another's garbage or caches)."""
    script = Path(__file__).resolve().parent / "bench_gui_latency.py"
    records = []
    with tempfile.TemporaryDirectory(prefix="gui-series-") as tmp:
        for i in range(runs):
            path = Path(tmp) / f"run{i}.json"
            started = time.perf_counter()
            done = subprocess.run([sys.executable, str(script), *child_args, "--out", str(path)],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                  check=False)
            if done.returncode != 0 or not path.is_file():
                raise SystemExit(f"run {i + 1} failed ({done.returncode}):\n{done.stderr[-2000:]}")
            records.append(json.loads(path.read_text()))
            print(f"run {i + 1}/{runs}: {time.perf_counter() - started:.0f} s, load "
                  f"{records[-1]['load_before'][0]:.2f}", file=sys.stderr)
            time.sleep(pause)  # the last run's writes and threads settle
    out.write_text(json.dumps(records, indent=1))
    return records


def _range(values: list[float]) -> str:
    return f"{min(values):.1f}–{max(values):.1f}" if values else "–"


def summary(records: list[dict], p99_goal: float, max_goal: float) -> str:
    """Markdown: the per-phase table, then the per-run verdicts and the stalls over the goal."""
    n = len(records)
    loads = [x for r in records for x in (r["load_before"][0], r["load_after"][0])]
    trains = [r["train_seconds"] for r in records]
    lines = [(f"{n} runs, 1-minute load {min(loads):.2f}–{max(loads):.2f}, training "
              f"{min(trains):.1f}–{max(trains):.1f} s; ranges over the runs."), "",
             ("| phase | p50 ms | p99 ms (goal ≤ 16) | max ms (goal ≤ 50) | longest stall the "
              "host took no CPU in, ms | host's stolen CPU, ms | runs within both goals |"),
             "|---|---:|---:|---:|---:|---:|---|"]
    for phase in JUDGED:
        rows = [r[phase] for r in records if r.get(phase, {}).get("ticks")]
        if not rows:
            continue
        ok = sum(within(p, p99_goal, max_goal) for p in rows)
        lines.append(
            f"| {phase.replace('_', ' ')} | {_range([p['p50_ms'] for p in rows])} | "
            f"{_range([p['p99_ms'] for p in rows])} | {_range([p['max_ms'] for p in rows])} | "
            f"{_range([p.get('max_unstolen_ms', p['max_ms']) for p in rows])} | "
            f"{_range([p.get('stolen_ms', 0.0) for p in rows])} | {ok} of {len(rows)} |")
    every = [all(within(r[p], p99_goal, max_goal) for p in JUDGED if r.get(p, {}).get("ticks"))
             for r in records]
    lines += ["", f"Runs within both goals in every phase: {sum(every)} of {n}."]
    misses = []
    for i, (r, ok) in enumerate(zip(records, every)):
        if ok:
            continue
        what = []
        for phase in JUDGED:
            p = r.get(phase, {})
            if not p.get("ticks") or within(p, p99_goal, max_goal):
                continue
            stalls = ", ".join(f"{late:.0f} ms (host took {stolen:.0f} ms)"
                               for late, stolen in p.get("stalls", []))
            what.append(f"{phase.replace('_', ' ')}: p99 {p['p99_ms']:.1f}, max "
                        f"{p['max_ms']:.1f} ms" + (f"; stalls {stalls}" if stalls else ""))
        misses.append(f"- run {i + 1} (load {r['load_before'][0]:.2f}): " + "; ".join(what))
    if misses:
        lines += ["", "The misses:", *misses]
    stalls = [(late, stolen) for r in records for p in JUDGED
              for late, stolen in r.get(p, {}).get("stalls", [])]
    if stalls:
        own = sum(1 for _, stolen in stalls if stolen == 0)
        lines += ["", (f"Stalls over {max_goal:.0f} ms: {len(stalls)}, of which {own} "
                       "with no CPU time taken by the host during them.")]
    return "\n".join(lines)


def main(runs: int, child_args: list[str], out: Path, p99_goal: float, max_goal: float) -> int:
    print(f"{runs} runs of bench_gui_latency.py {' '.join(child_args)}, each in its own "
          f"process; {os.cpu_count()} cores.", file=sys.stderr)
    records = run_series(runs, child_args, out)
    print(summary(records, p99_goal, max_goal))
    print(f"\nevery run's record: {out}")
    return 0
