"""The model file: BPE Desktop's own versioned JSON format, read and written only here.

A model file holds everything of a :class:`~bpe_desktop.core.model.BPEModel` (so
``load_model`` of a saved model equals it field by field) plus who wrote it and when.

Schema, version 2
-----------------
One JSON object, UTF-8 (no byte-order mark written; one is tolerated on reading),
with exactly these keys, in this order:

``format``        the string ``"bpe-desktop/model"``. Required.
``version``       the integer ``2``. Required. A file of a newer version is refused; an
                  older one is upgraded on loading (see :func:`migrate`; version 1 had
                  no ``ids``).
``app_version``   the BPE Desktop version that wrote the file (a string; informative).
``created``       when the model was made, UTC, ISO 8601 with seconds: ``"2025-01-31T12:00:00Z"``.
                  Re-saving a loaded model keeps its original time.
``config``        the training options, :meth:`TrainConfig.to_dict` without the runtime-only
                  ``threads`` (a loaded model has ``threads = 0``, i.e. all cores; a
                  ``threads`` key in a file is accepted and ignored).
                  ``special_tokens`` is a list of ``{"piece", "id", "role"}``. Keys missing
                  from a hand-written file take their defaults; unknown keys are an error.
                  Required.
``alphabet``      the base symbols, a list of distinct non-empty strings, in id order.
                  Required.
``merges``        the merges in rank order, each ``[left, right, count]`` where ``left`` and
                  ``right`` are tokens defined before it (an alphabet symbol or the result of
                  an earlier merge), no pair appears twice, and ``count`` is the pair's count
                  when it was merged (an integer from 0 to 2**64-1) or ``null`` when unknown
                  (imported models). Required.
``ids``           ``null``, or (an imported model whose source numbers tokens otherwise)
                  the id of each ordinary token, in the order alphabet, then merged
                  tokens in order of creation; with the special tokens' ids they are
                  0 .. size-1, each once. Written as ``null`` when ids follow that order.
``corpus``        provenance, or ``null``: ``{"kind", "files", "total_words",
                  "distinct_words", "characters", "unknown_characters"}``; ``kind`` is one of
                  files, word-count-files, texts, word-counts, imported; ``files`` a list of
                  ``{"path", "size", "sha256"}`` (``sha256``: 64 hex digits, or ``""`` when
                  not known). Counts are integers >= 0.
``words``         the most frequent training words, ``[[word, count], ...]``: distinct
                  non-empty words, counts >= 1 (for browsing; may be ``[]``).
``description``   free text.

Only ``format``, ``version``, ``config``, ``alphabet`` and ``merges`` are required;
``corpus`` defaults to null, ``words`` to ``[]``, ``description`` to ``""``.
Every string must be valid Unicode (no lone surrogates such as ``"\\ud800"``), and no
special token may equal an ordinary token (alphabet symbol or merge result); the
special tokens' ids must fit in the vocabulary they are part of.

Example (the layout :func:`save_model` writes: one alphabet symbol, merge or word
per line, so files diff well)::

    {
     "format": "bpe-desktop/model",
     "version": 2,
     "app_version": "0.1.0",
     "created": "2025-01-31T12:00:00Z",
     "config": {
      "vocab_size": null,
      "merges": 2,
      "min_frequency": 2,
      "pretokenizer": "whitespace",
      "boundary": "eow-symbol",
      "ties": "first-seen",
      "normalize": "none",
      "lowercase": false,
      "character_coverage": 1.0,
      "initial_alphabet": "",
      "special_tokens": [
       {"piece": "<unk>", "id": 0, "role": "unk"}
      ],
      "keep_words": 50000
     },
     "alphabet": [
      "</w>",
      "e",
      "l",
      "o",
      "w"
     ],
     "merges": [
      ["l", "o", 7],
      ["lo", "w", 7]
     ],
     "ids": null,
     "corpus": {
      "kind": "files",
      "files": [
       {"path": "/data/corpus.txt", "size": 34, "sha256": "9f86d0...(64 hex digits)"}
      ],
      "total_words": 7,
      "distinct_words": 2,
      "characters": 27,
      "unknown_characters": 0
     },
     "words": [
      ["low", 5],
      ["lower", 2]
     ],
     "description": ""
    }

Writing is deterministic (the same model and ``created`` time give the same bytes),
always ends with a newline, and is atomic: the file is written beside the target
under a temporary name, flushed and fsynced, then renamed over the target, so a
failure leaves any previous file untouched.

Reading validates everything above and raises :class:`ModelFileError` whose message
names the file and where the problem is: a JSON path such as ``merges[17][1]``, a
line and column for invalid JSON, or a byte offset for invalid UTF-8. Failing to
open or read the file raises the usual :class:`OSError`. Values from the file are
quoted in messages with ``repr``-style escapes, so a message is always printable text.

Size: a file above :data:`MAX_FILE_SIZE` (2 GiB), or one whose parsed form would not
fit in the free memory (about :data:`LOAD_MEMORY_PER_BYTE` bytes per byte of file), is
refused before it is read. Nesting deeper than Python's recursion limit is an error,
never a crash. A model of a million merges (20-30 MB) loads in about 3 seconds.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import gc
import json
import math
import os
import re
import secrets
import sys
from typing import Any, Callable, Iterator, Mapping

from bpe_desktop.core.config import (
    BOUNDARY_OF_PRETOKENIZER,
    MAX_SPECIAL_ID,
    SpecialToken,
    TrainConfig,
)
from bpe_desktop.core.errors import ConfigError, ModelFileError
from bpe_desktop.core.model import BPEModel, CorpusFile, CorpusInfo, Merge, explicit_ids_problem
from bpe_desktop.core.options import MAX_COUNT, option_specs

FORMAT = "bpe-desktop/model"
VERSION = 2

#: Files larger than this are refused without being read.
MAX_FILE_SIZE = 2 * 1024**3

#: Keys of the top-level object, in the order they are written.
TOP_KEYS = ("format", "version", "app_version", "created", "config", "alphabet", "merges",
            "ids", "corpus", "words", "description")
REQUIRED_KEYS = ("format", "version", "config", "alphabet", "merges")
#: TrainConfig fields that describe the machine, not the model: never stored.
RUNTIME_ONLY_KEYS = tuple(name for name, spec in option_specs(TrainConfig).items()
                          if not spec.stored)
CORPUS_KINDS = ("files", "word-count-files", "texts", "word-counts", "imported")
CORPUS_KEYS = ("kind", "files", "total_words", "distinct_words", "characters",
               "unknown_characters")
CORPUS_FILE_KEYS = ("path", "size", "sha256")
SPECIAL_KEYS = ("piece", "id", "role")

_SURROGATE = re.compile("[\ud800-\udfff]")
_SHA256 = re.compile(r"[0-9a-fA-F]{64}")
_CREATED_KEY = "model_file.created"  # where a loaded model remembers its time (BPEModel._cache)


# ---------------------------------------------------------------------------------------
# Writing
# ---------------------------------------------------------------------------------------


def model_to_dict(model: BPEModel, *, created: str | None = None) -> dict[str, Any]:
    """The JSON-ready dict of ``model`` (key order as written).

    ``created`` defaults to the time remembered by a loaded model, else the time this
    model object was first saved or converted, else now (UTC, whole seconds).

    Raises :class:`ModelFileError` if the model could not be loaded back (for example a
    merge of an undefined token, or a special token equal to an ordinary token).
    """
    if created is None:
        created = model._cache.get(_CREATED_KEY)
        if created is None:
            created = model._cache[_CREATED_KEY] = _now()
    data = _as_dict(model, created)
    # Never write what load_model would refuse: check with the reader's own rules.
    found = _problem(data)
    if found is not None:
        where, problem = found
        shown = f"{where}: " if where else ""
        raise ModelFileError(f"cannot save this model: {shown}{problem}", where=where)
    return data


def model_problem(model: BPEModel) -> tuple[str | None, str] | None:
    """Why ``model`` could not be saved and loaded back, or None if it can.

    ``(where, problem)``: the JSON path in the model file (None for the whole file)
    and the problem as a sentence fragment. Importers use this to check a converted
    model without the "cannot save" wording.
    """
    return _problem(_as_dict(model, "2000-01-01T00:00:00Z"))


def _problem(data: dict[str, Any]) -> tuple[str | None, str] | None:
    try:
        with _gc_paused():
            _validate(data, build=False)
    except ModelFileError as exc:
        return exc.where, str(exc)
    return None


def _as_dict(model: BPEModel, created: str) -> dict[str, Any]:
    from bpe_desktop import __version__

    config = model.config.to_dict()
    for key in RUNTIME_ONLY_KEYS:
        config.pop(key, None)
    corpus = None
    if model.corpus is not None:
        c = model.corpus
        corpus = {
            "kind": c.kind,
            "files": [{"path": f.path, "size": f.size, "sha256": f.sha256} for f in c.files],
            "total_words": c.total_words,
            "distinct_words": c.distinct_words,
            "characters": c.characters,
            "unknown_characters": c.unknown_characters,
        }
    return {
        "format": FORMAT,
        "version": VERSION,
        "app_version": __version__,
        "created": created,
        "config": config,
        "alphabet": list(model.alphabet),
        "merges": [[m.left, m.right, m.count] for m in model.merges],
        "ids": list(model.ids) if model.ids is not None else None,
        "corpus": corpus,
        "words": [[w, c] for w, c in model.words],
        "description": model.description,
    }


def dumps(model: BPEModel, *, created: str | None = None) -> str:
    """The model file's complete text (what :func:`save_model` writes)."""
    return "".join(_chunks(model_to_dict(model, created=created)))


