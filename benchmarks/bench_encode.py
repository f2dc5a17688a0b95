#!/usr/bin/env python3
"""Encoding benchmark: BPE Desktop's tokenizer against HF tokenizers and tiktoken.

Models (vocabulary ``--vocab``, default 32k, byte-level GPT-2 pre-tokenization), all
trained on the same files (``--train-on``, default ud_english + tinyshakespeare):

* ours      ``TrainConfig.preset("gpt2", vocab_size=V)``;
* hf        HF's own ``ByteLevel(add_prefix_space=False)`` + ``BpeTrainer`` model;
* tiktoken  a ``tiktoken.Encoding`` built from *our* model: GPT-2 ``pat_str``,
            ``mergeable_ranks`` = our token bytes -> our token id (the 256 single bytes
            take ids 0..255 in our alphabet's order, merged tokens follow in merge
            order), so its ids are comparable with ours.

Measured, one thread unless stated, on the same ~``--chunk-kb`` chunks (cut at line
ends) of each text: ud_english, tinyshakespeare and the first ``--gutenberg-mb`` MB of
gutenberg-100M:

=====================  =====================================================
ours numpy             ``tokenizer.encode_to_numpy(chunk)`` for each chunk
ours batch x1 / x2     ``tokenizer.encode_batch(chunks, threads=1 / 2)``
hf batch               ``Tokenizer.encode_batch(chunks)``, RAYON_NUM_THREADS=1
hf batch_fast          ``Tokenizer.encode_batch_fast(chunks)`` (no offsets)
tiktoken               ``Encoding.encode_ordinary(chunk)`` for each chunk
=====================  =====================================================

Throughput is UTF-8 input bytes / best-of-``--repeat`` seconds, after one warm-up pass.
Worst cases: ``"a" * 1_000_000`` and 1 MB of random ASCII letters, one ``encode``
call each; the target is <= 1 s.

Each tool runs in its own process (``RAYON_NUM_THREADS=1`` for HF), worst cases in a
separate process with a timeout, so a quadratic encoder cannot hang the run.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import platform
import random
import string
import subprocess
import sys
import time
from pathlib import Path

from common import CACHE, CORPORA_DIR, RESULTS, ROOT, require_corpora  # noqa: E402

GPT2_PAT = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""

TOOLS = ("ours", "hf", "tiktoken")
#: (tool process, mode) rows in display order.
MODES = [("ours", "numpy"), ("ours", "batch1"), ("ours", "batch2"),
         ("hf", "batch"), ("hf", "batch_fast"), ("tiktoken", "encode_ordinary")]
MODE_LABEL = {"numpy": "encode_to_numpy", "batch1": "encode_batch ×1 thread",
              "batch2": "encode_batch ×2 threads", "batch": "encode_batch",
              "batch_fast": "encode_batch_fast", "encode_ordinary": "encode_ordinary"}
WORST = ("a*1M", "random-letters-1MB")


# =========================================================================================
# Shared helpers
# =========================================================================================


def _import_ours():
    try:
        import bpe_desktop.core as core
    except ImportError:
        sys.path.insert(0, str(ROOT))
        import bpe_desktop.core as core
    return core


def bytes_to_unicode() -> dict[int, str]:
    """GPT-2's byte -> printable character map."""
    bs = (list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1))
          + list(range(ord("®"), ord("ÿ") + 1)))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, map(chr, cs)))


def read_text(path: Path) -> str:
    with open(path, encoding="utf-8", newline="") as f:
        return f.read().removeprefix("\ufeff").replace("\r\n", "\n")


def chunks_of(text: str, size: int) -> list[str]:
    """Pieces of about ``size`` characters, cut after a newline when there is one."""
    out, start, n = [], 0, len(text)
    while start < n:
        end = min(n, start + size)
        if end < n:
            nl = text.rfind("\n", start, end)
            if nl > start:
                end = nl + 1
        out.append(text[start:end])
        start = end
    return out


def worst_inputs() -> dict[str, str]:
    rng = random.Random(0)
    return {"a*1M": "a" * 1_000_000,
            "random-letters-1MB": "".join(rng.choices(string.ascii_letters, k=1_000_000))}


