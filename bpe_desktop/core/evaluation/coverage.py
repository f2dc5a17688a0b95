"""Does a gold file match the model's text? Character coverage, and a character mapping.

A gold file written in another spelling than the training text (Morpho Challenge's
Turkish writes ç ı ş ğ ö ü as C I S G O U) is scored without complaint, and the scores
look plausible. The gold report says, per gold file:

* **words with unseen characters**: gold words containing a character that no kept
  training word contains (for a character-level model, also none of its alphabet);
* **words with rare characters**: gold words containing a character that the kept
  training words hold fewer than :data:`RARE_COUNT` times, or that makes up less than
  :data:`RARE_SHARE` of their characters (and none unseen);
* **words in training**: gold words that are themselves among the kept training words;
* a **warning** when the share of gold words with unseen or rare characters reaches
  :data:`WARN_SHARE`.

Characters are compared after the model's normalization and lowercasing, as the
encoder sees them. The training words are the model's kept words
(``TrainConfig.keep_words``, the most frequent ones); a model without them (an import)
has only its alphabet to go by, and a byte-level model without them reports no
characters as unseen.

A character mapping rewrites the gold's spelling before scoring, character by
character in the word and in each morph (so boundaries follow the morphs).
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

from bpe_desktop.core.config import BOW, EOW
from bpe_desktop.core.errors import ConfigError
from bpe_desktop.core.evaluation.gold import GoldSet, GoldWord
from bpe_desktop.core.evaluation.segments import byte_fallback_ids
from bpe_desktop.core.model import BPEModel

#: A character seen fewer times, or below this share of the training words' characters,
#: is "rare".
RARE_COUNT = 5
RARE_SHARE = 1e-4
#: Warn when at least this share of gold words has an unseen or rare character.
WARN_SHARE = 0.05
#: Characters listed in a report (the most frequent in the gold first).
CHARACTERS_SHOWN = 20

#: Ready-made mappings: from a gold file's spelling to the training text's.
CHARACTER_MAPS: dict[str, dict[str, str]] = {
    # Morpho Challenge 2005-2010 Turkish gold: ASCII capitals for the Turkish letters.
    "morpho-challenge-turkish": {"C": "ç", "I": "ı", "S": "ş", "G": "ğ", "O": "ö", "U": "ü"},
}


@dataclass(frozen=True)
class GoldReport:
    """How well a gold file's words match the model's training text (module docstring)."""

    name: str
    words: int
    malformed: int
    malformed_lines: tuple[tuple[int, str], ...]
    not_surface: int
    with_unseen: int
    with_rare: int
    in_training: int
    #: unseen / rare characters with their number of gold words, most frequent first.
    unseen_characters: tuple[tuple[str, int], ...]
    rare_characters: tuple[tuple[str, int], ...]
    #: False when the model keeps no training words (in_training is then 0).
    knows_training_words: bool
    mapping: tuple[tuple[str, str], ...] = ()
    path: str = ""

    @property
    def mismatch_share(self) -> float:
        """Share of usable gold words with an unseen or rare character."""
        return (self.with_unseen + self.with_rare) / self.words if self.words else 0.0

    @property
    def warning(self) -> str:
        """One sentence when the gold's characters do not match the model's; else ""."""
        if self.words == 0 or self.mismatch_share < WARN_SHARE:
            return ""
        shown = ", ".join(c for c, _ in (self.unseen_characters + self.rare_characters)[:8])
        return (f"{self.mismatch_share:.0%} of the words in {self.name} contain characters "
                f"the model never or rarely saw ({shown}): the gold may be written in "
                "another spelling than the training text; try a character mapping.")

    def summary(self) -> dict:
        """The JSON section of the command line (``gold.<name>``)."""
        return {"words": self.words, "malformed": self.malformed,
                "malformed_lines": [{"line": n, "reason": r} for n, r in self.malformed_lines],
                "not_spelling_the_word": self.not_surface,
                "words_with_unseen_characters": self.with_unseen,
                "words_with_rare_characters": self.with_rare,
                "words_in_training": self.in_training if self.knows_training_words else None,
                "unseen_characters": dict(self.unseen_characters),
                "rare_characters": dict(self.rare_characters),
                "character_mapping": dict(self.mapping), "warning": self.warning}


class TrainingCharacters:
    """Character counts of a model's kept training words (computed once per model)."""

    def __init__(self, model: BPEModel) -> None:
        counts: Counter[str] = Counter()
        for word, count in model.words:
            for ch, n in Counter(word).items():
                counts[ch] += n * count
        self.counts = counts
        self.total = sum(counts.values())
        self.words = frozenset(w for w, _ in model.words)
        byte_tokens = {model.pieces[i] for i in byte_fallback_ids(model)}  # <0xC3>: no text
        self.alphabet = frozenset() if model.config.byte_level else frozenset(
            ch for piece in model.alphabet if piece not in byte_tokens
            for ch in piece.replace(EOW, "").replace(BOW, ""))
        self._config = model.config

    def normalized(self, text: str) -> str:
        cfg = self._config
        if cfg.normalize != "none":
            text = unicodedata.normalize(cfg.normalize.upper(), text)
        return text.lower() if cfg.lowercase else text

    def kind(self, ch: str) -> str:
        """"unseen", "rare" or "seen"."""
        n = self.counts.get(ch, 0)
        if n == 0:
            return "seen" if ch in self.alphabet or not (self.total or self.alphabet) \
                else "unseen"
        return "rare" if n < max(RARE_COUNT, RARE_SHARE * self.total) else "seen"


