#!/usr/bin/env python3
"""Comparison and BPE-dropout benchmark.

Models trained on ud_english (``--vocab``, default 16000 and a quarter of it); text: the
first 1 MB of tinyshakespeare (cut at a line end). Measured, best of ``--repeat`` (3),
after one warm-up:

* ``compare``: :func:`bpe_desktop.core.comparison.compare` of the two sizes (what
  ``bpe-desktop compare`` and the Compare panel run), per preset;
* ``encode``: one ``Tokenizer.encode`` of the whole text, ordinary and with dropout
  0.1 (seeded), and HF tokenizers with the same model exported with ``dropout=0.1``
  (``--no-peer`` skips it), in MB/s.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from common import CORPORA_DIR, ROOT, best, first_megabyte, require_corpora

sys.path.insert(0, str(ROOT))

from bpe_desktop.core import Corpus, TrainConfig, train
from bpe_desktop.core.comparison import compare
from bpe_desktop.core.formats import export_model



def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--presets", default="sennrich,subword-nmt,gpt2")
    ap.add_argument("--vocab", type=int, default=16000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-peer", action="store_true")
    args = ap.parse_args()
    require_corpora()
    lines = first_megabyte()
    text = "\n".join(lines)
    mb = len(text.encode()) / 1e6
    print(f"text: {mb:.2f} MB, {len(lines):,} lines", file=sys.stderr)
    print("| preset | vocabularies | compare s | encode MB/s | dropout 0.1 MB/s | "
          "HF dropout 0.1 MB/s |")
    print("|---|---|---:|---:|---:|---:|")
    for preset in args.presets.split(","):
        corpus = Corpus.from_files([str(CORPORA_DIR / "ud_english.txt")])
        big = train(corpus, TrainConfig.preset(preset, vocab_size=args.vocab)).model
        small = train(corpus, TrainConfig.preset(preset, vocab_size=args.vocab // 4)).model
        t_compare = best(lambda b=big, s=small: compare([("big", b), ("small", s)], lines),
                         args.repeat)
        tok = big.tokenizer()
        t_plain = best(lambda t=tok: t.encode(text), args.repeat)
        t_drop = best(lambda t=tok: t.encode(text, dropout=0.1, seed=1), args.repeat)
        peer = "–"
        if not args.no_peer and preset != "sennrich":  # hf cannot hold eow-symbol
            from tokenizers import Tokenizer

            with tempfile.TemporaryDirectory() as tmp:
                path = Path(tmp) / "tokenizer.json"
                export_model(big, "hf", path, dropout=0.1)
                hf = Tokenizer.from_file(str(path))
            t_hf = best(lambda h=hf: h.encode(text, add_special_tokens=False), args.repeat)
            peer = f"{mb / t_hf:.1f}"
        print(f"| {preset} | {big.vocab_size:,} / {small.vocab_size:,} | {t_compare:.2f} | "
              f"{mb / t_plain:.1f} | {mb / t_drop:.1f} | {peer} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
