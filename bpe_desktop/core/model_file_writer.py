"""Writing a model file: its text, chunk by chunk, and the atomic replace of the target.

:mod:`bpe_desktop.core.model_file` describes the layout; the package's other atomic
writers (word-count tables, exported formats) write through :mod:`.safe_write` too.
"""

from __future__ import annotations

import abc
import itertools
import json
import operator
import os
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence


_COUNT = operator.attrgetter("count")
_FIRST = operator.itemgetter(0)
_SECOND = operator.itemgetter(1)
_ENCODER = json.JSONEncoder(ensure_ascii=False, allow_nan=False)
#: List items encoded per slice by the C encoder that ``_ENCODER.encode`` builds for each
#: value, built once: item by item, a large model's items are that many Python calls
#: holding the GIL, which an autosave shares with the GUI thread.
_ITEMS_SLICE = 4096
_c_encoder = getattr(json.encoder, "c_make_encoder", None)
_ITEM = None if _c_encoder is None else _c_encoder(
    None, _ENCODER.default, json.encoder.encode_basestring, None, _ENCODER.key_separator,
    _ENCODER.item_separator, False, False, False)


def _json(value: Any) -> str:
    return _ENCODER.encode(value)


def _items(items: list) -> Iterator[str]:
    """Each item's JSON (as ``_json`` writes it), encoded in C a slice at a time."""
    if _ITEM is None:  # a Python without the C accelerator
        yield from map(_json, items)
        return
    yield from map("".join, map(_ITEM, items, itertools.repeat(0)))


class EngineRows(abc.ABC):
    """One of a checked model's long lists (merges, training words), its rows
    ``["s1", ..., count]`` written by the engine without the GIL as UTF-8, in the text the
    list's items would have (:meth:`as_lists`). Python's encoder held the GIL ~150 ms for a
    100,000-merge model's merges and 50,000 words, beside the GUI thread in an autosave."""

    #: How many strings a row holds, and the list's name in the model file.
    per_row: int
    name: str

    def __init__(self, model: Any) -> None:
        self._model = model

    @abc.abstractmethod
    def __len__(self) -> int:
        """How many rows."""

    @abc.abstractmethod
    def as_lists(self) -> list[list]:
        """The rows as the list Python's encoder writes (where the engine cannot)."""

    @abc.abstractmethod
    def packed(self) -> tuple[str, Any, Any, Any]:
        """The rows' strings back to back, where each ends (characters, ``uint32``), their
        counts (``uint64``, 0 where unknown) and which counts are known (``uint8``)."""

    def lines(self, pad: str) -> bytes | None:
        """The items joined by ``",\n" + pad``, as UTF-8; None if the engine cannot write
        them (a lone surrogate, which the file cannot hold either: Python then says so). A
        model the engine holds has its engine write them from its own lists."""
        from bpe_desktop.core import _native

        engine = self._model.engine_model()
        if engine is not None:
            return engine.json_rows(self.name, pad)
        text, ends, counts, known = self.packed()
        return _native.engine().json_rows(text, ends.tobytes(), self.per_row,
                                          counts.tobytes(), known.tobytes(), pad)


class MergeLines(EngineRows):
    """A model's merges, ``[left, right, count]``; the pieces as the engine's tokenizer
    takes them (:meth:`BPEModel.packed_merges`, kept by the model)."""

    per_row, name = 2, "merges"

    def __len__(self) -> int:
        return self._model.merge_count

    def as_lists(self) -> list[list]:
        return [[m.left, m.right, m.count] for m in self._model.merges]

    def packed(self) -> tuple[str, Any, Any, Any]:
        import numpy as np

        text, ends = self._model.packed_merges()
        # One pass over the merges (C calls, no Python loop); unknown counts become 0.
        counts = np.array(list(map(_COUNT, self._model.merges)), dtype=object)
        known = counts != None  # noqa: E711 (element-wise)
        counts[~known] = 0
        return text, ends, counts.astype(np.uint64), known.astype(np.uint8)


