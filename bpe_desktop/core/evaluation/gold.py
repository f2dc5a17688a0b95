"""Gold morph segmentations: the four file formats a linguist is likely to have.

=====================  ==========================================================
format                 one line
=====================  ==========================================================
``surface``            ``word<TAB>morph morph morph``; ``/``, ``+`` or ``-`` may
                       separate the morphs instead of spaces. The morphs must
                       concatenate to the word.
``morpho-challenge``   ``word<TAB>morph:label morph:label, morph:label ...``;
                       ``, `` separates alternative analyses, a ``~`` morph is
                       empty (no boundary), ``\\:`` is a literal colon. Analyses
                       whose morphs do not spell the word are left out.
``sigmorphon``         SIGMORPHON 2022 word level, ``word<TAB>m1 @@m2 @@m3[<TAB>cat]``.
                       Canonical morphs: only words whose morphs concatenate to
                       the word are used; the others are counted as skipped.
``morphscore``         MorphScore CSV ``,full_word,pt1,rest``: one boundary per word;
                       an empty ``rest`` (or ``pt1``) is a word without a boundary.
=====================  ==========================================================

A morph boundary is a code-point offset into the word between two consecutive
non-empty morphs. A malformed line is skipped and counted (:attr:`GoldSet.malformed`,
the first few named by line in :attr:`GoldSet.malformed_lines`), so that one odd row
does not cost the whole file; only a file in which every entry is malformed raises
:class:`CorpusError` (naming the file and its first bad line).
"""

from __future__ import annotations

import csv
import functools
import io
import os
import re
from dataclasses import dataclass
from pathlib import Path

from bpe_desktop.core.errors import CorpusError
from bpe_desktop.core.text_files import decode_utf8, read_text_bytes

#: Every gold format, in the order auto-detection prefers them.
GOLD_FORMATS = ("sigmorphon", "morpho-challenge", "morphscore", "surface")
#: Morph separators of the surface format, tried in this order.
SURFACE_SEPARATORS = (" ", "/", "+", "-")
#: Lines read to recognise a format.
_DETECT_LINES = 2000
_LABELLED_MORPH = re.compile(r"^(?:\\:|[^:])*:")
#: Malformed lines named in a gold set's report (the rest are only counted).
MALFORMED_LINES_SHOWN = 5


@dataclass(frozen=True)
class GoldWord:
    """One gold word and its analyses (each a tuple of morphs that spell the word)."""

    word: str
    analyses: tuple[tuple[str, ...], ...]
    line: int

    def boundaries(self, analysis: int = 0) -> frozenset[int]:
        return self.all_boundaries[analysis]

    @functools.cached_property
    def all_boundaries(self) -> tuple[frozenset[int], ...]:
        """Each analysis's boundaries (computed once: the sweep asks at every size)."""
        return tuple(morph_boundaries(a) for a in self.analyses)


@dataclass(frozen=True)
class GoldSet:
    """A parsed gold file: usable words, plus the entries left out as non-concatenating."""

    name: str
    format: str
    words: tuple[GoldWord, ...]
    #: entries whose morphs (every analysis) do not concatenate to the word.
    not_surface: int = 0
    #: lines that could not be parsed (skipped), and the first few: (line, reason).
    malformed: int = 0
    malformed_lines: tuple[tuple[int, str], ...] = ()
    #: where it was read from (names the file in reports); "" for pasted text.
    path: str = ""

    @property
    def total(self) -> int:
        """Gold entries the file holds (usable, not spelling the word, or malformed)."""
        return len(self.words) + self.not_surface + self.malformed


def morph_boundaries(morphs: tuple[str, ...]) -> frozenset[int]:
    """Offsets (code points) between consecutive non-empty morphs."""
    out, offset = set(), 0
    for morph in morphs[:-1]:
        offset += len(morph)
        if 0 < offset:
            out.add(offset)
    total = offset + len(morphs[-1]) if morphs else 0
    out.discard(total)
    return frozenset(out)


def detect_gold_format(lines: list[str]) -> str:
    """The format of a gold file from its first lines (see the module table)."""
    rows = [ln for ln in lines[:_DETECT_LINES] if ln.strip()]
    if not rows:
        return "surface"
    first = rows[0].lstrip("\ufeff")
    if first.startswith(",") and first.count(",") >= 3 and "\t" not in first:
        return "morphscore"
    fields = [ln.split("\t") for ln in rows]
    if any(len(f) >= 2 and " @@" in f[1] for f in fields):
        return "sigmorphon"
    if all(len(f) >= 2 and all(_LABELLED_MORPH.match(m) or m == "~" for m in
                               re.split(r" |, ", f[1]) if m) for f in fields):
        return "morpho-challenge"
    return "surface"


def read_gold(path: str | os.PathLike, fmt: str | None = None) -> GoldSet:
    """Parse a gold file; ``fmt`` None detects the format."""
    path = os.fspath(path)
    try:
        data = read_text_bytes(path)  # gzip-compressed too, as other corpus files
    except FileNotFoundError:
        raise CorpusError(f"{path}: no such gold file", path=path, reason="missing") from None
    except OSError as exc:
        raise CorpusError(f"{path}: cannot read ({exc.strerror})", path=path) from None
    return parse_gold(decode_utf8(data, path), name=Path(path).name, fmt=fmt, path=path)