def _ids_digest(arrays) -> str:
    h = hashlib.sha256()
    for a in arrays:
        h.update(bytes(memoryview(_as_u32(a))))
    return h.hexdigest()[:12]


def _as_u32(ids):
    import numpy as np

    return np.ascontiguousarray(np.asarray(ids, dtype=np.uint32))


# =========================================================================================
# Child side
# =========================================================================================


def build_ours(train_files: list[str], vocab: int):
    core = _import_ours()
    config = core.TrainConfig.preset("gpt2", vocab_size=vocab)
    model = core.train(core.Corpus.from_files(train_files), config).model
    return model


def build_hf(train_files: list[str], vocab: int, cache_file: Path):
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    if cache_file.is_file():
        return Tokenizer.from_file(str(cache_file))
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    trainer = trainers.BpeTrainer(vocab_size=vocab, min_frequency=0, show_progress=False,
                                  special_tokens=[],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train(train_files, trainer)
    cache_file.parent.mkdir(parents=True, exist_ok=True)
    tok.save(str(cache_file))
    return tok


def tiktoken_from_model(model):
    """A tiktoken Encoding whose ranks are our token ids (bytes -> id)."""
    import tiktoken

    byte_of = {c: b for b, c in bytes_to_unicode().items()}
    ranks = {}
    for i, piece in enumerate(model.pieces):
        ranks[bytes(byte_of[c] for c in piece)] = i
    single = [r for b, r in ranks.items() if len(b) == 1]
    assert sorted(single) == list(range(256)), "single bytes must take ranks 0..255"
    return tiktoken.Encoding(name="bpe-desktop", pat_str=GPT2_PAT, mergeable_ranks=ranks,
                             special_tokens={})


def _model_digest(pieces, merges) -> str:
    """Vocabulary (in id order) + merge list: equal digests mean interchangeable ids."""
    h = hashlib.sha256()
    for p in pieces:
        h.update(p.encode("utf-8") + b"\n")
    h.update(b"--\n")
    for a, b in merges:
        h.update(f"{a} {b}\n".encode("utf-8"))
    return h.hexdigest()[:12]


def _encoders(tool: str, args):
    """mode -> callable(list of chunks) -> list of id sequences; plus single-text encoders.

    Also returns the model digest (see :func:`_model_digest`).
    """
    if tool == "ours":
        model = build_ours(args.train_files, args.vocab)
        digest = _model_digest(model.pieces, [(m.left, m.right) for m in model.merges])
        tok = model.tokenizer()
        batch = {
            "numpy": lambda cs: [tok.encode_to_numpy(c) for c in cs],
            "batch1": lambda cs: tok.encode_batch(cs, threads=1),
            "batch2": lambda cs: tok.encode_batch(cs, threads=2),
        }
        return batch, tok.encode_to_numpy, digest
    if tool == "hf":
        tok = build_hf(args.train_files, args.vocab, Path(args.hf_cache))
        data = json.loads(tok.to_str())["model"]
        pieces = [p for p, _ in sorted(data["vocab"].items(), key=lambda kv: kv[1])]
        merges = [m if isinstance(m, list) else m.split(" ", 1) for m in data["merges"]]
        digest = _model_digest(pieces, merges)
        batch = {
            "batch": lambda cs: [e.ids for e in tok.encode_batch(cs, add_special_tokens=False)],
            "batch_fast": lambda cs: [e.ids for e in tok.encode_batch_fast(
                cs, add_special_tokens=False)],
        }
        return batch, lambda t: tok.encode(t, add_special_tokens=False).ids, digest
    if tool == "tiktoken":
        model = build_ours(args.train_files, args.vocab)
        digest = _model_digest(model.pieces, [(m.left, m.right) for m in model.merges])
        enc = tiktoken_from_model(model)
        batch = {"encode_ordinary": lambda cs: [enc.encode_ordinary(c) for c in cs]}
        return batch, enc.encode_ordinary, digest
    raise SystemExit(f"unknown tool {tool}")


def worker(args) -> None:
    batch, single, digest = _encoders(args.worker, args)
    out: dict = {"tool": args.worker, "phase": args.phase, "model_sha": digest, "rows": []}
    if args.phase == "throughput":
        for text_path in args.texts:
            text = read_text(Path(text_path))
            chunks = chunks_of(text, args.chunk_kb * 1024)
            nbytes = sum(len(c.encode("utf-8")) for c in chunks)
            for mode, fn in batch.items():
                ids = fn(chunks)  # warm-up (and the ids for the sanity columns)
                times = []
                for _ in range(args.repeat):
                    t0 = time.perf_counter()
                    fn(chunks)
                    times.append(time.perf_counter() - t0)
                best = min(times)
                out["rows"].append({
                    "text": Path(text_path).stem, "mode": mode, "bytes": nbytes,
                    "chunks": len(chunks), "seconds": best, "mb_s": nbytes / 1e6 / best,
                    "tokens": int(sum(len(i) for i in ids)), "ids_sha": _ids_digest(ids),
                })
    else:
        for name, text in worst_inputs().items():
            t0 = time.perf_counter()
            ids = single(text)
            dt = time.perf_counter() - t0
            out["rows"].append({"text": name, "mode": "encode", "bytes": len(text),
                                "seconds": dt, "tokens": len(ids)})
    with open(args.result, "w") as f:
        json.dump(out, f)


# =========================================================================================
# Parent side
# =========================================================================================


def prepare_texts(names: list[str], gutenberg_mb: int) -> list[Path]:
    paths = []
    for name in names:
        if name != "gutenberg":
            p = CORPORA_DIR / f"{name}.txt"
            if not p.is_file():
                raise SystemExit(f"missing corpus {p} (set BPE_DESKTOP_CORPORA)")
            paths.append(p)
            continue
        CACHE.mkdir(parents=True, exist_ok=True)
        dst = CACHE / f"gutenberg-{gutenberg_mb}MB.txt"
        if not dst.is_file():
            full = CACHE / "gutenberg-100M.txt"
            want = gutenberg_mb * 1_000_000
            if full.is_file():
                with open(full, "rb") as f:
                    data = f.read(want)
            else:
                with gzip.open(CORPORA_DIR / "gutenberg-100M.txt.gz", "rb") as f:
                    data = f.read(want)
            data = data[: data.rfind(b"\n") + 1]  # whole lines (and whole characters)
            tmp = dst.with_suffix(".tmp")
            tmp.write_bytes(data)
            tmp.replace(dst)
        paths.append(dst)
    return paths


def run_worker(tool: str, phase: str, args, texts: list[Path], hf_cache: Path,
               timeout: float) -> dict:
    env = dict(os.environ)
    if tool == "hf":
        env["RAYON_NUM_THREADS"] = "1"
        env["TOKENIZERS_PARALLELISM"] = "false"
    result = CACHE / f"enc-{tool}-{phase}-{os.getpid()}.json"
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", tool, "--phase", phase,
           "--vocab", str(args.vocab), "--repeat", str(args.repeat),
           "--chunk-kb", str(args.chunk_kb), "--hf-cache", str(hf_cache),
           "--result", str(result), "--train-files", *map(str, args.train_paths),
           "--texts", *map(str, texts)]
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:  # subprocess.run kills its own child
        return {"tool": tool, "phase": phase, "error": f"timeout after {timeout:.0f} s",
                "rows": []}
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        tail = "\n".join((proc.stderr or proc.stdout).strip().splitlines()[-6:])
        return {"tool": tool, "phase": phase, "error": tail, "rows": []}
    with open(result) as f:
        data = json.load(f)
    result.unlink()
    data["wall"] = wall
    return data


