"""The model file: BPE Desktop's own versioned JSON format, read and written through here.

(The checks of a parsed file are in :mod:`~bpe_desktop.core.model_file_checks`, the
file's text in :mod:`~bpe_desktop.core.model_file_writer`, the atomic write in
:mod:`~bpe_desktop.core.safe_write`; this module is the API and re-exports the layout constants.)

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
``final_counts``  ``null``, or each token's count (by id, specials 0) in the final
                  segmentation of every training word, each word weighted by its count,
                  as training ended (integers from 0 to 2**64-1, one per token). ``null``
                  for imported, truncated and recounted models.
``corpus``        provenance, or ``null``: ``{"kind", "files", "total_words",
                  "distinct_words", "characters", "unknown_characters"}``; ``kind`` is one of
                  files, word-count-files, texts, word-counts, imported; ``files`` a list of
                  ``{"path", "size", "sha256"}`` (``sha256``: 64 hex digits, or ``""`` when
                  not known; ``path`` relative to the file's folder when near it, see
                  :mod:`~bpe_desktop.core.corpus_paths`). Counts are integers >= 0. An
                  optional ``"encoding_errors": "replace"`` says invalid UTF-8 in the
                  files was read as U+FFFD (``--encoding-errors``); absent, it stopped
                  the training (``strict``). An optional ``"approximations"``, a list
                  of non-empty strings, holds an import's notes on where the model
                  encodes text otherwise than its source (evaluation and comparison
                  warn with them); absent, it encodes as the source does.
``words``         the most frequent training words, ``[[word, count], ...]``: distinct
                  non-empty words, counts >= 1 (for browsing; may be ``[]``).
``description``   free text.
``constraints``   ``null``, or what linguistic constraints shaped the training:
                  ``{"method", "segmented_words", "knocked_out"}``: the method(s) in words,
                  how many words the boundary sources segmented, and each merge
                  BPE-knockout removed as ``[left, right, crossings, respects, round]``.

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
failure leaves any previous file untouched. A stream (``-``, ``/dev/stdout``, a FIFO, a
device) is written into instead, never replaced; other special files are refused.

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

import datetime as _dt
import json
import os
import sys
from typing import Any

from bpe_desktop.core import _native
# Reading a file in Python builds millions of small objects without reference cycles:
# each automatic collection would walk all of them again, so loads pause the collector.
from bpe_desktop.core.chunked import collector_paused
from bpe_desktop.core.errors import ConfigError, ModelFileError
from bpe_desktop.core.formatting import format_bytes
from bpe_desktop.core.corpus_paths import corpus_as_read, corpus_as_written
from bpe_desktop.core.model import BPEModel, CorpusInfo
from bpe_desktop.core.model_file_checks import (  # noqa: F401 (the layout, re-exported)
    CONSTRAINT_KEYS,
    CORPUS_FILE_KEYS,
    CORPUS_KEYS,
    CORPUS_KINDS,
    CORPUS_OPTIONAL_KEYS,
    FORMAT,
    MIGRATIONS,
    REQUIRED_KEYS,
    RUNTIME_ONLY_KEYS,
    SPECIAL_KEYS,
    TOP_KEYS,
    VERSION,
    _corpus,
    _error,
    _no_constant,
    _no_duplicates,
    check_head,
    check_tail,
    migrate,
    validate,
)
from bpe_desktop.core.model_file_writer import (
    IntLines,
    MergeLines,
    WordLines,
    _chunks,
)
from bpe_desktop.core.release import free_gradually
from bpe_desktop.core.safe_write import output_target, write_output

#: Files larger than this are refused without being read.
MAX_FILE_SIZE = 2 * 1024**3

#: Bytes buffered before each write to the file. Every write call lets go of the GIL and
#: takes it straight back; done thousands of times (the default 8 KiB buffer) while the
#: GUI thread waits for the GIL, the GUI thread's timed wait never asks for it (each
#: release restarts that wait), so it starves while an autosave writes. A few large
#: writes leave it waiting for one switch interval.
WRITE_BUFFER = 1 << 20
_CREATED_KEY = "model_file.created"  # where a loaded model remembers its time (BPEModel._cache)
#: Set in a model's cache once it passed the reader's checks (read from a file, or checked
#: before a save). A model cannot change, so later saves skip the checks, Python that an
#: autosave would otherwise run beside the GUI each time.
_CHECKED_KEY = "model_file.checked"


# ---------------------------------------------------------------------------------------
# Writing
# ---------------------------------------------------------------------------------------


def _checked_dict(model: BPEModel, created: str | None, model_path: str | None = None
                  ) -> dict[str, Any]:
    """The dict of ``model`` as written (key order as in the file); the long lists of a
    model checked before or held by the engine (merges, words, ids, final counts) are left
    to the writer (:class:`MergeLines`, :class:`WordLines`, :class:`IntLines`), which has
    the engine write most of them.

    ``created`` defaults to the time remembered by a loaded model, else the time this
    model object was first saved or converted, else now (UTC, whole seconds).

    ``model_path``: the file it is written to, whose folder corpus paths near it are
    relative to (:mod:`~bpe_desktop.core.corpus_paths`); None: named as they are.

    Raises :class:`ModelFileError` if the model could not be loaded back (for example a
    merge of an undefined token, or a special token equal to an ordinary token).
    """
    checked = created is None and model._cache.get(_CHECKED_KEY, False)
    if created is None:
        created = model._cache.get(_CREATED_KEY)
        if created is None:
            created = model._cache[_CREATED_KEY] = _now()
    held = model.engine_model() is not None
    data = _as_dict(model, created, lists_for_writer=checked or held)
    if model_path is not None:
        data["corpus"] = _corpus_dict(corpus_as_written(model.corpus, model_path))
    if checked:
        return data
    # Never write what load_model would refuse: check with the reader's own rules.
    found = _engine_held_problem(model, data) if held else _problem(data)
    if found is not None:
        where, problem = found
        shown = f"{where}: " if where else ""
        raise ModelFileError(f"cannot save this model: {shown}{problem}", where=where)
    model._cache[_CHECKED_KEY] = True
    return data


def model_problem(model: BPEModel) -> tuple[str | None, str] | None:
    """Why ``model`` could not be saved and loaded back, or None if it can.

    ``(where, problem)``: the JSON path in the model file (None for the whole file)
    and the problem as a sentence fragment. Importers use this to check a converted
    model without the "cannot save" wording.
    """
    if model._cache.get(_CHECKED_KEY, False):
        return None
    found = _problem(_as_dict(model, "2000-01-01T00:00:00Z"))
    if found is None:
        model._cache[_CHECKED_KEY] = True
    return found


def _problem(data: dict[str, Any]) -> tuple[str | None, str] | None:
    try:
        with collector_paused():
            validate(data, build=False)
    except ModelFileError as exc:
        return exc.where, str(exc)
    return None


def _engine_held_problem(model: BPEModel, data: dict[str, Any]) -> tuple[str | None, str] | None:
    """:func:`_problem` of a model the engine holds: the engine took its lists only under
    the file's rules (as :func:`_engine_read` does), so what is left to check is the rest
    of the file and that each protected string is a base symbol."""
    rest = {key: value for key, value in data.items() if key not in _LIST_KEYS}
    try:
        check_head({**rest, "alphabet": [], "merges": []})
        _corpus(rest.get("corpus"))
        check_tail(rest)
    except ModelFileError as exc:
        return exc.where, str(exc)
    alphabet = set(model.engine_model().alphabet())
    missing = next((p for p in model.config.protected if p not in alphabet), None)
    if missing is not None:
        return "config.protected", f"the protected string {missing!r} is not in the alphabet"
    return None


#: The model file's long lists, which an engine-held model's engine holds.
_LIST_KEYS = ("alphabet", "merges", "ids", "final_counts", "words")


def _as_dict(model: BPEModel, created: str, *, lists_for_writer: bool = False) -> dict[str, Any]:
    from bpe_desktop import __version__

    config = model.config.to_dict()
    for key in RUNTIME_ONLY_KEYS:
        config.pop(key, None)
    corpus = _corpus_dict(model.corpus)
    return {
        "format": FORMAT,
        "version": VERSION,
        "app_version": __version__,
        "created": created,
        "config": config,
        "alphabet": list(model.alphabet),
        "merges": (MergeLines(model) if lists_for_writer
                   else [[m.left, m.right, m.count] for m in model.merges]),
        "ids": _numbers(model, "ids", lists_for_writer),
        "final_counts": _numbers(model, "final_counts", lists_for_writer),
        "corpus": corpus,
        "words": (WordLines(model) if lists_for_writer
                  else [[w, c] for w, c in model.words]),
        "description": model.description,
        "constraints": _constraints(model.constraints),
    }


def _corpus_dict(c: CorpusInfo | None) -> dict[str, Any] | None:
    if c is None:
        return None
    corpus = {
        "kind": c.kind,
        "files": [{"path": f.path, "size": f.size, "sha256": f.sha256} for f in c.files],
        "total_words": c.total_words,
        "distinct_words": c.distinct_words,
        "characters": c.characters,
        "unknown_characters": c.unknown_characters,
    }
    if c.encoding_errors != "strict":  # (absent: files earlier versions also read)
        corpus["encoding_errors"] = c.encoding_errors
    if c.approximations:  # (likewise)
        corpus["approximations"] = list(c.approximations)
    return corpus


def _constraints(report) -> dict[str, Any] | None:
    if report is None:
        return None
    return {"method": report.method, "segmented_words": report.segmented_words,
            "knocked_out": [list(row) for row in report.knocked_out]}


def _numbers(model: BPEModel, name: str, checked: bool) -> list[int] | IntLines | None:
    """A model's list of whole numbers (``ids``, ``final_counts``); of a checked model, for
    the writer's fast path (the engine writes those it holds)."""
    engine = model.engine_model()
    if checked and engine is not None and name not in model.__dict__:
        return None if engine.int_list_len(name) is None else IntLines(engine=engine, name=name)
    values = getattr(model, name)
    if values is None:
        return None
    return IntLines(values) if checked else list(values)


