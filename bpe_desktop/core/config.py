"""Training options: one immutable :class:`TrainConfig`, validated on creation.

The defaults reproduce the seed documents (Sennrich et al. 2016): words split at
whitespace, ``</w>`` as a separate end-of-word symbol, ties to the pair seen first in
the corpus, a pair seen once never merged, and merging until no pair is left.

Each option's meaning, label, allowed values and range are declared once, on its field
below (:func:`~bpe_desktop.core.options.option`); the command line and the Training panel
are built from those declarations, and the value lists come from the engine.

Limits
------
Every value is checked when a config is made; a bad one is a :class:`ConfigError`
naming the setting, the value given and what is allowed (``vocab_size must be at least
1 and at most 2147483647; got 0``). Ids are 32-bit and counts 64-bit in the engine:

====================  =========================================
vocab_size            1 to 2**31 - 1, or None (no limit)
merges                0 to 2**31 - 1, or None (no limit)
min_frequency         1 to 2**64 - 1
threads               0 (all cores) to 1024
keep_words            0 to 2**31 - 1
character_coverage    more than 0, at most 1
morfessor_keep_share  0 to 1
special token ids     0 to 2**31 - 2, below vocab_size when it is set
texts                 pieces and initial_alphabet: no lone surrogates
====================  =========================================
"""

from __future__ import annotations

import dataclasses
import os
import re
from dataclasses import dataclass
from typing import Any, Mapping

from bpe_desktop.core.constraints import FILE_LIST_OPTIONS
from bpe_desktop.core.constraints import check_config as check_constraints
from bpe_desktop.core.errors import ConfigError
from bpe_desktop.core.languages import LANGUAGE_LIST_OPTIONS, check_languages
from bpe_desktop.core.options import (
    BYTE_LEVEL_PRETOKENIZERS,
    MAX_COUNT,
    MAX_THREADS,
    MAX_VOCAB,
    OPTION_VALUES,
    choices_of,
    option,
    option_specs,
)

#: Options holding lists of strings (files, CODE=VALUE entries).
LIST_OPTIONS = FILE_LIST_OPTIONS + LANGUAGE_LIST_OPTIONS
PRETOKENIZERS = OPTION_VALUES["pretokenizer"]
BOUNDARIES = OPTION_VALUES["boundary"]
TIE_BREAKS = OPTION_VALUES["ties"]
NORMALIZATIONS = OPTION_VALUES["normalize"]
SPECIAL_ROLES = OPTION_VALUES["role"]
#: Pre-tokenizers whose words carry their own space marker (Ġ, ▁) and so allow one
#: boundary style only.
BOUNDARY_OF_PRETOKENIZER = {**dict.fromkeys(BYTE_LEVEL_PRETOKENIZERS, "none"),
                            "sentencepiece": "bow-prefix"}

EOW = "</w>"
BOW = "\u2581"  # ▁, LOWER ONE EIGHTH BLOCK, as sentencepiece

#: Largest id of a special token (the vocabulary then has MAX_VOCAB tokens).
MAX_SPECIAL_ID = MAX_VOCAB - 1

_SURROGATE = re.compile("[\ud800-\udfff]")


def _check_unicode(name: str, text: str) -> None:
    """Text the engine can take: no lone surrogates (which are not Unicode characters)."""
    bad = _SURROGATE.search(text)
    if bad:
        raise ConfigError(f"{name} contains U+{ord(bad.group()):04X}, a lone surrogate that "
                          "is not a Unicode character")


@dataclass(frozen=True)
class SpecialToken:
    """A reserved token with a fixed id, never produced by merging.

    ``role`` is one of pad, unk, bos, eos (sentencepiece's four) or user.
    """

    piece: str
    id: int
    role: str = "user"

    def __post_init__(self) -> None:
        if not isinstance(self.piece, str) or not self.piece:
            raise ConfigError(f"a special token needs a non-empty piece; got {self.piece!r}")
        _check_unicode(f"special token {self.piece!r}", self.piece)
        if not isinstance(self.id, int) or isinstance(self.id, bool) or \
                not 0 <= self.id <= MAX_SPECIAL_ID:
            raise ConfigError(f"special token {self.piece!r}: id must be a whole number "
                              f"from 0 to {MAX_SPECIAL_ID}; got {self.id!r}")
        if self.role not in SPECIAL_ROLES:
            raise ConfigError(
                f"special token {self.piece!r}: role must be one of "
                f"{', '.join(SPECIAL_ROLES)}; got {self.role!r}"
            )