def render(results: list[dict], texts: list[str]) -> str:
    rows = {}
    model_sha = {}
    for r in results:
        if r["phase"] != "throughput":
            continue
        model_sha[r["tool"]] = r.get("model_sha")
        for row in r["rows"]:
            rows[(row["text"], r["tool"], row["mode"])] = row
    lines = ["| text | MB | tool | API | MB/s | ours numpy ÷ this | tokens | same ids as ours |",
             "|---|---:|---|---|---:|---:|---:|---|"]
    for text in texts:
        base = rows.get((text, "ours", "numpy"))
        for tool, mode in MODES:
            row = rows.get((text, tool, mode))
            if row is None:
                continue
            ratio = f"{base['mb_s'] / row['mb_s']:.2f}×" if base else "—"
            if model_sha.get(tool) != model_sha.get("ours"):
                same = "n/a (different model)"
            elif base:
                same = "yes" if row["ids_sha"] == base["ids_sha"] else "no"
            else:
                same = "—"
            lines.append(f"| {text} | {row['bytes'] / 1e6:.2f} | {tool} | {MODE_LABEL[mode]} | "
                         f"{row['mb_s']:.2f} | {ratio} | {row['tokens']} | {same} |")
        b1 = rows.get((text, "ours", "batch1"))
        b2 = rows.get((text, "ours", "batch2"))
        if b1 and b2:
            lines.append(f"| {text} |  | ours | 2 threads ÷ 1 thread |  | "
                         f"{b2['mb_s'] / b1['mb_s']:.2f}× speed-up |  |  |")
    return "\n".join(lines)


