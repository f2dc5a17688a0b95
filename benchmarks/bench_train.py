#!/usr/bin/env python3
"""Training benchmark: BPE Desktop against HF tokenizers, sentencepiece, YouTokenToMe and subword-nmt.

Every training runs in a fresh process, as a user runs it. Ours is the command
``bpe-desktop train FILE --vocab-size V --threads T -o model.json`` (``python -m
bpe_desktop.cli``, with the preset's flags); each peer is a training script with its
fastest documented configuration that writes its model file. The parent measures

* ``wall``  - perf_counter around the whole child (interpreter start, imports, reading,
  training, building and writing the model file): the main number;
* ``train`` - a peer child's own perf_counter around its training call only (ours: the
  command has no such figure);
* ``RSS``   - the child's peak resident set size, from ``os.wait4`` (the kernel's
  ``ru_maxrss`` for that one child; never below the parent's own peak, so generated
  corpora are written and the models read back by child processes:
  ``common.in_child_process``);
* the 1-minute load before and after each run, and the CPU model (``/proc/cpuinfo``).

The merge lists are checked (count, digests) after all runs, outside the timed processes.

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
import time
from pathlib import Path

from common import CACHE, CORPORA_DIR, ROOT, add_child_options, comma_list, require_corpora  # noqa: E402
from common import compile_bytecode, in_child_process, run_child  # noqa: E402

#: name -> (source file, kind). "gz" corpora are decompressed once into CACHE for the peers.
CORPORA = {
    "tinyshakespeare": "tinyshakespeare.txt",
    "ud_english": "ud_english.txt",
    "gutenberg": "gutenberg-100M.txt.gz",
    # The same kind of text with about 1.6x the distinct words: costs that grow with the
    # word table rather than the text show here.
    "gutenberg-b": "gutenberg-b-100M.txt.gz",
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


#: Our command's flags per tool (besides FILE, --vocab-size, --threads, -o); ``ours-spm``
#: has sentencepiece's three meta pieces, so that the vocabulary size means the same.
OURS_FLAGS = {
    "ours-default": [],
    "ours-gpt2": ["--preset", "gpt2"],
    "ours-spm": ["--preset", "sentencepiece", "--special", "<unk>:0:unk",
                 "--special", "<s>:1:bos", "--special", "</s>:2:eos"],
    "ours-snmt": ["--preset", "subword-nmt", "--min-frequency", "2", "--no-specials"],
}


def ours_command(tool: str, corpus: str, vocab: int, threads: int, model: str) -> list[str]:
    """``bpe-desktop train ...`` as a user types it (subword-nmt counts merges)."""
    size = ["--merges" if tool == "ours-snmt" else "--vocab-size", str(vocab)]
    return [sys.executable, "-m", "bpe_desktop.cli", "train", corpus, *size,
            "--threads", str(threads), *OURS_FLAGS[tool], "-q", "-o", model]


def worker(tool: str, corpus: str, vocab: int, threads: int, model_dir: str,
           result_path: str) -> None:
    """One peer's training script: train, write the model file, nothing else."""
    out: dict = {"tool": tool, "corpus": corpus}
    if tool == "hf":
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
        out["model"] = os.path.join(model_dir, "tokenizer.json")
        tok.save(out["model"])
    elif tool == "spm":
        import sentencepiece as spm

        prefix = os.path.join(model_dir, "m")
        t0 = time.perf_counter()
        spm.SentencePieceTrainer.train(
            input=corpus, model_prefix=prefix, vocab_size=vocab, model_type="bpe",
            character_coverage=1.0, input_sentence_size=0, num_threads=threads,
            max_sentence_length=2**24, normalization_rule_name="identity",
            split_by_unicode_script=False, split_by_number=False,
            max_sentencepiece_length=512, hard_vocab_limit=False, minloglevel=2,
        )
        out["train"] = time.perf_counter() - t0
        out["model"] = prefix + ".model"
    elif tool == "yttm":
        import youtokentome as yttm

        out["model"] = os.path.join(model_dir, "m.yttm")
        t0 = time.perf_counter()
        yttm.BPE.train(data=corpus, model=out["model"], vocab_size=vocab, n_threads=threads)
        out["train"] = time.perf_counter() - t0
    elif tool == "snmt":
        import codecs

        from subword_nmt.learn_bpe import learn_bpe

        out["model"] = os.path.join(model_dir, "codes")
        t0 = time.perf_counter()
        with codecs.open(corpus, encoding="utf-8") as fi, \
                open(out["model"], "w", encoding="utf-8") as fo:
            learn_bpe(fi, fo, vocab, min_frequency=2)
        out["train"] = time.perf_counter() - t0
    else:
        raise SystemExit(f"unknown tool {tool}")
    with open(result_path, "w") as f:
        json.dump(out, f)


