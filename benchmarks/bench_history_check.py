"""Opening a 100,000-run project in the running window, with the background check of every
page run below the GUI thread's priority (as the application does) and at the same priority,
alternately: the GUI timer's lateness from File ▸ Open project until the check has ended.

    QT_QPA_PLATFORM=offscreen python benchmarks/bench_history_check.py --pairs 8
"""

from __future__ import annotations

import argparse
import os
import statistics

import bench_gui_latency as gui
import history_phase


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=8, help="openings of each kind")
    args = ap.parse_args(argv)
    from bpe_desktop.ui.window import projects

    gui.CACHE.mkdir(parents=True, exist_ok=True)
    project = str(history_phase.make_project(gui.CACHE / "history-100k.bpeproj"))
    empty = str(gui.CACHE / "history-empty.bpeproj")
    app, window = gui.start_app()
    window.tabs.setCurrentWidget(window.history)
    gui._spin(app, 1.0)
    lowered = projects.lower_this_thread
    ways = {"lowered": lowered, "same priority": lambda _steps: False}
    figures: dict[str, list[dict]] = {way: [] for way in ways}
    load_before = os.getloadavg()[0]
    for _ in range(args.pairs):
        for way, lower in ways.items():
            projects.lower_this_thread = lower
            window.projects.open_project(empty, in_worker=False)  # away from the big one
            gui._spin(app, until=lambda: not window.projects.verifier.running)
            gui._spin(app, 0.3)
            figures[way].append(gui._measured(
                app, lambda: window.projects.open_project(project),
                lambda: window.history.model.rowCount() == history_phase.RUNS
                and not window.projects.verifier.running, runs_a_loop=True))
    projects.lower_this_thread = lowered
    window.close_discarding()
    print(f"{args.pairs} openings each way, 1-minute load {load_before:.2f} before, "
          f"{os.getloadavg()[0]:.2f} after; ranges (medians) in ms\n")
    print("| check thread | p99 | max | GUI thread's longest wait for a core | seconds |")
    print("|---|---:|---:|---:|---:|")
    for way, rows in figures.items():
        cells = [f"{min(v):.1f}–{max(v):.1f} ({statistics.median(v):.1f})" for v in (
            [r["p99_ms"] for r in rows], [r["max_ms"] for r in rows],
            [r["gui_max_queued_ms"] for r in rows])]
        seconds = [r["seconds"] for r in rows]
        print(f"| {way} | {' | '.join(cells)} | {min(seconds):.2f}–{max(seconds):.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
