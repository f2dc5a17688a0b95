"""The peer libraries driven as their users drive them, and our side computed
independently of ``bpe_desktop.core.formats.verify``: what the interoperability tests
compare. Also the model configurations each format can hold, and the lines every export
must segment as we do."""

from __future__ import annotations

import importlib
import json
import os
from pathlib import Path

from bpe_desktop.core import BPEModel, SpecialToken, TrainConfig
from bpe_desktop.core.formats import export_model
from bpe_desktop.core.pieces import surface_text

tokenizers = importlib.import_module("tokenizers")
sentencepiece = importlib.import_module("sentencepiece")
tiktoken = importlib.import_module("tiktoken")
apply_bpe = importlib.import_module("subword_nmt.apply_bpe")
fastBPE = importlib.import_module("fastBPE")
youtokentome = importlib.import_module("youtokentome")

#: Lines every export must segment as we do: unseen scripts, marks, emoji, runs, spaces.
HARD = [
    "", "  leading and trailing  ", "multiple   spaces  inside", "café cafe\u0301 naïve ﬁ ２ ①",
    "x2y 3.14 don't O'Neil -- ... !!! ''", "😀👍🏽 👨\u200d👩\u200d👧 \u200b",
    "日本語のテキスト、句読点。", "हिन्दी पाठ", "Русский текст ёЁ", "\x01\x7f\ufffd controls",
    "a" * 70 + " " + "ab" * 40, "Ω≈ç√∫˜µ≤≥÷ ﷺ ࿗ 𝔘𝔫𝔦𝔠𝔬𝔡𝔢",
]
#: Lines with white space other than U+0020 inside; apply_bpe and fastBPE keep it inside
#: words, so they are left out for their codes of a ``whitespace`` model, and YouTokenToMe
#: splits at ASCII white space only (documented).
OTHER_SPACE = ["tab\tinside", "no\u00a0break space", "ideographic\u3000space"]

CONFIGS = {
    "subword-nmt": ("ud_english", TrainConfig.preset("subword-nmt", vocab_size=3000)),
    "subword-nmt-botchan": ("botchan", TrainConfig.preset("subword-nmt", merges=2500)),
    "seeds-default": ("ud_english", TrainConfig(vocab_size=3000)),
    "gpt2": ("ud_english", TrainConfig.preset(
        "gpt2", vocab_size=3000, special_tokens=(SpecialToken("<|endoftext|>", 0),))),
    "sentencepiece": ("ud_english", TrainConfig.preset("sentencepiece", vocab_size=3000)),
    "whitespace-none": ("ud_english", TrainConfig(
        pretokenizer="whitespace", boundary="none", ties="codepoint", min_frequency=1,
        vocab_size=3000)),
    "eow-suffix-nfkc-lowercase": ("ud_english", TrainConfig(
        boundary="eow-suffix", normalize="nfkc", lowercase=True, vocab_size=3000)),
    "letters-bow-prefix": ("ud_english", TrainConfig(
        pretokenizer="letters", boundary="bow-prefix", vocab_size=3000)),
    "space-none-coverage": ("ud_english", TrainConfig(
        pretokenizer="space", boundary="none", character_coverage=0.999, vocab_size=3000)),
}

#: Which formats each configuration can be exported to (besides the vocabulary list).
COMPATIBLE = {
    "subword-nmt": {"subword-nmt", "hf", "fastbpe"},
    "subword-nmt-botchan": {"subword-nmt", "hf", "fastbpe"},
    "seeds-default": {"subword-nmt"},
    "gpt2": {"hf", "gpt2", "tiktoken"},
    "sentencepiece": {"sentencepiece", "hf", "youtokentome"},
    "whitespace-none": {"hf"},
    "eow-suffix-nfkc-lowercase": {"hf"},
    "letters-bow-prefix": {"hf"},
    "space-none-coverage": {"hf"},
}

CASES = [(name, fmt) for name in CONFIGS for fmt in sorted(COMPATIBLE[name])]


# -- our side, computed independently of bpe_desktop.core.formats.verify -----------------


def our_ids(model: BPEModel, lines: list[str]) -> list[list[int]]:
    return [a.tolist() for a in model.tokenizer().encode_batch(lines)]


