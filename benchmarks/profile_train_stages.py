#!/usr/bin/env python3
"""Where the time of ``bpe-desktop train FILE --vocab-size V -o model.json`` goes, stage by
stage, in fresh processes (best of ``--repeat`` per stage; the 1-minute load is printed):

* interpreter start: ``python -c pass``;
* imports: ``python -c "import bpe_desktop.cli.train"`` minus the interpreter start;
* reading and counting, merging: the engine's own clocks (``TrainResult.timings``);
* the Python model: what the training call took beyond the engine's two stages
  (unpacking the engine's result, building the ``BPEModel``, the final counts);
* the JSON write: ``save_model`` of that model.

    python benchmarks/profile_train_stages.py [--corpora gutenberg,gutenberg-b]
        [--preset default] [--repeat 2]

For the engine's inner loops: ``perf record -g engine/target/release/examples/profile_train
FILE whitespace eow-symbol first-seen 32000 2`` (see benchmarks/README.md).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

from bench_train import cpu_model, prepare_corpus
from common import ROOT, compile_bytecode, in_child_process, require_corpora


def _process_seconds(code: str) -> float:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], env=env, check=True)
    return time.perf_counter() - started


def stages_once(path: str, preset: str, vocab: int) -> dict:
    """One training and model write in this (fresh) process, timed per stage."""
    sys.path.insert(0, str(ROOT))
    from bpe_desktop.core import Corpus, TrainConfig, train
    from bpe_desktop.core.model_file import save_model

    config = (TrainConfig(vocab_size=vocab) if preset == "default"
              else TrainConfig.preset(preset, vocab_size=vocab))
    started = time.perf_counter()
    result = train(Corpus.from_files([path]), config)
    trained = time.perf_counter() - started
    with tempfile.TemporaryDirectory() as folder:
        started = time.perf_counter()
        save_model(result.model, os.path.join(folder, "model.json"))
        written = time.perf_counter() - started
    counting, merging = result.timings["counting"], result.timings["merging"]
    return {"reading and counting": counting, "merging": merging,
            "Python model": trained - counting - merging, "JSON write": written}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpora", default="gutenberg,gutenberg-b")
    ap.add_argument("--preset", default="default")
    ap.add_argument("--vocab", type=int, default=32000)
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args(argv)
    require_corpora()
    compile_bytecode()
    load = os.getloadavg()[0]
    start = min(_process_seconds("pass") for _ in range(args.repeat))
    imports = min(_process_seconds("import bpe_desktop.cli.train") for _ in range(args.repeat))
    print(f"Preset {args.preset}, vocab {args.vocab}, best of {args.repeat} per stage; "
          f"{cpu_model()}; 1-min load {load:.2f} before", end="")
    rows = {"interpreter start": {}, "imports": {}}
    names = [c.strip() for c in args.corpora.split(",") if c.strip()]
    for name in names:
        runs = [in_child_process(stages_once, str(prepare_corpus(name)), args.preset, args.vocab)
                for _ in range(args.repeat)]
        rows["interpreter start"][name] = start
        rows["imports"][name] = imports - start
        for stage in runs[0]:
            rows.setdefault(stage, {})[name] = min(r[stage] for r in runs)
    print(f", {os.getloadavg()[0]:.2f} after.\n")
    print("| stage | " + " | ".join(f"{n} s" for n in names) + " |")
    print("|---|" + "---:|" * len(names))
    for stage, by_corpus in rows.items():
        print(f"| {stage} | " + " | ".join(f"{by_corpus[n]:.3f}" for n in names) + " |")
    total = {n: sum(r[n] for r in rows.values()) for n in names}
    print("| sum | " + " | ".join(f"{total[n]:.3f}" for n in names) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