def _digest(lines) -> str:
    h = hashlib.sha256()
    for line in lines:
        h.update(line.encode("utf-8"))
        h.update(b"\n")
    return h.hexdigest()[:12]


def describe_model(tool: str, path: str) -> dict:
    """The merge count and digests of a trained model file (pairs where the file keeps
    them, else the merged pieces in order), and ours' distinct words."""
    if tool.startswith("ours-"):
        with open(path, encoding="utf-8") as f:
            model = json.load(f)
        merges = model["merges"]
        return {"merges": len(merges), "pairs_sha": _digest(f"{a} {b}" for a, b, _ in merges),
                "pieces_sha": _digest(a + b for a, b, _ in merges),
                "distinct_words": model["corpus"].get("distinct_words")}
    if tool == "hf":
        with open(path, encoding="utf-8") as f:
            merges = json.load(f)["model"]["merges"]
        merges = [m if isinstance(m, list) else m.split(" ", 1) for m in merges]
        return {"merges": len(merges), "pairs_sha": _digest(f"{a} {b}" for a, b in merges),
                "pieces_sha": _digest(a + b for a, b in merges)}
    if tool == "spm":
        import sentencepiece as spm

        sp = spm.SentencePieceProcessor(model_file=path)
        # Merged pieces come first (in merge order), then the single characters.
        pieces = [sp.id_to_piece(i) for i in range(sp.get_piece_size())
                  if not (sp.is_control(i) or sp.is_unknown(i))]
        merged = [p for p in pieces if len(p) > 1]
        return {"merges": len(merged), "pieces_sha": _digest(merged)}
    if tool == "yttm":
        import youtokentome as yttm

        pieces = [p for p in yttm.BPE(path).vocab() if not (p.startswith("<") and p.endswith(">"))]
        merged = [p for p in pieces if len(p) > 1]
        return {"merges": len(merged), "pieces_sha": _digest(merged)}
    with open(path, encoding="utf-8") as f:  # subword-nmt's codes: a version line, then pairs
        lines = [line for line in f.read().split("\n")[1:] if line]
    return {"merges": len(lines), "pairs_sha": _digest(lines),
            "pieces_sha": _digest(line.replace(" ", "", 1) for line in lines)}


def describe_models(runs: list[tuple[str, str]]) -> list[dict]:
    """``describe_model`` of each (tool, path); {} for a file that cannot be read."""
    out = []
    for tool, path in runs:
        try:
            out.append(describe_model(tool, path))
        except Exception as exc:  # a failed run leaves no (or half a) model file
            out.append({"describe_error": f"{type(exc).__name__}: {exc}"})
    return out


