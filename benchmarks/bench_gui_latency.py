"""How responsive the GUI stays while a large corpus trains (a benchmark, not a test).

A single-shot 10 ms precise timer is re-armed on the GUI thread from its own callback;
each tick's lateness is (fire time) - (arm time + 10 ms). This catches any stall of the
event loop, including GIL waits (a repeating timer's tick-to-tick gaps would hide them).
The training runs through the real main window: the Training panel's QThread worker,
throttled progress updates, the live plot, and at the end the model handed to the
Vocabulary and Encode/Decode panels (measured until both have it loaded, plus 0.5 s).

Then, in the same window, the heavy things a user does with a large model:

* ``showing_100k_model``: a 100,000-token model (bench_gui_table.py's cached gutenberg
  model, if present) becomes current while the Vocabulary tab shows its plots;
* ``encoding_1mb_text``: 1 MB of the corpus is put in the Encode tab (``set_text``);
* ``typing_in_1mb_text``: keystrokes into that text, each re-encoding it after the
  debounce.

    QT_QPA_PLATFORM=offscreen python3 benchmarks/bench_gui_latency.py [--corpus FILE] [--vocab 32000]

Goal: p99 lateness <= 16 ms (one frame at 60 Hz). The machine's load is printed: other
processes on the same cores delay the timer too.
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
from common import CACHE, CORPORA_DIR, RESULTS, isolate_app_state, require_corpora  # noqa: E402


#: The 100,000-token model bench_gui_table.py trains on gutenberg-100M and caches.
BIG_MODEL = CACHE / "gui-table-gpt2-100000.json"
PHASES = ("idle", "reading_counting", "merging", "whole_run", "handing_model_to_panels",
          "showing_100k_model", "encoding_1mb_text", "typing_in_1mb_text")


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


def _spin(app, seconds: float = 0.0, until=None, timeout: float = 120.0) -> bool:
    """Run the event loop for ``seconds``, or until ``until()`` (False on timeout)."""
    end = time.perf_counter() + (timeout if until is not None else seconds)
    while time.perf_counter() < end:
        if until is not None and until():
            return True
        app.processEvents()
        time.sleep(0.0005)
    return until is None


def _panels_ready(window) -> bool:
    return not window.vocab.is_loading() and not window.codec.is_busy()


def start_app():
    """The application and its main window, on settings and data of their own."""
    from bpe_desktop.app import create_application
    from bpe_desktop.ui.window.main_window import MainWindow

    app = create_application()
    isolate_app_state()
    window = MainWindow()
    window.show()
    return app, window


def run(corpus: str, vocab: int, threads: int, idle_seconds: float) -> dict:
    from bpe_desktop.core import TrainConfig

    app, window = start_app()
    panel = window.training
    probe = LatencyProbe()

    # idle baseline
    probe.start()
    _spin(app, idle_seconds)
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
    _spin(app, until=lambda: bool(done), timeout=3600)
    # keep measuring while the panels take the new model (in the background), and after
    _spin(app, until=lambda: _panels_ready(window))
    marks["panels_ready"] = time.perf_counter()
    _spin(app, 0.5)
    probe.stop()
    result = done[0]
    if not hasattr(result, "model"):
        raise SystemExit(f"training failed: {result.message}")
    samples = probe.samples
    counting = [lt for t, lt in samples if t < marks.get("merging", marks["trained"])]
    merging = [lt for t, lt in samples if marks.get("merging", 0) <= t < marks["trained"]]
    after = [lt for t, lt in samples if t >= marks["trained"]]
    record = {
        "corpus": corpus, "corpus_bytes": os.path.getsize(corpus), "vocab": vocab,
        "threads": threads or os.cpu_count(),
        "train_seconds": marks["trained"] - marks["start"],
        "panels_ready_seconds": marks["panels_ready"] - marks["trained"],
        "idle": stats(idle),
        "whole_run": stats([lt for t, lt in samples if marks["start"] <= t < marks["trained"]]),
        "reading_counting": stats(counting), "merging": stats(merging),
        "handing_model_to_panels": stats(after),
    }
    record.update(_heavy_uses(app, window, corpus))
    window.close_discarding()
    return record


def _measured(app, action, until) -> dict:
    """Timer lateness from ``action()`` until ``until()`` holds, plus 0.5 s."""
    probe = LatencyProbe()
    probe.start()
    start = time.perf_counter()
    action()
    finished = _spin(app, until=until)
    seconds = time.perf_counter() - start
    _spin(app, 0.5)
    probe.stop()
    return {**stats([late for _, late in probe.samples]), "seconds": seconds,
            "finished": finished}


def _heavy_uses(app, window, corpus: str) -> dict:
    from PySide6.QtGui import QTextCursor
    from PySide6.QtTest import QTest

    from bpe_desktop.core import load_model

    out: dict = {}
    if BIG_MODEL.is_file():
        model = load_model(str(BIG_MODEL))
        window.tabs.setCurrentWidget(window.vocab)
        window.vocab.details.setCurrentIndex(1)  # the plots
        _spin(app, 0.3)
        out["showing_100k_model"] = _measured(
            app, lambda: window.document.set_imported(model), lambda: _panels_ready(window))
    else:
        print(f"{BIG_MODEL.name} is missing (run bench_gui_table.py once): "
              "skipping the 100k-token model", file=sys.stderr)
    with open(corpus, encoding="utf-8", errors="replace") as f:
        text = f.read(1_000_000)
    codec = window.codec
    window.tabs.setCurrentWidget(codec)
    _spin(app, 0.3)
    encoded = []
    codec.encoded.connect(lambda: encoded.append(time.perf_counter()))
    out["encoding_1mb_text"] = _measured(app, lambda: codec.set_text(text),
                                         lambda: bool(encoded) and not codec.is_busy())

    def type_keys() -> None:
        codec.input_edit.setFocus()
        codec.input_edit.moveCursor(QTextCursor.MoveOperation.End)
        encoded.clear()
        for key in "and then":
            QTest.keyClick(codec.input_edit, key)
            _spin(app, 0.15)

    # Keys 150 ms apart: each restarts the debounce, so the text is encoded after the last.
    out["typing_in_1mb_text"] = _measured(
        app, type_keys, lambda: bool(encoded) and not codec.is_busy())
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default=default_corpus(),
                    help="corpus to train on (default: the 100 MB Gutenberg corpus)")
    ap.add_argument("--vocab", type=int, default=32_000)
    ap.add_argument("--threads", type=int, default=0, help="0 = all cores")
    ap.add_argument("--idle", type=float, default=3.0, help="seconds of idle baseline")
    args = ap.parse_args(argv)
    require_corpora()
    load_before = os.getloadavg()
    record = run(args.corpus, args.vocab, args.threads, args.idle)
    record["load_before"], record["load_after"] = load_before, os.getloadavg()
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / "gui_latency.json"
    out.write_text(json.dumps(record, indent=1))
    print(f"GUI timer lateness while training {Path(args.corpus).name} "
          f"({record['corpus_bytes'] / 1e6:.0f} MB on disk), vocabulary {args.vocab:,}, "
          f"{record['threads']} thread(s), training {record['train_seconds']:.1f} s, panels "
          f"ready {record['panels_ready_seconds']:.1f} s later; then a 100k-token model "
          f"and a 1 MB text. 1-min load before/after {load_before[0]:.2f}/"
          f"{record['load_after'][0]:.2f}.\n")
    print("| phase | ticks | p50 ms | p95 ms | p99 ms | max ms |")
    print("|---|---:|---:|---:|---:|---:|")
    for phase in PHASES:
        s = record.get(phase, {})
        if s.get("ticks"):
            print(f"| {phase.replace('_', ' ')} | {s['ticks']} | {s['p50_ms']:.2f} | "
                  f"{s['p95_ms']:.2f} | {s['p99_ms']:.2f} | {s['max_ms']:.2f} |")
    print(f"\nwritten to {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
