"""How small a batch two threads still encode faster than one (issue 17, 2-thread goal).

``encode_batch(texts, threads=2)`` shares a batch's work as pieces (the engine's
``encoder/batch.rs``); a batch under two pieces' minimum (``MIN_PIECE_BYTES``) stays on
the calling thread, because waking a helper costs about as much as encoding a few KiB.
This script measures one thread against two on one text of growing size (UD English and
Japanese slices, ``gpt2`` preset, 32,000 tokens trained on ud_english + tinyshakespeare,
warm word caches), alternating the two in each round so both see the same load:

    python3 benchmarks/encode_pieces.py [--rounds 400] [--sizes 8,16,24,32,48,64,128,256]

It prints, per size, the best and median wall time of each and the ratio of the bests
(> 1: two threads faster), and the 1-minute load before and after.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import CORPORA_DIR, require_corpora  # noqa: E402


def slice_bytes(text: str, n: int) -> str:
    """The first ``n`` UTF-8 bytes of ``text`` (whole characters), repeated if short."""
    data = text.encode("utf-8")
    while len(data) < n:
        data += data
    return data[:n].decode("utf-8", errors="ignore")


def time_pair(tok, text: str, rounds: int) -> dict:
    one, two = [], []
    for _ in range(3):  # warm both threads' word caches
        tok.encode_batch([text], threads=1)
        tok.encode_batch([text], threads=2)
    for _ in range(rounds):
        for threads, out in ((1, one), (2, two)):
            t0 = time.perf_counter()
            tok.encode_batch([text], threads=threads)
            out.append(time.perf_counter() - t0)
    return {"one": one, "two": two}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=400)
    ap.add_argument("--sizes", default="8,16,24,32,48,64,128,256", help="KiB, comma list")
    ap.add_argument("--texts", default="ud_english,ud_japanese")
    args = ap.parse_args(argv)
    require_corpora()
    from bpe_desktop.core import Corpus, TrainConfig, train

    train_files = [str(CORPORA_DIR / f"{n}.txt") for n in ("ud_english", "tinyshakespeare")]
    model = train(Corpus.from_files(train_files), TrainConfig.preset("gpt2", vocab_size=32000)).model
    tok = model.tokenizer()
    load = os.getloadavg()[0]
    print(f"| text | KiB | 1 thread best µs | 2 threads best µs | 1 / 2 (best) | "
          f"1 thread median µs | 2 threads median µs | 1 / 2 (median) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name in args.texts.split(","):
        text = (CORPORA_DIR / f"{name}.txt").read_text(encoding="utf-8")
        for kib in (int(s) for s in args.sizes.split(",")):
            t = time_pair(tok, slice_bytes(text, kib * 1024), args.rounds)
            b1, b2 = min(t["one"]) * 1e6, min(t["two"]) * 1e6
            m1, m2 = statistics.median(t["one"]) * 1e6, statistics.median(t["two"]) * 1e6
            print(f"| {name} | {kib} | {b1:.0f} | {b2:.0f} | {b1 / b2:.2f} | {m1:.0f} | {m2:.0f} | "
                  f"{m1 / m2:.2f} |")
    print(f"\n1-minute load before/after: {load:.2f} / {os.getloadavg()[0]:.2f}, "
          f"{os.cpu_count()} CPUs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
