"""Parity-aware training against plain BPE on five languages of five scripts.

Trains on the UD corpora (English, German, Russian, Hindi, Japanese) at one vocabulary size
twice: plain BPE on the concatenated files, and parity-aware BPE with the first half of each
language's UDHR text as the development set. Both models then encode the second half of each
UDHR text (never seen while training or choosing), and the table gives each language's
tokens, the ratio of the most to the least expensive language, the Gini coefficient of the
per-language tokens, the total, and the training times (best of ``--repeat``, the models
taking turns; each the whole training call, counting included).

The UDHR files are translations of one document but not line-aligned (212-215 lines: some
translations split or join paragraphs), so the development set is document-aligned: each
file's first half of lines is one development document, its second half the scored one
(``--parity-dev-documents``).

    python benchmarks/bench_parity.py [--vocab-size 8000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import RESULTS, require_corpora  # noqa: E402
from bpe_desktop.core import Corpus, TrainConfig, train  # noqa: E402
from bpe_desktop.core.comparison.parity_pair import gini  # noqa: E402
from bpe_desktop.core.multilingual import train_multilingual  # noqa: E402
from bpe_desktop.core.tokenizer import Tokenizer  # noqa: E402

#: Language code, UD corpus, UDHR file.
LANGUAGES = (("en", "ud_english.txt", "eng.txt"), ("de", "ud_german.txt", "deu.txt"),
             ("ru", "ud_russian.txt", "rus.txt"), ("hi", "ud_hindi.txt", "hin.txt"),
             ("ja", "ud_japanese.txt", "jpn.txt"))


def halves(path: Path) -> tuple[str, str]:
    lines = path.read_text(encoding="utf-8").splitlines()
    middle = len(lines) // 2
    return "\n".join(lines[:middle]) + "\n", "\n".join(lines[middle:]) + "\n"


def timed_best(runs: dict, repeat: int) -> dict:
    """name -> (best seconds, model). The runs take turns, round by round, so that a
    change of the machine's load (other users) falls on all of them alike."""
    best = {name: (float("inf"), None) for name in runs}
    for _ in range(repeat):
        for name, fn in runs.items():
            started = time.perf_counter()
            model = fn()
            seconds = time.perf_counter() - started
            best[name] = (min(best[name][0], seconds), model)
    return best


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--vocab-size", type=int, default=8000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--window", type=int, default=0,
                    help="also the moving-window variant with this window (0: not run)")
    ap.add_argument("--udhr-only", nargs="*", default=[], metavar="CODE=FILE",
                    help="more languages without a UD corpus, trained on the first half of "
                         "their UDHR text (e.g. fr=fra.txt zh=cmn_hans.txt)")
    args = ap.parse_args()
    languages = LANGUAGES + tuple((code, None, udhr) for code, _, udhr in
                                  (entry.partition("=") for entry in args.udhr_only))
    corpora = require_corpora()
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        dev_entries, scored, training = [], {}, {}
        for code, ud, udhr in languages:
            dev, held_out = halves(corpora / "udhr" / udhr)
            dev_path = Path(tmp) / f"{code}.dev.txt"
            dev_path.write_text(dev, encoding="utf-8")
            dev_entries.append(f"{code}={dev_path}")
            scored[code] = held_out
            # a language without a UD corpus trains on its development half
            training[code] = str(corpora / ud) if ud else str(dev_path)
        files = list(training.values())
        config = TrainConfig(vocab_size=args.vocab_size)
        parity = config.replace(
            lang=tuple(f"{code}={path}" for code, path in training.items()),
            parity_dev=tuple(dev_entries), parity_dev_documents=True)
        runs = {"plain": lambda: train(Corpus.from_files(files), config).model,
                "parity-aware": lambda: train_multilingual(parity).model}
        if args.window:
            windowed = parity.replace(parity_window=args.window)
            runs[f"parity-aware, window {args.window}"] = \
                lambda: train_multilingual(windowed).model
        rows = {}
        for name, (seconds, model) in timed_best(runs, args.repeat).items():
            tokenizer = Tokenizer(model)
            tokens = {code: len(tokenizer.encode(text)) for code, text in scored.items()}
            counts = list(tokens.values())
            rows[name] = {"seconds": seconds, "tokens": tokens, "total": sum(counts),
                          "max_min": max(counts) / min(counts), "gini": gini(counts),
                          "merges": len(model.merges)}
            print(f"{name}: {seconds:.2f} s, {tokens}", file=sys.stderr)
    load_after = os.getloadavg()
    plain = rows["plain"]
    codes = list(scored)
    print(f"vocabulary {args.vocab_size:,}; best of {args.repeat}; load "
          f"{load_before[0]:.2f} before, {load_after[0]:.2f} after\n")
    print("| model | " + " | ".join(codes) + " | total | max/min | Gini | train s |")
    print("|---|" + "---:|" * (len(codes) + 4))
    for name, row in rows.items():
        print(f"| {name} | " + " | ".join(f"{row['tokens'][c]:,}" for c in codes)
              + f" | {row['total']:,} | {row['max_min']:.3f} | {row['gini']:.4f} | "
              f"{row['seconds']:.2f} |")
    for name, row in rows.items():
        if name == "plain":
            continue
        print(f"\n{name} vs plain: max/min {row['max_min'] / plain['max_min'] - 1:+.1%}, "
              f"total tokens {row['total'] / plain['total'] - 1:+.1%}, training time "
              f"{row['seconds'] / plain['seconds']:.2f}x")
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "parity.json").write_text(json.dumps(
        {"rows": rows, "load": [load_before, load_after], "vocab_size": args.vocab_size,
         "udhr_only": args.udhr_only},
        indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
