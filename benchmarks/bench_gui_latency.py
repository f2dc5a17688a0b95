"""How responsive the GUI stays while a large corpus trains (a benchmark, not a test).

A single-shot 10 ms precise timer is re-armed on the GUI thread from its own callback;
each tick's lateness is (fire time) - (arm time + 10 ms). This catches any stall of the
event loop, including GIL waits (a repeating timer's tick-to-tick gaps would hide them).
The training runs through the real main window: the Training panel's QThread worker,
throttled progress updates, the live plot, and at the end the model handed to the
Vocabulary and Encode/Decode panels.

    QT_QPA_PLATFORM=offscreen python3 benchmarks/bench_gui_latency.py [--corpus FILE] [--vocab 32000]

Goal: p99 lateness <= 16 ms (one frame at 60 Hz).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402
from common import CACHE, CORPORA_DIR, RESULTS  # noqa: E402


def default_corpus() -> str:
    """The 100 MB Gutenberg text: bench_train.py's decompressed copy if present."""
    plain = CACHE / "gutenberg-100M.txt"
    return str(plain if plain.is_file() else CORPORA_DIR / "gutenberg-100M.txt.gz")


class LatencyProbe:
    def __init__(self, interval_ms: int = 10) -> None:
        from PySide6.QtCore import Qt, QTimer

        self.interval = interval_ms / 1000
        self.samples: list[tuple[float, float]] = []  # (time, lateness in s)
        self.timer = QTimer()
        self.timer.setSingleShot(True)
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)
        self.timer.timeout.connect(self._tick)
        self._armed = 0.0
        self.running = False

    def start(self) -> None:
        self.running = True
        self._arm()

    def stop(self) -> None:
        self.running = False
        self.timer.stop()

    def _arm(self) -> None:
        self._armed = time.perf_counter()
        self.timer.start(int(self.interval * 1000))

    def _tick(self) -> None:
        now = time.perf_counter()
        self.samples.append((now, now - self._armed - self.interval))
        if self.running:
            self._arm()


def stats(lateness_s) -> dict:
    a = np.asarray(lateness_s) * 1000
    if not len(a):
        return {"ticks": 0}
    return {"ticks": int(len(a)), "p50_ms": float(np.percentile(a, 50)),
            "p95_ms": float(np.percentile(a, 95)), "p99_ms": float(np.percentile(a, 99)),
            "max_ms": float(a.max())}


def run(corpus: str, vocab: int, threads: int, idle_seconds: float) -> dict:
    from bpe_desktop.app import create_application
    from bpe_desktop.core import TrainConfig
    from bpe_desktop.ui.main_window import MainWindow

    app = create_application()
    window = MainWindow()
    window.show()
    panel = window.training
    probe = LatencyProbe()

    # idle baseline
    probe.start()
    end = time.perf_counter() + idle_seconds
    while time.perf_counter() < end:
        app.processEvents()
        time.sleep(0.0005)
    probe.stop()
    idle = [late for _, late in probe.samples]
    probe.samples.clear()

    panel.corpus.add_paths([corpus])
    panel.options.set_config(TrainConfig.preset("gpt2", vocab_size=vocab, threads=threads))
    marks: dict[str, float] = {}
    done = []
    panel.trained.connect(lambda r: (marks.setdefault("trained", time.perf_counter()),
                                     done.append(r)))
    panel.failed.connect(lambda e: done.append(e))
    panel.progressed.connect(
        lambda u: marks.setdefault("merging", time.perf_counter())
        if u.progress.stage == "merging" else None)
    probe.start()
    marks["start"] = time.perf_counter()
    window.train()
    while not done:
        app.processEvents()
        time.sleep(0.0005)
    # keep measuring while the panels take the new model
    settle = time.perf_counter() + 1.0
    while time.perf_counter() < settle:
        app.processEvents()
        time.sleep(0.0005)
    probe.stop()
    result = done[0]
    if not hasattr(result, "model"):
        raise SystemExit(f"training failed: {result.message}")
    samples = probe.samples
    counting = [lt for t, lt in samples if t < marks.get("merging", marks["trained"])]
    merging = [lt for t, lt in samples if marks.get("merging", 0) <= t < marks["trained"]]
    after = [lt for t, lt in samples if t >= marks["trained"]]
    window.close_discarding()
    return {
        "corpus": corpus, "corpus_bytes": os.path.getsize(corpus), "vocab": vocab,
        "threads": threads or os.cpu_count(),
        "train_seconds": marks["trained"] - marks["start"],
        "idle": stats(idle),
        "whole_run": stats([lt for t, lt in samples if marks["start"] <= t < marks["trained"]]),
        "reading_counting": stats(counting), "merging": stats(merging),
        "handing_model_to_panels": stats(after),
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default=default_corpus(),
                    help="corpus to train on (default: the 100 MB Gutenberg corpus)")
    ap.add_argument("--vocab", type=int, default=32_000)
    ap.add_argument("--threads", type=int, default=0, help="0 = all cores")
    ap.add_argument("--idle", type=float, default=3.0, help="seconds of idle baseline")
    args = ap.parse_args(argv)
    record = run(args.corpus, args.vocab, args.threads, args.idle)
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / "gui_latency.json"
    out.write_text(json.dumps(record, indent=1))
    print(f"GUI timer lateness while training {Path(args.corpus).name} "
          f"({record['corpus_bytes'] / 1e6:.0f} MB on disk), vocabulary {args.vocab:,}, "
          f"{record['threads']} thread(s), training {record['train_seconds']:.1f} s:\n")
    print("| phase | ticks | p50 ms | p95 ms | p99 ms | max ms |")
    print("|---|---:|---:|---:|---:|---:|")
    for phase in ("idle", "reading_counting", "merging", "whole_run", "handing_model_to_panels"):
        s = record[phase]
        if s.get("ticks"):
            print(f"| {phase.replace('_', ' ')} | {s['ticks']} | {s['p50_ms']:.2f} | "
                  f"{s['p95_ms']:.2f} | {s['p99_ms']:.2f} | {s['max_ms']:.2f} |")
    print(f"\nwritten to {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
