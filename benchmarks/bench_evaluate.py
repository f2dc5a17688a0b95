#!/usr/bin/env python3
"""Evaluation benchmark: the 20-point vocabulary-size sweep (goal: <= 2 s).

One model per preset (``--presets``, default sennrich and gpt2), vocabulary ``--vocab``
(default 16000), trained on ud_english; evaluated on the first 1 MB of tinyshakespeare
(cut at a line end) and the first 2,000 surface words of SIGMORPHON 2022's English dev
file. Measured, best of ``--repeat`` (3), in this process after one warm-up:

* ``sample``: cutting the text into pre-tokens once (shared by every size);
* ``sweep``: the 20 points: morphology on the 2,000 words and text statistics each;
* ``total``: :func:`bpe_desktop.core.evaluation.evaluate` end to end (full-size
  morphology and text statistics, then the sweep), as the CLI and the panel run it.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace

from common import CORPORA_DIR, ROOT, best, first_megabyte, require_corpora

sys.path.insert(0, str(ROOT))

from bpe_desktop.core import Corpus, TrainConfig, train
from bpe_desktop.core.evaluation import (
    EvaluationRequest,
    TextSample,
    evaluate,
    read_gold,
    run_sweep,
    sweep_merge_counts,
)

GOLD_WORDS = 2_000


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--presets", default="sennrich,gpt2")
    ap.add_argument("--vocab", type=int, default=16000)
    ap.add_argument("--points", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    require_corpora()
    lines = first_megabyte()
    gold = read_gold(CORPORA_DIR / "morph" / "eng.word.dev.tsv")
    gold = replace(gold, words=gold.words[:GOLD_WORDS], not_surface=0)
    print(f"text: {sum(len(s.encode()) + 1 for s in lines):,} bytes, {len(lines):,} lines; "
          f"gold: {len(gold.words):,} words", file=sys.stderr)
    print("| preset | vocabulary | points | sample s | sweep s | total s | goal ≤ 2 s |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for preset in args.presets.split(","):
        model = train(Corpus.from_files([str(CORPORA_DIR / "ud_english.txt")]),
                      TrainConfig.preset(preset, vocab_size=args.vocab)).model
        counts = sweep_merge_counts(model, args.points)
        sample = TextSample.from_lines(model, lines)
        t_sample = best(lambda m=model: TextSample.from_lines(m, lines), args.repeat)
        t_sweep = best(lambda m=model, c=counts, s=sample: run_sweep(m, c, gold=[gold], text=s),
                       args.repeat)
        request = EvaluationRequest(gold=[gold], texts=["\n".join(lines)], sweep=args.points)
        t_total = best(lambda m=model, r=request: evaluate(m, r), args.repeat)
        met = "met" if t_total <= 2.0 else "not met"
        print(f"| {preset} | {model.vocab_size:,} | {len(counts)} | {t_sample:.2f} | "
              f"{t_sweep:.2f} | {t_total:.2f} | {met} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
