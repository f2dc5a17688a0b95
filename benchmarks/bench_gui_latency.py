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
processes on the same cores delay the timer too. So each phase also reports the GUI
thread's own longest pass through the event loop (one ``processEvents`` call, or a user
action such as setting the model): its wall time and its CPU time (``time.thread_time``,
which neither GIL waits nor other processes' use of the cores inflate). A late tick with a
short GUI pass was waiting for the GIL (a worker) or for a core (the machine's load).
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


class GilHolders:
    """Which code keeps the GIL long (``--holders``; a diagnostic that perturbs a little).

    A thread sleeps 1 ms at a time; when taking the GIL back afterwards took longer than
    ``threshold``, another thread held it all along, and that thread's current line (where
    it let go) is the code that held it. The longest waits are kept per place.
    """

    def __init__(self, threshold: float = 0.004) -> None:
        import threading

        self.threshold = threshold
        self.waits: dict[str, list[float]] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True, name="gil-holders")

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        import threading

        me = threading.get_ident()
        names = {t.ident: t.name for t in threading.enumerate()}
        while not self._stop.is_set():
            before = time.perf_counter()
            time.sleep(0.001)
            waited = time.perf_counter() - before - 0.001
            if waited < self.threshold:
                continue
            for ident, frame in sys._current_frames().items():
                if ident != me:
                    where = self._where(frame)
                    name = names.get(ident) or threading._active.get(ident, "?")
                    key = f"{getattr(name, 'name', name)}: {where}"
                    self.waits.setdefault(key, []).append(waited)

    @staticmethod
    def _where(frame) -> str:
        """The innermost frames of the project's code (or the innermost frame)."""
        ours = []
        while frame is not None and len(ours) < 3:
            code = frame.f_code
            if "bpe_desktop" in code.co_filename or frame.f_back is None:
                ours.append(f"{Path(code.co_filename).name}:{frame.f_lineno} {code.co_name}")
            frame = frame.f_back
        return " < ".join(ours)

    def report(self, top: int = 25) -> str:
        rows = sorted(self.waits.items(), key=lambda kv: -max(kv[1]))[:top]
        return "\n".join(f"{max(w) * 1000:7.1f} ms max, {len(w):4d}x  {k}" for k, w in rows)


def stats(lateness_s) -> dict:
    a = np.asarray(lateness_s) * 1000
    if not len(a):
        return {"ticks": 0}
    return {"ticks": int(len(a)), "p50_ms": float(np.percentile(a, 50)),
            "p95_ms": float(np.percentile(a, 95)), "p99_ms": float(np.percentile(a, 99)),
            "max_ms": float(a.max())}


#: The GUI thread's passes: (end time, wall s, CPU s) of each processEvents call or action.
GUI_PASSES: list[tuple[float, float, float]] = []


def _gui_pass(work) -> None:
    """Run ``work()`` on the GUI thread, recording its wall and CPU time (unless it ran
    passes of its own, e.g. keystrokes with the event loop between them)."""
    before = len(GUI_PASSES)
    wall, cpu = time.perf_counter(), time.thread_time()
    work()
    end = time.perf_counter()
    if len(GUI_PASSES) == before:
        GUI_PASSES.append((end, end - wall, time.thread_time() - cpu))


def _spin(app, seconds: float = 0.0, until=None, timeout: float = 120.0) -> bool:
    """Run the event loop for ``seconds``, or until ``until()`` (False on timeout)."""
    end = time.perf_counter() + (timeout if until is not None else seconds)
    while time.perf_counter() < end:
        if until is not None and until():
            return True
        _gui_pass(app.processEvents)
        time.sleep(0.0005)
    return until is None


def gui_stats(start: float, end: float) -> dict:
    """The longest GUI-thread passes that ended in [start, end): wall and CPU ms."""
    passes = [(w, c) for t, w, c in GUI_PASSES if start <= t < end]
    if not passes:
        return {}
    return {"gui_max_wall_ms": max(w for w, _ in passes) * 1000,
            "gui_max_cpu_ms": max(c for _, c in passes) * 1000,
            "gui_passes_over_5ms": sum(1 for w, _ in passes if w > 0.005)}


def with_gui(record: dict, start: float, end: float) -> dict:
    return {**record, **gui_stats(start, end)}


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
    idle_start = time.perf_counter()
    _spin(app, idle_seconds)
    idle_end = time.perf_counter()
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
    _gui_pass(window.train)
    _spin(app, until=lambda: bool(done), timeout=3600)
    # keep measuring while the panels take the new model (in the background), and after
    _spin(app, until=lambda: _panels_ready(window))
    marks["panels_ready"] = time.perf_counter()
    _spin(app, 0.5)
    probe.stop()
    marks["end"] = time.perf_counter()
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
        "idle": with_gui(stats(idle), idle_start, idle_end),
        "whole_run": with_gui(
            stats([lt for t, lt in samples if marks["start"] <= t < marks["trained"]]),
            marks["start"], marks["trained"]),
        "reading_counting": with_gui(stats(counting), marks["start"],
                                     marks.get("merging", marks["trained"])),
        "merging": with_gui(stats(merging), marks.get("merging", marks["trained"]),
                            marks["trained"]),
        "handing_model_to_panels": with_gui(stats(after), marks["trained"], marks["end"]),
    }
    record.update(_heavy_uses(app, window, corpus))
    window.close_discarding()
    return record


def _measured(app, action, until) -> dict:
    """Timer lateness from ``action()`` until ``until()`` holds, plus 0.5 s."""
    probe = LatencyProbe()
    probe.start()
    start = time.perf_counter()
    _gui_pass(action)
    finished = _spin(app, until=until)
    seconds = time.perf_counter() - start
    _spin(app, 0.5)
    probe.stop()
    return {**stats([late for _, late in probe.samples]), "seconds": seconds,
            "finished": finished, **gui_stats(start, time.perf_counter())}


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
            _gui_pass(lambda k=key: QTest.keyClick(codec.input_edit, k))
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
    ap.add_argument("--holders", action="store_true",
                    help="also list the code that kept the GIL longest (perturbs a little)")
    args = ap.parse_args(argv)
    require_corpora()
    holders = GilHolders() if args.holders else None
    if holders:
        holders.start()
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
    print("| phase | ticks | p50 ms | p95 ms | p99 ms | max ms "
          "| longest GUI pass ms (CPU ms) | GUI passes > 5 ms |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for phase in PHASES:
        s = record.get(phase, {})
        if s.get("ticks"):
            print(f"| {phase.replace('_', ' ')} | {s['ticks']} | {s['p50_ms']:.2f} | "
                  f"{s['p95_ms']:.2f} | {s['p99_ms']:.2f} | {s['max_ms']:.2f} | "
                  f"{s.get('gui_max_wall_ms', 0):.1f} ({s.get('gui_max_cpu_ms', 0):.1f}) | "
                  f"{s.get('gui_passes_over_5ms', 0)} |")
    if holders:
        holders.stop()
        print("\nLongest GIL holds (the holder's line when it let go):\n" + holders.report())
    print(f"\nwritten to {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
