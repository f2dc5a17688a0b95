"""Kill the command line's writers at random moments, two at a time, and count what
survives: outputs that are neither the old nor the new complete file, sets of files
mixed without import noticing, temporary files the next write leaves behind.

    python benchmarks/bench_fault_injection.py                 # 240 kills (~5-10 min)
    python benchmarks/bench_fault_injection.py --kills 40 --seed 7

Every writer (train, count, export hf, export gpt2 — a set of files —, import) is run
over and over, two different ones at once in the same folder, each killed with SIGKILL
after a random delay of 0.6 to 1.15 times its own run time (a few finish first: "completed"). After
each round both outputs are judged (tests/fault_harness.py). A Markdown summary goes to
stdout; the exit status is 1 if any defect survived.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.fault_harness import Bench, Violation, kill_after, random_delay  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=240, help="kills in all (default 240)")
    parser.add_argument("--seed", type=int, default=32)
    parser.add_argument("--stretch", type=float, default=1.7,
                        help="how much slower a writer runs beside another (default 1.7)")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    load_before = os.getloadavg()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="bpe-faults-") as root:
        bench = Bench(Path(root))
        writers = bench.writers
        states: Counter[tuple[str, str]] = Counter()
        completed: Counter[str] = Counter()
        defects: list[str] = []
        kills = 0
        while kills < args.kills:
            pair = rng.sample(writers, 2)
            for w in pair:
                bench.restore_old(w)
            procs = [(w, bench.start(w)) for w in pair]
            # both run at once; each is killed after its own random delay
            deadline = {w.name: time.perf_counter() + random_delay(rng, bench.seconds[w.name], args.stretch)
                        for w in pair}
            for w, proc in sorted(procs, key=lambda wp: deadline[wp[0].name]):
                if kill_after(proc, max(0.0, deadline[w.name] - time.perf_counter())):
                    completed[w.name] += 1
                kills += 1
            for w, _ in procs:
                try:
                    states[w.name, bench.judge(w)] += 1
                except Violation as exc:
                    defects.append(str(exc))
            print(f"{kills}/{args.kills} kills, {len(defects)} defects", file=sys.stderr,
                  end="\r")
        for w in writers:  # a complete run of each: nothing of the killed ones stays
            bench._run(w.argv("new"))
        left = bench.temporary_files()
        if left:
            defects.append(f"temporary files left after complete runs: {left}")
    seconds = time.perf_counter() - started
    load_after = os.getloadavg()
    print(file=sys.stderr)
    print(f"{kills} SIGKILLs, two writers at a time, seed {args.seed}, {seconds:.0f} s; "
          f"load average before {load_before[0]:.2f}, after {load_after[0]:.2f}\n")
    print("| writer | killed | completed first | left old | left new | mixed, refused |")
    print("|---|---:|---:|---:|---:|---:|")
    for w in writers:
        runs = sum(n for (name, _), n in states.items() if name == w.name)
        print(f"| {w.name} | {runs - completed[w.name]} | {completed[w.name]} | "
              f"{states[w.name, 'old']} | {states[w.name, 'new']} | "
              f"{states[w.name, 'mixed-refused']} |")
    print(f"\nSurviving defects: {len(defects)}")
    for d in defects[:20]:
        print(f"- {d}")
    return 1 if defects else 0


if __name__ == "__main__":
    raise SystemExit(main())