def save_model(model: BPEModel, path: str | os.PathLike[str], *,
               created: str | None = None) -> None:
    """Write ``model`` to ``path`` atomically (see the module docs).

    Raises :class:`ModelFileError` for a model that cannot be stored (nothing is
    written) and :class:`OSError` (its message naming ``path``) when writing fails;
    either way a previous file at ``path`` is left as it was.
    """
    data = model_to_dict(model, created=created)
    target = os.fspath(path)
    real = os.path.realpath(target)  # through a symlink: replace the file it points to
    directory = os.path.dirname(real)
    tmp: str | None = None
    try:
        tmp, fd = _create_temp(directory, os.path.basename(real))
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.writelines(_chunks(data))
            fh.flush()
            os.fsync(fh.fileno())
        _copy_mode(real, tmp)
        os.replace(tmp, real)
        tmp = None
        _fsync_dir(directory)
    except OSError as exc:
        raise _naming(exc, target) from exc
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass


def _now() -> str:
    now = _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0)
    return now.strftime("%Y-%m-%dT%H:%M:%SZ")


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


_ENCODER = json.JSONEncoder(ensure_ascii=False, allow_nan=False)


def _json(value: Any) -> str:
    return _ENCODER.encode(value)


def _quoted(text: str) -> str:
    """``text`` as a JSON string for a message: readable, but lone surrogates escaped."""
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", _json(text))


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


