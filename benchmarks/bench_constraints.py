"""Linguistic constraints against plain BPE, on gold the training never sees.

For each language of the shared SIGMORPHON 2022 gold (eng, ces, hun, fra): the gold
words that spell their word (and are one word: no space) are split in two halves,
alternately (1st, 3rd, ...: supervision; 2nd, 4th, ...: scoring). Models of one vocabulary size are trained on the language's
wordfreq word list (``wordfreq.get_frequency_dict(lang, "best")``; frequency f becomes
the count round(f * 1e9), i.e. a corpus of a billion words; CC BY-SA 4.0) with the
sennrich preset, lower-cased (the gold is lower-case):

* plain BPE;
* Morfessor boundaries (unsupervised), and semi-supervised with the supervision half;
* gold boundaries: the supervision half;
* BPE-knockout with the supervision half.

Each is scored on the scoring half (boundary precision, recall, F1, MorphScore) and on
held-out running text (tokens per word: UDHR of the language; Czech has none there: its
running text is given with ``--text ces=PATH``, else its fertility is over the scoring
half's words). Also: training time with boundaries
against plain training on the same corpus (engine time, reading to last merge; Morfessor
and knockout's extra rounds apart).

    python3 benchmarks/bench_constraints.py [--langs eng,ces,hun,fra] [--vocab 16000]
        [--markdown]

Needs ``pip install -e ".[bench]"`` (wordfreq) and /work/shared/corpora.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bpe_desktop.core import Corpus, TrainConfig, train  # noqa: E402
from bpe_desktop.core.constraints import write_segmentation  # noqa: E402
from bpe_desktop.core.evaluation import EvaluationRequest, evaluate, read_gold  # noqa: E402
from bpe_desktop.core.evaluation.gold import GoldSet  # noqa: E402

SHARED = Path("/work/shared/corpora")
WORDFREQ = {"eng": "en", "ces": "cs", "hun": "hu", "fra": "fr"}
SCALE = 1e9


def halves(lang: str) -> tuple[GoldSet, GoldSet]:
    gold = read_gold(SHARED / "morph" / f"{lang}.word.dev.tsv")
    words = [w for w in gold.words if not any(c.isspace() for c in w.word)]  # one word each
    supervision = tuple(w for i, w in enumerate(words) if i % 2 == 0)
    scoring = tuple(w for i, w in enumerate(words) if i % 2 == 1)
    return (GoldSet(f"{lang}-supervision", gold.format, supervision),
            GoldSet(f"{lang}-scoring", gold.format, scoring))


def word_counts(lang: str) -> list[tuple[str, int]]:
    import wordfreq

    freqs = wordfreq.get_frequency_dict(WORDFREQ[lang], wordlist="best")
    return [(w, max(1, round(f * SCALE))) for w, f in freqs.items() if w.strip()]


#: Running text for languages the shared UDHR lacks (``--text LANG=PATH``).
EXTRA_TEXTS: dict[str, Path] = {}


def held_out_text(lang: str, scoring: GoldSet) -> list[str]:
    udhr = EXTRA_TEXTS.get(lang, SHARED / "udhr" / f"{lang}.txt")
    if udhr.is_dir():
        return html_paragraphs(udhr)
    if udhr.exists():
        return udhr.read_text(encoding="utf-8").lower().splitlines()
    return [" ".join(w.word for w in scoring.words)]


def html_paragraphs(folder: Path) -> list[str]:
    """The prose of a folder of HTML pages (a manual), lower-cased: each paragraph of at
    least 8 words, 80 % of them with a letter, once (navigation repeats on every page)."""
    import html
    import re

    seen: dict[str, None] = {}
    for page in sorted(folder.glob("*.html")):
        text = page.read_text(encoding="utf-8", errors="replace")
        text = re.sub(r"(?is)<(script|style|pre).*?</\1>", " ", text)
        text = html.unescape(re.sub(r"(?s)<[^>]+>", " ", text))
        for paragraph in re.split(r"\n\s*\n", text):
            words = paragraph.split()
            if len(words) >= 8 and sum(any(c.isalpha() for c in w) for w in words) >= 0.8 * len(words):
                seen.setdefault(" ".join(words).lower())
    return list(seen)


def score(model, scoring: GoldSet, text: list[str]) -> dict:
    report = evaluate(model, EvaluationRequest(gold=[scoring], texts=text))
    m = report.morphology[scoring.name]
    return {"precision": m.precision, "recall": m.recall, "f1": m.f1,
            "morphscore": m.morphscore, "fertility": report.text.fertility}


def run_language(lang: str, vocab: int, folder: str) -> list[dict]:
    supervision, scoring = halves(lang)
    sup_path = os.path.join(folder, f"{lang}-supervision.tsv")
    write_segmentation(sup_path, [(w.word, w.analyses[0]) for w in supervision.words])
    corpus = Corpus.from_word_counts(word_counts(lang))
    text = held_out_text(lang, scoring)
    base = TrainConfig(vocab_size=vocab, lowercase=True)
    variants = {
        "plain": base,
        "Morfessor": base.replace(morfessor=True),
        "Morfessor, semi-supervised": base.replace(morfessor=True,
                                                   morfessor_annotations=(sup_path,)),
        "gold boundaries": base.replace(gold_boundaries=(sup_path,)),
        "knockout": base.replace(knockout=(sup_path,)),
    }
    rows = []
    for name, config in variants.items():
        started = time.perf_counter()
        result = train(corpus, config)
        seconds = time.perf_counter() - started
        row = {"lang": lang, "model": name, "vocab": result.model.vocab_size,
               **score(result.model, scoring, text), "seconds": seconds,
               "engine": result.timings["counting"] + result.timings["merging"],
               "segmenter": result.timings.get("segmenter", 0.0),
               "knocked_out": len(result.model.constraints.knocked_out)
               if result.model.constraints else 0}
        rows.append(row)
        print(f"{lang} {name:28} F1 {row['f1']:.3f} P {row['precision']:.3f} "
              f"R {row['recall']:.3f} MorphScore {row['morphscore']:.3f} "
              f"fertility {row['fertility']:.3f}  {seconds:.1f} s", flush=True)
    return rows


def training_time_ratio(repeats: int = 12) -> dict:
    """Training time on the first 20 MB of gutenberg-100M (whitespace words, 16k), plain
    against MorphBPE with the English gold boundaries and with Morfessor's, best of
    ``repeats`` (engine time only: the segmenter's own time is reported apart). The three
    trainings alternate, so a change in the machine's load weighs on all three alike."""
    import gzip

    folder = tempfile.mkdtemp()
    text = os.path.join(folder, "gutenberg-20M.txt")
    with gzip.open(SHARED / "gutenberg-100M.txt.gz", "rb") as src, open(text, "wb") as out:
        out.write(src.read(20_000_000))
    corpus = Corpus.from_files([text])
    gold = str(SHARED / "morph" / "eng.word.dev.tsv")
    base = TrainConfig(vocab_size=16000, lowercase=True)
    morf = train(corpus, base.replace(morfessor=True))
    seg = os.path.join(folder, "morfessor.tsv")
    write_segmentation(seg, sorted(morf.segmentation.items()))

    configs = {"plain": base, "gold": base.replace(gold_boundaries=(gold,)),
               "morfessor": base.replace(gold_boundaries=(seg,))}
    times: dict[str, list[float]] = {name: [] for name in configs}
    for _ in range(repeats):
        for name, config in configs.items():
            r = train(corpus, config)
            times[name].append(r.timings["counting"] + r.timings["merging"])
    plain, with_gold, with_morfessor = (min(times[name]) for name in configs)
    cut = sum(len(m) > 1 for m in morf.segmentation.values())
    return {"plain": plain, "gold": with_gold, "morfessor": with_morfessor,
            "segmenter": morf.timings["segmenter"], "morfessor_cut": cut,
            "load": os.getloadavg()}


def markdown(rows: list[dict]) -> str:
    out = ["| language | model | vocabulary | precision | recall | F1 | ΔF1 | MorphScore | "
           "tokens/word | Δ tokens/word | time (s) |",
           "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    plain = {r["lang"]: r for r in rows if r["model"] == "plain"}
    for r in rows:
        p = plain[r["lang"]]
        delta = r["f1"] - p["f1"]
        fert = r["fertility"] / p["fertility"] - 1
        out.append(f"| {r['lang']} | {r['model']} | {r['vocab']:,} | {r['precision']:.3f} | "
                   f"{r['recall']:.3f} | {r['f1']:.3f} | {delta:+.3f} | "
                   f"{r['morphscore']:.3f} | {r['fertility']:.3f} | {fert:+.1%} | "
                   f"{r['seconds']:.1f} |")
    return "\n".join(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--langs", default="eng,ces,hun,fra",
                        help="comma-separated; empty: the training-time ratio only")
    parser.add_argument("--vocab", type=int, default=16000)
    parser.add_argument("--no-timing", action="store_true")
    parser.add_argument("--text", action="append", default=[], metavar="LANG=PATH",
                        help="held-out running text of a language the shared UDHR lacks "
                        "(Czech: the Czech manual of aptitude, see benchmarks/README.md)")
    args = parser.parse_args()
    for item in args.text:
        lang, _, path = item.partition("=")
        EXTRA_TEXTS[lang] = Path(path)
    print(f"load before: {os.getloadavg()}", flush=True)
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for lang in filter(None, args.langs.split(",")):  # --langs "": the timing only
            rows.extend(run_language(lang, args.vocab, folder))
    print(markdown(rows))
    if not args.no_timing:
        t = training_time_ratio()
        print(f"training time, 20 MB gutenberg, 16k: plain {t['plain']:.2f} s, gold "
              f"boundaries {t['gold']:.2f} s ({t['gold'] / t['plain']:.2f}x), Morfessor "
              f"boundaries ({t['morfessor_cut']:,} words cut) {t['morfessor']:.2f} s "
              f"({t['morfessor'] / t['plain']:.2f}x); Morfessor itself {t['segmenter']:.1f} s; "
              f"load {t['load']}")
    print(f"load after: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
