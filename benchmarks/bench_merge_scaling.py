#!/usr/bin/env python3
"""Does the merge loop cost in proportion to its work? Merge time against the merge
applications it performed, on tables that double the distinct words at the same size.

The work of exact incremental BPE is its merge applications: each time a merge rewrites
two symbols of a distinct word into one, it updates at most four neighbouring pair counts
(the pairs left and right of the old symbols lose an occurrence, those of the new one
gain one) and the merged pair's own count. The number of applications in a word is its
symbol count before training minus its token count after, so the total is read off the
final segmentation of every distinct word (unweighted by the word's count: the loop
rewrites each distinct word once per merge, whatever its frequency).

Two sets of tables, each training in a fresh process (best of ``--repeat`` merge times;
the engine's own clock around the merge stage):

* the two shared 100 MB slices, ``gutenberg`` and ``gutenberg-b`` (about 1.6x the
  distinct words of the same kind of text);
* synthetic ``word<TAB>count`` tables of ``--synthetic-words`` distinct words (each
  doubling the last), Zipf-distributed counts scaled so that every table holds about
  ``--synthetic-chars`` characters of running text.

For each step from one table to the next it prints how much the merge time and the
applications grew, and whether the time grew faster (more than 10 % beyond the
applications' growth: the tolerance of a contended machine's timings).

    python benchmarks/bench_merge_scaling.py [--presets default,gpt2] [--repeat 2]
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path

from bench_train import cpu_model, prepare_corpus
from common import CACHE, ROOT, in_child_process, require_corpora

#: Merge time may grow this much beyond the applications before it counts as faster.
TOLERANCE = 1.10


def train_once(path: str, word_counts: bool, preset: str, vocab: int) -> dict:
    """One training (in a fresh process): merge seconds, distinct words, applications."""
    sys.path.insert(0, str(ROOT))
    from bpe_desktop.core import Corpus, TrainConfig, train

    config = (TrainConfig(vocab_size=vocab) if preset == "default"
              else TrainConfig.preset(preset, vocab_size=vocab))
    result = train(Corpus.from_files([path], word_counts=word_counts), config)
    model = result.model
    # Each token's length in alphabet symbols (a special or unknown piece is one symbol).
    length = dict.fromkeys(model.alphabet, 1)
    for merge in model.merges:
        length[merge.left + merge.right] = length.get(merge.left, 1) + length.get(merge.right, 1)
    applications = 0
    segmentations = result._words.segmentations()
    for _, _, pieces in segmentations:
        applications += sum(length.get(p, 1) for p in pieces) - len(pieces)
    return {"merge_s": result.timings["merging"], "count_s": result.timings["counting"],
            "distinct_words": len(segmentations), "applications": applications,
            "merges": len(model.merges)}


def synthetic_table(words: int, chars: int, seed: int = 1) -> Path:
    """A word-count table of ``words`` distinct words, Zipf counts, ~``chars`` characters
    of running text; written once into the cache."""
    path = CACHE / f"synthetic-{words}-{chars}.tsv"
    if path.is_file():
        return path
    rng = random.Random(seed)
    # Letters with English-like frequencies, so that merges find structure to build on.
    letters = "etaoinshrdlcumwfgypbvkjxqz"
    weights = [12.7, 9.1, 8.2, 7.5, 7.0, 6.7, 6.3, 6.1, 6.0, 4.3, 4.0, 2.8, 2.8, 2.4, 2.4,
               2.2, 2.0, 2.0, 1.9, 1.5, 1.0, 0.8, 0.2, 0.2, 0.1, 0.1]
    table: dict[str, None] = {}
    while len(table) < words:
        length = min(3 + int(rng.expovariate(0.25)), 20)
        table["".join(rng.choices(letters, weights, k=length))] = None
    vocabulary = list(table)
    scale = chars / sum(len(w) / (i + 1) for i, w in enumerate(vocabulary))
    CACHE.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        f.writelines(f"{word}\t{max(1, int(scale / (i + 1)))}\n"
                     for i, word in enumerate(vocabulary))
    tmp.replace(path)
    return path


def measure(path: Path, word_counts: bool, preset: str, vocab: int, repeat: int) -> dict:
    """The best merge time of ``repeat`` fresh-process trainings, with the load around it."""
    runs = []
    for _ in range(repeat):
        load = os.getloadavg()[0]
        run = in_child_process(train_once, str(path), word_counts, preset, vocab)
        run["load"] = (load, os.getloadavg()[0])
        runs.append(run)
    best = min(runs, key=lambda r: r["merge_s"])
    if len({(r["applications"], r["merges"]) for r in runs}) != 1:
        raise SystemExit(f"{path}: the runs disagree on their merges")
    return best


def growth_table(rows: list[tuple[str, dict]]) -> str:
    lines = [("| table | distinct words | merges | applications | merge s | ns per application "
              "| load before→after | words × | applications × | merge time × | faster than the "
              "work? |"),
             "|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---|"]
    previous = None
    for name, r in rows:
        per = r["merge_s"] / r["applications"] * 1e9 if r["applications"] else float("nan")
        growth = "| — | — | — | — |"
        if previous is not None:
            words = r["distinct_words"] / previous["distinct_words"]
            work = r["applications"] / previous["applications"]
            took = r["merge_s"] / previous["merge_s"]
            verdict = "**yes**" if took > work * TOLERANCE else "no"
            growth = f"| {words:.2f} | {work:.2f} | {took:.2f} | {verdict} |"
        lines.append(f"| {name} | {r['distinct_words']:,} | {r['merges']:,} | "
                     f"{r['applications']:,} | {r['merge_s']:.3f} | {per:.0f} | "
                     f"{r['load'][0]:.1f}→{r['load'][1]:.1f} {growth}")
        previous = r
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--presets", default="default", help="comma list: default, gpt2, ...")
    ap.add_argument("--vocab", type=int, default=32000)
    ap.add_argument("--repeat", type=int, default=2, help="trainings per table; best kept")
    ap.add_argument("--synthetic-words", default="100000,200000,400000,800000",
                    help="distinct words of each synthetic table")
    ap.add_argument("--synthetic-chars", type=int, default=30_000_000,
                    help="characters of running text each synthetic table stands for")
    ap.add_argument("--no-slices", action="store_true", help="synthetic tables only")
    args = ap.parse_args(argv)
    if not args.no_slices:
        require_corpora()
    sizes = [int(n) for n in args.synthetic_words.split(",") if n.strip()]
    print(f"# merge scaling: vocab {args.vocab}, best of {args.repeat}, {os.cpu_count()} CPUs "
          f"({cpu_model()}), load {os.getloadavg()[0]:.2f}", file=sys.stderr)
    started = time.perf_counter()
    for preset in [p.strip() for p in args.presets.split(",") if p.strip()]:
        if not args.no_slices:
            rows = [(name, measure(prepare_corpus(name), False, preset, args.vocab, args.repeat))
                    for name in ("gutenberg", "gutenberg-b")]
            print(f"\nPreset {preset}, the shared 100 MB slices:\n")
            print(growth_table(rows))
        rows = [(f"synthetic {n:,}", measure(synthetic_table(n, args.synthetic_chars), True,
                                             preset, args.vocab, args.repeat)) for n in sizes]
        print(f"\nPreset {preset}, synthetic tables of ~{args.synthetic_chars:,} characters:\n")
        print(growth_table(rows))
    print(f"\n{time.perf_counter() - started:.0f} s; load at end {os.getloadavg()[0]:.2f}",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