def _value(value: Any, depth: int) -> Iterator[str]:
    pad = " " * (depth + 1)
    if isinstance(value, dict) and value:
        yield "{\n"
        items = list(value.items())
        for i, (k, v) in enumerate(items):
            yield f"{pad}{_json(k)}: "
            yield from _value(v, depth + 1)
            yield ",\n" if i < len(items) - 1 else "\n"
        yield " " * depth + "}"
    elif isinstance(value, list) and value:
        # Lists of scalars or small rows: one item per line, each item on one line.
        yield "[\n"
        last = len(value) - 1
        for i, item in enumerate(value):
            yield pad + _json(item) + (",\n" if i < last else "\n")
        yield " " * depth + "]"
    else:
        yield _json(value)


# ---------------------------------------------------------------------------------------
# Reading
# ---------------------------------------------------------------------------------------


def load_model(path: str | os.PathLike[str]) -> BPEModel:
    """Read and validate a model file; see the module docs for what is checked.

    Raises :class:`ModelFileError` (message: file, place, problem) for a malformed
    file, one above :data:`MAX_FILE_SIZE`, or one that would not fit in the free memory
    (see :data:`LOAD_MEMORY_PER_BYTE`), and :class:`OSError` when it cannot be read.
    """
    name = os.fspath(path)
    with open(name, "rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        if size > MAX_FILE_SIZE:
            raise _error(name, None, f"the file is {_size(size)}, larger than the "
                         f"{_size(MAX_FILE_SIZE)} a model file may have; refusing to read it")
        _check_memory(name, size)
        raw = fh.read(MAX_FILE_SIZE + 1)
    if len(raw) > MAX_FILE_SIZE:  # grew while we looked
        raise _error(name, None, f"the file is larger than {_size(MAX_FILE_SIZE)}; "
                     "refusing to read it")
    # One step at a time, dropping each stage's input, so that a large file is held in
    # memory once as bytes, text and parsed JSON at most two at a time.
    with _gc_paused():
        text = _decode(raw, name)
        del raw
        data = _parse_json(text, name)
        del text
        return model_from_dict(data, path=name)


def loads(data: bytes | str, *, path: str | None = None) -> BPEModel:
    """Parse and validate a model file's contents (bytes or text)."""
    with _gc_paused():
        text = _decode(data, path)
        parsed = _parse_json(text, path)
        del text
        return model_from_dict(parsed, path=path)


#: Peak memory of :func:`load_model` per byte of file (Python objects cost many times
#: their JSON text), measured as peak RSS above the interpreter's (Python 3.11):
#: 1 million merges of 2- and 4-letter ASCII tokens, 19 MB: 459 MB (24x), 2.6 s;
#: 1 million merges of single CJK characters, 29 MB: 538 MB (18x), 3.4 s;
#: 8 million of those, 232 MB: 4.2 GB (18x), 35 s. A file that would need more than
#: the free memory is refused before it is read.
LOAD_MEMORY_PER_BYTE = 25


def _check_memory(path: str, size: int) -> None:
    from bpe_desktop.core.memory import available_memory, format_bytes

    free = available_memory()
    need = size * LOAD_MEMORY_PER_BYTE
    if free is not None and need > free:
        raise _error(path, None, f"the file is {format_bytes(size)}; opening it needs about "
                     f"{format_bytes(need)} of memory, but this computer has "
                     f"{format_bytes(free)} free; close other programs and try again")


@contextlib.contextmanager
def _gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while millions of small objects are built.

    They hold no reference cycles, yet each collection would walk all of them again
    (loading a million merges took 5.9 s with it, 4.2 s without). The collector is
    switched back on only if it was on, so nested or concurrent loads leave it as found.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _decode(data: bytes | bytearray | memoryview | str, path: str | None) -> str:
    """The file's text: a BOM dropped, invalid UTF-8 an error naming the byte offset."""
    if isinstance(data, str):
        text = data.removeprefix("\ufeff")
    else:
        view = memoryview(data).cast("B")  # slicing a view copies nothing
        if view[:2] in (b"\xff\xfe", b"\xfe\xff"):
            raise _error(path, None, "the file is UTF-16 text (it starts with a UTF-16 "
                         "byte-order mark); a model file is UTF-8")
        bom = 3 if view[:3] == b"\xef\xbb\xbf" else 0
        try:
            text = str(view[bom:], "utf-8")
        except UnicodeDecodeError as exc:
            at = exc.start + bom
            line = bytes(view[:at]).count(b"\n") + 1
            raise _error(path, f"byte offset {at}",
                         f"not valid UTF-8 (byte 0x{view[at]:02x}, line {line}); "
                         "a model file is UTF-8 text") from None
    if not text or text.isspace():
        raise _error(path, None, "the file is empty" if not text else
                     "the file holds only white space, no model")
    return text


def _parse_json(text: str, path: str | None) -> Any:
    """Parsed JSON; duplicate keys, NaN and Infinity refused; errors give line and column."""
    try:
        return json.loads(text, object_pairs_hook=_no_duplicates,
                          parse_constant=_no_constant)
    except ModelFileError as exc:
        raise _error(path, exc.where, str(exc)) from None
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno} column {exc.colno}"
        if exc.pos >= len(text.rstrip()) or exc.msg.startswith("Unterminated string"):
            raise _error(path, where, "the file is truncated: the JSON ends before "
                         f"it is complete ({exc.msg})") from None
        raise _error(path, where, f"not valid JSON: {exc.msg}") from None
    except RecursionError:
        raise _error(path, None, "not a model file: the JSON is nested too deeply") from None
    except ValueError as exc:
        raise _error(path, None, json_value_problem(exc)) from None


