"""Validating a parsed model file: the layout of :mod:`bpe_desktop.core.model_file`
checked key by key, each problem an error naming its JSON path (``merges[17][1]``).

The layout constants live here, beside the rules that enforce them; ``model_file``
re-exports them.
"""

from __future__ import annotations

import datetime as _dt
import math
import re
from typing import Any, Callable, Mapping

from bpe_desktop.core.config import (
    BOUNDARY_OF_PRETOKENIZER,
    MAX_SPECIAL_ID,
    SpecialToken,
    TrainConfig,
)
from bpe_desktop.core.errors import ConfigError, ModelFileError
from bpe_desktop.core.model import (
    ENCODING_ERRORS,
    CorpusFile,
    CorpusInfo,
    Merge,
    explicit_ids_problem,
)
from bpe_desktop.core.model_file_writer import _json
from bpe_desktop.core.options import MAX_COUNT, option_specs
from bpe_desktop.core.constraints import ConstraintReport
from bpe_desktop.core.release import free_gradually

FORMAT = "bpe-desktop/model"
VERSION = 2

#: Keys of the top-level object, in the order they are written.
TOP_KEYS = ("format", "version", "app_version", "created", "config", "alphabet", "merges",
            "ids", "final_counts", "corpus", "words", "description", "constraints")
REQUIRED_KEYS = ("format", "version", "config", "alphabet", "merges")
#: TrainConfig fields that describe the machine, not the model: never stored.
RUNTIME_ONLY_KEYS = tuple(name for name, spec in option_specs(TrainConfig).items()
                          if not spec.stored)
CORPUS_KINDS = ("files", "word-count-files", "texts", "word-counts", "imported")
CORPUS_KEYS = ("kind", "files", "total_words", "distinct_words", "characters",
               "unknown_characters")
#: Written only when not their default (so a file without them reads as before).
CORPUS_OPTIONAL_KEYS = ("encoding_errors", "approximations")
CORPUS_FILE_KEYS = ("path", "size", "sha256")
SPECIAL_KEYS = ("piece", "id", "role")

_SURROGATE = re.compile("[\ud800-\udfff]")
_SHA256 = re.compile(r"[0-9a-fA-F]{64}")


def _quoted(text: str) -> str:
    """``text`` as a JSON string for a message: readable, but lone surrogates escaped."""
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", _json(text))


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
    :func:`validate`.
    """
    while version < VERSION:
        step = MIGRATIONS.get(version)
        if step is None:
            raise _Invalid("version", f"version {version} files can no longer be read")
        data = step(data)
        version += 1
    return data


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


def check_head(data: Any) -> tuple[dict[str, Any], str | None, TrainConfig]:
    """Check what comes before the long lists (format, version, keys, ``created``,
    ``config``): the file's dict brought to the current version, its created time and
    its configuration."""
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
    return data, created, config


def validate(data: Any, *, build: bool = True) -> dict[str, Any]:
    """Check a parsed file; return the BPEModel keyword arguments and the created time.

    With ``build=False`` (checking before a save) the Merge objects are not made.
    """
    data, created, config = check_head(data)

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

    final_counts = data.get("final_counts")
    if final_counts is not None:
        size = len(defined) + len(specials)
        raw_final = _list("final_counts", final_counts)
        if len(raw_final) != size:
            raise _Invalid("final_counts", f"has {len(raw_final)} counts for a vocabulary of "
                           f"{size} tokens")
        for i, count in enumerate(raw_final):
            if type(count) is not int or not 0 <= count <= MAX_COUNT:
                raise _Invalid(f"final_counts[{i}]", "must be a whole number from 0 to "
                               f"{MAX_COUNT}; got {count!r}")
        final_counts = tuple(raw_final)

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

    description, constraints = check_tail(data)

    checked = {
        "created": created,
        "model": {
            "config": config,
            "alphabet": tuple(alphabet),
            "merges": tuple(merges) if build else (),
            "corpus": corpus,
            "words": tuple(words),
            "description": description,
            "ids": ids,
            "final_counts": final_counts,
            "constraints": constraints,
        },
    }
    # The look-up tables (an entry per token and word) freed a slice at a time: freed
    # all at once at the return, they would hold the GIL for the whole deallocation.
    tables = [defined, redundant, seen_words, merges, words]
    del defined, redundant, seen_words, merges, words
    free_gradually(tables)
    return checked


def check_tail(data: dict[str, Any]) -> tuple[str, ConstraintReport | None]:
    """The description and the constraints report, checked (they follow the words)."""
    return (_text("description", data.get("description", "")),
            _constraints(data.get("constraints")))


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


#: Options that only go with languages (``lang``).
LANGUAGE_DEPENDENT = ("weight", "temperature", "parity_dev", "parity_window")


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
        if key == "morfessor_annotations":
            alone["morfessor"] = True  # annotations only go with Morfessor
        if key in LANGUAGE_DEPENDENT:
            alone["lang"] = value.get("lang", ())  # checked alone before: it comes first
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
    _object("corpus", value, (*CORPUS_KEYS, *CORPUS_OPTIONAL_KEYS), CORPUS_KEYS)
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
    errors = _text("corpus.encoding_errors", value.get("encoding_errors", "strict"))
    if errors not in ENCODING_ERRORS:
        raise _Invalid("corpus.encoding_errors",
                       f"{errors!r} is not one of {', '.join(ENCODING_ERRORS)}")
    approximations = tuple(
        _text(f"corpus.approximations[{i}]", note, allow_empty=False)
        for i, note in enumerate(_list("corpus.approximations", value.get("approximations", []))))
    return CorpusInfo(kind=kind, files=tuple(files), **numbers, encoding_errors=errors,
                      approximations=approximations)


CONSTRAINT_KEYS = ("method", "segmented_words", "knocked_out")


def _constraints(value: Any) -> ConstraintReport | None:
    """The ``constraints`` report: method, segmented_words, knocked_out rows
    ``[left, right, crossings, respects, round]``."""
    if value is None:
        return None
    _object("constraints", value, CONSTRAINT_KEYS, CONSTRAINT_KEYS)
    method = _text("constraints.method", value["method"])
    segmented = _whole("constraints.segmented_words", value["segmented_words"], minimum=0)
    rows = []
    for i, item in enumerate(_list("constraints.knocked_out", value["knocked_out"])):
        where = f"constraints.knocked_out[{i}]"
        if not (isinstance(item, list) and len(item) == 5):
            raise _Invalid(where, "expected [left, right, crossings, respects, round]")
        left = _text(f"{where}[0]", item[0], allow_empty=False)
        right = _text(f"{where}[1]", item[1], allow_empty=False)
        numbers = [_whole(f"{where}[{j}]", item[j], minimum=0) for j in (2, 3, 4)]
        rows.append((left, right, *numbers))
    return ConstraintReport(method, segmented, tuple(rows))
