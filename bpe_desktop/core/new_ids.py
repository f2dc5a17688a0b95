"""The ids an extension gives its new tokens, when the user names them.

A model's embedding matrix may have rows set aside for new tokens (padded to a multiple
of 64, or reserved for a language), so the new tokens must land exactly there. The ids
are written ``ITEM[,ITEM...]``, each item one id (``50000``), an inclusive range
(``50000-51999``) or, as the last item, every id from a start on (``52000-``); or they
are read from a file with one such item a line (``#`` starts a comment).

Rules: the ids must be free (every id below the source's vocabulary size is a token of
it); new tokens take them in ascending order, new characters first, then merged tokens in
merge order (so ranks still follow ids, as tiktoken needs); the ids named must hold every
new token (an error before any merge is learned, not a shorter result). An id left free
below the largest one used becomes a reserved special token ``<reserved_ID>`` (a
vocabulary has no holes in sentencepiece files or in BPE Desktop's model); it is never
produced by encoding, and does not count towards a target vocabulary size.
"""

from __future__ import annotations

import dataclasses
import itertools
import os
import re
from dataclasses import dataclass

from bpe_desktop.core.config import MAX_SPECIAL_ID, SpecialToken
from bpe_desktop.core.errors import ConfigError
from bpe_desktop.core.formats._common import free_piece

#: The most reserved placeholders the named ids may leave (each is a vocabulary entry).
MAX_RESERVED = 1 << 20
_ITEM = re.compile(r"^\s*(\d+)\s*(?:(-)\s*(\d+)?)?\s*$")
_SPEC = re.compile(r"^[\d\s,-]+$")


@dataclass(frozen=True)
class NewIds:
    """Ids named for new tokens: ``listed`` (ascending), then every id from ``open_from``."""

    listed: tuple[int, ...]
    open_from: int | None = None

    @property
    def capacity(self) -> int | None:
        """How many tokens the ids hold (None: no limit)."""
        return None if self.open_from is not None else len(self.listed)

    def take(self, count: int) -> tuple[int, ...]:
        """The first ``count`` ids (the caller checked the capacity)."""
        out = list(self.listed[:count])
        if len(out) < count and self.open_from is not None:
            out.extend(range(self.open_from, self.open_from + count - len(out)))
        return tuple(out)

    @property
    def first(self) -> int:
        return self.listed[0] if self.listed else self.open_from


def parse_new_ids(text: str, where: str = "new ids") -> NewIds:
    """The ids written ``ITEM[,ITEM...]`` (see the module's notes); ConfigError naming
    ``where`` and the item otherwise."""
    items = [item for item in text.split(",")]
    return _collect([(f"{where}, item {k + 1}", item) for k, item in enumerate(items)],
                    where)


def read_new_ids(path: str | os.PathLike) -> NewIds:
    """The ids in the file at ``path``, one item a line; errors name the file and line."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read the new ids ({exc})") from None
    items = [(f"{path}, line {n}", line.split("#", 1)[0]) for n, line in
             enumerate(lines, 1) if line.split("#", 1)[0].strip()]
    return _collect(items, str(path))


def new_ids_from(value: str) -> NewIds | None:
    """The ids ``value`` names (an id list or a file of them); None when it is empty."""
    if not value.strip():
        return None
    if _SPEC.match(value) and not os.path.isfile(value):
        return parse_new_ids(value)
    if not os.path.isfile(value):
        raise ConfigError(f"new ids: {value!r} is neither ids (50000-51999, 52000-) nor a "
                          "file of them")
    return read_new_ids(value)


def _collect(items: list[tuple[str, str]], where: str) -> NewIds:
    listed: list[int] = []
    open_from = None
    for k, (place, item) in enumerate(items):
        match = _ITEM.match(item)
        if match is None:
            raise ConfigError(f"{place}: {item.strip()!r} is not an id, a range A-B or a "
                              "start A-")
        if open_from is not None:
            raise ConfigError(f"{place}: comes after the open range {open_from}-, which "
                              "already takes every later id")
        start = int(match.group(1))
        if match.group(2) and match.group(3) is None:
            open_from = start
            end = start - 1
        else:
            end = int(match.group(3)) if match.group(3) is not None else start
        if end < start and open_from is None:
            raise ConfigError(f"{place}: the range {start}-{end} ends before it starts")
        if max(start, end) > MAX_SPECIAL_ID:
            raise ConfigError(f"{place}: ids go up to {MAX_SPECIAL_ID:,}, not "
                              f"{max(start, end):,}")
        listed.extend(range(start, end + 1))
    if not listed and open_from is None:
        raise ConfigError(f"{where}: names no id")
    ordered = sorted(listed)
    for a, b in itertools.pairwise(ordered):
        if a == b:
            raise ConfigError(f"{where}: the id {a} is named twice")
    if open_from is not None and ordered and ordered[-1] >= open_from:
        raise ConfigError(f"{where}: the id {ordered[-1]} is also in the open range "
                          f"{open_from}-")
    return NewIds(tuple(ordered), open_from)


def check_free(ids: NewIds, source) -> None:
    """ConfigError when a named id is already a token of ``source`` (a BPEModel)."""
    size = source.vocab_size
    taken = next((i for i in (*ids.listed[:1], ids.open_from) if i is not None and i < size),
                 None)
    if taken is not None:
        kind = "the special token" if any(t.id == taken for t in
                                           source.config.special_tokens) else "the token"
        raise ConfigError(f"new ids: {taken} is already {kind} {source.id_to_piece(taken)!r};"
                          f" the source's ids are 0-{size - 1}, so new ids start at {size} "
                          "or later")


def check_capacity(ids: NewIds, needed: int, characters: int) -> None:
    """ConfigError when ``ids`` cannot hold ``needed`` new tokens (``characters`` of
    them new characters)."""
    if ids.capacity is not None and needed > ids.capacity:
        raise ConfigError(
            f"new ids: {ids.capacity:,} ids are named, but the extension needs up to "
            f"{needed:,} ({characters:,} new characters and {needed - characters:,} "
            "merges); name more ids or ask for fewer merges")


def placed(model, first_new: int, ids: NewIds):
    """``model`` (a BPEModel whose new tokens have the ids from ``first_new`` on) with
    those tokens at ``ids`` and the ids left free below the last one used reserved."""
    count = model.vocab_size - first_new
    targets = ids.take(count)
    moved = dict(zip(range(first_new, model.vocab_size), targets))
    top = max(targets, default=first_new - 1)
    unused = top + 1 - first_new - len(targets)
    if unused > MAX_RESERVED:
        raise ConfigError(f"new ids: the ids named leave {unused:,} ids unused before "
                          f"{top}, each a reserved token; at most {MAX_RESERVED:,}")
    used = set(targets)
    taken = set(model.pieces)
    reserved = [SpecialToken(free_piece(f"<reserved_{i}>", taken), i, "user")
                for i in range(first_new, top + 1) if i not in used]
    config = model.config.replace(
        special_tokens=model.config.special_tokens + tuple(reserved))
    return dataclasses.replace(model, config=config,
                               ids=tuple(moved.get(i, i) for i in model.ids))


__all__ = ["NewIds", "check_capacity", "check_free", "new_ids_from",
           "parse_new_ids", "placed", "read_new_ids"]