def json_value_problem(exc: ValueError) -> str:
    """The message for a ValueError from ``json.loads`` other than a syntax error."""
    if "integer string conversion" in str(exc):  # Python's guard against huge numbers
        return (f"not valid JSON here: a number has more than "
                f"{sys.get_int_max_str_digits()} digits")
    return f"not valid JSON: {exc}"


def model_from_dict(data: Any, *, path: str | None = None) -> BPEModel:
    """Validate a parsed model file (any JSON value) and build the model.

    Older versions are upgraded first (:func:`migrate`).
    """
    try:
        fields = _validate(data)
    except ModelFileError as exc:
        raise _error(path, exc.where, str(exc)) from None
    model = BPEModel(**fields["model"])
    model._cache[_CREATED_KEY] = fields["created"]
    try:  # the id table, built by whichever thread loads (a GUI would stall building it)
        model.piece_ids
    except ConfigError as exc:
        raise _error(path, "config.special_tokens", str(exc)) from None
    return model


def created_time(model: BPEModel) -> str | None:
    """When ``model`` was made, as stored in its file (None if not loaded or not saved)."""
    return model._cache.get(_CREATED_KEY)


def _v1_to_v2(data: dict[str, Any]) -> dict[str, Any]:
    """Version 2 added ``ids``; a version 1 model numbers its tokens in the usual order."""
    return {**data, "version": 2}