def dumps(model: BPEModel, *, created: str | None = None) -> str:
    """The model file's complete text (what :func:`save_model` writes)."""
    data = [_checked_dict(model, created)]
    try:
        return "".join(c if isinstance(c, str) else c.decode("utf-8")
                       for c in _chunks(data[0]))
    finally:
        free_gradually(data)


def save_model(model: BPEModel, path: str | os.PathLike[str], *,
               created: str | None = None) -> None:
    """Write ``model`` to ``path`` atomically (see the module docs).

    Raises :class:`ModelFileError` for a model that cannot be stored (nothing is
    written) and :class:`OSError` (its message naming ``path``) when writing fails;
    either way a previous file at ``path`` is left as it was.
    """
    # A stream has no folder: its corpus paths stay absolute.
    folder_of = None if output_target(path).kind == "stream" else os.fspath(path)
    data = [_checked_dict(model, created, folder_of)]  # freed gradually below

    def write(fh) -> None:
        # The engine's long lists come as UTF-8: written as they are, the GIL let go.
        fh.writelines(c.encode("utf-8") if isinstance(c, str) else c
                      for c in _chunks(data[0]))

    try:
        # through a symlink: the file it points to is replaced; a stream is streamed into
        write_output(path, write, buffering=WRITE_BUFFER)
    finally:
        # As many objects as the model: freed at once, the deallocation would hold the
        # GIL in the autosave's thread beside the GUI.
        free_gradually(data)


