"""How responsive the GUI stays while a large corpus trains (a benchmark, not a test).

A single-shot 10 ms precise timer is re-armed on the GUI thread from its own callback;
each tick's lateness is (fire time) - (arm time + 10 ms). This catches any stall of the
event loop, including GIL waits (a repeating timer's tick-to-tick gaps would hide them).
The training runs through the real main window: the Training panel's QThread worker,
throttled progress updates, the live plot, and at the end the model handed to the
Vocabulary and Encode/Decode panels (measured until both have it loaded and the
autosave has written it, plus 0.5 s).

Then, in the same window, the heavy things a user does with a large model:

* ``showing_100k_model``: a 100,000-token model (bench_gui_table.py's cached gutenberg
  model, if present) becomes current while the Vocabulary tab shows its plots;
* ``opening_100k_model_file``: that model's file opened as File > Open does
  (``open_path``): read in a worker thread while the window waits in a local event loop,
  whose passes are not timed one by one (the timer's lateness is); the model it replaces
  is freed on the release thread;
* ``encoding_1mb_text``: 1 MB of the corpus is put in the Encode tab (``set_text``);
* ``typing_in_1mb_text``: keystrokes into that text, each re-encoding it after the
  debounce.

    QT_QPA_PLATFORM=offscreen python3 benchmarks/bench_gui_latency.py [--corpus FILE] [--vocab 32000]
    QT_QPA_PLATFORM=offscreen python3 benchmarks/bench_gui_latency.py --runs 20   # a series

Goals: p99 lateness <= 16 ms (one frame at 60 Hz) and no tick later than 50 ms, in every
phase. The machine's load is printed: other processes on the same cores delay the timer
too, and so does the hypervisor when it gives this machine's vCPUs to other guests: each
tick records that stolen time (``gui_diagnostics.host_stolen_ms``), and each phase the
longest stall during which the host took none. Each phase also reports the GUI thread's
own longest pass through the event loop (one ``processEvents`` call, or a user action such
as setting the model): its wall time and its CPU time (``time.thread_time``, which neither
GIL waits nor other processes' use of the cores inflate). A late tick with a short GUI
pass was waiting for the GIL (a worker) or for a core (the machine's load).
"""

from __future__ import annotations

import argparse
import gzip
import gc
import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402
from common import (  # noqa: E402
    CACHE,
    CORPORA_DIR,
    RESULTS,
    host_stolen_ms,
    isolate_app_state,
    require_corpora,
)
from gui_diagnostics import GilHolders, SlowCallbacks  # noqa: E402


#: The 100,000-token model bench_gui_table.py trains on gutenberg-100M and caches.
BIG_MODEL = CACHE / "gui-table-gpt2-100000.json"
PHASES = ("idle", "reading_counting", "merging", "whole_run", "handing_model_to_panels",
          "showing_100k_model", "opening_100k_model_file", "encoding_1mb_text",
          "typing_in_1mb_text", "opening_100k_run_history", "sorting_filtering_history")


def default_corpus() -> str:
    """The 100 MB Gutenberg text: bench_train.py's decompressed copy if present."""
    plain = CACHE / "gutenberg-100M.txt"
    return str(plain if plain.is_file() else CORPORA_DIR / "gutenberg-100M.txt.gz")


class LatencyProbe:
    def __init__(self, interval_ms: int = 10) -> None:
        from PySide6.QtCore import Qt, QTimer

        self.interval = interval_ms / 1000
        #: (time, lateness in s, ms of CPU the host gave other guests meanwhile)
        self.samples: list[tuple[float, float, float]] = []
        self.timer = QTimer()
        self.timer.setSingleShot(True)
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)
        self.timer.timeout.connect(self._tick)
        self._armed = 0.0
        self._stolen = 0.0
        self.running = False

    def start(self) -> None:
        self.running = True
        self._arm()

    def stop(self) -> None:
        self.running = False
        self.timer.stop()

    def _arm(self) -> None:
        self._stolen = host_stolen_ms()
        self._armed = time.perf_counter()
        self.timer.start(int(self.interval * 1000))

    def _tick(self) -> None:
        now = time.perf_counter()
        self.samples.append((now, now - self._armed - self.interval,
                             host_stolen_ms() - self._stolen))
        if self.running:
            self._arm()

    def between(self, start: float, end: float = float("inf")) -> list:
        return [s for s in self.samples if start <= s[0] < end]


