#!/usr/bin/env python3
"""Counting and encoding speed of each byte-level pre-tokenizer (and the default).

The text is the first ``--mb`` MB of the Gutenberg slice (``gutenberg-100M.txt.gz``) with
the shared UD corpora (English, German, Russian, Hindi, Japanese) appended, so that
Cyrillic, Devanagari and Japanese are split too; written once to ``benchmarks/.cache``.
For each pre-tokenizer: counting the file's words (``engine_count``, the training's first
stage), and encoding its lines with a 2,000-merge model trained on them
(``encode_batch_flat``), and the same with tiktoken given that model's ranks and pattern
(``encode_ordinary_batch``, byte-level models); best of ``--repeat`` after a warm-up, on
``--threads`` threads. Figures are MB of text per second; the 1-minute load before and
after each pre-tokenizer is printed.

Example::

    BPE_DESKTOP_CORPORA=/work/shared/corpora python benchmarks/bench_pretokenizers.py --mb 5
"""

from __future__ import annotations

import argparse
import gzip
import os
import sys

from common import CACHE, ROOT, best, require_corpora

sys.path.insert(0, str(ROOT))

from bpe_desktop.core.config import TrainConfig  # noqa: E402
from bpe_desktop.core.counting import engine_count  # noqa: E402
from bpe_desktop.core.formats.tiktoken_ranks import token_bytes  # noqa: E402
from bpe_desktop.core.options import PRETOKENIZER_PATTERNS  # noqa: E402
from bpe_desktop.core.training import Corpus, train  # noqa: E402

PRETOKENIZERS = ("whitespace", "gpt2", "gpt4", "llama3", "gpt4o")
UD = ("ud_english", "ud_german", "ud_russian", "ud_hindi", "ud_japanese")


def corpus_file(mb: int) -> str:
    corpora = require_corpora()
    CACHE.mkdir(exist_ok=True)
    path = CACHE / f"pretokenizers-{mb}mb.txt"
    if not path.exists():
        with gzip.open(corpora / "gutenberg-100M.txt.gz", "rb") as f:
            text = f.read(mb * 1_000_000).decode("utf-8", "ignore")
        text = text[: text.rfind("\n") + 1]
        text += "".join((corpora / f"{n}.txt").read_text(encoding="utf-8") for n in UD)
        path.write_text(text, encoding="utf-8")
    return str(path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=int, default=5, help="MB of Gutenberg text (default 5)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    path = corpus_file(args.mb)
    size_mb = os.path.getsize(path) / 1e6
    lines = open(path, encoding="utf-8").read().splitlines(keepends=True)
    print(f"{size_mb:.1f} MB, {len(lines):,} lines, best of {args.repeat}, "
          f"{args.threads} thread(s)\n")
    print("| pre-tokenizer | words | counting | encoding | tiktoken encoding | "
          "load before → after |")
    print("|---|---:|---:|---:|---:|---|")
    for name in PRETOKENIZERS:
        config = TrainConfig(pretokenizer=name) if name == "whitespace" else \
            TrainConfig.preset(name)
        before = os.getloadavg()[0]
        corpus = Corpus.from_files([path])
        counted = best(lambda: engine_count(corpus, config, threads=args.threads), args.repeat)
        words = len(engine_count(corpus, config, threads=args.threads))
        model = train(corpus, config.replace(merges=2000, threads=args.threads)).model
        tok = model.tokenizer()
        encoded = best(lambda: tok.encode_batch_flat(lines, threads=args.threads), args.repeat)
        peer = "–"
        if model.config.byte_level:
            import tiktoken

            enc = tiktoken.Encoding(name, pat_str=PRETOKENIZER_PATTERNS[name], special_tokens={},
                                    mergeable_ranks={token_bytes(p): i
                                                     for i, p in enumerate(model.pieces)})
            seconds = best(lambda: enc.encode_ordinary_batch(lines, num_threads=args.threads),
                           args.repeat)
            peer = f"{size_mb / seconds:.1f} MB/s ({seconds:.2f} s)"
        after = os.getloadavg()[0]
        print(f"| `{name}` | {words:,} | {size_mb / counted:.1f} MB/s ({counted:.2f} s) | "
              f"{size_mb / encoded:.1f} MB/s ({encoded:.2f} s) | {peer} | "
              f"{before:.2f} → {after:.2f} |")


if __name__ == "__main__":
    main()