def cpu_model() -> str:
    """The CPU's model name from /proc/cpuinfo ("unknown" elsewhere)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


# =========================================================================================
# Parent side.
# =========================================================================================


def run_tool(tool: str, corpus_path: Path, vocab: int, threads: int, timeout: float,
             run_dir: Path) -> dict:
    """One timed run in a fresh process; its model file is left in ``run_dir``."""
    env = dict(os.environ)
    env["RAYON_NUM_THREADS"] = str(threads)
    env["TOKENIZERS_PARALLELISM"] = "true"
    env["OMP_NUM_THREADS"] = str(threads)
    run_dir.mkdir(parents=True, exist_ok=True)
    ours = TOOLS[tool]["ours"]
    if ours:
        # This checkout's package, as an installed one would be found.
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
        model = run_dir / "model.json"
        cmd = ours_command(tool, str(corpus_path), vocab, threads, str(model))
    else:
        cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", tool,
               "--corpus-file", str(corpus_path), "--vocab", str(vocab),
               "--threads", str(threads), "--model-dir", str(run_dir)]
    log_path = run_dir / "log.txt"
    load_before = os.getloadavg()[0]
    run = run_child(cmd, env, log_path, timeout, result_arg=not ours)
    rec = {"tool": tool, "corpus": corpus_path.name, "wall": run["wall"],
           "maxrss_mb": run["maxrss_wait4_mb"], "returncode": run["returncode"],
           "timed_out": run["timed_out"], "log": run["log"],
           "load_before": load_before, "load_after": os.getloadavg()[0]}
    rec.update({k: v for k, v in (run["result"] or {}).items() if k not in ("tool", "corpus")})
    if ours:
        rec["model"] = str(model)
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
    """Per (corpus, tool) over the successful repeats: the best (lowest) wall time with
    that run's load, the lowest train time and peak RSS, and the merge digests."""
    best: dict = {}
    for r in records:
        key = (r["corpus_name"], r["tool"])
        b = best.setdefault(key, {"corpus": r["corpus_name"], "tool": r["tool"],
                                  "runs": 0, "failures": 0})
        if r["returncode"] != 0:
            b["failures"] += 1
            b["error"] = "timeout" if r.get("timed_out") else r.get("error", "failed")
            continue
        b["runs"] += 1
        if r["wall"] < b.get("wall", float("inf")):
            b.update(wall=r["wall"], load=(r["load_before"], r["load_after"]))
        for k in ("train", "maxrss_mb"):
            if k in r:
                b[k] = min(b.get(k, float("inf")), r[k])
        for k in ("merges", "pairs_sha", "pieces_sha", "vocab_size", "distinct_words"):
            if k in r:
                b[k] = r[k]
    return best


def side_by_side(best: dict, corpora: list[str]) -> str:
    """Wall time (with the 1-minute load before→after that run) and peak RSS of each
    tool, and ours ÷ the fastest of sentencepiece and YouTokenToMe, and ours ÷ HF, one
    row per corpus."""
    tools = [("ours-default", "ours default"), ("ours-gpt2", "ours `gpt2`"),
             ("spm", "sentencepiece"), ("yttm", "YouTokenToMe"), ("hf", "HF")]
    head = ["corpus", "distinct words", *(name for _, name in tools),
            "default ÷ fastest of spm, yttm", "`gpt2` ÷ fastest", "default ÷ HF", "`gpt2` ÷ HF"]
    lines = ["| " + " | ".join(head) + " |", "|---|" + "---:|" * (len(head) - 1)]
    for corpus in corpora:
        if not any((corpus, t) in best for t, _ in tools):
            continue

        def get(tool: str, k: str, corpus: str = corpus):
            return best.get((corpus, tool), {}).get(k)

        cells = []
        for tool, _ in tools:
            wall, load, rss = get(tool, "wall"), get(tool, "load"), get(tool, "maxrss_mb")
            cells.append("—" if wall is None else
                         f"{_fmt_s(wall)} s, {_fmt_mb(rss)} MB ({load[0]:.1f}→{load[1]:.1f})")
        fastest = [w for w in (get("spm", "wall"), get("yttm", "wall")) if w is not None]
        fastest = min(fastest) if fastest else None
        words = get("ours-default", "distinct_words") or get("ours-gpt2", "distinct_words")
        cells += [_ratio(get("ours-default", "wall"), fastest),
                  _ratio(get("ours-gpt2", "wall"), fastest),
                  _ratio(get("ours-default", "wall"), get("hf", "wall")),
                  _ratio(get("ours-gpt2", "wall"), get("hf", "wall"))]
        lines.append(f"| {corpus} | {'—' if words is None else f'{words:,}'} | "
                     + " | ".join(cells) + " |")
    return "\n".join(lines)


