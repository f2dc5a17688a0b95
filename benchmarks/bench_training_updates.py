"""What each progress update of a training costs the GUI thread (a benchmark, not a test).

One real training (the 100 MB corpus, ``gpt2``, 32,000, as ``bench_gui_latency.py``) runs
through the main window and its progress updates are kept. They are then replayed, one
every 0.1 s, on a fresh main window with no job running, so that only the Training panel's
own work is timed: for each update, the GUI thread's CPU time in the slot that takes it,
in the longest event-loop pass in the 0.1 s after it (the repaint, the plot's redraw) and
in all of them together. Medians over ``--repeat`` replays (the first is left out: it
warms the caches).

    QT_QPA_PLATFORM=offscreen python3 benchmarks/bench_training_updates.py [--repeat 8]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_gui_latency import _spin, default_corpus, start_app  # noqa: E402

INTERVAL = 0.1  # the JobRunner's throttle


def record_updates(app, window, corpus: str, vocab: int) -> tuple[list, object]:
    """The progress updates of one real training, and its options."""
    from bpe_desktop.core import TrainConfig

    panel = window.training
    panel.corpus.add_paths([corpus])
    config = TrainConfig.preset("gpt2", vocab_size=vocab)
    panel.options.set_config(config)
    _spin(app, 1.0)
    updates, done = [], []
    panel.progressed.connect(updates.append)
    panel.trained.connect(done.append)
    panel.failed.connect(done.append)
    window.train()
    _spin(app, until=lambda: bool(done), timeout=3600)
    if not hasattr(done[0], "model"):
        raise SystemExit(f"training failed: {done[0].message}")
    return updates, panel.options.config()


def replay(app, window, updates, config, repeat: int) -> list[list[tuple[float, float, float]]]:
    """Per update, per replay: (slot, longest pass, all passes) in ms of CPU."""
    panel = window.training
    # The run's options, as start() keeps them: the slot sizes the plot's step axis from
    # them while reading (no corpus is read here).
    panel._run = (None, config)
    times: list[list[tuple[float, float, float]]] = [[] for _ in updates]
    for _ in range(repeat):
        panel.plot.clear_counts()
        _spin(app, 0.2)
        for i, update in enumerate(updates):
            before = time.thread_time()
            panel._on_progress(update)  # as the runner's signal delivers it
            slot = time.thread_time() - before
            passes = []
            end = time.perf_counter() + INTERVAL
            while time.perf_counter() < end:
                before = time.thread_time()
                app.processEvents()
                passes.append(time.thread_time() - before)
                time.sleep(0.001)
            times[i].append((slot * 1000, max(passes) * 1000, sum(passes) * 1000))
    return times


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", default=default_corpus())
    ap.add_argument("--vocab", type=int, default=32_000)
    ap.add_argument("--repeat", type=int, default=8)
    args = ap.parse_args(argv)
    app, window = start_app()
    updates, config = record_updates(app, window, args.corpus, args.vocab)
    window.close_discarding()
    app, window = start_app()  # a fresh window: no model, no job
    _spin(app, 1.0)
    load = os.getloadavg()[0]
    times = replay(app, window, updates, config, max(2, args.repeat))
    print(f"{len(updates)} progress updates of one training ({Path(args.corpus).name}, gpt2, "
          f"{args.vocab:,}), replayed {args.repeat} times; ms of the GUI thread's CPU, "
          f"median of the replays after the first; 1-minute load {load:.2f}.\n")
    print("| update | stage | new counts | slot | longest pass after it | all passes |")
    print("|---:|---|---:|---:|---:|---:|")
    for i, (update, runs) in enumerate(zip(updates, times)):
        slot, longest, total = (statistics.median(r[k] for r in runs[1:]) for k in range(3))
        print(f"| {i + 1} | {update.progress.stage} | {len(update.new_counts):,} | "
              f"{slot:.2f} | {longest:.2f} | {total:.2f} |")
    window.close_discarding()
    return 0


if __name__ == "__main__":
    sys.exit(main())
