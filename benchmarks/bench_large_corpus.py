#!/usr/bin/env python3
"""Large-corpus benchmark: time, peak memory and progress on inputs that stress reading.

Inputs, generated once into ``benchmarks/.cache`` from the 100 MB Gutenberg corpus:

============  ===========================================================================
``1gb``       1,000,000,000 bytes: the 100 MB text ten times; in copy k (k >= 1) every
              fourth line has its letters rotated by k (a Caesar shift), so the corpus
              keeps growing its vocabulary as real text does (``--perturb all`` rotates
              every line: ten times the words, the worst case; ``none``: exact repeats)
``line200m``  one 200,000,000-byte line: the 100 MB text twice (the second copy rotated
              by one letter), every line break replaced by a space
``slowpipe``  a named pipe fed by the parent at ``--pipe-mb-per-s`` (default 8 MB/s) with
              ``--pipe-mb`` (default 40 MB) of the text: a slow disk or network share
``longwords`` ten lines of 1,000,000 random lowercase letters (seeded): each line is one
              word under both presets, as whole lines are in scripts written without
              spaces. A merge must cost per occurrence, not per symbol of the words it
              touches (scanning the words took 36 s at vocab 300, and hours at 32000)
============  ===========================================================================

Each (input, preset) trains in a fresh child process through the Python API with
``vocab_size=--vocab`` (32000) and ``--threads`` (2). Presets: ``default`` (the seeds'
options, ``TrainConfig()``) and ``gpt2``. Measured per run:

* ``train s``: the child's perf_counter around ``train()``; ``wall s``: the whole child;
* ``peak RSS``: the child's peak resident set, ``VmHWM`` from its ``/proc/self/status``
  at the end (reset by ``exec``). ``ru_maxrss`` from ``os.wait4`` is kept in the JSON as
  ``maxrss_wait4_mb`` but not shown: it includes the parent's image that the child shares
  between ``fork`` and ``exec``, and this parent has just generated gigabytes of input;
* progress: how many reports arrived while reading, the longest gap between two of them,
  and how far through the input the last one was (reports come at most every 50 ms, so
  the last may precede the final bytes; the next stage's report follows at once).

Examples::

    python benchmarks/bench_large_corpus.py                     # everything (~5 min)
    python benchmarks/bench_large_corpus.py --cases line200m --presets gpt2
    python benchmarks/bench_large_corpus.py --cases 1gb --perturb all
    python benchmarks/bench_large_corpus.py --cases longwords

The Markdown table goes to stdout; raw results to ``benchmarks/results/large-*.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import string
import sys
import tempfile
import threading
import time
from pathlib import Path

from bench_train import prepare_corpus, warm
from common import CACHE, ROOT, add_child_options, comma_list, in_child_process, run_child

CASES = ("1gb", "line200m", "slowpipe", "longwords")
PRESETS = ("default", "gpt2")
ONE_GB = 1_000_000_000
LINE_BYTES = 200_000_000
LONG_WORDS, LONG_WORD_BYTES = 10, 1_000_000

LOWER = bytes(range(ord("a"), ord("z") + 1))
UPPER = bytes(range(ord("A"), ord("Z") + 1))


def rotation(k: int) -> bytes:
    """A bytes.translate table rotating ASCII letters by ``k``."""
    table = bytearray(range(256))
    for alphabet in (LOWER, UPPER):
        for i, c in enumerate(alphabet):
            table[c] = alphabet[(i + k) % 26]
    return bytes(table)


# =========================================================================================
# Inputs.
# =========================================================================================


def _fresh(path: Path, key: str) -> bool:
    stamp = path.with_name(path.name + ".source")
    return path.is_file() and stamp.is_file() and stamp.read_text() == key


def _stamp(path: Path, key: str) -> None:
    path.with_name(path.name + ".source").write_text(key)


def _source_key(source: Path, extra: str) -> str:
    st = source.stat()
    return f"{source} {st.st_size} {st.st_mtime_ns} {extra}"


def make_1gb(source: Path, perturb: str) -> Path:
    out = CACHE / f"large-1G-{perturb}.txt"
    key = _source_key(source, f"1gb perturb={perturb}")
    if _fresh(out, key):
        return out
    print(f"writing {out.name} (once) ...", file=sys.stderr)
    text = source.read_bytes()
    lines = text.split(b"\n") if perturb == "lines" else None
    written = 0
    tmp = out.with_suffix(".tmp")
    with open(tmp, "wb") as f:
        for k in range(ONE_GB // len(text) + 1):
            if k == 0 or perturb == "none":
                copy = text
            elif perturb == "all":
                copy = text.translate(rotation(k))
            else:
                table = rotation(k)
                phase = k % 4
                copy = b"\n".join(line.translate(table) if i % 4 == phase else line
                                  for i, line in enumerate(lines))
            copy = copy[: ONE_GB - written]
            f.write(copy)
            written += len(copy)
            if written >= ONE_GB:
                break
    tmp.replace(out)
    _stamp(out, key)
    return out


def make_line(source: Path) -> Path:
    out = CACHE / "line-200M.txt"
    key = _source_key(source, "line200m")
    if _fresh(out, key):
        return out
    print(f"writing {out.name} (once) ...", file=sys.stderr)
    text = source.read_bytes().replace(b"\r", b" ").replace(b"\n", b" ")
    tmp = out.with_suffix(".tmp")
    with open(tmp, "wb") as f:
        f.write(text)
        rest = LINE_BYTES - len(text) - 1
        f.write(text.translate(rotation(1))[:rest])
        f.write(b"\n")
    tmp.replace(out)
    _stamp(out, key)
    return out


def make_long_words() -> Path:
    out = CACHE / "longwords-10M.txt"
    key = f"longwords {LONG_WORDS}x{LONG_WORD_BYTES} seed=1"
    if _fresh(out, key):
        return out
    print(f"writing {out.name} (once) ...", file=sys.stderr)
    rng = random.Random(1)
    tmp = out.with_suffix(".tmp")
    with open(tmp, "w", encoding="ascii") as f:
        for _ in range(LONG_WORDS):
            f.write("".join(rng.choices(string.ascii_lowercase, k=LONG_WORD_BYTES)) + "\n")
    tmp.replace(out)
    _stamp(out, key)
    return out


class SlowPipe:
    """A named pipe fed from a thread at a fixed rate (the parent's, not the child's)."""

    def __init__(self, source: Path, megabytes: float, rate: float) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="bpe-slowpipe-", dir=CACHE))
        self.path = self.folder / "slow.txt"
        os.mkfifo(self.path)
        with open(source, "rb") as f:
            self.data = f.read(int(megabytes * 1e6))
        self.rate = rate * 1e6
        self.thread = threading.Thread(target=self._feed, daemon=True)
        self.thread.start()

    def _feed(self) -> None:
        chunk = 64 << 10
        started = time.perf_counter()
        try:
            with open(self.path, "wb") as f:  # waits for the child to open it
                for i in range(0, len(self.data), chunk):
                    due = started + i / self.rate
                    pause = due - time.perf_counter()
                    if pause > 0:
                        time.sleep(pause)
                    f.write(self.data[i:i + chunk])
                    f.flush()
        except BrokenPipeError:
            pass  # the child stopped early; its result says why

    def close(self) -> None:
        self.thread.join(timeout=5)
        self.path.unlink(missing_ok=True)
        self.folder.rmdir()


# =========================================================================================
# Child side: one training, result written as JSON.
# =========================================================================================


def _import_core():
    try:
        import bpe_desktop.core as core
    except ImportError:
        sys.path.insert(0, str(ROOT))
        import bpe_desktop.core as core
    return core


def _vm_hwm_mb() -> float | None:
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return None


def worker(preset: str, corpus: str, vocab: int, threads: int, result_path: str) -> None:
    core = _import_core()
    name = "sennrich" if preset == "default" else preset
    config = core.TrainConfig.preset(name, vocab_size=vocab, threads=threads)
    reading: list[tuple[float, int]] = []
    stages: dict[str, int] = {}
    t0 = time.perf_counter()

    def on_progress(p) -> None:
        stages[p.stage] = stages.get(p.stage, 0) + 1
        if p.stage == "reading":
            reading.append((time.perf_counter() - t0, p.bytes_done))

    out: dict = {}
    try:
        result = core.train(core.Corpus.from_files([corpus]), config, on_progress=on_progress)
    except core.BpeError as exc:
        out["error"] = f"{type(exc).__name__}: {exc}"
    else:
        out["merges"] = len(result.model.merges)
        out["vocab_size"] = result.model.vocab_size
        out["distinct_words"] = result.distinct_words
        out["total_words"] = result.model.corpus.total_words
        out["bytes"] = result.model.corpus.files[0].size
        out["engine_timings"] = dict(result.timings)
    out["train"] = time.perf_counter() - t0
    times = [t for t, _ in reading]
    done = [b for _, b in reading]
    out["progress"] = {
        "stages": stages,
        "reading_reports": len(reading),
        "reading_max_gap_s": max((b - a for a, b in zip(times, times[1:])), default=None),
        "bytes_done_last": done[-1] if done else None,
        "bytes_done_monotonic": all(a <= b for a, b in zip(done, done[1:])),
    }
    out["vm_hwm_mb"] = _vm_hwm_mb()
    with open(result_path, "w") as f:
        json.dump(out, f)


# =========================================================================================
# Parent side.
# =========================================================================================


def run_case(case: str, preset: str, corpus: Path, args, log_dir: Path) -> dict:
    env = dict(os.environ, RAYON_NUM_THREADS=str(args.threads))
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", preset,
           "--corpus-file", str(corpus), "--vocab", str(args.vocab),
           "--threads", str(args.threads)]
    run = run_child(cmd, env, log_dir / f"{case}-{preset}.log", args.timeout)
    rec = {"case": case, "preset": preset, "corpus": corpus.name,
           **{k: v for k, v in run.items() if k != "result"}}
    if run["result"] is None:
        rec["error"] = "the child wrote no result (crashed?)"
    else:
        rec.update(run["result"])
    return rec


def input_size(case: str, corpus: Path, args) -> int:
    if case == "slowpipe":
        return int(args.pipe_mb * 1e6)
    return corpus.stat().st_size


def _mb(x) -> str:
    return "—" if x is None else f"{x:,.0f}"


def _s(x) -> str:
    return "—" if x is None else (f"{x:.2f}" if x < 10 else f"{x:.1f}")


def table(records: list[dict]) -> str:
    head = ("| input | preset | size MB | train s | wall s | peak RSS MB | distinct words | merges "
            "| reading reports | longest gap s | last report at | result |")
    lines = [head, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|"]
    for r in records:
        p = r.get("progress", {})
        size = r["input_bytes"]
        reported = p.get("bytes_done_last")
        complete = "—" if not reported else f"{100 * reported / size:.1f} %"
        status = "ok" if r["returncode"] == 0 and "error" not in r else (
            "TIMEOUT" if r["timed_out"] else r.get("error", f"rc={r['returncode']}")[:60])
        lines.append(
            f"| {r['case']} | {r['preset']} | {size / 1e6:,.0f} | {_s(r.get('train'))} | "
            f"{_s(r['wall'])} | {_mb(r.get('vm_hwm_mb'))} | {r.get('distinct_words', '—'):,} | "
            f"{r.get('merges', '—')} | {p.get('reading_reports', '—')} | "
            f"{_s(p.get('reading_max_gap_s'))} | {complete} | {status} |"
        )
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", default=",".join(CASES), help=f"comma list of {', '.join(CASES)}")
    ap.add_argument("--presets", default=",".join(PRESETS),
                    help=f"comma list of {', '.join(PRESETS)}")
    ap.add_argument("--vocab", type=int, default=32000)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--perturb", choices=("lines", "all", "none"), default="lines",
                    help="how the copies in the 1 GB corpus differ (see the module docstring)")
    ap.add_argument("--pipe-mb", type=float, default=40.0, help="MB sent through the slow pipe")
    ap.add_argument("--pipe-mb-per-s", type=float, default=8.0, help="the slow pipe's rate")
    add_child_options(ap)
    args = ap.parse_args(argv)

    if args.worker:
        worker(args.worker, args.corpus_file, args.vocab, args.threads, args.result)
        return 0

    cases = comma_list(ap, args.cases, CASES, "case")
    presets = comma_list(ap, args.presets, PRESETS, "preset")
    if "slowpipe" in cases and not hasattr(os, "mkfifo"):
        print("slowpipe skipped: this system has no named pipes", file=sys.stderr)
        cases.remove("slowpipe")

    CACHE.mkdir(parents=True, exist_ok=True)
    source = prepare_corpus("gutenberg")
    inputs = {}
    # Each written in a child process, so that this one stays small (in_child_process).
    if "1gb" in cases:
        inputs["1gb"] = in_child_process(make_1gb, source, args.perturb)
    if "line200m" in cases:
        inputs["line200m"] = in_child_process(make_line, source)
    if "longwords" in cases:
        inputs["longwords"] = in_child_process(make_long_words)

    stamp = time.strftime("%Y%m%d-%H%M%S")
    log_dir = CACHE / "logs" / f"large-{stamp}"
    log_dir.mkdir(parents=True, exist_ok=True)
    load_before = os.getloadavg()
    print(f"# large-corpus benchmark {stamp}: vocab {args.vocab}, {args.threads} threads, "
          f"{os.cpu_count()} CPUs, load {load_before[0]:.2f}", file=sys.stderr)

    records = []
    for case in cases:
        for preset in presets:
            pipe = None
            if case == "slowpipe":
                pipe = SlowPipe(source, args.pipe_mb, args.pipe_mb_per_s)
                corpus = pipe.path
            else:
                corpus = inputs[case]
                warm(corpus)
            try:
                rec = run_case(case, preset, corpus, args, log_dir)
            finally:
                if pipe is not None:
                    pipe.close()
            rec["input_bytes"] = input_size(case, corpus, args)
            records.append(rec)
            ok = rec["returncode"] == 0 and "error" not in rec
            print(f"  {case:9} {preset:8} train {rec.get('train', float('nan')):8.2f} s  "
                  f"wall {rec['wall']:8.2f} s  peak RSS {rec.get('vm_hwm_mb') or float('nan'):7.0f} MB  "
                  f"{'ok' if ok else rec.get('error', 'FAILED')}", file=sys.stderr)
    load_after = os.getloadavg()

    md = table(records)
    print(f"Large inputs, vocab {args.vocab}, {args.threads} threads, one run each; "
          f"{os.cpu_count()} CPUs; 1-min load before/after {load_before[0]:.2f}/"
          f"{load_after[0]:.2f}; 1gb perturbation: {args.perturb}; slow pipe "
          f"{args.pipe_mb:g} MB at {args.pipe_mb_per_s:g} MB/s.")
    print()
    print(md)
    args.out.mkdir(parents=True, exist_ok=True)
    out_path = args.out / f"large-{stamp}.json"
    with open(out_path, "w") as f:
        json.dump({
            "benchmark": "large-corpus", "stamp": stamp, "vocab": args.vocab,
            "threads": args.threads, "perturb": args.perturb, "pipe_mb": args.pipe_mb,
            "pipe_mb_per_s": args.pipe_mb_per_s, "cpus": os.cpu_count(),
            "platform": platform.platform(), "python": platform.python_version(),
            "load_before": load_before, "load_after": load_after, "runs": records,
            "markdown": md,
        }, f, indent=1)
    print(f"\nresults: {out_path}", file=sys.stderr)
    return 0 if all(r["returncode"] == 0 and "error" not in r for r in records) else 1


if __name__ == "__main__":
    sys.exit(main())
