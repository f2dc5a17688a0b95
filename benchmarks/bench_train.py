#!/usr/bin/env python3
"""Training benchmark: BPE Desktop against HF tokenizers, sentencepiece, YouTokenToMe and subword-nmt.

Every training runs in a fresh Python process. The parent measures

* ``wall``  - perf_counter around the whole child (interpreter start, imports, reading,
  training, the merge-count sanity check);
* ``train`` - the child's own perf_counter around the training call only;
* ``RSS``   - the child's peak resident set size, from ``os.wait4`` (the kernel's
  ``ru_maxrss`` for that one child; never below the parent's own peak, so generated
  corpora are written by a child process: ``common.in_child_process``).

Each (corpus, tool) is run ``--repeat`` times, interleaved, and the best time / lowest
peak is kept. Pairings (ours / peer, same corpus, same vocabulary, same thread count):

====================  ==========================================================
ours-gpt2 / hf        GPT-2 byte-level pre-tokenization; HF ``ByteLevel`` with the
                      256-byte initial alphabet, ``RAYON_NUM_THREADS=threads``
ours-spm / spm        sentencepiece-style words (``▁`` prefix); spm ``model_type=bpe``,
                      identity normalization, no script/number splitting
ours-snmt / snmt      subword-nmt preset; ``learn_bpe(num_symbols=vocab,
                      min_frequency=2)``; small corpora only (pure Python, slow)
ours-gpt2 / yttm      YouTokenToMe ``BPE.train(vocab_size=vocab, n_threads=threads)``
                      (its own whitespace words with a ``▁`` prefix; speed only)
ours-gpt2 / spm       speed only: the goal is against the faster of spm and yttm
ours-default / spm,   the default settings (``TrainConfig()``: whitespace words,
yttm, hf              ``</w>``, first-seen ties) against the three fast peers
====================  ==========================================================

YouTokenToMe installs with ``pip install "cython<3" wheel setuptools`` then
``pip install --no-build-isolation youtokentome``.

Examples::

    python benchmarks/bench_train.py --quick              # small corpora only
    python benchmarks/bench_train.py --tools hf,spm       # peers only
    python benchmarks/bench_train.py --corpora gutenberg --repeat 1
    python benchmarks/bench_train.py                      # everything, best of 3
    python benchmarks/bench_train.py --corpora gutenberg,gutenberg-1g --repeat 1 \
        --tools ours-default,ours-gpt2,spm,yttm,hf --no-gz   # 100 MB and 1 GB (~12 min)

``gutenberg-1g`` is the 1 GB corpus of ``bench_large_corpus.py`` (the 100 MB text ten
times, a quarter of the lines of each copy altered), written once into the cache; it is
not run unless named.

The Markdown table goes to stdout; all raw runs go to ``benchmarks/results/train-*.json``.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import platform
import shutil
import sys
import tempfile
import time
from pathlib import Path

from common import CACHE, CORPORA_DIR, ROOT, add_child_options, comma_list, require_corpora  # noqa: E402
from common import in_child_process, run_child  # noqa: E402

#: name -> (source file, kind). "gz" corpora are decompressed once into CACHE for the peers.
CORPORA = {
    "tinyshakespeare": "tinyshakespeare.txt",
    "ud_english": "ud_english.txt",
    "gutenberg": "gutenberg-100M.txt.gz",
}
SMALL_CORPORA = ("tinyshakespeare", "ud_english")
#: Made from ``gutenberg`` by bench_large_corpus.make_1gb; only run when named.
GENERATED_CORPORA = ("gutenberg-1g",)
DEFAULT_CORPORA = tuple(CORPORA)

#: tool -> (is ours, peer it is compared with / None, slow)
TOOLS = {
    "ours-gpt2": dict(ours=True, pair="hf"),
    "hf": dict(ours=False, pair=None),
    "ours-spm": dict(ours=True, pair="spm"),
    "spm": dict(ours=False, pair=None),
    "ours-snmt": dict(ours=True, pair="snmt"),
    "snmt": dict(ours=False, pair=None, slow=True, small_only=True),
    "yttm": dict(ours=False, pair=None),
    "ours-default": dict(ours=True, pair="spm"),
}
PAIRS = [("ours-gpt2", "hf"), ("ours-spm", "spm"), ("ours-snmt", "snmt"), ("ours-gpt2", "yttm"),
         ("ours-gpt2", "spm"), ("ours-default", "spm"), ("ours-default", "yttm"),
         ("ours-default", "hf")]


# =========================================================================================
# Child side: one training, result written as JSON.
# =========================================================================================


def _import_ours():
    try:
        import bpe_desktop.core as core
    except ImportError:
        sys.path.insert(0, str(ROOT))
        import bpe_desktop.core as core
    return core


def _digest(lines) -> str:
    h = hashlib.sha256()
    for line in lines:
        h.update(line.encode("utf-8"))
        h.update(b"\n")
    return h.hexdigest()[:12]


def _ours_config(core, tool: str, vocab: int, threads: int):
    TrainConfig, SpecialToken = core.TrainConfig, core.SpecialToken
    if tool == "ours-gpt2":
        return TrainConfig.preset("gpt2", vocab_size=vocab, threads=threads)
    if tool == "ours-spm":
        # sentencepiece's three meta pieces, so that vocab_size means the same thing.
        specials = (SpecialToken("<unk>", 0, "unk"), SpecialToken("<s>", 1, "bos"),
                    SpecialToken("</s>", 2, "eos"))
        return TrainConfig.preset("sentencepiece", vocab_size=vocab, threads=threads,
                                  special_tokens=specials)
    if tool == "ours-snmt":
        return TrainConfig.preset("subword-nmt", merges=vocab, min_frequency=2,
                                  special_tokens=(), threads=threads)
    if tool == "ours-default":
        return TrainConfig(vocab_size=vocab, threads=threads)
    raise ValueError(tool)


def worker(tool: str, corpus: str, vocab: int, threads: int, result_path: str) -> None:
    out: dict = {"tool": tool, "corpus": corpus}
    if tool.startswith("ours-"):
        core = _import_ours()
        config = _ours_config(core, tool, vocab, threads)
        t0 = time.perf_counter()
        result = core.train(core.Corpus.from_files([corpus]), config)
        out["train"] = time.perf_counter() - t0
        merges = result.model.merges
        out["merges"] = len(merges)
        out["pairs_sha"] = _digest(f"{m.left} {m.right}" for m in merges)
        out["pieces_sha"] = _digest(m.left + m.right for m in merges)
        out["vocab_size"] = result.model.vocab_size
        out["engine_timings"] = dict(result.timings)
    elif tool == "hf":
        from tokenizers import Tokenizer, models, pre_tokenizers, trainers

        tok = Tokenizer(models.BPE())
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        trainer = trainers.BpeTrainer(
            vocab_size=vocab, min_frequency=0, show_progress=False, special_tokens=[],
            initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        )
        t0 = time.perf_counter()
        tok.train([corpus], trainer)
        out["train"] = time.perf_counter() - t0
        merges = json.loads(tok.to_str())["model"]["merges"]
        merges = [m if isinstance(m, list) else m.split(" ", 1) for m in merges]
        out["merges"] = len(merges)
        out["pairs_sha"] = _digest(f"{a} {b}" for a, b in merges)
        out["pieces_sha"] = _digest(a + b for a, b in merges)
        out["vocab_size"] = tok.get_vocab_size()
    elif tool == "spm":
        import sentencepiece as spm

        with tempfile.TemporaryDirectory() as tmp:
            prefix = os.path.join(tmp, "m")
            t0 = time.perf_counter()
            spm.SentencePieceTrainer.train(
                input=corpus, model_prefix=prefix, vocab_size=vocab, model_type="bpe",
                character_coverage=1.0, input_sentence_size=0, num_threads=threads,
                max_sentence_length=2**24, normalization_rule_name="identity",
                split_by_unicode_script=False, split_by_number=False,
                max_sentencepiece_length=512, hard_vocab_limit=False, minloglevel=2,
            )
            out["train"] = time.perf_counter() - t0
            sp = spm.SentencePieceProcessor(model_file=prefix + ".model")
        # Merged pieces come first (in merge order), then the single characters.
        pieces = [sp.id_to_piece(i) for i in range(sp.get_piece_size())
                  if not (sp.is_control(i) or sp.is_unknown(i))]
        merged = [p for p in pieces if len(p) > 1]
        out["merges"] = len(merged)
        out["pieces_sha"] = _digest(merged)
        out["vocab_size"] = sp.get_piece_size()
    elif tool == "yttm":
        import youtokentome as yttm

        with tempfile.TemporaryDirectory() as tmp:
            model = os.path.join(tmp, "m.yttm")
            t0 = time.perf_counter()
            bpe = yttm.BPE.train(data=corpus, model=model, vocab_size=vocab, n_threads=threads)
            out["train"] = time.perf_counter() - t0
        pieces = [p for p in bpe.vocab() if not (p.startswith("<") and p.endswith(">"))]
        merged = [p for p in pieces if len(p) > 1]
        out["merges"] = len(merged)
        out["pieces_sha"] = _digest(merged)
        out["vocab_size"] = bpe.vocab_size()
    elif tool == "snmt":
        import codecs

        from subword_nmt.learn_bpe import learn_bpe

        with tempfile.TemporaryDirectory() as tmp:
            codes = os.path.join(tmp, "codes")
            t0 = time.perf_counter()
            with codecs.open(corpus, encoding="utf-8") as fi, \
                    open(codes, "w", encoding="utf-8") as fo:
                learn_bpe(fi, fo, vocab, min_frequency=2)
            out["train"] = time.perf_counter() - t0
            with open(codes, encoding="utf-8") as f:
                lines = f.read().split("\n")[1:]
        lines = [line for line in lines if line]
        out["merges"] = len(lines)
        out["pairs_sha"] = _digest(lines)
        out["pieces_sha"] = _digest(line.replace(" ", "", 1) for line in lines)
    else:
        raise SystemExit(f"unknown tool {tool}")
    with open(result_path, "w") as f:
        json.dump(out, f)


# =========================================================================================
# Parent side.
# =========================================================================================


def run_tool(tool: str, corpus_path: Path, vocab: int, threads: int, timeout: float,
             log_dir: Path) -> dict:
    env = dict(os.environ)
    env["RAYON_NUM_THREADS"] = str(threads)
    env["TOKENIZERS_PARALLELISM"] = "true"
    env["OMP_NUM_THREADS"] = str(threads)
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", tool,
           "--corpus-file", str(corpus_path), "--vocab", str(vocab), "--threads", str(threads)]
    log_path = log_dir / f"{tool}-{corpus_path.stem}.log"
    run = run_child(cmd, env, log_path, timeout)
    rec = {"tool": tool, "corpus": corpus_path.name, "wall": run["wall"],
           "maxrss_mb": run["maxrss_wait4_mb"], "returncode": run["returncode"],
           "timed_out": run["timed_out"], "log": run["log"]}
    rec.update({k: v for k, v in (run["result"] or {}).items() if k not in ("tool", "corpus")})
    if run["returncode"] != 0:
        rec["error"] = _tail(log_path)
    return rec


def _tail(path: Path, n: int = 6) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-n:])
    except OSError:
        return ""


def prepare_corpus(name: str) -> Path:
    if name == "gutenberg-1g":
        from bench_large_corpus import make_1gb  # that module imports this one

        return in_child_process(make_1gb, prepare_corpus("gutenberg"), "lines")
    src = CORPORA_DIR / CORPORA[name]
    if not src.is_file():
        raise SystemExit(f"missing corpus {src} (set BPE_DESKTOP_CORPORA)")
    if src.suffix != ".gz":
        return src
    CACHE.mkdir(parents=True, exist_ok=True)
    dst = CACHE / src.name[:-3]
    stamp = CACHE / (dst.name + ".source")
    key = f"{src} {src.stat().st_size} {src.stat().st_mtime_ns}"
    if not dst.is_file() or not stamp.is_file() or stamp.read_text() != key:
        print(f"decompressing {src.name} -> {dst} (once) ...", file=sys.stderr)
        tmp = dst.with_suffix(".tmp")
        with gzip.open(src, "rb") as fi, open(tmp, "wb") as fo:
            shutil.copyfileobj(fi, fo, 1 << 22)
        tmp.replace(dst)
        stamp.write_text(key)
    return dst


def warm(path: Path) -> None:
    with open(path, "rb") as f:
        while f.read(1 << 22):
            pass


def _versions() -> dict:
    out = {"python": platform.python_version()}
    for mod in ("tokenizers", "sentencepiece", "youtokentome", "subword_nmt"):
        try:
            m = __import__(mod)
            out[mod] = getattr(m, "__version__", "?")
        except ImportError:
            out[mod] = None
    if out.get("subword_nmt") == "?":
        try:
            from importlib.metadata import version
            out["subword_nmt"] = version("subword-nmt")
        except Exception:
            pass
    return out


def _fmt_s(x):
    return "—" if x is None else (f"{x:.3f}" if x < 10 else f"{x:.1f}")


def _fmt_mb(x):
    return "—" if x is None else f"{x:.0f}"


def _ratio(a, b):
    return "—" if a is None or b is None or b == 0 else f"{a / b:.2f}×"


def summarize(records: list[dict]) -> dict:
    """Best (lowest) wall/train/RSS per (corpus, tool) over the successful repeats."""
    best: dict = {}
    for r in records:
        key = (r["corpus_name"], r["tool"])
        b = best.setdefault(key, {"corpus": r["corpus_name"], "tool": r["tool"],
                                  "runs": 0, "failures": 0})
        if r["returncode"] != 0 or "train" not in r:
            b["failures"] += 1
            b["error"] = "timeout" if r.get("timed_out") else r.get("error", "failed")
            continue
        b["runs"] += 1
        for k in ("wall", "train", "maxrss_mb"):
            b[k] = min(b.get(k, float("inf")), r[k])
        for k in ("merges", "pairs_sha", "pieces_sha", "vocab_size"):
            if k in r:
                b[k] = r[k]
    return best


def table(best: dict, corpora: list[str], threads: int) -> str:
    head = ("| corpus | ours | peer | ours train s | peer train s | train ratio | "
            "ours wall s | peer wall s | wall ratio | ours RSS MB | peer RSS MB | RSS ratio | "
            "merges ours / peer | same merges |")
    lines = [head, "|---|---|---|" + "---:|" * 10 + "---|"]
    for corpus in corpora:
        for ours, peer in PAIRS:
            variants = [(corpus, ours)]
            if (corpus + ".gz", ours) in best:
                variants.append((corpus + ".gz", ours))
            for cname, tool in variants:
                o = best.get((cname, tool))
                p = best.get((corpus, peer))
                if o is None and p is None:
                    continue
                o = o or {}
                p = p or {}
                same = "—"
                if o.get("pairs_sha") and p.get("pairs_sha"):
                    same = "yes" if o["pairs_sha"] == p["pairs_sha"] else "no"
                elif o.get("pieces_sha") and p.get("pieces_sha"):
                    same = ("yes (pieces)" if o["pieces_sha"] == p["pieces_sha"]
                            else "no (pieces)")
                label = tool + (" (.gz input)" if cname.endswith(".gz") else "")
                peer_label = peer if p else f"({peer} not run)"
                if p.get("error") and not p.get("runs"):
                    peer_label = f"{peer}: {p['error'].splitlines()[-1][:40]}"
                if o.get("error") and not o.get("runs"):
                    label = f"{tool}: {o['error'].splitlines()[-1][:40]}"
                merges = f"{o.get('merges', '—')} / {p.get('merges', '—')}"
                lines.append(
                    f"| {cname} | {label} | {peer_label} | {_fmt_s(o.get('train'))} | "
                    f"{_fmt_s(p.get('train'))} | {_ratio(o.get('train'), p.get('train'))} | "
                    f"{_fmt_s(o.get('wall'))} | {_fmt_s(p.get('wall'))} | "
                    f"{_ratio(o.get('wall'), p.get('wall'))} | {_fmt_mb(o.get('maxrss_mb'))} | "
                    f"{_fmt_mb(p.get('maxrss_mb'))} | "
                    f"{_ratio(o.get('maxrss_mb'), p.get('maxrss_mb'))} | {merges} | {same} |"
                )
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=3, help="runs per (corpus, tool); best kept")
    ap.add_argument("--vocab", type=int, default=32000)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--corpora", default=",".join(DEFAULT_CORPORA),
                    help=f"comma list of {', '.join(tuple(CORPORA) + GENERATED_CORPORA)}")
    ap.add_argument("--tools", default=",".join(TOOLS), help=f"comma list of {', '.join(TOOLS)}")
    ap.add_argument("--quick", action="store_true", help="small corpora only")
    ap.add_argument("--skip-slow", action="store_true", help="do not run subword-nmt")
    ap.add_argument("--slow-repeat", type=int, default=1,
                    help="runs of the slow pure-Python peer (subword-nmt); default 1")
    ap.add_argument("--no-gz", action="store_true",
                    help="do not also time ours reading the .gz file directly")
    add_child_options(ap)
    args = ap.parse_args(argv)
    require_corpora()

    if args.worker:
        worker(args.worker, args.corpus_file, args.vocab, args.threads, args.result)
        return 0

    corpora = comma_list(ap, args.corpora, tuple(CORPORA) + GENERATED_CORPORA, "corpus")
    tools = comma_list(ap, args.tools, TOOLS, "tool")
    if args.quick:
        corpora = [c for c in corpora if c in SMALL_CORPORA]
    if args.skip_slow:
        tools = [t for t in tools if not TOOLS[t].get("slow")]

    # The runs: (corpus name as shown, file, tool).
    plan = []
    for c in corpora:
        path = prepare_corpus(c)
        warm(path)
        for t in tools:
            if TOOLS[t].get("small_only") and c not in SMALL_CORPORA:
                continue
            plan.append((c, path, t))
            src = CORPORA_DIR / CORPORA.get(c, "")
            if TOOLS[t]["ours"] and src.suffix == ".gz" and not args.no_gz:
                warm(src)
                plan.append((c + ".gz", src, t))
    if not plan:
        ap.error("nothing to run")

    stamp = time.strftime("%Y%m%d-%H%M%S")
    log_dir = CACHE / "logs" / f"train-{stamp}"
    log_dir.mkdir(parents=True, exist_ok=True)
    load_before = os.getloadavg()
    print(f"# training benchmark {stamp}: vocab {args.vocab}, {args.threads} threads, "
          f"best of {args.repeat}, {os.cpu_count()} CPUs, load {load_before[0]:.2f}",
          file=sys.stderr)
    if load_before[0] > 0.5:
        print(f"warning: the machine is busy (1-min load {load_before[0]:.2f}); "
              "timings are contended", file=sys.stderr)

    records = []
    for rep in range(args.repeat):
        for cname, path, tool in plan:
            if TOOLS[tool].get("slow") and rep >= args.slow_repeat:
                continue
            rec = run_tool(tool, path, args.vocab, args.threads, args.timeout, log_dir)
            rec["corpus_name"] = cname
            rec["repeat"] = rep
            records.append(rec)
            status = "ok" if rec["returncode"] == 0 else (
                "TIMEOUT" if rec["timed_out"] else f"FAILED rc={rec['returncode']}")
            print(f"  [{rep + 1}/{args.repeat}] {cname:18} {tool:10} wall {rec['wall']:8.3f} s  "
                  f"train {rec.get('train', float('nan')):8.3f} s  "
                  f"RSS {rec['maxrss_mb']:7.0f} MB  merges {rec.get('merges', '—')}  {status}",
                  file=sys.stderr)
            if rec["returncode"] != 0:
                print("    " + rec.get("error", "").replace("\n", "\n    "), file=sys.stderr)
    load_after = os.getloadavg()

    best = summarize(records)
    md = table(best, corpora, args.threads)
    header = (f"Training, vocab {args.vocab}, {args.threads} threads, best of {args.repeat} "
              f"(subword-nmt: {min(args.slow_repeat, args.repeat)}); "
              f"{os.cpu_count()} CPUs; 1-min load before/after "
              f"{load_before[0]:.2f}/{load_after[0]:.2f}. Ratio = ours / peer "
              "(< 1 is better for ours). train = in-process training call; "
              "wall = whole child process; RSS = child's peak.")
    print(header)
    print()
    print(md)

    args.out.mkdir(parents=True, exist_ok=True)
    out_path = args.out / f"train-{stamp}.json"
    with open(out_path, "w") as f:
        json.dump({
            "benchmark": "train", "stamp": stamp, "vocab": args.vocab, "threads": args.threads,
            "repeat": args.repeat, "cpus": os.cpu_count(), "platform": platform.platform(),
            "versions": _versions(), "load_before": load_before, "load_after": load_after,
            "runs": records, "best": list(best.values()), "markdown": md,
        }, f, indent=1)
    print(f"\nresults: {out_path}", file=sys.stderr)
    failed = [r for r in records if r["returncode"] != 0]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