DEFAULT_SPECIALS = (SpecialToken("<unk>", 0, "unk"),)
#: The pieces byte fallback spells an unknown character's UTF-8 bytes in, byte by byte
#: (sentencepiece's and HF's spelling).
BYTE_PIECES = tuple(f"<0x{b:02X}>" for b in range(256))

#: Roles given to well-known special pieces when none is named.
ROLE_OF_PIECE = {"<unk>": "unk", "<pad>": "pad", "<s>": "bos", "<bos>": "bos",
                 "</s>": "eos", "<eos>": "eos"}


def parse_special(text: str) -> SpecialToken:
    """``PIECE:ID[:ROLE]`` (the piece may contain colons); well-known pieces get their role."""
    role = None
    head = text
    parts = text.rsplit(":", 1)
    if len(parts) == 2 and parts[1] in SPECIAL_ROLES:
        head, role = parts
    piece, sep, id_text = head.rpartition(":")
    if not sep or not piece or not id_text.isdigit():
        raise ConfigError(
            f"{text!r} is not PIECE:ID or PIECE:ID:ROLE (ROLE: {', '.join(SPECIAL_ROLES)})"
        )
    return SpecialToken(piece, int(id_text), role or ROLE_OF_PIECE.get(piece, "user"))


def format_special(token: SpecialToken) -> str:
    """The inverse of :func:`parse_special` (the role is omitted when it is the usual one)."""
    if ROLE_OF_PIECE.get(token.piece, "user") == token.role:
        return f"{token.piece}:{token.id}"
    return f"{token.piece}:{token.id}:{token.role}"


