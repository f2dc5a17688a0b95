"""What recording a run in a project costs: ``bpe-desktop train`` with and without
``--project``, on a training of about one second (a benchmark, not a test).

Runs alternate (plain, recorded, plain, …) in this process through the command's own
entry point, so both see the same machine; the medians are compared. The first recorded
run also hashes the corpus file; later ones find its hash by size and modification time,
so that cost is reported apart.

    python3 benchmarks/bench_project_recording.py [--corpus FILE] [--vocab 32000] [--runs 7]

Goal: recording adds at most 5 % to the training.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import CACHE, CORPORA_DIR, require_corpora  # noqa: E402

SLICE_BYTES = 25_000_000


def default_corpus() -> str:
    """The first 25 MB of the Gutenberg corpus (about one second of training), cut once."""
    import gzip

    target = CACHE / "gutenberg-25M.txt"
    if not target.is_file():
        CACHE.mkdir(parents=True, exist_ok=True)
        with gzip.open(CORPORA_DIR / "gutenberg-100M.txt.gz", "rb") as f:
            data = f.read(SLICE_BYTES)
        tmp = target.with_suffix(".tmp")
        tmp.write_bytes(data[: data.rfind(b"\n") + 1])
        tmp.replace(target)
    return str(target)


def timed(argv: list[str]) -> float:
    from bpe_desktop.cli import main

    start = time.perf_counter()
    status = main(argv)
    seconds = time.perf_counter() - start
    if status != 0:
        raise SystemExit(f"bpe-desktop {' '.join(argv)} failed ({status})")
    return seconds


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", help="default: the first 25 MB of gutenberg-100M")
    ap.add_argument("--vocab", type=int, default=32000)
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args(argv)
    require_corpora()
    args.corpus = args.corpus or default_corpus()
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        project = os.path.join(tmp, "p.bpeproj")
        base = ["train", args.corpus, "-o", os.path.join(tmp, "m.json"), "--vocab-size",
                str(args.vocab), "-q"]
        from bpe_desktop.core.project.corpus_hash import sha256_of

        start = time.perf_counter()
        sha256_of(args.corpus)
        hashing = time.perf_counter() - start
        timed(base)  # warm: the file in the page cache, the modules imported
        first_recorded = timed([*base, "--project", project])
        plain, recorded = [], []
        for _ in range(args.runs):
            plain.append(timed(base))
            recorded.append(timed([*base, "--project", project]))
        own = [recording_alone(project, args.corpus) for _ in range(args.runs)]
        big_own = []
        big = CACHE / "history-100k.bpeproj"  # made by bench_gui_latency.py's History phase
        if big.is_file():
            import shutil

            copy = os.path.join(tmp, "big.bpeproj")
            shutil.copyfile(big, copy)
            big_own = [recording_alone(copy, args.corpus) for _ in range(args.runs)]
    p, r = statistics.median(plain), statistics.median(recorded)
    load_after = os.getloadavg()
    print(f"train {Path(args.corpus).name} ({os.path.getsize(args.corpus) / 1e6:.1f} MB), "
          f"vocabulary {args.vocab:,}, {args.runs} runs each, 1-min load before/after "
          f"{load_before[0]:.2f}/{load_after[0]:.2f}")
    print(f"| | median s | min s | max s |\n|---|---:|---:|---:|")
    print(f"| plain | {p:.3f} | {min(plain):.3f} | {max(plain):.3f} |")
    print(f"| --project | {r:.3f} | {min(recorded):.3f} | {max(recorded):.3f} |")
    print(f"recording adds {(r - p) / p * 100:+.1f} % (median); the first recorded run "
          f"{first_recorded:.3f} s, of which hashing the corpus once {hashing:.3f} s")
    print(f"recording alone (open the project, insert the run, complete it with its "
          f"metrics and model row): median {statistics.median(own) * 1000:.1f} ms, "
          f"{statistics.median(own) / p * 100:.2f} % of the plain training")
    if big_own:
        print(f"recording alone into a project of 100,000 runs: median "
              f"{statistics.median(big_own) * 1000:.1f} ms, "
              f"{statistics.median(big_own) / p * 100:.2f} % of the plain training")
    return 0


def recording_alone(project: str, corpus: str) -> float:
    """What --project adds around a training, timed without the training's noise."""
    from bpe_desktop.core.project import Metric, Project, recorded_run

    start = time.perf_counter()
    with Project(project, verify=False) as p:  # as --project opens it
        with recorded_run(p, "train", config={"vocab_size": 32000},
                          command={"argv": ["train"], "cwd": "/"},
                          inputs=[("corpus", corpus)]) as run:
            run.add_metrics([Metric("vocab_size", 32000), Metric("merges", 31000)])
    return time.perf_counter() - start


if __name__ == "__main__":
    raise SystemExit(main())
