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

Goal: p99 lateness <= 16 ms (one frame at 60 Hz). The machine's load is printed: other
processes on the same cores delay the timer too. So each phase also reports the GUI
thread's own longest pass through the event loop (one ``processEvents`` call, or a user
action such as setting the model): its wall time and its CPU time (``time.thread_time``,
which neither GIL waits nor other processes' use of the cores inflate). A late tick with a
short GUI pass was waiting for the GIL (a worker) or for a core (the machine's load).
"""

from __future__ import annotations

import argparse
import gc
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
          "showing_100k_model", "opening_100k_model_file", "encoding_1mb_text",
          "typing_in_1mb_text")


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


def threading_ident() -> int:
    import threading

    return threading.get_ident()


class GilHolders:
    """Which worker code kept the GUI thread waiting for the GIL (``--holders``; reading
    every thread's CPU time around each pass costs the GUI thread ~0.1 ms a pass).

    After a GUI pass that waited longer than ``threshold`` (for the GIL or a lock), the
    holder is the thread running Python, other than the GUI thread, that used the most CPU
    meanwhile (Linux: ``/proc/self/task/*/schedstat``); its current line, where it let go,
    names the code. The longest waits are kept per place. Threads that ended during a wait
    are counted too (the process's CPU time less its live threads'), and a watchdog thread
    notes the GUI thread's stack while a pass lasts longer than ``stall``.
    """

    def __init__(self, threshold: float = 0.008) -> None:
        self.threshold = threshold
        self.waits: dict[str, list[float]] = {}
        #: Waits of at least this long also list every thread that used CPU meanwhile.
        self.busy_threshold = 0.030
        self.long_waits: list[tuple[float, float, list[str]]] = []
        self._stolen = 0.0
        #: GUI passes longer than this have their stack taken while they last.
        self.stall = 0.040
        self.stalls: list[tuple[float, str, list[str]]] = []
        self._pass_start: float | None = None
        self._pass_number = self._sampled = 0
        self._gui = 0
        self._cpu: dict[int, int] = {}
        #: Python thread id -> (native id, name) of each thread that ran a job.
        self._threads: dict[int, tuple[int, str]] = {}

    def install(self) -> None:
        import threading

        from bpe_desktop.ui.common import workers

        self._gui = threading.get_ident()
        threading.Thread(target=self._watch, name="bench-watchdog", daemon=True).start()

        # QThreads are unknown to `threading` (and their ids are reused): each job notes
        # its thread's native id.
        init = workers.Worker.__init__
        threads = self._threads

        def named_init(worker, job, *args, **kwargs) -> None:
            def named_job(report, cancel):
                threads[threading.get_ident()] = (threading.get_native_id(),
                                                  getattr(job, "__qualname__", "job"))
                return job(report, cancel)

            init(worker, named_job, *args, **kwargs)

        workers.Worker.__init__ = named_init

    @staticmethod
    def _cpu_ns() -> dict[int, int]:
        out = {}
        for tid in os.listdir("/proc/self/task"):
            try:
                with open(f"/proc/self/task/{tid}/schedstat") as f:
                    out[int(tid)] = int(f.read().split()[0])
            except (OSError, ValueError, IndexError):
                pass
        return out

    @staticmethod
    def _stolen_ms() -> float:
        """Time the hypervisor ran other guests on this machine's vCPUs (all of them, in
        10 ms clock ticks): a stall with no thread running is the host's if this grew."""
        try:
            with open("/proc/stat") as f:
                return int(f.readline().split()[8]) * 1000 / os.sysconf("SC_CLK_TCK")
        except (OSError, ValueError, IndexError):
            return 0.0

    def _watch(self) -> None:
        """Every 5 ms: a GUI pass running longer than ``stall`` gets its stack noted (and
        every other thread's innermost lines), where it waits."""
        import traceback

        while True:
            time.sleep(0.005)
            start, number = self._pass_start, self._pass_number
            if start is None or number == self._sampled:
                continue
            waited = time.perf_counter() - start
            if waited < self.stall:
                continue
            self._sampled = number
            frames = sys._current_frames()
            gui = frames.get(self._gui)
            stack = "".join(traceback.format_stack(gui)[-8:]) if gui else "?"
            others = [f"{ident}: {self._where(f)}" for ident, f in frames.items()
                      if ident not in (self._gui, threading_ident())]
            self.stalls.append((waited, stack, others))

    def before_pass(self) -> None:
        self._pass_number += 1
        self._pass_start = time.perf_counter()
        self._cpu = self._cpu_ns()
        self._stolen = self._stolen_ms()
        self._process_cpu = time.process_time()

    def after_pass(self, blocked: float) -> None:
        import threading

        self._pass_start = None
        if blocked < self.threshold:
            return
        used = {tid: ns - self._cpu.get(tid, 0) for tid, ns in self._cpu_ns().items()}
        frames = sys._current_frames()
        me = threading.get_ident()
        known = {t.ident: (t.native_id, t.name) for t in threading.enumerate()}
        known.update(self._threads)
        python = {known[ident]: ident for ident in frames if ident != me and ident in known}
        holder = max(python, key=lambda native: used.get(native[0], 0), default=None)
        if holder is None:
            key = "no other thread running Python"
        else:
            key = (f"{holder[1]} ({used.get(holder[0], 0) / 1e6:.0f} ms CPU): "
                   f"{self._where(frames[python[holder]])}")
        self.waits.setdefault(key, []).append(blocked)
        if blocked >= self.busy_threshold:
            # Every thread that ran meanwhile, by name: a job that has just returned (and
            # so shows no Python frame any more) is still named by the job it ran.
            names = {native: name for native, name in known.values()}
            busy = sorted(((ns, tid) for tid, ns in used.items()
                           if ns >= 1e6 and tid != threading.get_native_id()), reverse=True)
            stolen = self._stolen_ms() - self._stolen
            # The process's CPU time less its live threads': threads that ended meanwhile.
            ended = (time.process_time() - self._process_cpu) * 1000 - sum(
                max(0, ns) for ns in used.values()) / 1e6
            if ended >= 1:
                gone = [names.get(tid) or f"thread {tid}" for tid in self._cpu if tid not in used]
                busy.append((ended * 1e6, -1))
                names[-1] = f"threads that ended meanwhile ({', '.join(gone) or '?'})"
            self.long_waits.append((blocked, stolen, [
                f"{names.get(tid) or self._comm(tid)} {ns / 1e6:.0f} ms CPU"
                f"{'' if tid in {n for n, _ in python} else ' (no Python frame now)'}"
                for ns, tid in busy]))

    @staticmethod
    def _comm(tid: int) -> str:
        try:
            with open(f"/proc/self/task/{tid}/comm") as f:
                return f"thread {tid} ({f.read().strip()})"
        except OSError:
            return f"thread {tid}"

    @staticmethod
    def _where(frame) -> str:
        """The innermost frame and the project's innermost frames."""
        out = []
        while frame is not None and len(out) < 4:
            code = frame.f_code
            if not out or "bpe_desktop" in code.co_filename:
                out.append(f"{Path(code.co_filename).name}:{frame.f_lineno} {code.co_name}")
            frame = frame.f_back
        return " < ".join(out)

    def report(self, top: int = 25) -> str:
        text = "".join(f"\nA GUI pass {waited * 1000:.0f} ms in, where it was:\n{stack}"
                       f"  other threads: {'; '.join(others) or 'none'}\n"
                       for waited, stack, others in self.stalls)
        return text + self._report_waits(top)

    def _report_waits(self, top: int) -> str:
        rows = sorted(self.waits.items(), key=lambda kv: -max(kv[1]))[:top]
        text = "\n".join(f"{max(w) * 1000:7.1f} ms max, {len(w):4d}x  {k}" for k, w in rows)
        for blocked, stolen, busy in sorted(self.long_waits, reverse=True)[:top]:
            text += (f"\n{blocked * 1000:7.1f} ms wait; threads that ran meanwhile: "
                     f"{'; '.join(busy) or 'none'}; the host took {stolen:.0f} ms of the vCPUs")
        return text


class SlowCallbacks:
    """The GUI thread's longest Python callbacks (``--holders``): each call that Qt makes
    into Python from the event loop (a slot, an event handler, a timer's function), timed
    by a profile hook on the GUI thread (which slows the Python it runs a little)."""

    def __init__(self, threshold: float = 0.004) -> None:
        self.threshold = threshold
        self.calls: dict[str, list[tuple[float, float]]] = {}  # name -> [(wall, CPU)]
        self._open: dict[int, tuple[float, float]] = {}

    def install(self) -> None:
        sys.setprofile(self._hook)

    def remove(self) -> None:
        sys.setprofile(None)

    def _hook(self, frame, event, _arg) -> None:
        if event not in ("call", "return"):
            return
        caller = frame.f_back
        if caller is None or caller.f_code is not _loop_pass.__code__:
            return  # not called by Qt from the event loop
        if event == "call":
            self._open[id(frame)] = (time.perf_counter(), time.thread_time())
            return
        start = self._open.pop(id(frame), None)
        if start is None:
            return
        wall, cpu = time.perf_counter() - start[0], time.thread_time() - start[1]
        if wall >= self.threshold:
            code = frame.f_code
            name = f"{code.co_qualname} ({Path(code.co_filename).name}:{code.co_firstlineno})"
            self.calls.setdefault(name, []).append((wall, cpu))

    def report(self, top: int = 20) -> str:
        rows = sorted(self.calls.items(), key=lambda kv: -max(c for _, c in kv[1]))[:top]
        return "\n".join(
            f"{max(c for _, c in v) * 1000:7.1f} ms CPU max ({max(w for w, _ in v) * 1000:.1f}"
            f" ms wall), {len(v):4d}x  {k}" for k, v in rows)


#: Set by --holders.
HOLDERS: GilHolders | None = None
CALLBACKS: SlowCallbacks | None = None


def stats(lateness_s) -> dict:
    a = np.asarray(lateness_s) * 1000
    if not len(a):
        return {"ticks": 0}
    return {"ticks": int(len(a)), "p50_ms": float(np.percentile(a, 50)),
            "p95_ms": float(np.percentile(a, 95)), "p99_ms": float(np.percentile(a, 99)),
            "max_ms": float(a.max())}


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
    _spin(app, until=lambda: _settled(window))
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
            app, lambda: window.document.set_imported(model), lambda: _settled(window))
        del model  # the document's and the panels' references are left, as in use
        _spin(app, 0.5)
        out["opening_100k_model_file"] = _measured(
            app, lambda: window.open_path(str(BIG_MODEL)), lambda: _settled(window),
            runs_a_loop=True)
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
    global HOLDERS, CALLBACKS
    if args.holders:
        HOLDERS, CALLBACKS = GilHolders(), SlowCallbacks()
        HOLDERS.install()
        CALLBACKS.install()
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
    print("| phase | ticks | p50 ms | p95 ms | p99 ms | max ms | longest GUI pass ms "
          "| its longest CPU ms | longest GIL/lock wait ms | longest wait for a core ms |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for phase in PHASES:
        s = record.get(phase, {})
        if s.get("ticks"):
            print(f"| {phase.replace('_', ' ')} | {s['ticks']} | {s['p50_ms']:.2f} | "
                  f"{s['p95_ms']:.2f} | {s['p99_ms']:.2f} | {s['max_ms']:.2f} | "
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