def gold_report(model: BPEModel, gold: GoldSet, characters: TrainingCharacters | None = None,
                mapping: Mapping[str, str] | None = None) -> GoldReport:
    """The gold report of ``gold`` (already mapped with ``mapping``, which the report
    names) against ``model`` (see the module docstring)."""
    chars = characters or TrainingCharacters(model)
    with_unseen = with_rare = in_training = 0
    unseen: Counter[str] = Counter()
    rare: Counter[str] = Counter()
    for w in gold.words:
        word = chars.normalized(w.word)
        kinds = {ch: chars.kind(ch) for ch in set(word)}
        bad = {k for k in kinds.values() if k != "seen"}
        if "unseen" in bad:
            with_unseen += 1
        elif "rare" in bad:
            with_rare += 1
        unseen.update(ch for ch, k in kinds.items() if k == "unseen")
        rare.update(ch for ch, k in kinds.items() if k == "rare")
        in_training += word in chars.words
    return GoldReport(
        name=gold.name, words=len(gold.words), malformed=gold.malformed,
        malformed_lines=gold.malformed_lines, not_surface=gold.not_surface,
        with_unseen=with_unseen, with_rare=with_rare, in_training=in_training,
        unseen_characters=tuple(unseen.most_common(CHARACTERS_SHOWN)),
        rare_characters=tuple(rare.most_common(CHARACTERS_SHOWN)),
        knows_training_words=bool(chars.words), mapping=tuple((mapping or {}).items()),
        path=gold.path)


def parse_character_map(spec: str) -> dict[str, str]:
    """A mapping from a ready-made name (:data:`CHARACTER_MAPS`) or ``FROM=TO`` pairs
    separated by commas (``C=ç,I=ı``); FROM is one character."""
    spec = spec.strip()
    if spec in CHARACTER_MAPS:
        return dict(CHARACTER_MAPS[spec])
    out: dict[str, str] = {}
    for n, pair in enumerate(filter(None, (p.strip() for p in spec.split(","))), 1):
        source, sep, target = pair.partition("=")
        if not sep or len(source) != 1:
            raise ConfigError(f"character mapping {spec!r}, pair {n} ({pair!r}): write "
                              "FROM=TO with one character before '=', or one of "
                              f"{', '.join(CHARACTER_MAPS)}")
        out[source] = target
    return out


def map_gold(gold: GoldSet, mapping: Mapping[str, str]) -> GoldSet:
    """``gold`` with every character of its words and morphs mapped (unmapped ones kept)."""
    if not mapping:
        return gold
    table = str.maketrans(dict(mapping))
    words = []
    for w in gold.words:
        analyses = tuple(tuple(m.translate(table) for m in a) for a in w.analyses)
        word = w.word.translate(table)
        kept = tuple(a for a in analyses if "".join(a) == word)
        if kept:  # (a one-character target always keeps them)
            words.append(GoldWord(word, kept, w.line))
    lost = len(gold.words) - len(words)
    return GoldSet(gold.name, gold.format, tuple(words), gold.not_surface + lost,
                   gold.malformed, gold.malformed_lines, gold.path)