@dataclass(frozen=True)
class TrainConfig:
    """Every training option, with the defaults of the seed documents."""

    vocab_size: int | None = option(
        None, label="&Vocabulary size:", group="stop", minimum=1, maximum=MAX_VOCAB,
        optional=True, metavar="N",
        help="Stop when the vocabulary (special tokens + characters + learned subwords) "
             "reaches this size.")
    merges: int | None = option(
        None, label="&Number of merges:", group="stop", minimum=0, maximum=MAX_VOCAB,
        optional=True, metavar="N",
        help="Stop after this many merges. With neither a vocabulary size nor a number of "
             "merges, learning goes on until no pair of symbols occurs often enough.")
    min_frequency: int = option(
        2, label="Mi&nimum pair count:", minimum=1, maximum=MAX_COUNT, metavar="K",
        help="A pair of symbols must occur at least this many times in the corpus to be "
             "merged. 2 means a pair seen only once is never learned.")
    pretokenizer: str = option(
        "whitespace", label="&Words:", group="text",
        choices=choices_of("pretokenizer", {
            "whitespace": "Split at any whitespace",
            "space": "Split at spaces only (subword-nmt)",
            "letters": "Runs of letters; punctuation separate",
            "gpt2": "GPT-2 byte-level",
            "gpt4": "GPT-4 byte-level (cl100k_base)",
            "llama3": "Llama 3 byte-level",
            "gpt4o": "GPT-4o byte-level (o200k_base)",
            "sentencepiece": "sentencepiece (▁ marks word starts)",
        }),
        help="How text is cut into words before learning; subwords never cross a word "
             "boundary. whitespace: any spaces, tabs or line breaks separate words. space: "
             "only U+0020 and line breaks do (subword-nmt); tabs stay inside words. "
             "letters: runs of letters (with their combining marks) are words and every "
             "other character is a word of its own (the seed's [a-zA-Z]+). gpt2: GPT-2's "
             "regex over each line, then UTF-8 bytes shown with GPT-2's byte-to-character "
             "map (space is Ġ); all 256 bytes are in the alphabet, so nothing is ever "
             "unknown. gpt4, llama3, gpt4o: the same with the regex of GPT-4 "
             "(tiktoken's cl100k_base: digits in runs of at most 3, contractions in any "
             "case), of Llama 3 (cl100k_base's older form, which differs only at the end "
             "of a text) or of GPT-4o (o200k_base: words also split before a capital that "
             "follows small letters). sentencepiece: runs of spaces separate words and each "
             "word starts "
             "with ▁ (boundary bow-prefix).")
    boundary: str = option(
        "eow-symbol", label="Word &boundary:", group="text",
        choices=choices_of("boundary", {
            "eow-symbol": "</w> as its own symbol (the papers)",
            "eow-suffix": "</w> glued to the last character",
            "bow-prefix": "▁ before each word",
            "none": "No marker",
        }),
        help="How the end or start of a word is marked, so that 'est' at the end of "
             "'newest' is learned apart from 'est' inside 'estimate'. eow-symbol: </w> is "
             "an extra symbol after each word (the seeds' examples). eow-suffix: </w> is "
             "glued to the last character (subword-nmt codes v0.2, HF end_of_word_suffix). "
             "bow-prefix: ▁ is an extra symbol before each word (sentencepiece). none: no "
             "marker (HF WhitespaceSplit, byte-level GPT-2).")
    ties: str = option(
        "first-seen", label="T&ies:",
        choices=choices_of("ties", {
            "first-seen": "Pair seen first in the corpus",
            "lexicographic": "Greatest pair alphabetically (subword-nmt)",
            "codepoint": "Smallest symbol ids (Hugging Face)",
        }),
        help="Which pair is merged when two pairs are equally frequent; the result is always "
             "deterministic. first-seen: the pair whose earliest occurrence in corpus order "
             "comes first (words in order of first appearance, then position in the word), "
             "as the seeds' max(pairs, key=pairs.get) over a dict. lexicographic: the "
             "greatest (left, right) pair of strings in code-point order (subword-nmt). "
             "codepoint: the smallest (left id, right id), with the alphabet numbered in "
             "code-point order and merged tokens in creation order (HF tokenizers).")
    normalize: str = option(
        "none", label="Normali&zation:", group="text",
        choices=choices_of("normalize", {
            "none": "None",
            "nfc": "NFC (compose accents)",
            "nfkc": "NFKC (also fold compatibility forms)",
        }),
        help="Unicode normalization applied to the text first (and when encoding), so that "
             "the same letter written in two ways (é as one character or e + accent) counts "
             "as one.")
    lowercase: bool = option(
        False, label="Lower-case the te&xt", group="text",
        help="Fold all text to lower case before learning (and when encoding).")
    character_coverage: float = option(
        1.0, label="Character covera&ge:", group="vocabulary", minimum=0.0001, maximum=1.0,
        metavar="F",
        help="Keep the most frequent characters that together cover this share of all "
             "characters; rarer characters become the unknown token and are never merged "
             "(sentencepiece's option). 1.0 keeps every character; more than 0, at most 1.")
    initial_alphabet: str = option(
        "", label="Always include:", group="vocabulary", metavar="CHARS",
        placeholder="e.g. äöüß",
        help="Characters that are in the vocabulary even if the corpus lacks them (type "
             "them one after another).")
    special_tokens: tuple[SpecialToken, ...] = option(
        DEFAULT_SPECIALS, label="Special to&kens:", group="vocabulary", metavar="PIECE:ID[:ROLE]",
        help="Reserved tokens with fixed ids, never formed by merging, as PIECE:ID or "
             "PIECE:ID:ROLE (roles: " + ", ".join(OPTION_VALUES["role"]) + "; <unk> <pad> "
             "<s> </s> get theirs without one). <unk> stands for characters outside the "
             "vocabulary.")
    threads: int = option(
        0, label="Threads:", group="run", minimum=0, maximum=MAX_THREADS, metavar="N",
        zero_means="all cores", stored=False,
        help="Processor cores used for reading and counting the corpus (0 = all). The result "
             "is the same for any number.")
    keep_words: int = option(
        50_000, label="Words kept for browsing:", group="run", minimum=0, maximum=MAX_VOCAB,
        metavar="N",
        help="How many of the most frequent training words the model file keeps, so the "
             "Vocabulary browser can show the words that contain a token.")
    fuse_unk: bool = option(
        False, label="One unknown token per run of unknown characters", group="text",
        help="When encoding, a run of characters outside the vocabulary within a word becomes "
             "one unknown token, as sentencepiece and HF fuse_unk do; off, each such "
             "character is one (HF's default). Set by the sentencepiece preset; training is "
             "not affected.")
    byte_fallback: bool = option(
        False, label="Byte fallback for &unknown characters", group="text",
        help="When encoding, a character outside the vocabulary becomes the tokens of its "
             "UTF-8 bytes, <0x00> ... <0xFF>, when the vocabulary has all of them (else the "
             "unknown token), as sentencepiece and HF byte_fallback do. Set when importing "
             "such a model; training with it reserves the 256 byte tokens (as sentencepiece "
             "does), after the other special tokens.")
    gold_boundaries: tuple[str, ...] = option(
        (), label="Gold boundaries:", group="constraints", metavar="GOLD",
        placeholder="gold segmentation files",
        help="Gold segmentation files (any format Evaluate reads: word<TAB>morphs, "
             "SIGMORPHON, Morpho Challenge, MorphScore). Each corpus word they list is cut "
             "at its morph boundaries, and no merge joins across such a cut (MorphBPE). "
             "Encoding stays ordinary BPE. Entries whose morphs do not spell the word are "
             "left out, as Evaluate does.")
    separator: str = option(
        "", label="Pre-segmented, separator:", group="constraints", metavar="SEP",
        placeholder="e.g. @@ or -",
        help="The corpus is pre-segmented: this string marks cuts inside words "
             "(un@@happi@@ness) and is removed before learning; no merge joins across a "
             "cut. Empty: the corpus is ordinary text.")
    morfessor: bool = option(
        False, label="Cut words with Morfessor &2.0", group="constraints",
        help="Train Morfessor 2.0 (unsupervised morphological segmentation) on the corpus's "
             "word counts first and let no merge cross its boundaries.")
    morfessor_keep_share: float = option(
        0.65, label="Keep whole the words covering a share:", group="constraints",
        minimum=0.0, maximum=1.0, step=0.05, metavar="S", zero_means="by count only",
        help="Morfessor's boundaries are not applied to the most frequent words that "
             "together make up this share of the corpus's running words (0: none by "
             "share). Trained on word types, Morfessor also cuts common words (was → wa s), "
             "which costs tokens in every sentence for little morphology; a share of the "
             "text means the same in every language, a count of words does not.")
    morfessor_keep_frequent: int = option(
        0, label="Keep the most fre&quent words whole:", group="constraints", minimum=0,
        maximum=MAX_VOCAB, metavar="N", zero_means="by share only",
        help="Also leave the N most frequent words whole; with a share too, whichever "
             "keeps more words applies (both 0: Morfessor cuts every word).")
    morfessor_annotations: tuple[str, ...] = option(
        (), label="Morfessor annotations:", group="constraints", metavar="GOLD",
        placeholder="gold files (semi-supervised)",
        help="Gold segmentation files given to Morfessor as annotated words "
             "(semi-supervised Morfessor); needs the Morfessor option.")
    knockout: tuple[str, ...] = option(
        (), label="BPE-knockout gold:", group="constraints", metavar="GOLD",
        placeholder="gold files",
        help="BPE-knockout: after training, merges whose applications on these gold words "
             "cross a morph boundary more often than they respect one are forbidden and "
             "the model is trained again, until none is left or the round limit is "
             "reached. The result is an ordinary merge list.")
    knockout_rounds: int = option(
        5, label="Knockout rounds:", group="constraints", minimum=1, maximum=100,
        metavar="N",
        help="The most trainings BPE-knockout runs after the first one.")
    protected: tuple[str, ...] = option(
        (), label="Protected strings:", group="constraints", metavar="FILE",
        placeholder="one a line, or load a file",
        help="Strings that are always one token: every occurrence in the corpus (found in "
             "the raw text before the words are cut, longest first, leftmost) becomes one "
             "token that no merge splits or joins across, and so does every occurrence "
             "when encoding. They take the ids after the special tokens but are ordinary "
             "text. On the command line: --protect FILE, one string a line, or "
             "--protect-string STRING.")
    lang: tuple[str, ...] = option(
        (), label="&Languages:", group="corpus", metavar="CODE=PATH",
        form_name="the Language column of the corpus files",
        placeholder="fi=ud_finnish.txt; tr=ud_turkish.txt",
        help="A multilingual corpus: each language's corpus file or folder as CODE=PATH "
             "(repeat per language), instead of plain corpus files. Languages are the unit "
             "of balancing and of parity-aware training; alone, they train as the "
             "concatenation of the files.")
    weight: tuple[str, ...] = option(
        (), label="Language &weights:", group="corpus", metavar="CODE=W",
        form_name="the Weight column of the corpus files",
        placeholder="fi=1; tr=2",
        help="Balance the languages to these relative shares of the running words "
             "(CODE=W for every language, W more than 0): each language's word counts are "
             "scaled exactly, rounded half up (Help ▸ Training options).")
    temperature: float = option(
        0.0, label="Sampling temperature:", group="languages", minimum=0.0, maximum=100.0,
        metavar="T", zero_means="languages as they are",
        help="Temperature sampling of the languages (XLM, mBERT): shares proportional to "
             "n^(1/T) of each language's running words n. 1 keeps the corpus as it is; "
             "larger values move towards equal shares. 0: no sampling.")
    parity_dev: tuple[str, ...] = option(
        (), label="Parity development set:", group="languages", metavar="CODE=PATH",
        placeholder="en=dev.en; de=dev.de (or a folder, or one .tsv)",
        help="Parity-aware BPE (Foroutan et al. 2025): a parallel development text per "
             "language (CODE=PATH, a folder of files named by language, or one TSV with a "
             "column per language). Each merge is chosen by the language whose development "
             "text is then worst compressed, as the parity measure says.")
    parity_measure: str = option(
        "tokens", label="Parity measure:", group="languages",
        choices=choices_of("parity_measure", {
            "tokens": "Development tokens (the texts are parallel)",
            "tokens-per-character": "Development tokens per character",
        }),
        help="How the languages' development texts are compared to find the worst "
             "compressed: their token counts (they say the same, as the paper's own code "
             "compares them), or tokens per character of each text.")
    parity_window: int = option(
        0, label="Parity moving window:", group="languages", minimum=0, maximum=1_000_000,
        metavar="N", zero_means="no window",
        help="The moving-window variant of parity-aware BPE: a language that chose more "
             "than 2N/L of the last N merges (L languages) is passed over for the next "
             "worst. 0: the plain variant.")
    parity_dev_documents: bool = option(
        False, label="Development files are whole parallel documents", group="languages",
        help="The development files are translations of the same document whose lines do "
             "not correspond (UDHR-style); otherwise they must be line-aligned (the same "
             "number of lines).")

    def __post_init__(self) -> None:
        for name, spec in option_specs(TrainConfig).items():
            value = getattr(self, name)
            if spec.choices:
                _check_choice(name, value, tuple(spec.choices))
            elif spec.maximum is not None and isinstance(spec.maximum, int) and \
                    not (spec.optional and value is None):
                _check_int(name, value, minimum=int(spec.minimum), maximum=spec.maximum)
        for name in ("lowercase", "fuse_unk", "byte_fallback", "morfessor"):
            if not isinstance(getattr(self, name), bool):
                raise ConfigError(f"{name} must be true or false; got {getattr(self, name)!r}")
        cov = self.character_coverage
        if isinstance(cov, bool) or not isinstance(cov, (int, float)) or not 0.0 < cov <= 1.0:
            raise ConfigError("character_coverage must be in (0, 1]: more than 0 and at most "
                              f"1; got {cov!r}")
        share = self.morfessor_keep_share
        if isinstance(share, bool) or not isinstance(share, (int, float)) or \
                not 0.0 <= share <= 1.0:
            raise ConfigError("morfessor_keep_share must be a share from 0 to 1; got "
                              f"{share!r}")
        if not isinstance(self.initial_alphabet, str):
            raise ConfigError("initial_alphabet must be a string of characters; got "
                              f"{self.initial_alphabet!r}")
        _check_unicode("initial_alphabet", self.initial_alphabet)
        if self.pretokenizer == "sentencepiece" and self.boundary != "bow-prefix":
            raise ConfigError(
                "the sentencepiece pre-tokenizer marks word starts with ▁: "
                "use boundary 'bow-prefix'"
            )
        if self.byte_level and self.boundary != BOUNDARY_OF_PRETOKENIZER[self.pretokenizer]:
            # Its words already carry their leading space (Ġ); a second marker would make
            # decoding add spaces, and the byte-level encoder has no end-of-word pieces.
            raise ConfigError(
                f"the {self.pretokenizer} pre-tokenizer keeps each word's leading space (as Ġ) "
                f"inside the word: use boundary 'none', not {self.boundary!r}"
            )
        for name in (*LIST_OPTIONS, "protected"):
            value = getattr(self, name)
            if isinstance(value, list):
                object.__setattr__(self, name, tuple(value))
        specials = tuple(self.special_tokens)
        object.__setattr__(self, "special_tokens", specials)
        check_constraints(self)
        check_languages(self)
        _check_specials(specials)
        if self.vocab_size is not None:
            for tok in specials:
                if tok.id >= self.vocab_size:
                    raise ConfigError(
                        f"special token {tok.piece!r} has id {tok.id}, "
                        f"outside a vocabulary of {self.vocab_size}"
                    )

    # -- convenience -------------------------------------------------------------------

    @property
    def byte_level(self) -> bool:
        return self.pretokenizer in BYTE_LEVEL_PRETOKENIZERS

    @property
    def merge_limit(self) -> int | None:
        """The most merges a run of this configuration can learn (None: no limit). Besides
        one entry per merge, the vocabulary holds the special tokens, the protected strings
        and the base symbols: all 256 bytes at byte level, at least one character
        otherwise."""
        limits = [] if self.merges is None else [self.merges]
        if self.vocab_size is not None:
            base = 256 if self.byte_level else 1
            limits.append(max(0, self.vocab_size - len(self.special_tokens)
                              - len(self.protected) - base))
        return min(limits, default=None)

    @property
    def effective_threads(self) -> int:
        return self.threads or (os.cpu_count() or 1)

    def special(self, role: str) -> SpecialToken | None:
        """The special token with this role (unk, pad, bos, eos), or None."""
        return next((t for t in self.special_tokens if t.role == role), None)

    def replace(self, **changes: Any) -> TrainConfig:
        return dataclasses.replace(self, **changes)

    def with_byte_tokens(self) -> TrainConfig:
        """With :attr:`byte_fallback`, the configuration whose special tokens include the
        256 byte tokens ``<0x00>`` ... ``<0xFF>`` (the missing ones, in byte order, at the
        ids after the highest special id), as sentencepiece reserves them when it trains
        with byte fallback: without them byte fallback would have nothing to fall back to.
        They count towards the vocabulary size. Unchanged without byte fallback."""
        if not self.byte_fallback:
            return self
        have = {t.piece for t in self.special_tokens}
        missing = [piece for piece in BYTE_PIECES if piece not in have]
        if not missing:
            return self
        start = max((t.id for t in self.special_tokens), default=-1) + 1
        added = tuple(SpecialToken(piece, start + k) for k, piece in enumerate(missing))
        return self.replace(special_tokens=self.special_tokens + added)

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["special_tokens"] = [dataclasses.asdict(t) for t in self.special_tokens]
        for name in (*LIST_OPTIONS, "protected"):
            d[name] = list(d[name])
        return d

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TrainConfig:
        """Build from :meth:`to_dict` output; unknown keys are an error."""
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ConfigError(f"unknown training option(s): {', '.join(unknown)}")
        kwargs = dict(data)
        if "special_tokens" in kwargs:
            raw = kwargs["special_tokens"]
            if not isinstance(raw, (list, tuple)):
                raise ConfigError("special_tokens must be a list")
            try:
                kwargs["special_tokens"] = tuple(
                    t if isinstance(t, SpecialToken) else SpecialToken(**t) for t in raw
                )
            except TypeError as exc:
                raise ConfigError(f"special_tokens: {exc}") from None
        return cls(**kwargs)

    @classmethod
    def preset(cls, name: str, **overrides: Any) -> TrainConfig:
        """A named starting point; see :data:`PRESETS`."""
        try:
            base = PRESETS[name]
        except KeyError:
            raise ConfigError(
                f"unknown preset {name!r}; choose one of {', '.join(PRESETS)}"
            ) from None
        return cls(**{**base, **overrides})


