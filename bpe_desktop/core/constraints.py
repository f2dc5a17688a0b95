"""Linguistic constraints on what BPE learns: boundaries inside words and forbidden pairs.

Boundaries (MorphBPE, Asgari et al. 2025): the trainer never forms a pair across a
marked boundary of a training word. Encoding stays ordinary BPE, so every export stays
valid; the price is that encoding, which does not know the boundaries, may cut a
constrained training word differently from its training segmentation (a merge learned
from other words can join across the word's boundary). What is guaranteed:

* with no boundaries, training is plain training, merge for merge;
* pair counts, ties and stop rules are those of plain training over the words with the
  cross-boundary pairs left out (the reference trainer in the tests is the definition);
* every training word's segmentation is the concatenation of its segments' encodings
  (each segment re-encodes to its training pieces with the merges), and the model's
  ``final_counts`` count those segmentations.

Sources of boundaries: gold segmentation files (any format Evaluate reads; entries whose
morphs do not spell the word are left out, as Evaluate does), a pre-segmented corpus
whose words carry a separator (``un@@happi@@ness``; removed before learning), and
Morfessor 2.0 (:mod:`~bpe_desktop.core.morfessor_source`).

Forbidden pairs (BPE-knockout, Bauwens & Delobelle 2024): see :mod:`~bpe_desktop.core.knockout`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Iterable, Sequence

from bpe_desktop.core.errors import ConfigError, CorpusError

#: The constraint options that hold lists of gold files.
FILE_LIST_OPTIONS = ("gold_boundaries", "morfessor_annotations", "knockout")


@dataclass(frozen=True)
class Constraints:
    """What the engine is told: segmentations of words, a separator, forbidden pairs."""

    #: Each a tuple of morphs spelling one word; the first one listed for a word wins.
    segmentations: tuple[tuple[str, ...], ...] = ()
    #: Marks cuts inside the corpus's words and is removed ("" : none).
    separator: str = ""
    #: (left, right) token pairs never merged.
    forbidden: tuple[tuple[str, str], ...] = ()

    @property
    def empty(self) -> bool:
        return not (self.segmentations or self.separator or self.forbidden)


@dataclass(frozen=True)
class ConstraintReport:
    """What the constraints did, kept with the model (model file key ``constraints``)."""

    #: One line naming the method(s) and source(s), e.g. "gold boundaries (eng.tsv)".
    method: str
    #: Words the sources cut at one boundary or more (before matching the corpus).
    segmented_words: int = 0
    #: Per knocked-out merge: (left, right, crossings, respects, round).
    knocked_out: tuple[tuple[str, str, int, int, int], ...] = field(default_factory=tuple)


def gold_segmentations(paths: Sequence[str | os.PathLike]) -> tuple[tuple[str, ...], ...]:
    """Each gold word's first analysis from gold files (any format Evaluate reads)."""
    from bpe_desktop.core.evaluation.gold import read_gold

    out: list[tuple[str, ...]] = []
    for path in paths:
        gold = read_gold(path)
        # Evaluate skips and counts a malformed line; boundaries a model is trained with
        # must all come from lines that say what they mean, so here one is an error.
        if gold.malformed_lines:
            line, reason = gold.malformed_lines[0]
            raise CorpusError(f"{os.fspath(path)} line {line}: {reason}", path=os.fspath(path),
                              line=line, reason="malformed")
        out.extend(w.analyses[0] for w in gold.words if w.analyses)
    return tuple(out)


def check_segmentation(word: str, morphs: Sequence[str], *, path: str, line: int) -> None:
    """A segmentation must spell its word; the error names file and line."""
    if "".join(morphs) != word:
        raise CorpusError(f"{path} line {line}: the morphs {' '.join(morphs)!r} do not spell "
                          f"{word!r}", path=path, line=line, reason="malformed")


def write_segmentation(path: str | os.PathLike, rows: Iterable[tuple[str, Sequence[str]]]) -> None:
    """Save ``word<TAB>morph morph ...`` lines (the surface gold format, so the file is
    reusable as gold boundaries and readable by Evaluate), atomically."""
    from bpe_desktop.core.counting import write_table_atomically

    def lines():
        for number, (word, morphs) in enumerate(rows, 1):
            check_segmentation(word, morphs, path=os.fspath(path), line=number)
            if any(c.isspace() for c in word):
                raise CorpusError(f"{os.fspath(path)} line {number}: {word!r} contains "
                                  "whitespace, which separates the morphs in this format",
                                  path=os.fspath(path), line=number, reason="malformed")
            yield f"{word}\t{' '.join(morphs)}\n"

    write_table_atomically(path, lines())


def describe(config) -> str:
    """The constraint methods a configuration asks for, in words ("" for none)."""
    parts = []
    names = lambda paths: ", ".join(os.path.basename(p) for p in paths)  # noqa: E731
    if config.gold_boundaries:
        parts.append(f"gold boundaries ({names(config.gold_boundaries)})")
    if config.separator:
        parts.append(f"pre-segmented corpus (separator {config.separator!r})")
    if config.morfessor:
        semi = (f", semi-supervised with {names(config.morfessor_annotations)}"
                if config.morfessor_annotations else "")
        parts.append(f"Morfessor boundaries{semi}")
    if config.knockout:
        parts.append(f"BPE-knockout ({names(config.knockout)}, at most "
                     f"{config.knockout_rounds} rounds)")
    if getattr(config, "protected", ()):
        shown = ", ".join(map(repr, config.protected[:5]))
        more = f" and {len(config.protected) - 5} more" if len(config.protected) > 5 else ""
        parts.append(f"protected strings ({shown}{more})")
    return "; ".join(parts)


def check_config(config) -> None:
    """The constraint options' own rules (called by TrainConfig)."""
    for name in FILE_LIST_OPTIONS:
        value = getattr(config, name)
        if not isinstance(value, (tuple, list)) or \
                not all(isinstance(p, str) and p for p in value):
            raise ConfigError(f"{name} must be a list of file names; got {value!r}")
    if not isinstance(config.separator, str) or any(c.isspace() for c in config.separator):
        raise ConfigError("separator must be text without whitespace (words are cut at "
                          f"whitespace first); got {config.separator!r}")
    if not isinstance(config.morfessor, bool):
        raise ConfigError(f"morfessor must be true or false; got {config.morfessor!r}")
    if config.morfessor_annotations and not config.morfessor:
        raise ConfigError("morfessor_annotations needs morfessor: the annotations "
                          "supervise Morfessor's training")
    if config.separator and config.pretokenizer == "letters" and \
            not all(c.isalpha() for c in config.separator):
        raise ConfigError(f"separator {config.separator!r}: the letters pre-tokenizer makes "
                          "every non-letter a word of its own, so the separator cannot mark "
                          "cuts inside words; use another pre-tokenizer")
    from bpe_desktop.core.protected import check_protected
    check_protected(config)
    for token in config.special_tokens:
        if config.separator and config.separator in token.piece:
            raise ConfigError(f"separator {config.separator!r} occurs in the special token "
                              f"{token.piece!r}: it would be removed from it")