#: Set by --holders.
HOLDERS: GilHolders | None = None
CALLBACKS: SlowCallbacks | None = None


#: The goals: p99 lateness and the longest stall, in ms.
P99_GOAL_MS, MAX_GOAL_MS = 16.0, 50.0


def stats(samples) -> dict:
    """Lateness percentiles of the probe's ``samples``, and how much of the phase the host
    took: ``stolen_ms`` over the phase, and the longest stall during which it took none
    (``max_unstolen_ms``: the stalls the process, not the host, can answer for)."""
    if not samples:
        return {"ticks": 0}
    a = np.asarray([late for _, late, _ in samples]) * 1000
    stolen = np.asarray([st for _, _, st in samples])
    return {"ticks": int(len(a)), "p50_ms": float(np.percentile(a, 50)),
            "p95_ms": float(np.percentile(a, 95)), "p99_ms": float(np.percentile(a, 99)),
            "max_ms": float(a.max()), "stolen_ms": float(stolen.sum()),
            "max_unstolen_ms": float(a[stolen == 0].max(initial=0.0)),
            "stalls": [[round(float(x), 1), float(st)] for x, st in zip(a, stolen)
                       if x > MAX_GOAL_MS]}


#: The GUI thread's passes: (end time, wall, CPU, run-queue wait) in seconds, one per
#: processEvents call (with the loop's short sleep) or user action.
GUI_PASSES: list[tuple[float, float, float, float]] = []
#: The nominal sleep between two processEvents calls of _spin.
LOOP_SLEEP = 0.0005


def _thread_times() -> tuple[float, float]:
    """This thread's CPU time and time spent runnable but waiting for a core (Linux's
    schedstat; elsewhere CPU time only): what the machine's load adds to a pass."""
    try:
        with open("/proc/thread-self/schedstat") as f:
            cpu_ns, queued_ns = f.read().split()[:2]
        return int(cpu_ns) / 1e9, int(queued_ns) / 1e9
    except (OSError, ValueError):
        return time.thread_time(), 0.0


def _gui_pass(work, nominal: float = 0.0) -> None:
    """Run ``work()`` on the GUI thread, recording its wall time, CPU time and run-queue
    wait (unless it ran passes of its own, e.g. keystrokes with the loop between them).
    What is left of the wall time (less ``nominal``, a sleep it was meant to take) is
    waiting: for the GIL, held by a worker, or for a lock."""
    before = len(GUI_PASSES)
    if HOLDERS:
        HOLDERS.before_pass()
    cpu, queued = _thread_times()
    wall = time.perf_counter()
    work()
    end = time.perf_counter()
    if len(GUI_PASSES) == before:
        cpu_end, queued_end = _thread_times()
        GUI_PASSES.append((end, end - wall - nominal, cpu_end - cpu, queued_end - queued))
        if HOLDERS:
            w, c, q = GUI_PASSES[-1][1:]
            HOLDERS.after_pass(w - c - q)


def _loop_pass(app) -> None:
    app.processEvents()
    time.sleep(LOOP_SLEEP)  # lets go of the GIL; taking it back may wait for a worker


def _spin(app, seconds: float = 0.0, until=None, timeout: float = 120.0) -> bool:
    """Run the event loop for ``seconds``, or until ``until()`` (False on timeout)."""
    end = time.perf_counter() + (timeout if until is not None else seconds)
    while time.perf_counter() < end:
        if until is not None and until():
            return True
        _gui_pass(lambda: _loop_pass(app), LOOP_SLEEP)
    return until is None


def gui_stats(start: float, end: float) -> dict:
    """The GUI thread's passes that ended in [start, end): the longest one (wall ms), the
    longest CPU time of one (the GUI thread's own work), the longest wait for the GIL or a
    lock (wall - CPU - run queue: a worker's hold), the longest wait for a core."""
    passes = [p[1:] for p in GUI_PASSES if start <= p[0] < end]
    if not passes:
        return {}
    blocked = [max(0.0, w - c - q) for w, c, q in passes]
    return {"gui_max_wall_ms": max(w for w, _, _ in passes) * 1000,
            "gui_max_cpu_ms": max(c for _, c, _ in passes) * 1000,
            "gui_max_blocked_ms": max(blocked) * 1000,
            "gui_max_queued_ms": max(q for _, _, q in passes) * 1000,
            "gui_passes_over_5ms": sum(1 for w, _, _ in passes if w > 0.005)}


