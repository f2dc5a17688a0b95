"""How many of the corpus's distinct words each kind of gold file a training reads
matches: gold boundaries, Morfessor annotations, BPE-knockout gold.

A gold word is matched to a corpus word after normalization and lower-casing as the
model's (:func:`spelled_morphs`, as the engine spells text), without GPT-2's leading
space. A gold file spelled otherwise than the corpus (NFC against NFD, capitalized words)
matches fewer words or none, silently: these counts and warnings are how a user learns
it. Words are compared as the pre-tokenizer cut them, so a form that would cut them
otherwise (GPT-2's pattern cuts before a combining accent of NFD text) is not foreseen.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Sequence


@dataclass(frozen=True)
class GoldKind:
    """How the summary and warnings name one kind of gold file, and which of its words
    count: gold boundaries act only where a word has a boundary; annotations and knockout
    gold use every word they list (a word in one morph is annotated whole, and its merges
    respect the gold)."""

    label: str
    files: str
    verb: str
    participle: str
    unmatched: str
    least_morphs: int


#: Keyed by the ``TrainConfig`` option that lists the files.
GOLD_KINDS = {
    "gold_boundaries": GoldKind("Gold boundaries", "gold files", "cut", "cut",
                                "their boundaries cut nothing", 2),
    "morfessor_annotations": GoldKind(
        "Morfessor annotations", "annotation files", "match", "matched",
        "Morfessor learns from them only words the corpus does not have", 1),
    "knockout": GoldKind("Knockout gold files", "knockout gold files", "match", "matched",
                         "the merges are judged only on words the corpus does not have", 1),
}


@dataclass(frozen=True)
class GoldMatch:
    """How many of the corpus's distinct words the files of one gold option match."""

    cut: int
    distinct: int
    #: Words the gold would also match with NFC normalization (0 when the model has a form).
    more_with_nfc: int = 0
    #: Words the gold would also match with lower-casing (0 when the model lower-cases).
    more_with_lowercase: int = 0
    #: The ``TrainConfig`` option of the files (a key of :data:`GOLD_KINDS`).
    option: str = "gold_boundaries"

    def summary(self) -> str:
        """One line: the words matched, and those spelled otherwise."""
        kind = GOLD_KINDS[self.option]
        line = (f"{kind.label} {kind.verb} {self.cut:,} of the corpus's {self.distinct:,} "
                "distinct words")
        more = [f"{n:,} with {how}" for n, how in ((self.more_with_nfc, "NFC normalization"),
                                                   (self.more_with_lowercase, "lower-casing"))
                if n]
        return line + (f" (more would match: {', '.join(more)})" if more else "")

    def warning(self) -> str | None:
        """A mismatch that is hardly meant: no word matched, or words apart only by the
        Unicode form (é as one character in one, e + accent in the other)."""
        kind = GOLD_KINDS[self.option]
        if self.more_with_nfc:
            n = self.more_with_nfc
            words = f"{n:,} corpus word is" if n == 1 else f"{n:,} corpus words are"
            return (f"{words} in the {kind.files} in another Unicode form (NFC against NFD) "
                    f"and not {kind.participle}; train with NFC normalization "
                    f"(--normalize nfc) to {kind.verb} {'it' if n == 1 else 'them'}")
        if self.cut == 0:
            return f"no word of the corpus is in the {kind.files}: {kind.unmatched}"
        return None


def gold_match(result, gold: Sequence[tuple[str, ...]],
               option: str = "gold_boundaries") -> GoldMatch:
    """The corpus words of ``result`` (a training run) that the segmentations ``gold``,
    read from the files of ``option``, match. The training words are normalized and
    lower-cased as the model's already."""
    from bpe_desktop.core.pieces import surface_text

    config = result.model.config
    least = GOLD_KINDS[option].least_morphs
    words = result.words()
    if config.byte_level:  # GPT-2's byte characters back to text
        words = [surface_text(w, config) for w in words]
    words = [w.lstrip() for w in words]  # GPT-2's leading space is not the gold's
    as_trained = _gold_words(gold, config.normalize, config.lowercase, least)
    cut = sum(w in as_trained for w in words)
    more_nfc = more_lower = 0
    if config.normalize == "none":
        as_nfc = _gold_words(gold, "nfc", config.lowercase, least)
        more_nfc = max(0, sum(_nfc(w) in as_nfc for w in words) - cut)
    if not config.lowercase:
        as_lower = _gold_words(gold, config.normalize, True, least)
        more_lower = max(0, sum(w.lower() in as_lower for w in words) - cut)
    return GoldMatch(cut, len(words), more_nfc, more_lower, option)


def spelled_morphs(morphs: Sequence[str], form: str, lowercase: bool) -> tuple[str, ...]:
    """Each morph spelled as the engine spells text (Unicode form, then lower case),
    empty ones dropped: a gold file matches the corpus words as the model spells them,
    whatever form or case the file is in."""
    if form != "none":
        morphs = [unicodedata.normalize(form.upper(), m) for m in morphs]
    return tuple(m for m in (m.lower() if lowercase else m for m in morphs) if m)


def _nfc(text: str) -> str:
    return text if unicodedata.is_normalized("NFC", text) else \
        unicodedata.normalize("NFC", text)


def _gold_words(gold, form: str, lowercase: bool, least_morphs: int) -> set[str]:
    """The gold words of at least ``least_morphs`` morphs, spelled as
    :func:`spelled_morphs` spells them."""
    out = set()
    for morphs in gold:
        parts = spelled_morphs(morphs, form, lowercase)
        if len(parts) >= least_morphs:
            out.add("".join(parts))
    return out
