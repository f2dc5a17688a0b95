"""The parallel development set of parity-aware training.

Three forms: line-aligned files, one per language (line i of every file says the same);
one TSV file with a header row of language codes and a column per language; or, with
``documents=True``, whole documents per language (UDHR-style translations whose lines do
not correspond: only the whole texts are parallel). Lines are compared after removing the
line break; an empty last line does not count.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Mapping, Sequence

from bpe_desktop.core.errors import ConfigError, CorpusError
from bpe_desktop.core.languages import check_code, guess_language, same_language, split_entry
from bpe_desktop.core.options import option_flag
from bpe_desktop.core.text_files import decode_utf8


@dataclass(frozen=True)
class DevSet:
    """Each language's development text as lines (line-aligned) or as one document."""

    #: Language code -> its lines, in the order the languages were given.
    texts: Mapping[str, tuple[str, ...]]
    #: Language code -> the file it came from (for messages).
    files: Mapping[str, str]
    documents: bool = False
    #: Languages found by listing a folder rather than named by the user: a folder such as
    #: UDHR's holds many languages, of which training takes its own.
    listed: frozenset[str] = frozenset()

    @property
    def codes(self) -> tuple[str, ...]:
        return tuple(self.texts)

    def lines(self, code: str) -> int:
        """What the language's development tokens are divided by to compare languages:
        its lines, or 1 for a whole document (whose lines need not match the other
        languages': the document's tokens are what parity-aware training equalises)."""
        return 1 if self.documents else max(1, len(self.texts[code]))

    def matched_to(self, codes: Sequence[str]) -> DevSet:
        """This set with each language that the training languages name under the other
        ISO code (``eng.txt`` of a UDHR folder for ``en``) under the training's code, and
        without the languages of a folder that are not training languages."""
        def training_code(code: str) -> str:
            return _training_code(code, codes, self.texts)

        kept = [c for c in self.texts if c not in self.listed or training_code(c) in codes]
        return DevSet({training_code(c): self.texts[c] for c in kept},
                      {training_code(c): self.files[c] for c in kept},
                      self.documents).in_order_of(codes)

    def in_order_of(self, codes: Sequence[str]) -> DevSet:
        """This set with its languages in the order of the training languages ``codes`` (a
        language under the other ISO code at its training language's place), those that
        are not training languages after, in their own order: every table of costs lists
        the languages as the training does, not as a folder sorts its files."""
        place = {code: i for i, code in enumerate(codes)}
        order = sorted(self.texts, key=lambda c: place.get(
            _training_code(c, codes, self.texts), len(codes)))
        return DevSet({c: self.texts[c] for c in order}, {c: self.files[c] for c in order},
                      self.documents, self.listed)

    def check_covers(self, codes: Sequence[str], training_files: Mapping[str, str]) -> None:
        """Every training language has a development text and no other language has one."""
        for code in codes:
            if code not in self.texts:
                raise ConfigError(f"language {code!r} ({training_files[code]}) has no "
                                  f"development file ({option_flag('parity_dev')})",
                                  options=("parity_dev",))
        for code, path in self.files.items():
            if code not in codes:
                raise ConfigError(f"{path}: development language {code!r} is not one of the "
                                  f"training languages ({', '.join(codes)})")


def _training_code(code: str, codes: Sequence[str], dev_codes) -> str:
    """The training language a development language is, if one unambiguously is (and
    has no development text of its own); else ``code`` itself."""
    if code in codes:
        return code
    same = [c for c in codes if same_language(c, code)]
    return same[0] if len(same) == 1 and same[0] not in dev_codes else code


def _read_lines(path: str) -> list[str]:
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise CorpusError(f"{path}: no such development file", path=path,
                          reason="missing") from None
    except IsADirectoryError:
        raise CorpusError(f"{path}: is a folder, not a development file", path=path,
                          reason="not-a-file") from None
    except OSError as exc:
        raise CorpusError(f"{path}: cannot be read ({exc.strerror})", path=path,
                          reason="unreadable") from None
    # Any line break (\r\n, \r, \n) ends a line, as a text editor shows them.
    text = decode_utf8(data, path).replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def dev_files(entries: Sequence[str]) -> list[tuple[str, str]]:
    """(code, path) per development file: ``CODE=PATH``, or a folder whose files are named
    by language, or a single file named by its language."""
    return [(code, path) for code, path, _ in _dev_files(entries)]