def render_worst(results: list[dict]) -> str:
    lines = ["| input | tool | seconds | ≤ 1 s | tokens |", "|---|---|---:|---|---:|"]
    by = {}
    for r in results:
        if r["phase"] != "worst":
            continue
        if r.get("error"):
            for name in WORST:
                by[(name, r["tool"])] = None, r["error"].splitlines()[-1][:60]
        for row in r["rows"]:
            by[(row["text"], r["tool"])] = row, None
    for name in WORST:
        for tool in TOOLS:
            if (name, tool) not in by:
                continue
            row, err = by[(name, tool)]
            if row is None:
                lines.append(f"| {name} | {tool} | {err} | no |  |")
            else:
                ok = "yes" if row["seconds"] <= 1.0 else "**no**"
                lines.append(f"| {name} | {tool} | {row['seconds']:.3f} | {ok} | "
                             f"{row['tokens']} |")
    return "\n".join(lines)


def run_goals(args) -> int:
    """Issue 17's goals in this process: ours and tiktoken (from our model) side by side."""
    import encode_goals

    names = args.texts or ["gutenberg", *encode_goals.UD_SCRIPTS]
    if args.quick:
        names = [n for n in names if n != "gutenberg"]
    paths = prepare_texts(names, args.gutenberg_mb)
    train = [CORPORA_DIR / f"{n.strip()}.txt" for n in args.train_on.split(",") if n.strip()]
    model = build_ours([str(p) for p in train], args.vocab)
    enc = tiktoken_from_model(model)
    texts = {(p.stem if p.parent != CACHE else "gutenberg"): read_text(p) for p in paths}

    def new_tokenizer():
        """A new tokenizer with an empty word cache (``model.tokenizer()`` alone is the
        model's cached one, whose cache the earlier runs filled)."""
        model.release_tokenizer()
        return model.tokenizer()

    md, data = encode_goals.run(new_tokenizer, enc, texts, chunks_of, args.chunk_kb, args.repeat,
                                not args.no_worst)
    print(md)
    args.out.mkdir(parents=True, exist_ok=True)
    out_path = args.out / f"encode-goals-{time.strftime('%Y%m%d-%H%M%S')}.json"
    with open(out_path, "w") as f:
        json.dump({"benchmark": "encode-goals", "vocab": args.vocab, "repeat": args.repeat,
                   "platform": platform.platform(), **data, "markdown": md}, f, indent=1,
                  default=str)
    print(f"\nresults: {out_path}", file=sys.stderr)
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--vocab", type=int, default=32000)
    ap.add_argument("--repeat", type=int, default=3, help="timed passes (best kept)")
    ap.add_argument("--tools", default=",".join(TOOLS), help="comma list of ours,hf,tiktoken")
    ap.add_argument("--texts", nargs="*", default=None,
                    help="(parent) text names: ud_english tinyshakespeare gutenberg; "
                         "(worker) paths")
    ap.add_argument("--train-on", default="ud_english,tinyshakespeare",
                    help="comma list of corpus names the models are trained on")
    ap.add_argument("--gutenberg-mb", type=int, default=10, help="size of the gutenberg slice")
    ap.add_argument("--chunk-kb", type=int, default=128, help="chunk size, KiB of characters")
    ap.add_argument("--no-worst", action="store_true", help="skip the worst-case inputs")
    ap.add_argument("--quick", action="store_true", help="no gutenberg slice")
    ap.add_argument("--timeout", type=float, default=900)
    ap.add_argument("--goals", action="store_true",
                    help="measure issue 17's encoding goals (see encode_goals.py) instead")
    ap.add_argument("--out", type=Path, default=RESULTS)
    # internal
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--phase", help=argparse.SUPPRESS)
    ap.add_argument("--result", help=argparse.SUPPRESS)
    ap.add_argument("--hf-cache", help=argparse.SUPPRESS)
    ap.add_argument("--train-files", nargs="*", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    require_corpora()

    if args.worker:
        worker(args)
        return 0

    if args.goals:
        return run_goals(args)
    tools = [t.strip() for t in args.tools.split(",") if t.strip()]
    for t in tools:
        if t not in TOOLS:
            ap.error(f"unknown tool {t!r}")
    names = args.texts or ["ud_english", "tinyshakespeare", "gutenberg"]
    if args.quick:
        names = [n for n in names if n != "gutenberg"]
    texts = prepare_texts(names, args.gutenberg_mb)
    train_names = [n.strip() for n in args.train_on.split(",") if n.strip()]
    args.train_paths = [CORPORA_DIR / f"{n}.txt" for n in train_names]
    key = hashlib.sha256(f"{args.vocab} {train_names}".encode()).hexdigest()[:10]
    hf_cache = CACHE / f"enc-hf-model-{key}.json"
    CACHE.mkdir(parents=True, exist_ok=True)

    load_before = os.getloadavg()
    print(f"# encoding benchmark: vocab {args.vocab}, models trained on {', '.join(train_names)}, "
          f"{args.chunk_kb} KiB chunks, best of {args.repeat}, load {load_before[0]:.2f}",
          file=sys.stderr)
    if load_before[0] > 0.5:
        print(f"warning: the machine is busy (1-min load {load_before[0]:.2f})", file=sys.stderr)
    results = []
    for tool in tools:
        r = run_worker(tool, "throughput", args, texts, hf_cache, args.timeout)
        results.append(r)
        print(f"  {tool:9} throughput: {r.get('error') or 'ok'}", file=sys.stderr)
    if not args.no_worst:
        for tool in tools:
            r = run_worker(tool, "worst", args, [], hf_cache, min(args.timeout, 120))
            results.append(r)
            print(f"  {tool:9} worst cases: {r.get('error') or 'ok'}", file=sys.stderr)
    load_after = os.getloadavg()

    text_names = [p.stem for p in texts]
    md = render(results, text_names)
    print(f"Encoding, byte-level {args.vocab} vocab, 1 thread unless stated, "
          f"{args.chunk_kb} KiB chunks, best of {args.repeat}; {os.cpu_count()} CPUs; "
          f"1-min load before/after {load_before[0]:.2f}/{load_after[0]:.2f}. "
          "\"ours numpy ÷ this\" > 1 means ours is faster.")
    print()
    print(md)
    digests = {r["tool"]: r.get("model_sha") for r in results if r["phase"] == "throughput"}
    print()
    print("Model digests (vocabulary in id order + merges; equal = same ids): "
          + ", ".join(f"{t} {d}" for t, d in digests.items()))
    worst_md = ""
    if not args.no_worst:
        worst_md = render_worst(results)
        print()
        print("Worst cases (one encode call, 1 thread):")
        print()
        print(worst_md)
    args.out.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    out_path = args.out / f"encode-{stamp}.json"
    with open(out_path, "w") as f:
        json.dump({"benchmark": "encode", "stamp": stamp, "vocab": args.vocab,
                   "train_on": train_names, "chunk_kb": args.chunk_kb, "repeat": args.repeat,
                   "cpus": os.cpu_count(), "platform": platform.platform(),
                   "load_before": load_before, "load_after": load_after,
                   "results": results, "markdown": md, "worst_markdown": worst_md}, f, indent=1)
    print(f"\nresults: {out_path}", file=sys.stderr)
    return 1 if any(r.get("error") for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