class WordLines(EngineRows):
    """A model's training words, ``[word, count]`` (counts always known), packed a slice
    at a time in C calls; kept by the model (it never changes), so a second save packs
    nothing."""

    per_row, name = 1, "words"

    def __len__(self) -> int:
        return self._model.word_count

    def as_lists(self) -> list[list]:
        return [[w, c] for w, c in self._model.words]

    def packed(self) -> tuple[str, Any, Any, Any]:
        import numpy as np

        cache = self._model._cache
        out = cache.get("packed_words")
        if out is None:
            words = self._model.words
            texts: list[str] = []
            ends = np.empty(len(words), dtype=np.uint32)
            counts = np.empty(len(words), dtype=np.uint64)
            done = 0  # characters packed so far
            for start in range(0, len(words), _ITEMS_SLICE):
                part = words[start:start + _ITEMS_SLICE]
                strings = list(map(_FIRST, part))
                cumulative = np.cumsum(np.fromiter(map(len, strings), dtype=np.int64,
                                                   count=len(strings))) + done
                ends[start:start + len(part)] = cumulative
                counts[start:start + len(part)] = np.fromiter(map(_SECOND, part),
                                                              dtype=np.uint64, count=len(part))
                done = int(cumulative[-1])
                texts.append("".join(strings))
            out = cache["packed_words"] = ("".join(texts), ends, counts,
                                           np.ones(len(words), dtype=np.uint8))
        return out


class IntLines:
    """A checked model's whole numbers (ids, final counts) for the file's text: ``str`` of
    a plain int is its JSON, so a slice is one C call instead of one encoder call each;
    of a model the engine holds, the engine writes them (``engine``: its ``Model``, and
    ``name`` the list's)."""

    def __init__(self, values: tuple[int, ...] = (), engine: Any = None, name: str = "") -> None:
        self.values = values
        self._engine, self._name = engine, name

    def __len__(self) -> int:
        return len(self.values) if self._engine is None else self._engine.int_list_len(self._name)

    def lines(self, pad: str) -> bytes | None:
        """The numbers joined by ``",\n" + pad`` as UTF-8, or None: Python writes them."""
        return None if self._engine is None else self._engine.int_lines(self._name, pad)


def _chunks(data: Mapping[str, Any]) -> Iterator[str | bytes]:
    """The file text in pieces: one list item per line, nested objects one key per line.
    Pieces the engine wrote (:class:`EngineRows`) are UTF-8 already, the others ``str``."""
    yield "{\n"
    keys = list(data)
    for i, key in enumerate(keys):
        end = ",\n" if i < len(keys) - 1 else "\n"
        yield f" {_json(key)}: "
        yield from _value(data[key], 1)
        yield end
    yield "}\n"


def _one_per_line(values: Sequence[Any], depth: int,
                  encode: Callable[[Sequence[Any]], Iterable[str]]) -> Iterator[str]:
    """A non-empty list, one item per line, its items encoded :data:`_ITEMS_SLICE` at a time."""
    pad = " " * (depth + 1)
    between = ",\n" + pad
    yield "[\n"
    for start in range(0, len(values), _ITEMS_SLICE):
        end = ",\n" if start + _ITEMS_SLICE < len(values) else "\n"
        yield pad + between.join(encode(values[start:start + _ITEMS_SLICE])) + end
    yield " " * depth + "]"


def _value(value: Any, depth: int) -> Iterator[str | bytes]:
    pad = " " * (depth + 1)
    if isinstance(value, EngineRows):
        lines = value.lines(pad) if len(value) else None
        if lines is None:
            yield from _value(value.as_lists(), depth)
        else:
            yield f"[\n{pad}"
            yield lines
            yield "\n" + " " * depth + "]"
    elif isinstance(value, IntLines) and len(value):
        lines = value.lines(pad)
        if lines is None:
            yield from _one_per_line(value.values, depth, lambda part: map(str, part))
        else:
            yield f"[\n{pad}"
            yield lines
            yield "\n" + " " * depth + "]"
    elif isinstance(value, IntLines):
        yield "[]"
    elif isinstance(value, dict) and value:
        yield "{\n"
        items = list(value.items())
        for i, (k, v) in enumerate(items):
            yield f"{pad}{_json(k)}: "
            yield from _value(v, depth + 1)
            yield ",\n" if i < len(items) - 1 else "\n"
        yield " " * depth + "}"
    elif isinstance(value, list) and value:
        # Lists of scalars or small rows: one item per line, each item on one line.
        yield from _one_per_line(value, depth, _items)
    else:
        yield _json(value)
