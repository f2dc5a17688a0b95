"""Compare tokenizers side by side: word-by-word cuts, agreement, vocabulary overlap.

Qt-free; ``bpe-desktop compare`` and the Compare panel both call :func:`compare`. Any
model the application opens works, imported ones included::

    from bpe_desktop.core.comparison import compare, open_model

    result = compare([("8k", open_model("8k.json")),
                      ("gpt2", open_model("tokenizer.json", "hf"))], lines)
    result.pairs[0].f1, result.overlaps[0].summary(), result.to_json()

Definitions: :mod:`.alignment` (words, cuts, agreement, identical words, tokens per
line) and :mod:`.overlap` (marker normalisation). The per-tokenizer metrics are the
evaluation's text statistics (:mod:`bpe_desktop.core.evaluation.text_stats`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from bpe_desktop.core.comparison.alignment import (
    AlignedWord,
    Alignment,
    Cut,
    Occurrence,
    PairSummary,
    Token,
    align,
)
from bpe_desktop.core.comparison.overlap import (
    CATEGORIES,
    Overlap,
    OverlapRow,
    normalized_piece,
    vocabulary_overlap,
    vocabulary_texts,
)
from bpe_desktop.core.errors import ConfigError, ModelFileError
from bpe_desktop.core.evaluation.text_stats import TextSample, TextStats
from bpe_desktop.core.model import BPEModel

if TYPE_CHECKING:
    from bpe_desktop.core.comparison.parity_pair import LanguageCosts

#: How many tokenizers one comparison holds.
MIN_TOKENIZERS, MAX_TOKENIZERS = 2, 4
#: Model formats: our own model files, or any format an importer reads.
MODEL_FORMAT = "model"


def model_formats() -> tuple[str, ...]:
    from bpe_desktop.core.formats import FORMATS

    return (MODEL_FORMAT, *(n for n, f in FORMATS.items() if f.can_import))


def open_model(path: str | os.PathLike, fmt: str = MODEL_FORMAT) -> BPEModel:
    """A model file of ours (``fmt="model"``) or any importable format's file."""
    path = os.fspath(path)
    if not os.path.exists(path):
        raise ModelFileError(f"{path}: no such file", path=path)
    if fmt == MODEL_FORMAT:
        from bpe_desktop.core.model_file import load_model

        return load_model(path)
    from bpe_desktop.core.formats import import_model

    return import_model(fmt, path)


@dataclass
class Comparison:
    """Everything the Compare panel and ``bpe-desktop compare`` show."""

    alignment: Alignment
    #: every pair (i, j), i < j, as indices into ``names``: B = j against A = i.
    pair_indices: list[tuple[int, int]]
    pairs: list[PairSummary]
    overlaps: list[Overlap]
    #: the evaluation's text statistics, one per tokenizer.
    stats: list[TextStats] = field(default_factory=list)
    vocab_sizes: list[int] = field(default_factory=list)
    #: On a parallel set: each language's token cost under each tokenizer.
    language_costs: LanguageCosts | None = None
    #: Each tokenizer's :attr:`~bpe_desktop.core.model.BPEModel.approximations` (empty
    #: for one that encodes as its source): its figures describe that approximation.
    approximations: list[tuple[str, ...]] = field(default_factory=list)

    @property
    def names(self) -> tuple[str, ...]:
        return self.alignment.names

    def to_json(self) -> dict:
        notes = self.approximations or [()] * len(self.names)  # (a hand-made result's)
        out = {
            "tokenizers": [{"name": n, "vocab_size": v, "approximations": list(a),
                            "text": s.summary()}
                           for n, v, a, s in zip(self.names, self.vocab_sizes, notes,
                                                 self.stats)],
            "pairs": [{**p.summary(), "overlap": o.summary()}
                      for p, o in zip(self.pairs, self.overlaps)],
        }
        if self.language_costs is not None:
            out["languages"] = self.language_costs.to_json()
        return out


def compare(models: Sequence[tuple[str, BPEModel]], lines: Iterable[str], *,
            cancelled: Callable[[], bool] | None = None) -> Comparison:
    """Compare 2–4 ``(name, model)`` pairs on ``lines``; names must differ."""
    if not MIN_TOKENIZERS <= len(models) <= MAX_TOKENIZERS:
        raise ConfigError(f"compare takes {MIN_TOKENIZERS} to {MAX_TOKENIZERS} tokenizers; "
                          f"got {len(models)}")
    names = [n for n, _ in models]
    if len(set(names)) != len(names):
        raise ConfigError(f"tokenizer names must differ; got {', '.join(names)}")
    lines = [ln.rstrip("\r\n") for ln in lines]
    alignment = align(models, lines, cancelled=cancelled)
    indices = [(i, j) for i in range(len(models)) for j in range(i + 1, len(models))]
    pairs = [alignment.pair(i, j) for i, j in indices]
    overlaps = [vocabulary_overlap(models[i], models[j]) for i, j in indices]
    stats = [TextSample.from_lines(m, lines, cancelled).stats(m) for _, m in models]
    return Comparison(alignment, indices, pairs, overlaps, stats,
                      [m.vocab_size for _, m in models],
                      approximations=[m.approximations for _, m in models])


def read_text_lines(paths: Sequence[str | os.PathLike]) -> list[str]:
    """The lines of text files (UTF-8; errors name the file and line)."""
    from bpe_desktop.core.evaluation.text_stats import _read_lines

    return [ln.rstrip("\r\n") for ln in _read_lines(paths)]


__all__ = [
    "CATEGORIES", "MAX_TOKENIZERS", "MIN_TOKENIZERS", "MODEL_FORMAT", "AlignedWord",
    "Alignment", "Comparison", "Cut", "Occurrence", "Overlap", "OverlapRow",
    "PairSummary", "Token", "align", "compare", "model_formats", "normalized_piece",
    "open_model", "read_text_lines", "vocabulary_overlap", "vocabulary_texts",
]