#: Upgrades from version N to N+1, keyed by N: ``MIGRATIONS[1]`` turns a version 1 dict
#: into a version 2 dict.
MIGRATIONS: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {1: _v1_to_v2}


def migrate(data: dict[str, Any], version: int) -> dict[str, Any]:
    """Bring a file's top-level dict from ``version`` up to :data:`VERSION`.

    To add version N+1: bump :data:`VERSION`, register ``MIGRATIONS[N]`` returning a
    new dict with ``"version": N+1``, and validate only the current layout in
    :func:`_validate`.
    """
    while version < VERSION:
        step = MIGRATIONS.get(version)
        if step is None:
            raise _Invalid("version", f"version {version} files can no longer be read")
        data = step(data)
        version += 1
    return data


# -- validation -------------------------------------------------------------------------


class _Invalid(ModelFileError):
    """A validation failure at a JSON path (``where``); the message is the bare problem."""

    def __init__(self, where: str | None, problem: str) -> None:
        super().__init__(problem, where=where)


def _error(path: str | None, where: str | None, problem: str) -> ModelFileError:
    prefix = "".join(f"{p}: " for p in (path, where) if p)
    return ModelFileError(prefix + problem, path=path, where=where)


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _Invalid(None, f"the key {key!r} appears twice in one JSON object")
        out[key] = value
    return out


def _no_constant(name: str) -> Any:
    raise _Invalid(None, f"not valid JSON: {name} is not a JSON number")


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, int):
        return "a whole number"
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN (not a number)"
        return "a number with a fraction" if math.isfinite(value) else "an infinite number"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _text(where: str, value: Any, *, allow_empty: bool = True) -> str:
    if not isinstance(value, str):
        raise _Invalid(where, f"expected a string, found {_kind(value)}")
    if not allow_empty and not value:
        raise _Invalid(where, "the string is empty")
    bad = _SURROGATE.search(value)
    if bad:
        raise _Invalid(where, f"contains U+{ord(bad.group()):04X}, a lone surrogate "
                       "that is not a Unicode character")
    return value


def _whole(where: str, value: Any, *, minimum: int, maximum: int = MAX_COUNT) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _Invalid(where, f"expected a whole number, found {_kind(value)}")
    if not minimum <= value <= maximum:
        raise _Invalid(where, f"{value} is out of range ({minimum} to {maximum})")
    return value