#: Each preset's name as menus show it.
PRESET_TITLES = {
    "sennrich": "Sennrich et al. 2016 (as in the papers)",
    "subword-nmt": "subword-nmt",
    "gpt2": "GPT-2 byte-level",
    "gpt4": "GPT-4 byte-level",
    "llama3": "Llama 3 byte-level",
    "gpt4o": "GPT-4o byte-level",
    "sentencepiece": "sentencepiece-style",
}


_BYTE_LEVEL_PRESET = {"boundary": "none", "ties": "codepoint", "min_frequency": 1,
                      "special_tokens": ()}

#: Named option sets matching the seeds and the peer tools.
PRESETS: dict[str, dict[str, Any]] = {
    # Sennrich et al. 2016 as in the seeds: </w> symbol, first-seen ties.
    "sennrich": {},
    # subword-nmt learn_bpe: split at U+0020, </w> glued, greatest pair on ties.
    "subword-nmt": {
        "pretokenizer": "space",
        "boundary": "eow-suffix",
        "ties": "lexicographic",
    },
    # GPT-2 / HF ByteLevel: byte-level alphabet, smallest-id ties, no unknowns possible;
    # the same with GPT-4's, Llama 3's and GPT-4o's regex.
    **{name: {"pretokenizer": name, **_BYTE_LEVEL_PRESET}
       for name in BYTE_LEVEL_PRETOKENIZERS},
    # sentencepiece-style: ▁ word starts, its four specials, one <unk> per unknown run.
    "sentencepiece": {
        "pretokenizer": "sentencepiece",
        "boundary": "bow-prefix",
        "ties": "codepoint",
        "min_frequency": 1,
        "fuse_unk": True,
        "special_tokens": (
            SpecialToken("<pad>", 0, "pad"),
            SpecialToken("<unk>", 1, "unk"),
            SpecialToken("<s>", 2, "bos"),
            SpecialToken("</s>", 3, "eos"),
        ),
    },
}


