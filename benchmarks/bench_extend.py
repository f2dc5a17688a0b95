"""Extending published-style tokenizers to a language they were not trained for.

Source tokenizers are trained by their own libraries on English (a slice of
gutenberg-100M): a byte-level RoBERTa-style vocab.json/merges.txt (HF tokenizers), a
sentencepiece BPE model with user-defined symbols and no byte fallback, and one with byte
fallback (extended keeping unseen characters as byte tokens), each of ``--vocab`` tokens
(the byte-fallback one has its 256 byte pieces besides). Each is extended with ``--merges`` merges on text of the new language:
its UD treebank text without the held-out lines plus its UDHR translation, repeated to
``--mb`` MB (repetition scales the counts, not the distinct words: say so when quoting).
The extended model is written back in the source's format (sentencepiece in place; HF
also as a transformers folder) and checked on held-out lines of both languages:

* ids identical in the owning library (and transformers) to BPE Desktop's;
* the original vocabulary (piece -> id) unchanged;
* tokens per word on held-out new-language text fall by >= 30 % (byte-level source);
* unknown tokens < 1 % of tokens (sentencepiece source, which maps the script to <unk>);
* >= 95 % of held-out English lines keep identical ids;
* extend time <= 2x training ``--merges`` merges from scratch on the same corpus (same
  pre-tokenizer), both with BPE Desktop.

    python benchmarks/bench_extend.py --language russian
    python benchmarks/bench_extend.py --language russian --sources sentencepiece-bytes
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import CACHE, RESULTS, require_corpora

LANGUAGES = {"russian": ("ud_russian.txt", "rus.txt"), "hindi": ("ud_hindi.txt", None)}
HELD_OUT = 300


def english_slice(corpora: Path, mb: float) -> tuple[Path, list[str]]:
    """The first ``mb`` MB of gutenberg-100M, and the next HELD_OUT lines (held out)."""
    out = CACHE / f"english-{mb:g}mb.txt"
    lines: list[str] = []
    with gzip.open(corpora / "gutenberg-100M.txt.gz", "rt", encoding="utf-8") as f:
        size = 0
        for line in f:
            lines.append(line)
            size += len(line.encode("utf-8"))
            if size >= mb * 1e6:
                break
        held = [line.rstrip("\n") for line, _ in zip(f, range(50 * HELD_OUT))
                if line.strip()][:HELD_OUT]
    CACHE.mkdir(exist_ok=True)
    out.write_text("".join(lines), encoding="utf-8")
    return out, held


def new_language(corpora: Path, language: str, mb: float) -> tuple[Path, list[str]]:
    treebank, udhr = LANGUAGES[language]
    lines = (corpora / treebank).read_text(encoding="utf-8").splitlines()
    train, held = lines[:-HELD_OUT], lines[-HELD_OUT:]
    if udhr:
        train += (corpora / "udhr" / udhr).read_text(encoding="utf-8").splitlines()
    text = "\n".join(train) + "\n"
    repeats = max(1, round(mb * 1e6 / len(text.encode("utf-8"))))
    out = CACHE / f"{language}-{mb:g}mb.txt"
    out.write_text(text * repeats, encoding="utf-8")
    return out, held


#: Source name -> (its format, what happens to characters it cannot represent).
SOURCES = {"gpt2": ("gpt2", "add"), "sentencepiece": ("sentencepiece", "add"),
           "sentencepiece-bytes": ("sentencepiece", "bytes")}


def train_sources(english: Path, vocab: int, folder: Path, names) -> dict[str, Path]:
    import sentencepiece as spm
    from tokenizers import ByteLevelBPETokenizer

    paths = {}
    if "gpt2" in names:
        tok = ByteLevelBPETokenizer()
        tok.train([str(english)], vocab_size=vocab, min_frequency=2, show_progress=False,
                  special_tokens=["<s>", "<pad>", "</s>", "<unk>", "<mask>"])
        tok.save_model(str(folder), "roberta")
        paths["gpt2"] = folder / "roberta-vocab.json"
    for name, prefix, byte_fallback in (("sentencepiece", "sp", False),
                                        ("sentencepiece-bytes", "sp-bytes", True)):
        if name not in names:
            continue
        spm.SentencePieceTrainer.train(
            input=str(english), model_prefix=str(folder / prefix),
            vocab_size=vocab + (256 if byte_fallback else 0), model_type="bpe",
            user_defined_symbols=["<sep>", "<cls>"], byte_fallback=byte_fallback,
            input_sentence_size=300_000, shuffle_input_sentence=False, minloglevel=2,
            num_threads=2)
        paths[name] = folder / f"{prefix}.model"
    return paths


def timings(fmt: str, path: Path, corpus: Path, merges: int, repeat: int,
            unknown: str = "add") -> tuple[float, float]:
    """Best-of-``repeat`` seconds: extending the source with ``merges`` merges on
    ``corpus``, and training ``merges`` merges from scratch on it (same pre-tokenizer)."""
    from bpe_desktop.core.extend import extend
    from bpe_desktop.core.formats import import_model
    from bpe_desktop.core.training import Corpus, train

    extend_s = scratch_s = float("inf")
    for _ in range(repeat):  # best of: other work on the machine only adds time
        source = import_model(fmt, path)  # fresh: nothing cached from the last round
        started = time.perf_counter()
        extend(source, Corpus.from_files([corpus]), merges=merges, unknown=unknown)
        extend_s = min(extend_s, time.perf_counter() - started)
        config = source.config.replace(merges=merges, vocab_size=None, min_frequency=2)
        started = time.perf_counter()
        train(Corpus.from_files([corpus]), config)
        scratch_s = min(scratch_s, time.perf_counter() - started)
    return extend_s, scratch_s


def other_english(corpora: Path, mb: float) -> Path:
    """The first ``mb`` MB of gutenberg-b-100M (other books than the sources'): a corpus
    of that size without repetition, for the timing goal."""
    out = CACHE / f"gutenberg-b-{mb:g}mb.txt"
    with gzip.open(corpora / "gutenberg-b-100M.txt.gz", "rb") as f:
        data = f.read(int(mb * 1e6))
    out.write_bytes(data[:data.rfind(b"\n") + 1])
    return out


def measure(name: str, path: Path, corpus: Path, held_new: list[str], held_en: list[str],
            merges: int, folder: Path, repeat: int) -> dict:
    from bpe_desktop.core.adaptation_report import held_out_report
    from bpe_desktop.core.adapted_output import verify_transformers_folder, write_model
    from bpe_desktop.core.extend import extend
    from bpe_desktop.core.formats import import_model, verify_export
    from bpe_desktop.core.training import Corpus

    fmt, unknown = SOURCES[name]
    extend_s, scratch_s = timings(fmt, path, corpus, merges, repeat, unknown)
    source = import_model(fmt, path)
    result = extend(source, Corpus.from_files([corpus]), merges=merges, unknown=unknown)
    model = result.model
    out = folder / (f"{name}-extended.model" if fmt == "sentencepiece" else "extended")
    paths = write_model(model, fmt, out, source=source, source_path=path)
    lines = held_new + held_en
    checks = {"own library": verify_export(model, fmt, paths, lines)}
    if fmt == "gpt2":
        write_model(model, "transformers", folder / "tf")
        checks["transformers"] = verify_transformers_folder(model, folder / "tf", lines)
    new_report = held_out_report(source, model, held_new)
    en_report = held_out_report(source, model, held_en)
    vocab_kept = all(model.piece_ids.get(p) == i for p, i in source.piece_ids.items())
    return {
        "format": name, "source_vocab": source.vocab_size, "new_merges": result.new_merges,
        "new_characters": len(result.new_characters),
        "byte_characters": len(result.byte_characters),
        "ids_identical": {k: f"{v.agreed}/{v.lines}" for k, v in checks.items()},
        "original_vocab_unchanged": vocab_kept,
        "tokens_per_word": [new_report.before.tokens_per_word(new_report.words),
                            new_report.after.tokens_per_word(new_report.words)],
        "tokens_per_word_change": new_report.tokens_per_word_change,
        "unknown_share": [new_report.before.unknown_share(),
                          new_report.after.unknown_share()],
        "english_lines_unchanged": en_report.unchanged_share,
        "extend_s": extend_s, "scratch_s": scratch_s, "ratio": extend_s / scratch_s,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--language", choices=tuple(LANGUAGES), default="russian")
    ap.add_argument("--vocab", type=int, default=32_000)
    ap.add_argument("--merges", type=int, default=2_000)
    ap.add_argument("--mb", type=float, default=10.0, help="new-language corpus size")
    ap.add_argument("--english-mb", type=float, default=20.0)
    ap.add_argument("--repeat", type=int, default=3, help="timings: best of N")
    ap.add_argument("--sources", nargs="+", choices=tuple(SOURCES), default=list(SOURCES))
    args = ap.parse_args()
    corpora = require_corpora()
    folder = CACHE / "extend"
    folder.mkdir(parents=True, exist_ok=True)
    english, held_en = english_slice(corpora, args.english_mb)
    corpus, held_new = new_language(corpora, args.language, args.mb)
    print(f"sources: {args.vocab:,} tokens on {args.english_mb:g} MB English", file=sys.stderr)
    sources = train_sources(english, args.vocab, folder, args.sources)
    rows = [measure(name, path, corpus, held_new, held_en, args.merges, folder, args.repeat)
            for name, path in sources.items()]
    print("| source | new chars (bytes) | ids identical | vocab kept | tokens/word | unk | "
          "English lines kept | extend s | scratch s | ratio |\n|---|---:|---|---|---|---|"
          "---:|---:|---:|---:|")
    for r in rows:
        ids = ", ".join(f"{k} {v}" for k, v in r["ids_identical"].items())
        chars = f"{r['new_characters']}" + (f" ({r['byte_characters']})"
                                             if r["byte_characters"] else "")
        print(f"| {r['format']} {r['source_vocab']:,} | {chars} | {ids} | "
              f"{'yes' if r['original_vocab_unchanged'] else 'NO'} | "
              f"{r['tokens_per_word'][0]:.2f} → {r['tokens_per_word'][1]:.2f} "
              f"({r['tokens_per_word_change']:+.0%}) | {r['unknown_share'][0]:.1%} → "
              f"{r['unknown_share'][1]:.2%} | {r['english_lines_unchanged']:.1%} | "
              f"{r['extend_s']:.2f} | {r['scratch_s']:.2f} | {r['ratio']:.2f}× |")
    plain = other_english(corpora, args.mb)
    print(f"\nTiming on {plain.stat().st_size / 1e6:.1f} MB of unrepeated text "
          "(gutenberg-b-100M):\n\n| source | extend s | scratch s | ratio |\n|---|---:|---:|---:|")
    for name, path in sources.items():
        fmt, unknown = SOURCES[name]
        extend_s, scratch_s = timings(fmt, path, plain, args.merges, args.repeat, unknown)
        print(f"| {name} | {extend_s:.2f} | {scratch_s:.2f} | {extend_s / scratch_s:.2f}× |")
    load = os.getloadavg()[0]
    print(f"\nload (1 min) {load:.2f}, timings best of {args.repeat}; {args.language}: {corpus.stat().st_size / 1e6:.1f} MB")
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"extend-{args.language}.json").write_text(
        json.dumps({"load": load, "args": vars(args), "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
