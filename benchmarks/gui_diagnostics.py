"""Where the GUI thread waits, for ``bench_gui_latency.py --holders`` (diagnostics that
perturb a little, off by default)."""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

from common import host_stolen_ms


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
                      if ident not in (self._gui, threading.get_ident())]
            self.stalls.append((waited, stack, others))

    def before_pass(self) -> None:
        self._pass_number += 1
        self._pass_start = time.perf_counter()
        self._cpu = self._cpu_ns()
        self._stolen = host_stolen_ms()
        self._process_cpu = time.process_time()

    def after_pass(self, blocked: float) -> None:

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
            stolen = host_stolen_ms() - self._stolen
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

    def __init__(self, loop_pass_code, threshold: float = 0.004) -> None:
        self.threshold = threshold
        self._loop_pass_code = loop_pass_code  # the function that runs one event-loop pass
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
        if caller is None or caller.f_code is not self._loop_pass_code:
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
