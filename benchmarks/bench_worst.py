#!/usr/bin/env python3
"""Worst-case encoding against input length (issue 17): CPU seconds per MB at 0.25 to 4 MB.

Inputs (one ``encode_to_numpy`` call each, a fresh tokenizer per call so no word cache
helps): ``"a" * N``, N random ASCII letters, and N bytes of each UD file with every space
removed (its words concatenated; the file repeated to reach N). Model: the ``gpt2``
preset, 32,000 tokens trained on ud_english + tinyshakespeare (as ``bench_encode.py``).

Each figure is the best of ``--repeat`` runs of CPU time (``time.process_time``: steadier
than wall clock on a shared machine). "growth" is t(2N) / t(N) averaged over the
doublings: 2.0 is linear. tiktoken (built from our model, same ids) is timed beside it,
one run per size, and skipped at larger sizes once a run passes ``--tiktoken-cap``
seconds (it is quadratic on some inputs). The load average is printed with the table.

    python3 benchmarks/bench_worst.py [--sizes 0.25,0.5,1,2,4] [--repeat 5]

Run it with another build's ``bpe_desktop`` first on PYTHONPATH for a before/after pair.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from bench_encode import build_ours, tiktoken_from_model
from common import CORPORA_DIR, require_corpora
from encode_goals import UD_SCRIPTS, worst_inputs


def cpu_best(new_tok, text: str, repeat: int) -> tuple[float, object]:
    """Best CPU time of ``encode_to_numpy(text)``, each run on a new tokenizer (built
    outside the timing), so no run finds the words of another in its cache."""
    best, out = float("inf"), None
    for _ in range(repeat):
        tok, out = new_tok(), None
        c0 = time.process_time()
        out = tok.encode_to_numpy(text)
        best = min(best, time.process_time() - c0)
    return best, out


def growth(times: list[float]) -> float:
    """Mean ratio of consecutive times (sizes doubling)."""
    ratios = [b / a for a, b in zip(times, times[1:]) if a > 0]
    return sum(ratios) / len(ratios) if ratios else float("nan")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="0.25,0.5,1,2,4", help="MB, comma list (doubling)")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--vocab", type=int, default=32000)
    ap.add_argument("--inputs", default="", help="comma list of input names (default all)")
    ap.add_argument("--tiktoken-cap", type=float, default=5.0)
    ap.add_argument("--no-tiktoken", action="store_true")
    args = ap.parse_args(argv)
    corpora = require_corpora()
    import bpe_desktop

    sizes = [int(float(s) * 1_000_000) for s in args.sizes.split(",")]
    train = [str(corpora / f"{n}.txt") for n in ("ud_english", "tinyshakespeare")]
    model = build_ours(train, args.vocab)
    enc = None if args.no_tiktoken else tiktoken_from_model(model)

    def fresh_tokenizer():
        # model.tokenizer() is built once and shared, with its word cache: a new one
        # starts with an empty cache.
        model.release_tokenizer()
        return model.tokenizer()

    ud = {n: (CORPORA_DIR / f"{n}.txt").read_text(encoding="utf-8") for n in UD_SCRIPTS}
    inputs = {size: worst_inputs(size, ud) for size in sizes}
    names = [n for n in inputs[sizes[0]] if not args.inputs or n in args.inputs.split(",")]
    load0 = os.getloadavg()
    print(f"engine: {os.path.dirname(bpe_desktop.__file__)}", file=sys.stderr)
    head = " | ".join(f"{s / 1e6:g} MB" for s in sizes)
    lines = [f"CPU s per MB (best of {args.repeat}); growth = mean t(2N) ÷ t(N), 2 = linear",
             "", f"| input | tool | {head} | growth |", "|---|---|" + "---:|" * (len(sizes) + 1)]
    for name in names:
        ours, theirs, same = [], [], True
        skip_tiktoken = enc is None
        for size in sizes:
            text = inputs[size][name]
            mb = len(text.encode("utf-8")) / 1e6
            t, ids = cpu_best(fresh_tokenizer, text, args.repeat)
            ours.append(t / mb)
            if skip_tiktoken:
                theirs.append(None)
                continue
            c0 = time.process_time()
            tids = enc.encode_ordinary(text)
            tt = time.process_time() - c0
            theirs.append(tt / mb)
            same = same and [int(i) for i in ids] == tids
            skip_tiktoken = tt * 2.5 > args.tiktoken_cap
        lines.append(f"| {name} | ours | " + " | ".join(f"{v:.4f}" for v in ours)
                     + f" | {growth([v * s for v, s in zip(ours, sizes)]):.2f} |")
        if enc is not None:
            known = [(v, s) for v, s in zip(theirs, sizes) if v is not None]
            cells = " | ".join("–" if v is None else f"{v:.4f}" for v in theirs)
            g = growth([v * s for v, s in known])
            lines.append(f"| {name} | tiktoken{'' if same else ' (ids differ!)'} | {cells} | "
                         f"{g:.2f} |")
        print(lines[-1], file=sys.stderr)
    load1 = os.getloadavg()
    lines += ["", f"load average before {load0[0]:.2f} {load0[1]:.2f}, "
                  f"after {load1[0]:.2f} {load1[1]:.2f}"]
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