def parse_gold(text: str, *, name: str = "gold", fmt: str | None = None,
               path: str | None = None) -> GoldSet:
    """Parse gold text (see :func:`read_gold`); errors name ``path`` (or ``name``)."""
    lines = text.splitlines()
    fmt = fmt or detect_gold_format(lines)
    if fmt not in GOLD_FORMATS:
        raise CorpusError(f"unknown gold format {fmt!r}; choose one of {', '.join(GOLD_FORMATS)}")
    label = path or name
    if fmt == "morphscore":
        entries = _morphscore_entries(text)
    else:
        parse_line = {"surface": _surface, "morpho-challenge": _morpho_challenge,
                      "sigmorphon": _sigmorphon}[fmt]
        entries = ((number, line, parse_line) for number, line in enumerate(lines, 1)
                   if line.strip() and not line.startswith("#"))
    words: list[GoldWord] = []
    not_surface = 0
    malformed: list[tuple[int, str]] = []
    for number, line, parse_line in entries:
        try:
            word, analyses = parse_line(line)
        except ValueError as exc:
            malformed.append((number, str(exc)))
            continue
        if analyses:
            words.append(GoldWord(word, analyses, number))
        else:
            not_surface += 1
    if malformed and not words and not not_surface:
        number, reason = malformed[0]
        more = f" (and every other of its {len(malformed)} entries)" if len(malformed) > 1 \
            else ""
        raise CorpusError(f"{label} line {number}: {reason} (format {fmt}){more}", path=path,
                          line=number, reason="malformed")
    return GoldSet(name, fmt, tuple(words), not_surface, len(malformed),
                   tuple(malformed[:MALFORMED_LINES_SHOWN]), path or "")


def _split_word(line: str, min_fields: int = 2, max_fields: int = 2) -> list[str]:
    fields = line.split("\t")
    if not min_fields <= len(fields) <= max_fields:
        raise ValueError(f"expected {min_fields if min_fields == max_fields else f'{min_fields} or {max_fields}'}"
                         f" tab-separated fields, found {len(fields)}")
    if not fields[0].strip():
        raise ValueError("the word is empty")
    if not fields[1].strip():
        raise ValueError("the segmentation is empty")
    return fields


def _surface(line: str) -> tuple[str, tuple[tuple[str, ...], ...]]:
    word, analysis = _split_word(line)
    word, analysis = word.strip(), analysis.strip()
    if analysis == word:
        return word, ((word,),)
    for sep in SURFACE_SEPARATORS:
        if sep in analysis and sep not in word:
            morphs = tuple(m for m in analysis.split(sep) if m)
            if "".join(morphs) == word:
                return word, (morphs,)
    raise ValueError(f"the morphs of {analysis!r} do not concatenate to {word!r} with any "
                     f"of the separators {' '.join(repr(s) for s in SURFACE_SEPARATORS)}")


def _morpho_challenge(line: str) -> tuple[str, tuple[tuple[str, ...], ...]]:
    word, field = _split_word(line)
    analyses = []
    for alternative in field.split(", "):
        morphs = []
        for item in alternative.split():
            if item == "~":
                continue
            match = _LABELLED_MORPH.match(item)
            if not match:
                raise ValueError(f"{item!r} is not morph:label")
            morph = match.group(0)[:-1].replace("\\:", ":")
            if morph != "~":
                morphs.append(morph)
        if not morphs:
            raise ValueError(f"analysis {alternative!r} has no morph")
        if "".join(morphs) == word:
            analyses.append(tuple(morphs))
    return word, tuple(analyses)


def _sigmorphon(line: str) -> tuple[str, tuple[tuple[str, ...], ...]]:
    fields = _split_word(line, 2, 3)
    word = fields[0]
    morphs = tuple(m.strip() for m in fields[1].split(" @@"))
    if any(not m for m in morphs):
        raise ValueError(f"empty morph in {fields[1]!r}")
    return word, ((morphs,) if "".join(morphs) == word else ())


def _morphscore_entries(text: str):
    """(line, row, parser) per CSV row; rows may span lines (quoted line breaks)."""
    reader = csv.reader(io.StringIO(text))
    for row in reader:
        number = reader.line_num
        if not row or not any(cell.strip() for cell in row):
            continue
        if number == 1 and row[1:4] == ["full_word", "pt1", "rest"]:
            continue
        yield number, row, _morphscore_row


def _morphscore_row(row: list[str]) -> tuple[str, tuple[tuple[str, ...], ...]]:
    if len(row) < 4:
        raise ValueError(f"expected 4 comma-separated fields (index, full_word, pt1, rest), "
                         f"found {len(row)}")
    word, first, rest = row[1], row[2], row[3]
    if not word:
        raise ValueError("full_word is empty")
    if not first and not rest:
        raise ValueError("pt1 and rest are both empty")
    # An empty part is a word with no boundary; MorphScore's own scoring counts such a
    # word wrong when the tokenizer splits it and leaves it out when it does not.
    morphs = tuple(m for m in (first, rest) if m)
    return word, ((morphs,) if "".join(morphs) == word else ())