def with_gui(record: dict, start: float, end: float) -> dict:
    return {**record, **gui_stats(start, end)}


def _panels_ready(window) -> bool:
    return not window.vocab.is_loading() and not window.codec.is_busy()


def _settled(window) -> bool:
    """The panels have the model and the autosave has written it (an unsaved model is
    written a second after the panels are ready: that write belongs to the phase)."""
    return _panels_ready(window) and not window.autosave.scheduled


def start_app():
    """The application and its main window, on settings and data of their own."""
    from bpe_desktop.app import create_application
    from bpe_desktop.ui.window.main_window import MainWindow

    app = create_application()
    isolate_app_state()
    # As bpe_desktop.app.main: garbage collected on the GUI thread, what the start made
    # kept out of its passes.
    from bpe_desktop.ui.common.collector import GuiThreadCollector

    app._benchmark_collector = GuiThreadCollector(app)
    window = MainWindow()
    window.show()
    gc.freeze()
    return app, window


def run(corpus: str, vocab: int, threads: int, idle_seconds: float) -> dict:
    from bpe_desktop.core import TrainConfig

    app, window = start_app()
    panel = window.training
    probe = LatencyProbe()

    # idle baseline, once the window has been laid out and painted (its first pass, ~25 ms
    # of the GUI thread's CPU, is the application's start, not idling)
    _spin(app, 1.0)
    probe.start()
    idle_start = time.perf_counter()
    _spin(app, idle_seconds)
    idle_end = time.perf_counter()
    probe.stop()
    idle = probe.samples[:]
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
    _spin(app, until=lambda: _settled(window))
    _spin(app, 0.5)
    probe.stop()
    marks["end"] = time.perf_counter()
    result = done[0]
    if not hasattr(result, "model"):
        raise SystemExit(f"training failed: {result.message}")
    counting = probe.between(0, marks.get("merging", marks["trained"]))
    merging = probe.between(marks.get("merging", marks["trained"]), marks["trained"])
    after = probe.between(marks["trained"])
    record = {
        "corpus": corpus, "corpus_bytes": os.path.getsize(corpus), "vocab": vocab,
        "threads": threads or os.cpu_count(),
        "train_seconds": marks["trained"] - marks["start"],
        "panels_ready_seconds": marks["panels_ready"] - marks["trained"],
        "idle": with_gui(stats(idle), idle_start, idle_end),
        "whole_run": with_gui(
            stats(probe.between(marks["start"], marks["trained"])),
            marks["start"], marks["trained"]),
        "reading_counting": with_gui(stats(counting), marks["start"],
                                     marks.get("merging", marks["trained"])),
        "merging": with_gui(stats(merging), marks.get("merging", marks["trained"]),
                            marks["trained"]),
        "handing_model_to_panels": with_gui(stats(after), marks["trained"], marks["end"]),
    }
    record.update(_heavy_uses(app, window, corpus))
    record.update(_history(app, window))
    window.close_discarding()
    return record


def _history(app, window) -> dict:
    import history_phase

    CACHE.mkdir(parents=True, exist_ok=True)  # (--history-only runs before anything else made it)
    project = history_phase.make_project(CACHE / "history-100k.bpeproj")
    return history_phase.history_uses(app, window, _measured, _spin, _gui_pass, project)


def run_history_only(idle_seconds: float) -> dict:
    """The idle baseline and the History phases, without training (no corpus needed)."""
    app, window = start_app()
    probe = LatencyProbe()
    _spin(app, 1.0)
    probe.start()
    start = time.perf_counter()
    _spin(app, idle_seconds)
    probe.stop()
    record = {"corpus": "", "corpus_bytes": 0, "vocab": 0, "threads": 0,
              "train_seconds": 0.0, "panels_ready_seconds": 0.0,
              "idle": with_gui(stats(probe.samples), start, time.perf_counter())}
    record.update(_history(app, window))
    window.close_discarding()
    return record