def _dev_files(entries: Sequence[str]) -> list[tuple[str, str, bool]]:
    """(code, path, found by listing a folder) per development file."""
    out: list[tuple[str, str, bool]] = []
    for entry in entries:
        if "=" in entry and not os.path.exists(entry):
            out.append((*split_entry(entry, "parity_dev"), False))
        elif os.path.isdir(entry):
            for name in sorted(os.listdir(entry)):
                path = os.path.join(entry, name)
                if name.startswith(".") or not os.path.isfile(path):
                    continue
                code = guess_language(name)
                if not code:
                    raise ConfigError(f"{path}: the file name names no language; give it "
                                      "as CODE=PATH")
                out.append((code, path, True))
        else:
            code = guess_language(entry)
            if not code:
                raise ConfigError(f"{entry}: the file name names no language; give it as "
                                  "CODE=PATH")
            out.append((code, entry, False))
    return out


def _one_table(entries: Sequence[str]) -> bool:
    return len(entries) == 1 and entries[0].lower().endswith(".tsv") and "=" not in entries[0]


def dev_set_files(entries: Sequence[str], codes: Sequence[str] | None = None) -> list[str]:
    """The files the ``--parity-dev`` entries name, as :func:`load_dev_set` reads them;
    with the training languages ``codes``, without a folder's files of other languages
    (as :meth:`DevSet.matched_to` leaves them out)."""
    if _one_table(entries):
        return list(entries)
    found = _dev_files(entries)
    given = {code for code, _, _ in found}
    return [path for code, path, listed in found
            if codes is None or not listed or _training_code(code, codes, given) in codes]


def load_dev_set(entries: Sequence[str], *, documents: bool = False) -> DevSet:
    """Read the development set the ``--parity-dev`` entries name (see the module)."""
    if _one_table(entries):
        return _load_tsv(entries[0])
    texts: dict[str, tuple[str, ...]] = {}
    files: dict[str, str] = {}
    listed: set[str] = set()
    for code, path, in_folder in _dev_files(entries):
        if code in texts:
            raise ConfigError(f"{path}: a second development file for {code!r} "
                              f"(the first is {files[code]})")
        lines = _read_lines(path)
        if not any(line.strip() for line in lines):
            raise CorpusError(f"{path}: the development file is empty", path=path,
                              reason="empty")
        texts[code], files[code] = tuple(lines), path
        if in_folder:
            listed.add(code)
    if not texts:
        raise ConfigError("no development files given")
    if not documents:
        first = next(iter(texts))
        for code, lines in texts.items():
            if len(lines) != len(texts[first]):
                raise ConfigError(
                    f"{files[code]}: {len(lines)} lines, but {files[first]} has "
                    f"{len(texts[first])}; line-aligned development files need the same "
                    "number of lines (whole parallel documents: "
                    f"{option_flag('parity_dev_documents')})",
                    options=("parity_dev_documents",))
    return DevSet(texts, files, documents, frozenset(listed))


def _load_tsv(path: str) -> DevSet:
    rows = _read_lines(path)
    if not rows:
        raise CorpusError(f"{path}: the development table is empty", path=path, reason="empty")
    codes = [check_code(c.strip(), f"{path}, line 1") for c in rows[0].split("\t")]
    if len(set(codes)) != len(codes):
        raise ConfigError(f"{path}, line 1: a language appears twice in the header")
    columns: list[list[str]] = [[] for _ in codes]
    for number, row in enumerate(rows[1:], start=2):
        cells = row.split("\t")
        if len(cells) != len(codes):
            raise CorpusError(f"{path}, line {number}: {len(cells)} columns, the header has "
                              f"{len(codes)}", path=path, line=number, reason="bad-line")
        for column, cell in zip(columns, cells):
            column.append(cell)
    for code, column in zip(codes, columns):  # (as an empty file is: it costs no tokens)
        if not any(cell.strip() for cell in column):
            raise CorpusError(f"{path}: the column {code!r} has no text", path=path,
                              reason="empty")
    return DevSet({c: tuple(col) for c, col in zip(codes, columns)},
                  {c: path for c in codes}, documents=False)
