#!/usr/bin/env python3
"""Training from huge word-count tables: time and peak memory per distinct word.

Tables of N distinct words (``--words``, millions; default 10,30; 100 as a manual run)
are generated once into ``benchmarks/.cache`` (``words-<N>m.tsv``, seeded, deterministic):
word i is 7 lowercase letters spelling a pseudo-random permutation of i in base 26,
followed by 0-4 letters derived from i (so every word is distinct; 9 letters on average),
with a Zipf count ``max(1, N // (2 * (i + 1)))`` — half the words occur once, as in
real corpora. Each table trains in a fresh child process through the Python API
(``Corpus.from_files([table], word_counts=True)``, ``vocab_size=--vocab`` 32000,
``--threads`` 2, the default options). Measured: ``train s`` (the ``train()`` call;
``count s`` and ``merge s`` of it from the engine), and the child's peak RSS (``VmHWM``),
also divided by the number of distinct words; ``read`` is the same at the end of reading
the table (the peak when the engine reports its first ``counting`` progress, before the
words become symbol sequences), so reading and training can be told apart.
``--read-only`` only reads each table (``merge_tables``, the counting API) and skips
training: a quick check of the reading stage at sizes too large to train here.

Example::

    python benchmarks/bench_word_tables.py --words 10,30
    python benchmarks/bench_word_tables.py --words 100 --timeout 7200   # manual, ~8+ GB
    python benchmarks/bench_word_tables.py --words 10,30,100 --read-only

The Markdown table goes to stdout; raw results to ``benchmarks/results/word-tables-*.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

from common import CACHE, ROOT, add_child_options, run_child

_LETTERS = b"abcdefghijklmnopqrstuvwxyz"
_SPACE = 26 ** 7
_MULTIPLIER = 2_654_435_761  # odd and coprime to 26**7: i -> i*M mod 26**7 is a permutation


def word(i: int) -> bytes:
    code = (i * _MULTIPLIER + 12345) % _SPACE
    out = bytearray(7)
    for k in range(7):
        code, digit = divmod(code, 26)
        out[k] = _LETTERS[digit]
    extra = (i * 7919 >> 3) % 5
    out += bytes(_LETTERS[(i + 3 * k) % 26] for k in range(extra))
    return bytes(out)


def generate(path: Path, millions: int) -> Path:
    """The table of ``millions`` * 10^6 distinct words (written once, then reused)."""
    if path.exists():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    n = millions * 1_000_000
    with open(tmp, "wb") as f:
        for start in range(0, n, 1_000_000):
            f.write(b"".join(word(i) + b"\t%d\n" % max(1, n // (2 * (i + 1)))
                             for i in range(start, min(n, start + 1_000_000))))
    os.replace(tmp, path)
    return path


def _peak_mb() -> float:
    """This process's peak resident memory so far (``VmHWM``), in MiB."""
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmHWM:")) / 1024


def child(args: argparse.Namespace) -> None:
    sys.path.insert(0, str(ROOT))
    from bpe_desktop.core import Corpus, TrainConfig, train
    from bpe_desktop.core.counting import merge_tables

    config = TrainConfig(vocab_size=args.vocab, threads=args.threads)
    started = time.perf_counter()
    if args.read_only:
        table = merge_tables([args.corpus_file], config)
        record = {"read_s": time.perf_counter() - started, "read_peak_mb": _peak_mb(),
                  "distinct_words": len(table)}
    else:
        read: dict = {}

        def on_progress(progress) -> None:
            # The first "counting" report comes when the table has been read.
            if progress.stage == "counting" and not read:
                read.update(read_s=time.perf_counter() - started, read_peak_mb=_peak_mb())

        result = train(Corpus.from_files([args.corpus_file], word_counts=True), config,
                       on_progress=on_progress)
        record = {"train_s": time.perf_counter() - started, "count_s": result.timings["counting"],
                  "merge_s": result.timings["merging"], "peak_rss_mb": _peak_mb(),
                  "distinct_words": result.distinct_words, "merges": len(result.model.merges),
                  **read}
    with open(args.result, "w") as f:
        json.dump(record, f)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--words", default="10,30", help="table sizes in millions of words")
    ap.add_argument("--vocab", type=int, default=32000)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--read-only", action="store_true",
                    help="only read each table (no training): the reading stage's time and peak")
    add_child_options(ap)
    args = ap.parse_args()
    if args.worker:
        child(args)
        return
    rows = []
    for millions in (int(m) for m in args.words.split(",")):
        table = generate(CACHE / f"words-{millions}m.tsv", millions)
        cmd = [sys.executable, __file__, "--worker", "train", "--corpus-file", str(table),
               "--vocab", str(args.vocab), "--threads", str(args.threads)]
        cmd += ["--read-only"] if args.read_only else []
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        log = CACHE / f"word-tables-{millions}m.log"
        rec = run_child(cmd, env, log, args.timeout)
        rec.update(millions=millions, table_bytes=table.stat().st_size)
        rows.append(rec)
        r = rec["result"]
        if r is None:
            print(f"{millions}M: failed (exit {rec['returncode']}, timed out: "
                  f"{rec['timed_out']}); see {log}", file=sys.stderr)
    print("| distinct words | table MB | read s | read peak MB | read bytes per word "
          "| train s | count s | merge s | peak RSS MB | bytes per word |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for rec in rows:
        r = rec["result"]
        if r is None:
            continue
        per_word = lambda mb: f"{mb * 2**20 / r['distinct_words']:.0f}"  # noqa: E731
        cells = [f"{r['distinct_words']:,}", f"{rec['table_bytes'] / 1e6:,.0f}"]
        cells += ([f"{r['read_s']:.1f}", f"{r['read_peak_mb']:,.0f}", per_word(r["read_peak_mb"])]
                  if "read_s" in r else ["—"] * 3)
        cells += ([f"{r['train_s']:.1f}", f"{r['count_s']:.1f}", f"{r['merge_s']:.1f}",
                   f"{r['peak_rss_mb']:,.0f}", per_word(r["peak_rss_mb"])]
                  if "train_s" in r else ["—"] * 5)
        print("| " + " | ".join(cells) + " |")
    print(f"\nload average after the runs: {os.getloadavg()[0]:.2f} (1 min)")
    args.out.mkdir(parents=True, exist_ok=True)
    out = args.out / f"word-tables-{time.strftime('%Y%m%d-%H%M%S')}.json"
    out.write_text(json.dumps({"machine": platform.platform(), "cpus": os.cpu_count(),
                               "vocab": args.vocab, "threads": args.threads,
                               "read_only": args.read_only, "load_after": os.getloadavg(),
                               "runs": rows}, indent=1))


if __name__ == "__main__":
    main()
