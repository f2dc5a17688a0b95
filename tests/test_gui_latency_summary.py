"""The GUI latency benchmark's figures: per-phase statistics and the series summary,
checked on hand-made samples (the benchmark itself needs the large corpora)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import bench_gui_latency
import gui_latency_series
from common import host_stolen_ms


def samples(lateness_ms: list[float], stolen_ms: list[float] | None = None) -> list:
    stolen_ms = stolen_ms or [0.0] * len(lateness_ms)
    return [(i * 0.01, late / 1000, st) for i, (late, st) in enumerate(zip(lateness_ms,
                                                                           stolen_ms))]


def test_stats_separate_the_stalls_the_host_took_time_in():
    # 98 ticks 1 ms late, one 60 ms late with no stolen time, one 70 ms late while the
    # host took 20 ms of the vCPUs.
    lateness = [1.0] * 98 + [60.0, 70.0]
    stolen = [0.0] * 98 + [0.0, 20.0]
    s = bench_gui_latency.stats(samples(lateness, stolen))
    assert s["ticks"] == 100
    assert s["p50_ms"] == pytest.approx(1.0)
    # p99 of 100 sorted values: rank 0.99 * 99 = 98.01, between 60 and 70 -> 60.1
    assert s["p99_ms"] == pytest.approx(60.1)
    assert s["max_ms"] == pytest.approx(70.0)
    assert s["max_unstolen_ms"] == pytest.approx(60.0)
    assert s["stolen_ms"] == pytest.approx(20.0)
    assert s["stalls"] == [[60.0, 0.0], [70.0, 20.0]]


def test_stats_of_no_ticks_and_of_ticks_all_taken_by_the_host():
    assert bench_gui_latency.stats([]) == {"ticks": 0}
    s = bench_gui_latency.stats(samples([80.0], [30.0]))
    assert s["max_ms"] == pytest.approx(80.0) and s["max_unstolen_ms"] == 0.0


def record(load: float, **phases: dict) -> dict:
    quiet = {"ticks": 100, "p50_ms": 0.5, "p99_ms": 5.0, "max_ms": 9.0, "stolen_ms": 0.0,
             "max_unstolen_ms": 9.0, "stalls": []}
    return {"load_before": [load, 0, 0], "load_after": [load + 0.1, 0, 0],
            "train_seconds": 0.8,
            **{p: phases.get(p, quiet) for p in gui_latency_series.JUDGED}}


def test_the_series_counts_runs_within_both_goals_and_names_each_miss():
    miss = {"ticks": 170, "p50_ms": 0.6, "p99_ms": 12.0, "max_ms": 81.0, "stolen_ms": 30.0,
            "max_unstolen_ms": 14.0, "stalls": [[81.0, 30.0]]}
    slow = {"ticks": 80, "p50_ms": 0.6, "p99_ms": 16.5, "max_ms": 17.0, "stolen_ms": 0.0,
            "max_unstolen_ms": 17.0, "stalls": []}
    text = gui_latency_series.summary(
        [record(0.3), record(0.5, opening_100k_model_file=miss),
         record(0.4, encoding_1mb_text=slow)], 16.0, 50.0)
    assert "3 runs, 1-minute load 0.30–0.60" in text
    assert "Runs within both goals in every phase: 1 of 3." in text
    rows = {line.split(" | ")[0].lstrip("| "): line for line in text.splitlines()
            if line.startswith("| ")}
    assert rows["opening 100k model file"].endswith("| 2 of 3 |")
    assert "| 9.0–81.0 | 9.0–14.0 | 0.0–30.0 |" in rows["opening 100k model file"]
    assert rows["encoding 1mb text"].endswith("| 2 of 3 |")
    assert rows["idle"].endswith("| 3 of 3 |")
    assert ("- run 2 (load 0.50): opening 100k model file: p99 12.0, max 81.0 ms; "
            "stalls 81 ms (host took 30 ms)") in text
    assert "- run 3 (load 0.40): encoding 1mb text: p99 16.5, max 17.0 ms" in text
    assert ("Stalls over 50 ms: 1, of which 0 with no CPU time taken by the host "
            "during them.") in text


def test_host_stolen_time_is_a_clock_that_never_goes_back():
    first = host_stolen_ms()
    assert first >= 0.0
    assert host_stolen_ms() >= first
