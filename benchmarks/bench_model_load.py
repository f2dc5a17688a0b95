"""Opening a model: load + tokenizer against HF tokenizers, the heap it holds, and a
one-line ``bpe-desktop encode`` process against a one-line HF script.

    python benchmarks/bench_model_load.py [--corpus FILE] [--vocab-size 32000] [--repeat 20]

Trains a model (gpt2 preset) on ``--corpus`` (default: the first 20 MB of
``gutenberg-100M.txt.gz`` from the corpora folder, else the texts in ``tests/data``),
exports it as ``tokenizer.json``, then measures in one run, best of ``--repeat``:

* ``load_model(path).tokenizer()`` vs ``tokenizers.Tokenizer.from_file`` (goal ≤ 0.5×);
* the Python heap a loaded model with its tokenizer holds (tracemalloc after
  ``gc.collect()``; goal ≤ 3 MB);
* ``echo LINE | python -m bpe_desktop.cli encode -m model.json`` vs ``python -c`` loading
  the tokenizer.json with HF tokenizers and encoding the line (whole processes; goal ≤ 2×).
"""

from __future__ import annotations

import argparse
import gc
import gzip
import os
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from benchmarks.common import CACHE, CORPORA_DIR, best, compile_bytecode

LINE = "The quick brown fox jumps over the lazy dog, twice; naïve café owners watch."
SLICE_BYTES = 20_000_000


def default_corpus() -> Path:
    """A slice of gutenberg-100M if the corpora are there, else the test data's texts."""
    CACHE.mkdir(parents=True, exist_ok=True)
    packed = CORPORA_DIR / "gutenberg-100M.txt.gz"
    out = CACHE / ("gutenberg-20M.txt" if packed.exists() else "tests-data.txt")
    if not out.exists():
        if packed.exists():
            with gzip.open(packed, "rb") as src:
                data = src.read(SLICE_BYTES)
            out.write_bytes(data[: data.rfind(b"\n") + 1])
        else:
            texts = sorted((ROOT / "tests" / "data").glob("*.txt"))
            out.write_bytes(b"\n".join(p.read_bytes() for p in texts))
    return out


def cli(*args: str, stdin: str | None = None) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "bpe_desktop.cli", *args], input=stdin,
                          capture_output=True, text=True, env=env, check=True)
    return done.stdout


def timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def process_time(cmd: list[str], stdin: str, repeat: int) -> float:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return best(lambda: subprocess.run(cmd, input=stdin, capture_output=True, text=True,
                                       env=env, check=True), repeat)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", type=Path, help="training text (default: see the module doc)")
    ap.add_argument("--vocab-size", type=int, default=32_000)
    ap.add_argument("--repeat", type=int, default=20)
    args = ap.parse_args()
    compile_bytecode()

    from tokenizers import Tokenizer as HF

    from bpe_desktop.core.model_file import load_model

    corpus = args.corpus or default_corpus()
    model_path = CACHE / f"load-{args.vocab_size}.json"
    hf_path = CACHE / f"load-{args.vocab_size}.tokenizer.json"
    load_before = os.getloadavg()[0]
    if not model_path.exists() or model_path.stat().st_mtime < corpus.stat().st_mtime:
        print(f"training on {corpus} ...", file=sys.stderr)
        cli("train", str(corpus), "--preset", "gpt2", "--vocab-size", str(args.vocab_size),
            "-o", str(model_path), "-q")
    cli("export", "-m", str(model_path), "--format", "hf", "-o", str(hf_path), "-q")

    def ours():
        return load_model(model_path).tokenizer()

    ours()
    HF.from_file(str(hf_path))
    # Interleaved, so that both see the same load.
    hf_times, our_times = [], []
    for _ in range(args.repeat):
        hf_times.append(timed(lambda: HF.from_file(str(hf_path))))
        our_times.append(timed(ours))
    hf_s, our_s = min(hf_times), min(our_times)

    gc.collect()
    tracemalloc.start()
    kept = ours()
    kept.encode(LINE)
    gc.collect()
    heap = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    del kept

    ours_cmd = [sys.executable, "-m", "bpe_desktop.cli", "encode", "-m", str(model_path)]
    one_liner = ("import sys; from tokenizers import Tokenizer; "
                 f"t = Tokenizer.from_file({str(hf_path)!r}); "
                 "print(' '.join(t.encode(sys.stdin.readline().rstrip('\\n')).tokens))")
    hf_cmd = [sys.executable, "-c", one_liner]
    stdin = LINE + "\n"
    hf_proc = process_time(hf_cmd, stdin, max(3, args.repeat // 4))
    our_proc = process_time(ours_cmd, stdin, max(3, args.repeat // 4))
    load_after = os.getloadavg()[0]

    model = load_model(model_path)
    print(f"model: {model_path.name}, {model.vocab_size:,} tokens, "
          f"{model_path.stat().st_size / 1e6:.1f} MB; corpus {corpus.name}")
    print(f"1-minute load {load_before:.2f} before, {load_after:.2f} after\n")
    print("| measure | ours | HF tokenizers | ratio | goal |")
    print("|---|---:|---:|---:|---|")
    print(f"| load + tokenizer (best of {args.repeat}) | {our_s * 1e3:.1f} ms | "
          f"{hf_s * 1e3:.1f} ms | {our_s / hf_s:.2f}× | ≤ 0.5× |")
    print(f"| Python heap held (tracemalloc) | {heap / 1e6:.3f} MB | | | ≤ 3 MB |")
    print(f"| one-line encode, whole process (best of {max(3, args.repeat // 4)}) | "
          f"{our_proc * 1e3:.0f} ms | {hf_proc * 1e3:.0f} ms | {our_proc / hf_proc:.2f}× | ≤ 2× |")


if __name__ == "__main__":
    main()