def fuse_unknowns(ids: list[int], unk: int) -> list[int]:
    """YouTokenToMe emits one <UNK> for a run of unknown characters."""
    return [t for i, t in enumerate(ids) if not (t == unk and i and ids[i - 1] == unk)]


def our_snmt_tokens(model: BPEModel, line: str) -> list[str]:
    """Our segmentation written as apply_bpe writes it: ``seg@@`` for non-final segments.

    An unknown token stands for its one character (apply_bpe passes it through).
    """
    unk = model.config.special("unk")
    out: list[str] = []
    for word, ids in model.tokenizer().encode_words(line):
        segments, at = [], 0
        for i in ids:
            text = word[at] if unk and i == unk.id else surface_text(model.pieces[i], model.config)
            at += len(text)
            if text:
                segments.append(text)
        out += [s + "@@" for s in segments[:-1]] + segments[-1:]
    return out


# -- the peers, as their users load them -------------------------------------------------


def peer_ids(fmt: str, model: BPEModel, paths: list[Path], lines: list[str]) -> list[list]:
    if fmt == "hf":
        tok = tokenizers.Tokenizer.from_file(str(paths[0]))
        return [e.ids for e in tok.encode_batch(lines, add_special_tokens=False)]
    if fmt == "gpt2":
        vocab, merges = (str(p) for p in paths)
        tok = tokenizers.Tokenizer(tokenizers.models.BPE.from_file(vocab, merges))
        tok.pre_tokenizer = tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False)
        return [e.ids for e in tok.encode_batch(lines, add_special_tokens=False)]
    if fmt == "tiktoken":
        settings = json.loads(paths[1].read_text(encoding="utf-8"))
        ranks = tiktoken_ranks_of(paths[0])
        enc = tiktoken.Encoding(settings["name"], pat_str=settings["pat_str"],
                                mergeable_ranks=ranks, special_tokens=settings["special_tokens"],
                                explicit_n_vocab=settings["explicit_n_vocab"])
        return [enc.encode_ordinary(line) for line in lines]
    if fmt == "sentencepiece":
        sp = sentencepiece.SentencePieceProcessor(model_file=str(paths[0]))
        return [list(ids) for ids in sp.encode(lines)]
    if fmt == "fastbpe":
        bpe = fastBPE.fastBPE(str(paths[0]))
        return [text.split(" ") if text else [] for text in bpe.apply(lines)]
    if fmt == "youtokentome":
        bpe = youtokentome.BPE(str(paths[0]))
        return bpe.encode(lines, output_type=youtokentome.OutputType.ID)
    if fmt == "subword-nmt":
        with open(paths[0], encoding="utf-8") as codes:
            bpe = apply_bpe.BPE(codes)
        out = []
        for line in lines:
            text = bpe.process_line(line).strip("\r\n ")
            out.append(text.split(" ") if text else [])
        return out
    raise AssertionError(fmt)


def tiktoken_ranks_of(path: Path) -> dict[bytes, int]:
    """The ranks file read as tiktoken's loader reads it (without its path-keyed cache)."""
    import base64

    ranks = {}
    for line in path.read_bytes().splitlines():
        token, rank = line.split()
        ranks[base64.b64decode(token)] = int(rank)
    return ranks


def ours_like_peer(fmt: str, model: BPEModel, lines: list[str]) -> list[list]:
    if fmt in ("subword-nmt", "fastbpe"):
        return [our_snmt_tokens(model, line) for line in lines]
    ids = our_ids(model, lines)  # sentencepiece: runs of <unk> fused by us (fuse_unk)
    if fmt == "youtokentome":  # YouTokenToMe always fuses runs of unknown characters
        unk = model.config.special("unk").id
        return [fuse_unknowns(x, unk) for x in ids]
    return ids


def first_difference(lines, ours, theirs) -> str | None:
    for line, a, b in zip(lines, ours, theirs):
        if a != b:
            return f"{line!r}:\n  ours   {a[:40]}\n  theirs {b[:40]}"
    return None


def export_to(tmp_path: Path, model: BPEModel, fmt: str, **options) -> list[Path]:
    tmp_path.mkdir(parents=True, exist_ok=True)
    target = tmp_path / ("gpt2-export" + os.sep if fmt == "gpt2" else f"export.{fmt}")
    return export_model(model, fmt, target, **options)