def _measured(app, action, until, *, runs_a_loop: bool = False) -> dict:
    """Timer lateness from ``action()`` until ``until()`` holds, plus 0.5 s.
    ``runs_a_loop``: the action waits in an event loop of its own, so it is not one pass."""
    probe = LatencyProbe()
    probe.start()
    start = time.perf_counter()
    if runs_a_loop:
        action()
    else:
        _gui_pass(action)
    finished = _spin(app, until=until)
    seconds = time.perf_counter() - start
    _spin(app, 0.5)
    probe.stop()
    return {**stats(probe.samples), "seconds": seconds,
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
            app, lambda: window.document.set_imported(model), lambda: _settled(window))
        del model  # the document's and the panels' references are left, as in use
        _spin(app, 0.5)
        out["opening_100k_model_file"] = _measured(
            app, lambda: window.open_path(str(BIG_MODEL)), lambda: _settled(window),
            runs_a_loop=True)
    else:
        print(f"{BIG_MODEL.name} is missing (run bench_gui_table.py once): "
              "skipping the 100k-token model", file=sys.stderr)
    opener = gzip.open if corpus.endswith(".gz") else open
    with opener(corpus, "rt", encoding="utf-8", errors="replace") as f:
        text = f.read(1_000_000)  # the corpus's text (not its compressed bytes)
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
    ap.add_argument("--runs", type=int, default=1,
                    help="a series of this many runs, each in its own process, summed up per "
                         "phase (gui_latency_series.py)")
    ap.add_argument("--out", default=None, help="where the JSON record goes (default: "
                    "results/gui_latency.json, or gui_latency_series.json for --runs)")
    ap.add_argument("--history-only", action="store_true",
                    help="only the idle baseline and the History phases (100,000 runs)")
    args = ap.parse_args(argv)
    if not args.history_only:
        require_corpora()
    RESULTS.mkdir(parents=True, exist_ok=True)
    if args.runs > 1:
        import gui_latency_series

        child = ["--corpus", args.corpus, "--vocab", str(args.vocab), "--threads",
                 str(args.threads), "--idle", str(args.idle)]
        return gui_latency_series.main(
            args.runs, child, Path(args.out or RESULTS / "gui_latency_series.json"),
            P99_GOAL_MS, MAX_GOAL_MS)
    global HOLDERS, CALLBACKS
    if args.holders:
        HOLDERS, CALLBACKS = GilHolders(), SlowCallbacks(_loop_pass.__code__)
        HOLDERS.install()
        CALLBACKS.install()
    load_before = os.getloadavg()
    record = (run_history_only(args.idle) if args.history_only
              else run(args.corpus, args.vocab, args.threads, args.idle))
    record["load_before"], record["load_after"] = load_before, os.getloadavg()
    out = Path(args.out or RESULTS / "gui_latency.json")
    out.write_text(json.dumps(record, indent=1))
    print(f"GUI timer lateness while training {Path(args.corpus).name} "
          f"({record['corpus_bytes'] / 1e6:.0f} MB on disk), vocabulary {args.vocab:,}, "
          f"{record['threads']} thread(s), training {record['train_seconds']:.1f} s, panels "
          f"ready {record['panels_ready_seconds']:.1f} s later; then a 100k-token model "
          f"and a 1 MB text. 1-min load before/after {load_before[0]:.2f}/"
          f"{record['load_after'][0]:.2f}.\n")
    print("| phase | ticks | p50 ms | p95 ms | p99 ms | max ms | host's stolen CPU ms "
          "| longest GUI pass ms | its longest CPU ms | longest GIL/lock wait ms "
          "| longest wait for a core ms |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for phase in PHASES:
        s = record.get(phase, {})
        if s.get("ticks"):
            print(f"| {phase.replace('_', ' ')} | {s['ticks']} | {s['p50_ms']:.2f} | "
                  f"{s['p95_ms']:.2f} | {s['p99_ms']:.2f} | {s['max_ms']:.2f} | "
                  f"{s['stolen_ms']:.0f} | "
                  f"{s.get('gui_max_wall_ms', 0):.1f} | {s.get('gui_max_cpu_ms', 0):.1f} | "
                  f"{s.get('gui_max_blocked_ms', 0):.1f} | {s.get('gui_max_queued_ms', 0):.1f} |")
    if CALLBACKS:
        CALLBACKS.remove()
        print("\nLongest GUI-thread callbacks (Python called from the event loop), by CPU "
              "time:\n" + CALLBACKS.report())
    if HOLDERS:
        print("\nLongest waits of the GUI thread for the GIL or a lock, by the thread that "
              "held it (its line when it let go):\n" + HOLDERS.report())
    print(f"\nwritten to {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
