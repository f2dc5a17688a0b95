"""Tokenization parity across languages (Petrov et al. 2023).

Given texts that are translations of each other, each language's parity is its token
count relative to the reference language's:

* ``document`` mode: tokens(text) / tokens(reference text), whole documents;
* ``lines`` mode (line-aligned files, equal line counts): the mean over line pairs of
  tokens(line) / tokens(reference line), over the pairs where both lines have tokens.

1.0 means the language costs as many tokens as the reference; 2.0 twice as many.

A language the model cannot spell looks cheap: a whole script mapped to ``<unk>`` costs
few tokens. So each row also has its **unknown rate** (unknown tokens / tokens), and a
row at or above :data:`UNKNOWN_WARN_RATE` is marked (``unknown_high``).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field

from bpe_desktop.core.errors import CorpusError
from bpe_desktop.core.evaluation.text_stats import _read_lines
from bpe_desktop.core.file_labels import distinguishing_labels
from bpe_desktop.core.model import BPEModel

PARITY_MODES = ("document", "lines")
#: A parity row whose unknown rate reaches this is marked: its parity is not comparable.
UNKNOWN_WARN_RATE = 0.01


@dataclass(frozen=True)
class ParityRow:
    name: str
    tokens: int
    parity: float
    unknown: int = 0

    @property
    def unknown_rate(self) -> float:
        return self.unknown / self.tokens if self.tokens else 0.0

    @property
    def unknown_high(self) -> bool:
        return self.unknown_rate >= UNKNOWN_WARN_RATE


@dataclass(frozen=True)
class ParityResult:
    reference: str
    mode: str
    rows: tuple[ParityRow, ...]

    def summary(self) -> dict:
        """The JSON section of the command line (``parity``: file name -> parity)."""
        return {r.name: r.parity for r in self.rows}

    def unknown_summary(self) -> dict:
        """``parity_unknown_rate``: file name -> unknown tokens / tokens."""
        return {r.name: r.unknown_rate for r in self.rows}


@dataclass
class ParallelTexts:
    """Translations of one text, read once: name -> lines (the reference included).

    A text's name is the shortest tail of its path that tells it from the others
    (``de/udhr.txt`` and ``fr/udhr.txt`` where the file names repeat); ``paths`` maps
    each name to the path as given, for messages.
    """

    reference: str
    texts: dict[str, list[str]]
    paths: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_files(cls, paths: Sequence[str | os.PathLike], reference: str | os.PathLike
                   ) -> ParallelTexts:
        reference = os.fspath(reference)
        # The reference may be listed among the parallel files too: it is read once.
        same_file = os.path.abspath(reference)
        ordered = [reference, *(os.fspath(p) for p in paths
                                if os.path.abspath(os.fspath(p)) != same_file)]
        names = distinguishing_labels(ordered)
        texts = {name: [ln.rstrip("\r\n") for ln in _read_lines([p])]
                 for name, p in zip(names, ordered)}
        return cls(names[0], texts, dict(zip(names, ordered)))


def evaluate_parity(model: BPEModel, texts: ParallelTexts, mode: str = "document"
                    ) -> ParityResult:
    if mode not in PARITY_MODES:
        raise CorpusError(f"parity mode must be one of {', '.join(PARITY_MODES)}")
    tok = model.tokenizer()
    unk = model.config.special("unk")
    per_line, unknown = {}, {}
    for name, lines in texts.texts.items():
        ids, lengths = tok.encode_batch_flat(lines)
        per_line[name] = lengths.tolist()
        unknown[name] = int((ids == unk.id).sum()) if unk is not None else 0
    ref = per_line[texts.reference]
    ref_total = sum(ref)
    if not ref_total:  # every ratio would divide by it
        path = texts.paths.get(texts.reference, texts.reference)
        raise CorpusError(f"{path}: the reference text has no tokens (it is empty or white "
                          "space): parity is relative to it; choose another reference",
                          path=path)
    rows = []
    for name, counts in per_line.items():
        total = sum(counts)
        if mode == "document":
            parity = total / ref_total
        else:
            if len(counts) != len(ref):
                path = texts.paths.get(name, name)
                raise CorpusError(f"{path} has {len(counts)} lines but the reference "
                                  f"{texts.paths.get(texts.reference, texts.reference)} has "
                                  f"{len(ref)}: line-aligned parity needs equal line counts",
                                  path=path)
            ratios = [c / r for c, r in zip(counts, ref) if c and r]
            parity = sum(ratios) / len(ratios) if ratios else 0.0
        rows.append(ParityRow(name, total, parity, unknown[name]))
    return ParityResult(texts.reference, mode, tuple(rows))