def _now() -> str:
    now = _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0)
    return now.strftime("%Y-%m-%dT%H:%M:%SZ")


# ---------------------------------------------------------------------------------------
# Reading
# ---------------------------------------------------------------------------------------


def load_model(path: str | os.PathLike[str], *, shown_as: str | None = None) -> BPEModel:
    """Read and validate a model file; see the module docs for what is checked.

    Raises :class:`ModelFileError` (message: file, place, problem) for a malformed
    file, one above :data:`MAX_FILE_SIZE`, or one that would not fit in the free memory
    (see :data:`LOAD_MEMORY_PER_BYTE`), and :class:`OSError` when it cannot be read.
    ``shown_as`` names the file in messages instead of ``path`` (a copy of standard
    input: ``<stdin>``); its corpus paths then stay as written, having no folder to be
    read against.
    """
    name = shown_as or os.fspath(path)
    with open(path, "rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        if size > MAX_FILE_SIZE:
            raise _error(name, None, f"the file is {format_bytes(size)}, larger than the "
                         f"{format_bytes(MAX_FILE_SIZE)} a model file may have; refusing to read it")
        _check_memory(name, size)
        raw = fh.read(MAX_FILE_SIZE + 1)
    if len(raw) > MAX_FILE_SIZE:  # grew while we looked
        raise _error(name, None, f"the file is larger than {format_bytes(MAX_FILE_SIZE)}; "
                     "refusing to read it")
    held = [raw]
    del raw  # only in `held`, which the reader empties as it goes
    model = _read(held, name)
    if shown_as is None and model.corpus is not None and model.corpus.files:
        # paths relative to the file
        model.__dict__["corpus"] = corpus_as_read(model.corpus, name)
    return model


def loads(data: bytes | str, *, path: str | None = None) -> BPEModel:
    """Parse and validate a model file's contents (bytes or text)."""
    return _read([data], path)


def _read(held: list, path: str | None) -> BPEModel:
    """The model of the file contents in ``held`` (bytes or text, taken out of the list).

    One step at a time, dropping each stage's input, so that a large file is held in
    memory once as bytes, text and parsed JSON at most two at a time.
    """
    model = _engine_read(held[0])
    if model is not None:
        return model
    with collector_paused():
        text = _decode(held.pop(), path)
        parsed = [_parse_json(text, path)]
        del text
        try:
            return model_from_dict(parsed[0], path=path)
        finally:
            # The parsed JSON, as many objects as the model, a slice at a time: freed at
            # the return, its deallocation would hold the GIL throughout.
            free_gradually(parsed)


#: Peak memory of :func:`load_model` per byte of file (Python objects cost many times
#: their JSON text), measured as peak RSS above the interpreter's (Python 3.11):
#: 1 million merges of 2- and 4-letter ASCII tokens, 19 MB: 459 MB (24x), 2.6 s;
#: 1 million merges of single CJK characters, 29 MB: 538 MB (18x), 3.4 s;
#: 8 million of those, 232 MB: 4.2 GB (18x), 35 s. A file that would need more than
#: the free memory is refused before it is read.
LOAD_MEMORY_PER_BYTE = 25


def _check_memory(path: str, size: int) -> None:
    from bpe_desktop.core.memory import available_memory

    free = available_memory()
    need = size * LOAD_MEMORY_PER_BYTE
    if free is not None and need > free:
        raise _error(path, None, f"the file is {format_bytes(size)}; opening it needs about "
                     f"{format_bytes(need)} of memory, but this computer has "
                     f"{format_bytes(free)} free; close other programs and try again")


def _decode(data: bytes | bytearray | memoryview | str, path: str | None) -> str:
    """The file's text: a BOM dropped, invalid UTF-8 an error naming the byte offset."""
    if isinstance(data, str):
        text = data.removeprefix("\ufeff")
    else:
        view = memoryview(data).cast("B")  # slicing a view copies nothing
        if view[:2] == b"\x1f\x8b":  # (the gzip magic: model files are not compressed)
            raise _error(path, None, "the file is gzip-compressed; a model file is UTF-8 "
                         "text: decompress it first (gunzip, zcat)")
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
    """Parsed JSON; duplicate keys, NaN and Infinity refused; errors give line and column.

    The engine parses it first, without holding the GIL for the whole text (a 100k-token
    model's 4 MB held it ~90 ms, stalling the GUI thread while a worker opened a file);
    what the engine does not take (an error, a duplicate key, NaN, ...) Python's parser
    reads, and its errors are the ones reported.
    """
    fast = _native.engine().parse_json(text)
    if fast is not None:
        return fast[0]
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


def _engine_read(data: bytes | bytearray | memoryview | str) -> BPEModel | None:
    """The model of a valid file (its bytes or text), its tokens and merges read and held
    by the engine (no Python object per token); None for anything the engine or a check
    here doubts: the caller then reads the file in Python, whose checks say what is wrong."""
    if isinstance(data, str):
        data = data.removeprefix("\ufeff")
    else:
        data = bytes(data)
        data = data[3:] if data.startswith(b"\xef\xbb\xbf") else data
    found = _native.engine().read_model_file(data)
    if found is None:
        return None
    members, lists = found
    try:
        # The lists' keys stand in for the lists the engine took (they are required).
        data, created, config = check_head({**members, "alphabet": [], "merges": []})
        corpus = _corpus(data.get("corpus"))
        description, constraints = check_tail(data)
    except ModelFileError:
        return None
    engine_model = lists.finish([(t.id, t.piece) for t in config.special_tokens])
    if engine_model is None:
        return None
    if config.protected and not set(config.protected) <= set(engine_model.alphabet()):
        return None
    model = BPEModel.from_engine(engine_model, config=config, corpus=corpus,
                                 description=description, constraints=constraints)
    model._cache[_CREATED_KEY] = created
    model._cache[_CHECKED_KEY] = True
    return model


def model_from_dict(data: Any, *, path: str | None = None) -> BPEModel:
    """Validate a parsed model file (any JSON value) and build the model.

    Older versions are upgraded first (:func:`migrate`).
    """
    try:
        fields = validate(data)
    except ModelFileError as exc:
        raise _error(path, exc.where, str(exc)) from None
    model = BPEModel(**fields["model"])
    model._cache[_CREATED_KEY] = fields["created"]
    try:  # the id table, built by whichever thread loads (a GUI would stall building it)
        model.piece_ids
    except ConfigError as exc:
        raise _error(path, "config.special_tokens", str(exc)) from None
    missing = next((p for p in model.config.protected if p not in model.alphabet), None)
    if missing is not None:  # each is a base symbol with an id of its own
        raise _error(path, "config.protected", f"the protected string {missing!r} is not in "
                     "the alphabet")
    model._cache[_CHECKED_KEY] = True
    return model


def created_time(model: BPEModel) -> str | None:
    """When ``model`` was made, as stored in its file (None if not loaded or not saved)."""
    return model._cache.get(_CREATED_KEY)