def table(best: dict, corpora: list[str]) -> str:
    """Each pairing of ours with its peer: wall time, peak RSS, merge count and digests."""
    head = ("| corpus | ours | peer | ours wall s | peer wall s | wall ratio | peer train s | "
            "ours RSS MB | peer RSS MB | RSS ratio | merges ours / peer | same merges |")
    lines = [head, "|---|---|---|" + "---:|" * 8 + "---|"]
    for corpus in corpora:
        for ours, peer in PAIRS:
            variants = [(corpus, ours)]
            if (corpus + ".gz", ours) in best:
                variants.append((corpus + ".gz", ours))
            for cname, tool in variants:
                o = best.get((cname, tool))
                p = best.get((corpus, peer))
                if o is None:  # only the peer ran: it has a row of its own pairing
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
                    f"| {cname} | {label} | {peer_label} | {_fmt_s(o.get('wall'))} | "
                    f"{_fmt_s(p.get('wall'))} | {_ratio(o.get('wall'), p.get('wall'))} | "
                    f"{_fmt_s(p.get('train'))} | {_fmt_mb(o.get('maxrss_mb'))} | "
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
    ap.add_argument("--model-dir", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    require_corpora()
    if not args.worker:
        compile_bytecode()

    if args.worker:
        worker(args.worker, args.corpus_file, args.vocab, args.threads, args.model_dir,
               args.result)
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
    cpu = cpu_model()
    print(f"# training benchmark {stamp}: vocab {args.vocab}, {args.threads} threads, "
          f"best of {args.repeat}, {os.cpu_count()} CPUs ({cpu}), load {load_before[0]:.2f}",
          file=sys.stderr)
    if load_before[0] > 0.5:
        print(f"warning: the machine is busy (1-min load {load_before[0]:.2f}); "
              "timings are contended", file=sys.stderr)

    records = []
    for rep in range(args.repeat):
        for cname, path, tool in plan:
            if TOOLS[tool].get("slow") and rep >= args.slow_repeat:
                continue
            run_dir = log_dir / f"{cname}-{tool}-{rep + 1}"
            rec = run_tool(tool, path, args.vocab, args.threads, args.timeout, run_dir)
            rec["corpus_name"] = cname
            rec["repeat"] = rep
            records.append(rec)
            status = "ok" if rec["returncode"] == 0 else (
                "TIMEOUT" if rec["timed_out"] else f"FAILED rc={rec['returncode']}")
            train = f"train {rec['train']:8.3f} s  " if "train" in rec else ""
            print(f"  [{rep + 1}/{args.repeat}] {cname:18} {tool:12} wall {rec['wall']:8.3f} s  "
                  f"{train}RSS {rec['maxrss_mb']:7.0f} MB  load {rec['load_before']:.1f}→"
                  f"{rec['load_after']:.1f}  {status}", file=sys.stderr)
            if rec["returncode"] != 0:
                print("    " + rec.get("error", "").replace("\n", "\n    "), file=sys.stderr)
    load_after = os.getloadavg()

    # The merge lists, read back from the model files outside the timed processes.
    done = [r for r in records if r["returncode"] == 0 and r.get("model")]
    for rec, info in zip(done, in_child_process(
            describe_models, [(r["tool"], r["model"]) for r in done])):
        rec.update(info)
    best = summarize(records)
    md = side_by_side(best, corpora) + "\n\n" + table(best, corpora)
    header = (f"Training, vocab {args.vocab}, {args.threads} threads, best of {args.repeat} "
              f"(subword-nmt: {min(args.slow_repeat, args.repeat)}); "
              f"{os.cpu_count()} CPUs, {cpu}; 1-min load at start/end "
              f"{load_before[0]:.2f}/{load_after[0]:.2f}. Ratio = ours / peer "
              "(< 1 is better for ours). wall = whole process (ours: the `bpe-desktop train` "
              "command, model JSON written); RSS = its peak; (a→b) = 1-min load before→after "
              "that run; peer train = the peer's training call alone.")
    print(header)
    print()
    print(md)

    args.out.mkdir(parents=True, exist_ok=True)
    out_path = args.out / f"train-{stamp}.json"
    with open(out_path, "w") as f:
        json.dump({
            "benchmark": "train", "stamp": stamp, "vocab": args.vocab, "threads": args.threads,
            "repeat": args.repeat, "cpus": os.cpu_count(), "cpu_model": cpu,
            "platform": platform.platform(),
            "versions": _versions(), "load_before": load_before, "load_after": load_after,
            "runs": records, "best": list(best.values()), "markdown": md,
        }, f, indent=1)
    print(f"\nresults: {out_path}", file=sys.stderr)
    failed = [r for r in records if r["returncode"] != 0]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
