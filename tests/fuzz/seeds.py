"""Valid inputs for the fuzz targets: small models and their files in every import format.

Mutating valid files reaches far deeper into a parser than random bytes do, and small
seeds (about 25 merges) keep each mutation likely to land somewhere that matters.
Everything here is deterministic (trained from fixed texts), so a failing example
replays exactly.
"""

from __future__ import annotations

import functools
import json
import tempfile
from pathlib import Path

from bpe_desktop.core import BPEModel, Corpus, SpecialToken, TrainConfig, train
from bpe_desktop.core.formats import export_model
from bpe_desktop.core.model_file import dumps

#: Training text with several scripts, marks, emoji and repeated words.
TEXTS = (
    "low lower lowest newer wider new low low lower",
    "the cat sat on the mat, naïve café cafe\u0301 日本語の文 😀👍🏽 Русский текст",
    "हिन्दी पाठ don't O'Neil 3.14 -- ... tab\tinside",
) * 3

CREATED = "2025-01-31T12:00:00Z"


def _model(preset: str, **overrides) -> BPEModel:
    config = TrainConfig.preset(preset, merges=25, **overrides)
    return train(Corpus.from_texts(TEXTS), config).model


@functools.cache
def models() -> dict[str, BPEModel]:
    """One small trained model per preset (and a byte-level one with a special token)."""
    return {
        "sennrich": _model("sennrich"),
        "subword-nmt": _model("subword-nmt"),
        "gpt2": _model("gpt2", special_tokens=(SpecialToken("<|endoftext|>", 0),)),
        "sentencepiece": _model("sentencepiece"),
        "nfkc-lowercase": _model("subword-nmt", normalize="nfkc", lowercase=True),
    }


@functools.cache
def model_files() -> tuple[bytes, ...]:
    """Model files (our own format) of every seed model."""
    return tuple(dumps(m, created=CREATED).encode("utf-8") for m in models().values())


#: Import format -> [(seed name, model name, export options)].
_EXPORTS = {
    "hf": [("hf-suffix", "subword-nmt", {}), ("hf-bytes", "gpt2", {}),
           ("hf-metaspace", "sentencepiece", {}), ("hf-legacy", "subword-nmt",
                                                   {"legacy_merges": True}),
           ("hf-normalized", "nfkc-lowercase", {})],
    "gpt2": [("gpt2", "gpt2", {})],
    "subword-nmt": [("codes-v02", "subword-nmt", {}), ("codes-v01", "sennrich", {})],
    "sentencepiece": [("spm", "sentencepiece", {})],
    "tiktoken": [("tiktoken", "gpt2", {})],
    "fastbpe": [("fastbpe", "subword-nmt", {})],
    "youtokentome": [("yttm", "sentencepiece", {})],
}

#: The file name each format is imported from (gpt2: the pair's folder).
IMPORT_NAME = {"hf": "tokenizer.json", "gpt2": "vocab.json", "subword-nmt": "bpe.codes",
               "sentencepiece": "tok.model", "tiktoken": "tok.tiktoken", "fastbpe": "codes",
               "youtokentome": "yttm.model"}


@functools.cache
def import_seeds() -> dict[str, tuple[tuple[tuple[str, bytes], ...], ...]]:
    """Format -> seeds; a seed is its files as ``(name, bytes)``, the imported one first.

    gpt2 seeds are ``vocab.json`` and ``merges.txt``; tiktoken seeds the ranks file and
    its ``.json`` settings file. A hand-written tokenizer.json with nested ``Sequence``
    pre-tokenizers and normalizers is added to the exported ones.
    """
    out: dict[str, list[tuple[tuple[str, bytes], ...]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for fmt, exports in _EXPORTS.items():
            for seed_name, model_name, options in exports:
                folder = Path(tmp) / seed_name
                folder.mkdir()
                target = folder / IMPORT_NAME[fmt]
                written = export_model(models()[model_name], fmt, target, **options)
                files = sorted(written, key=lambda p: p != target)
                out.setdefault(fmt, []).append(
                    tuple((p.name, p.read_bytes()) for p in files))
    out["hf"].append(((IMPORT_NAME["hf"], _hand_written_hf()),))
    return {fmt: tuple(seeds) for fmt, seeds in out.items()}


def _hand_written_hf() -> bytes:
    data = {
        "version": "1.0",
        "added_tokens": [
            {"id": 0, "content": "[UNK]", "special": True},
            {"id": 6, "content": "<mask>", "special": False},
        ],
        "normalizer": {"type": "Sequence", "normalizers": [
            {"type": "NFC"}, {"type": "Lowercase"}, {"type": "StripAccents"},
            {"type": "Replace", "pattern": {"String": "\r\n"}, "content": "\n"}]},
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
            {"type": "Whitespace"}, {"type": "Digits", "individual_digits": True}]},
        "model": {"type": "BPE", "dropout": 0.1, "unk_token": "[UNK]",
                  "continuing_subword_prefix": None, "end_of_word_suffix": "</w>",
                  "fuse_unk": False, "byte_fallback": True, "ignore_merges": True,
                  "vocab": {"[UNK]": 0, "a": 1, "b": 2, "ab": 3, "c</w>": 4, "abc</w>": 5},
                  "merges": ["a b", ["ab", "c</w>"]]},
    }
    return json.dumps(data, indent=1).encode("utf-8")


def corpus_seeds() -> tuple[bytes, ...]:
    """Corpus files: plain text, CRLF with a BOM, and a word-count table."""
    text = "\n".join(TEXTS).encode("utf-8")
    return (text, b"\xef\xbb\xbf" + text.replace(b"\n", b"\r\n"),
            b"low\t5\nlower\t2\nnewest\t6\nwidest\t3\n")