def _list(where: str, value: Any) -> list:
    if not isinstance(value, list):
        raise _Invalid(where, f"expected a list, found {_kind(value)}")
    return value


def _object(where: str, value: Any, keys: tuple[str, ...], required: tuple[str, ...]) -> dict:
    if not isinstance(value, dict):
        raise _Invalid(where, f"expected an object, found {_kind(value)}")
    unknown = [k for k in value if k not in keys]
    if unknown:
        raise _Invalid(where, f"unknown key {unknown[0]!r} (expected {', '.join(keys)})")
    for k in required:
        if k not in value:
            raise _Invalid(where, f"the key {k!r} is missing")
    return value


def _validate(data: Any, *, build: bool = True) -> dict[str, Any]:
    """Check a parsed file; return the BPEModel keyword arguments and the created time.

    With ``build=False`` (checking before a save) the Merge objects are not made.
    """
    if not isinstance(data, dict):
        raise _Invalid(None, f"not a model file: the JSON is {_kind(data)}, not an object")
    if "format" not in data:
        raise _Invalid(None, f"not a BPE Desktop model file: there is no \"format\" key "
                       f"(expected \"format\": \"{FORMAT}\")")
    fmt = data["format"]
    if fmt != FORMAT:
        shown = repr(fmt) if isinstance(fmt, str) else _kind(fmt)
        raise _Invalid("format", f"not a BPE Desktop model file: the format is {shown}, "
                       f"expected {FORMAT!r}")
    if "version" not in data:
        raise _Invalid(None, "the key 'version' is missing")
    version = data["version"]
    if isinstance(version, bool) or not isinstance(version, int):
        raise _Invalid("version", f"expected a whole number, found {_kind(version)}")
    if version > VERSION:
        raise _Invalid("version", f"version {version} is newer than this BPE Desktop "
                       f"understands ({VERSION}); update BPE Desktop to open this model")
    if version < 1:
        raise _Invalid("version", f"version {version} is not a valid version")
    data = migrate(data, version)
    unknown = [k for k in data if k not in TOP_KEYS]
    if unknown:
        raise _Invalid(None, f"unknown key {unknown[0]!r} in the model file")
    for k in REQUIRED_KEYS:
        if k not in data:
            raise _Invalid(None, f"the key {k!r} is missing")

    if "app_version" in data:
        _text("app_version", data["app_version"])
    created = data.get("created")
    if created is not None:
        _text("created", created)
        try:
            _dt.datetime.fromisoformat(created)
        except ValueError:
            raise _Invalid("created", f"{created!r} is not an ISO 8601 date and time") from None

    config = _config(data["config"])

    alphabet = _list("alphabet", data["alphabet"])
    # token -> where it was first defined: its alphabet index (an int), or the merges
    # item (the JSON list itself, so that millions of merges need no extra objects).
    defined: dict[str, Any] = {}
    for i, sym in enumerate(alphabet):
        where = f"alphabet[{i}]"
        _text(where, sym, allow_empty=False)
        if sym in defined:
            raise _Invalid(where, f"{sym!r} is listed twice (also "
                           f"{_origin(defined[sym], ())})")
        defined[sym] = i

    raw_merges = _list("merges", data["merges"])
    merges: list[Any] = []
    # A pair can only repeat if its result exists already: the first merge of a pair
    # defines its result, so only pairs of redundant merges (whose result existed
    # before) need remembering besides ``defined``.
    redundant: set[tuple[str, str]] = set()
    for rank, item in enumerate(raw_merges):
        # Fast path (every valid merge): a defined token is a checked, non-empty string.
        if type(item) is list and len(item) == 3:
            left, right, count = item
            if (type(left) is str and left in defined and type(right) is str
                    and right in defined and (count is None or (
                        type(count) is int and 0 <= count <= MAX_COUNT))):
                result = left + right
                first = defined.setdefault(result, item)
                if first is item or not (_same_pair(first, left, right)
                                         or (left, right) in redundant):
                    if first is not item:
                        redundant.add((left, right))
                    merges.append(Merge(left, right, count) if build else None)
                    continue
        where = f"merges[{rank}]"
        left, right, count = _check_merge(where, item, defined)
        first = defined.setdefault(left + right, item)
        if first is not item:
            if _same_pair(first, left, right) or (left, right) in redundant:
                earlier = next(i for i, m in enumerate(raw_merges)
                               if m[0] == left and m[1] == right)
                raise _Invalid(where, f"the merge {left!r} + {right!r} is listed twice "
                               f"(also merges[{earlier}])")
            redundant.add((left, right))
        merges.append(Merge(left, right, count) if build else None)

    specials = config.special_tokens
    size = len(defined) + len(specials)
    for i, tok in enumerate(specials):
        where = f"config.special_tokens[{i}]"
        if tok.piece in defined:
            origin = _origin(defined[tok.piece], raw_merges)
            raise _Invalid(f"{where}.piece", f"the special token {tok.piece!r} is also an "
                           f"ordinary token ({origin})")
        if tok.id >= size:
            raise _Invalid(f"{where}.id", f"the special token {tok.piece!r} has id {tok.id}, "
                           f"but the vocabulary has only {size} tokens")

    ids = data.get("ids")
    if ids is not None:
        found = explicit_ids_problem(_list("ids", ids), len(defined),
                                     [t.id for t in specials])
        if found is not None:
            index, problem = found
            raise _Invalid("ids" if index is None else f"ids[{index}]", problem)
        ids = tuple(ids)

    corpus = _corpus(data.get("corpus"))

    raw_words = _list("words", data.get("words", []))
    words: list[tuple[str, int]] = []
    seen_words: dict[str, int] = {}
    for i, item in enumerate(raw_words):
        if type(item) is list and len(item) == 2:
            word, count = item
            if (type(word) is str and word and word not in seen_words
                    and type(count) is int and 1 <= count <= MAX_COUNT
                    and not _SURROGATE.search(word)):
                seen_words[word] = i
                words.append((word, count))
                continue
        word, count = _check_word(f"words[{i}]", item, seen_words)
        seen_words[word] = i
        words.append((word, count))

    description = _text("description", data.get("description", ""))

    return {
        "created": created,
        "model": {
            "config": config,
            "alphabet": tuple(alphabet),
            "merges": tuple(merges) if build else (),
            "corpus": corpus,
            "words": tuple(words),
            "description": description,
            "ids": ids,
        },
    }