def _check_choice(name: str, value: object, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise ConfigError(f"{name} must be one of {', '.join(choices)}; got {value!r}")


def _check_int(name: str, value: object, *, minimum: int, maximum: int) -> None:
    """A whole number in [minimum, maximum]; the message names setting, value and range."""
    allowed = f"at least {minimum} and at most {maximum}"
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"{name} must be a whole number ({allowed}); got {value!r}")
    if not minimum <= value <= maximum:
        raise ConfigError(f"{name} must be {allowed}; got {value}")


def _check_specials(specials: tuple[SpecialToken, ...]) -> None:
    seen_ids: dict[int, str] = {}
    seen_pieces: set[str] = set()
    seen_roles: set[str] = set()
    for tok in specials:
        if not isinstance(tok, SpecialToken):
            raise ConfigError("special_tokens must hold SpecialToken values")
        if tok.id in seen_ids:
            raise ConfigError(
                f"special tokens {seen_ids[tok.id]!r} and {tok.piece!r} share id {tok.id}"
            )
        if tok.piece in seen_pieces:
            raise ConfigError(f"special token {tok.piece!r} is listed twice")
        if tok.role != "user" and tok.role in seen_roles:
            raise ConfigError(f"more than one special token has role {tok.role!r}")
        seen_ids[tok.id] = tok.piece
        seen_pieces.add(tok.piece)
        seen_roles.add(tok.role)
