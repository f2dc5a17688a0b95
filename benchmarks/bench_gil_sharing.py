"""How much a background job's Python slows the GUI thread's Python (a benchmark, not a test).

A stand-in for the GUI thread runs passes of 10 ms of Python (a slot, a paint calling into
Python), one every 10 ms, while a job thread runs chunks of Python and calls a
:class:`~bpe_desktop.core.chunked.Breather` between them, as the application's jobs do. The
two share the GIL turn by turn (the application's 0.2 ms switch interval), so a pass takes
longer than its 10 ms; the job stepping aside when it had to wait (``Breather``'s
``step_aside``) shortens it. Reported for the job without stepping aside and with the
default: each pass's wall time (median and worst), and the job's chunks per second.

    python3 benchmarks/bench_gil_sharing.py [--passes 40]
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bpe_desktop.app import GIL_SWITCH_INTERVAL  # noqa: E402
from bpe_desktop.core.chunked import MAX_STEP_ASIDE, Breather  # noqa: E402

PASS_MS = 10.0


def _gui_pass() -> float:
    """One pass of PASS_MS of this thread's CPU time; its wall time in ms."""
    start = time.perf_counter()
    end = time.thread_time() + PASS_MS / 1000
    while time.thread_time() < end:
        pass
    return (time.perf_counter() - start) * 1000


def measure(step_aside: float, passes: int) -> dict:
    stop = threading.Event()
    chunks = [0]

    def job() -> None:
        breathe = Breather(step_aside=step_aside)
        x = 0
        while not stop.is_set():
            for _ in range(3000):  # ~0.1 ms of bytecode
                x += 1
            chunks[0] += 1
            breathe()

    thread = threading.Thread(target=job)
    thread.start()
    time.sleep(0.05)
    start, done = time.perf_counter(), chunks[0]
    walls = []
    for _ in range(passes):
        walls.append(_gui_pass())
        time.sleep(PASS_MS / 1000)
    rate = (chunks[0] - done) / (time.perf_counter() - start)
    stop.set()
    thread.join()
    walls.sort()
    return {"median_ms": walls[len(walls) // 2], "max_ms": walls[-1], "job_chunks_per_s": rate}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--passes", type=int, default=40)
    args = ap.parse_args()
    sys.setswitchinterval(GIL_SWITCH_INTERVAL)
    alone = sorted(_gui_pass() for _ in range(10))[5]
    load = os.getloadavg()[0]
    rows = {"no stepping aside": measure(0.0, args.passes),
            f"stepping aside (up to {MAX_STEP_ASIDE * 1000:g} ms)": measure(MAX_STEP_ASIDE, args.passes)}
    print(f"A GUI pass of {PASS_MS:g} ms of Python alone: {alone:.1f} ms wall. "
          f"Beside a job (1-min load {load:.2f}, {os.cpu_count()} CPUs):\n")
    print("| job | pass median ms | pass worst ms | job chunks/s |")
    print("|---|---:|---:|---:|")
    for name, r in rows.items():
        print(f"| {name} | {r['median_ms']:.1f} | {r['max_ms']:.1f} | {r['job_chunks_per_s']:.0f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