def _origin(first: Any, raw_merges: list) -> str:
    """Where a token was defined (an error message's "also ..."): found by identity."""
    if type(first) is int:
        return f"alphabet[{first}]"
    return f"merges[{next(i for i, m in enumerate(raw_merges) if m is first)}]"


def _same_pair(first: Any, left: str, right: str) -> bool:
    """Whether the merges item ``first`` (or an alphabet index) is ``left + right``."""
    return type(first) is list and first[0] == left and first[1] == right


def _check_merge(where: str, item: Any, defined: Mapping[str, Any]
                 ) -> tuple[str, str, int | None]:
    """The thorough check of one merge's shape, sides and count (not its uniqueness)."""
    if not isinstance(item, list) or len(item) != 3:
        found = f"{len(item)} items" if isinstance(item, list) else _kind(item)
        raise _Invalid(where, f"expected [left, right, count], found {found}")
    left, right, count = item
    for j, side in ((0, left), (1, right)):
        _text(f"{where}[{j}]", side, allow_empty=False)
        if side not in defined:
            raise _Invalid(f"{where}[{j}]", f"{side!r} is not a token defined before this "
                           "merge (the alphabet or an earlier merge's result)")
    if count is not None:
        _whole(f"{where}[2]", count, minimum=0)
    return left, right, count


