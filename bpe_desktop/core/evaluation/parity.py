"""Tokenization parity across languages (Petrov et al. 2023).

Given texts that are translations of each other, each language's parity is its token
count relative to the reference language's:

* ``document`` mode: tokens(text) / tokens(reference text), whole documents;
* ``lines`` mode (line-aligned files, equal line counts): the mean over line pairs of
  tokens(line) / tokens(reference line), over the pairs where both lines have tokens.

1.0 means the language costs as many tokens as the reference; 2.0 twice as many.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bpe_desktop.core.errors import CorpusError
from bpe_desktop.core.evaluation.text_stats import _read_lines
from bpe_desktop.core.model import BPEModel

PARITY_MODES = ("document", "lines")


@dataclass(frozen=True)
class ParityRow:
    name: str
    tokens: int
    parity: float


@dataclass(frozen=True)
class ParityResult:
    reference: str
    mode: str
    rows: tuple[ParityRow, ...]

    def summary(self) -> dict:
        """The JSON section of the command line (``parity``: file name -> parity)."""
        return {r.name: r.parity for r in self.rows}


@dataclass
class ParallelTexts:
    """Translations of one text, read once: name -> lines (the reference included)."""

    reference: str
    texts: dict[str, list[str]]

    @classmethod
    def from_files(cls, paths: Sequence[str | os.PathLike], reference: str | os.PathLike
                   ) -> ParallelTexts:
        reference = os.fspath(reference)
        ordered = [reference, *(os.fspath(p) for p in paths if os.fspath(p) != reference)]
        names = [Path(p).name for p in ordered]
        if len(set(names)) != len(names):
            raise CorpusError("parallel files must have distinct file names (they label the "
                              "results)")
        texts = {Path(p).name: [ln.rstrip("\r\n") for ln in _read_lines([p])]
                 for p in ordered}
        return cls(Path(reference).name, texts)


def evaluate_parity(model: BPEModel, texts: ParallelTexts, mode: str = "document"
                    ) -> ParityResult:
    if mode not in PARITY_MODES:
        raise CorpusError(f"parity mode must be one of {', '.join(PARITY_MODES)}")
    tok = model.tokenizer()
    per_line = {name: tok.encode_batch_flat(lines)[1].tolist()
                for name, lines in texts.texts.items()}
    ref = per_line[texts.reference]
    ref_total = sum(ref)
    rows = []
    for name, counts in per_line.items():
        total = sum(counts)
        if mode == "document":
            parity = total / ref_total if ref_total else 0.0
        else:
            if len(counts) != len(ref):
                raise CorpusError(f"{name} has {len(counts)} lines but the reference "
                                  f"{texts.reference} has {len(ref)}: line-aligned parity "
                                  "needs equal line counts", path=name)
            ratios = [c / r for c, r in zip(counts, ref) if c and r]
            parity = sum(ratios) / len(ratios) if ratios else 0.0
        rows.append(ParityRow(name, total, parity))
    return ParityResult(texts.reference, mode, tuple(rows))
