"""Writing a model file: its text, chunk by chunk, and the atomic replace of the target.

:mod:`bpe_desktop.core.model_file` describes the layout; the package's other atomic
writers (word-count tables, exported formats) use the same temporary-file helpers.
"""

from __future__ import annotations

import itertools
import json
import operator
import os
import secrets
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence


def _create_temp(directory: str, base: str) -> tuple[str, int]:
    """A new file beside the target (mode 0666 less the umask, like a plain open)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    for _ in range(100):
        name = os.path.join(directory, f".{base}.{secrets.token_hex(6)}.tmp")
        try:
            return name, os.open(name, flags, 0o666)
        except FileExistsError:
            continue
    raise FileExistsError(f"could not create a temporary file in {directory}")


def _copy_mode(target: str, tmp: str) -> None:
    """Replacing a file keeps its permissions."""
    try:
        mode = os.stat(target).st_mode
    except OSError:
        return
    try:
        os.chmod(tmp, mode & 0o7777)
    except OSError:
        pass


def _fsync_dir(directory: str) -> None:
    """Make the rename itself durable (POSIX; a no-op where directories can't be opened)."""
    if os.name != "posix":
        return
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _naming(exc: OSError, target: str) -> OSError:
    """``exc`` as the same OSError type, its message naming the target file."""
    if exc.filename == target:
        return exc
    try:
        if exc.errno is not None and exc.strerror:
            new = type(exc)(exc.errno, exc.strerror, target)
        else:
            new = type(exc)(f"cannot write {target}: {exc}")
    except Exception:  # an OSError subclass with an unusual constructor
        return exc
    return new


_COUNT = operator.attrgetter("count")
_ENCODER = json.JSONEncoder(ensure_ascii=False, allow_nan=False)
#: List items encoded per slice by the C encoder that ``_ENCODER.encode`` builds for each
#: value, built once: a 100,000-merge model's 250,000 items took ~300 ms of Python calls
#: one by one (holding the GIL, which an autosave shares with the GUI thread).
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


class MergeLines:
    """A model's merges for the file's text, written by the engine without the GIL (the
    same text as the list of ``[left, right, count]`` items: ~100 ms less Python at
    100,000 merges, which an autosave runs beside the GUI thread)."""

    def __init__(self, model: Any) -> None:
        self.merges = model.merges
        self._model = model

    def as_lists(self) -> list[list]:
        return [[m.left, m.right, m.count] for m in self.merges]

    def lines(self, pad: str) -> str | None:
        """The items joined by ``",\n" + pad``; None if the engine cannot write them."""
        import numpy as np

        from bpe_desktop.core import _native

        text, ends = self._model.packed_merges()
        # One pass over the merges (C calls, no Python loop); unknown counts become 0.
        counts = np.array(list(map(_COUNT, self.merges)), dtype=object)
        known = counts != None  # noqa: E711 (element-wise)
        counts[~known] = 0
        return _native.engine().merge_lines(text, ends.tobytes(),
                                            counts.astype(np.uint64).tobytes(),
                                            known.astype(np.uint8).tobytes(), pad)


class IntLines:
    """A checked model's whole numbers (ids, final counts) for the file's text: ``str`` of
    a plain int is its JSON, so a slice is one C call instead of one encoder call each."""

    def __init__(self, values: tuple[int, ...]) -> None:
        self.values = values


def _chunks(data: Mapping[str, Any]) -> Iterator[str]:
    """The file text in pieces: one list item per line, nested objects one key per line."""
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


def _value(value: Any, depth: int) -> Iterator[str]:
    pad = " " * (depth + 1)
    if isinstance(value, MergeLines):
        lines = value.lines(pad) if value.merges else None
        if lines is None:
            yield from _value(value.as_lists(), depth)
        else:
            yield f"[\n{pad}"
            yield lines
            yield "\n" + " " * depth + "]"
    elif isinstance(value, IntLines) and value.values:
        yield from _one_per_line(value.values, depth, lambda part: map(str, part))
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