def _check_word(where: str, item: Any, seen_words: Mapping[str, int]) -> tuple[str, int]:
    """The thorough check of one words entry: error or (word, count)."""
    if not isinstance(item, list) or len(item) != 2:
        found = f"{len(item)} items" if isinstance(item, list) else _kind(item)
        raise _Invalid(where, f"expected [word, count], found {found}")
    word = _text(f"{where}[0]", item[0], allow_empty=False)
    count = _whole(f"{where}[1]", item[1], minimum=1)
    if word in seen_words:
        raise _Invalid(f"{where}[0]", f"the word {word!r} is listed twice "
                       f"(also words[{seen_words[word]}])")
    return word, count


def _config(value: Any) -> TrainConfig:
    if not isinstance(value, dict):
        raise _Invalid("config", f"expected an object, found {_kind(value)}")
    known = [f for f in TrainConfig.__dataclass_fields__ if f not in RUNTIME_ONLY_KEYS]
    for key in value:
        if key not in known and key not in RUNTIME_ONLY_KEYS:
            shown = f"config.{key}" if key.isidentifier() else f"config[{_quoted(key)}]"
            raise _Invalid(shown, "unknown training option")
    kwargs = {k: v for k, v in value.items() if k not in RUNTIME_ONLY_KEYS}
    # Each option alone first, so that an error names its field.
    for key, v in kwargs.items():
        where = f"config.{key}"
        if key == "special_tokens":
            kwargs[key] = _specials(v)
            continue
        if key == "initial_alphabet" and isinstance(v, str):
            _text(where, v)
        alone: dict[str, Any] = {key: v, "special_tokens": ()}
        if key == "pretokenizer" and isinstance(v, str) and v in BOUNDARY_OF_PRETOKENIZER:
            alone["boundary"] = BOUNDARY_OF_PRETOKENIZER[v]
        try:
            TrainConfig(**alone)
        except ConfigError as exc:
            raise _Invalid(where, str(exc)) from None
    try:
        return TrainConfig(**kwargs)
    except ConfigError as exc:  # options that are fine alone but not together
        raise _Invalid("config", str(exc)) from None


def _specials(value: Any) -> tuple[SpecialToken, ...]:
    out = []
    for i, item in enumerate(_list("config.special_tokens", value)):
        where = f"config.special_tokens[{i}]"
        _object(where, item, SPECIAL_KEYS, SPECIAL_KEYS)
        _text(f"{where}.piece", item["piece"], allow_empty=False)
        _whole(f"{where}.id", item["id"], minimum=0, maximum=MAX_SPECIAL_ID)
        _text(f"{where}.role", item["role"])
        try:
            out.append(SpecialToken(item["piece"], item["id"], item["role"]))
        except ConfigError as exc:
            raise _Invalid(where, str(exc)) from None
    try:
        TrainConfig(special_tokens=tuple(out))
    except ConfigError as exc:  # ids, pieces or roles shared between tokens
        raise _Invalid("config.special_tokens", str(exc)) from None
    return tuple(out)


def _corpus(value: Any) -> CorpusInfo | None:
    if value is None:
        return None
    _object("corpus", value, CORPUS_KEYS, CORPUS_KEYS)
    kind = _text("corpus.kind", value["kind"])
    if kind not in CORPUS_KINDS:
        raise _Invalid("corpus.kind", f"{kind!r} is not one of {', '.join(CORPUS_KINDS)}")
    files = []
    for i, item in enumerate(_list("corpus.files", value["files"])):
        where = f"corpus.files[{i}]"
        _object(where, item, CORPUS_FILE_KEYS, CORPUS_FILE_KEYS)
        file_path = _text(f"{where}.path", item["path"])
        size = _whole(f"{where}.size", item["size"], minimum=0)
        digest = _text(f"{where}.sha256", item["sha256"])
        if digest and not _SHA256.fullmatch(digest):
            raise _Invalid(f"{where}.sha256", "expected 64 hexadecimal digits (or \"\")")
        files.append(CorpusFile(path=file_path, size=size, sha256=digest))
    numbers = {k: _whole(f"corpus.{k}", value[k], minimum=0) for k in CORPUS_KEYS[2:]}
    return CorpusInfo(kind=kind, files=tuple(files), **numbers)


def _size(n: int) -> str:
    if n < 1024:
        return f"{n} bytes"
    for unit, scale in (("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}".replace(".0 ", " ")
    return f"{n} bytes"
