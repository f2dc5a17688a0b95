"""Mutations of valid files, as hypothesis strategies and as plain functions.

Byte-level damage is a small program interpreted over a seed (:func:`apply_program`): a
few bytes drawn by hypothesis (or given by atheris) choose each operation, its place
and its operand. One draw per input keeps hypothesis's overhead low enough for 100,000
inputs, and shrinking a failing program shrinks the damage. Operations: bit flips,
byte changes, truncation, deleted, repeated and inserted ranges, splices from another
seed, tokens from a dictionary of meaningful fragments, and line-level edits (duplicate,
drop, swap lines, exchange fields between lines) for the line-based formats.

Structured mutations (:func:`json_mutants`, :func:`proto_mutants`) parse the seed and
change values, keys and fields while keeping the syntax, to reach the checks behind
the parser.
"""

from __future__ import annotations

import copy
import json
from typing import Any, Sequence

from hypothesis import strategies as st

from bpe_desktop.core.formats import _protowire as pw

#: Fragments worth inserting anywhere: JSON syntax, odd numbers, escapes, markers, and
#: bytes that are not UTF-8.
DICTIONARY: tuple[bytes, ...] = (
    b"{", b"}", b"[", b"]", b'"', b",", b":", b"null", b"true", b"false", b"0", b"-1",
    b"1.5", b"1e999", b"-0", b"NaN", b"Infinity", b"18446744073709551616",
    b"9" * 40, b'\\u0000', b'\\ud800', b'\\udc00', b'\\"', b"\\", b" ", b"\t", b"\n",
    b"\r\n", b"\r", b"\x00", b"\xff", b"\xfe\xff", b"\xef\xbb\xbf", b"\xc3", b"\xe2\x82",
    b"\xf0\x9f\x98", b"\xed\xa0\x80", b"</w>", "\u2581".encode(), b"<unk>", b"#version: 0.2",
    b"#version: 0.1", b"#version: 9", b"=", b"==", b"YQ==", b"####", b'"merges"', b'"vocab"',
    b'"type"', b'"Sequence"', b'"BPE"', b'"special_tokens"', b'"config"', b'"alphabet"',
    b"\x0a\x00", b"\x12\x00", b"\x1a\x00", b"\x08\x02", b"\xff\xff\xff\xff\x0f",
    b"\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x01", b"\x1f\x8b\x08\x00",
)

#: Bytes of a mutation program: more would only make longer, less useful programs.
MAX_PROGRAM = 40


class _Reader:
    """Reads the program's bytes as small numbers; zeros once they run out."""

    def __init__(self, program: bytes) -> None:
        self.program = program
        self.pos = 0

    def byte(self) -> int:
        if self.pos >= len(self.program):
            return 0
        self.pos += 1
        return self.program[self.pos - 1]

    def index(self, n: int) -> int:
        """A position in ``range(n)`` (0 if n is 0), from two bytes."""
        value = self.byte() << 8 | self.byte()
        return value % n if n else 0

    @property
    def done(self) -> bool:
        return self.pos >= len(self.program)


def apply_program(seed: bytes, program: bytes, others: Sequence[bytes] = ()) -> bytes:
    """``seed`` damaged by the operations ``program`` encodes (see the module docs)."""
    data = bytearray(seed)
    r = _Reader(program)
    while not r.done:
        op = r.byte() % 13
        n = len(data)
        if op == 0:  # flip one bit
            if n:
                data[r.index(n)] ^= 1 << (r.byte() % 8)
        elif op == 1:  # set one byte
            if n:
                data[r.index(n)] = r.byte()
        elif op == 2:  # truncate
            del data[r.index(n + 1):]
        elif op == 3:  # delete a range
            at = r.index(n + 1)
            del data[at:at + 1 + r.byte() % 64]
        elif op == 4:  # insert a dictionary fragment
            at = r.index(n + 1)
            data[at:at] = DICTIONARY[r.byte() % len(DICTIONARY)]
        elif op == 5:  # repeat a range (up to 64 times): long lines, deep nesting
            at = r.index(n + 1)
            piece = bytes(data[at:at + 1 + r.byte() % 16])
            data[at:at] = piece * (1 + r.byte() % 64)
        elif op == 6:  # splice in a range of another seed
            if others:
                other = others[r.byte() % len(others)]
                start = r.index(len(other) + 1)
                piece = other[start:start + 1 + r.byte() % 128]
                at = r.index(n + 1)
                data[at:at + r.byte() % 32] = piece
        elif op == 7:  # insert bytes taken from the program itself
            at = r.index(n + 1)
            count = r.byte() % 8
            data[at:at] = bytes(r.byte() for _ in range(count))
        elif op == 8:  # copy a range elsewhere
            start = r.index(n + 1)
            piece = bytes(data[start:start + 1 + r.byte() % 64])
            at = r.index(n + 1)
            data[at:at] = piece
        else:  # line-level edits
            data = bytearray(_line_edit(op - 9, bytes(data), r))
    return bytes(data)


def _line_edit(kind: int, data: bytes, r: _Reader) -> bytes:
    lines = data.split(b"\n")
    n = len(lines)
    i, j = r.index(n), r.index(n)
    if kind == 0:  # duplicate a line
        lines.insert(j, lines[i])
    elif kind == 1:  # drop a line
        del lines[i]
    elif kind == 2:  # swap two lines
        lines[i], lines[j] = lines[j], lines[i]
    else:  # put a field of one line into another (fields: split at spaces)
        src, dst = lines[i].split(b" "), lines[j].split(b" ")
        dst[r.index(len(dst))] = src[r.index(len(src))]
        lines[j] = b" ".join(dst)
    return b"\n".join(lines)


@st.composite
def byte_mutants(draw: st.DrawFn, seeds: Sequence[bytes]) -> bytes:
    """A seed damaged by a drawn program (other seeds are splice sources)."""
    seed = draw(st.sampled_from(seeds))
    program = draw(st.binary(min_size=1, max_size=MAX_PROGRAM))
    return apply_program(seed, program, seeds)


# -- structured JSON mutations ------------------------------------------------------------

#: Strings that mean something to one of the JSON formats.
JSON_WORDS = ("", "a", "lo", "low", "e", "</w>", "\u2581", "<unk>", "[UNK]", "\ud800",
              "a b", "BPE", "WordPiece", "Sequence", "ByteLevel", "Metaspace", "Split",
              "WhitespaceSplit", "Whitespace", "NFC", "NFKC", "Lowercase", "Replace",
              "Regex", "String", "always", "bpe-desktop/model", "files", "imported",
              "first-seen", "gpt2", "sentencepiece", "eow-suffix", "bow-prefix", "unk",
              "user", "2025-01-31T12:00:00Z", "\u0120", "\x00", "😀")
JSON_KEYS = ("type", "pattern", "pretokenizers", "normalizers", "content", "id", "special",
             "vocab", "merges", "unk_token", "end_of_word_suffix", "replacement", "piece",
             "role", "version", "format", "alphabet", "config", "special_tokens", "x")

json_atoms = (st.none() | st.booleans() | st.sampled_from(JSON_WORDS)
              | st.integers(-3, 3) | st.sampled_from([2**31 - 1, 2**31, 2**63, 2**64, -2**63])
              | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=4))
json_values = st.recursive(
    json_atoms,
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.sampled_from(JSON_KEYS) | st.text(max_size=3), inner, max_size=3),
    max_leaves=5,
)


def _pick(draw: st.DrawFn, value: Any) -> tuple:
    """A path into ``value`` (keys and indexes), chosen by descending from the root: at
    each container, stop there one time in four, else go into a drawn child."""
    path: tuple = ()
    while isinstance(value, (dict, list)) and value and draw(st.integers(0, 3)):
        keys = list(value) if isinstance(value, dict) else range(len(value))
        key = keys[draw(st.integers(0, len(keys) - 1))]
        path += (key,)
        value = value[key]
    return path


def _at(value: Any, path: tuple) -> Any:
    for key in path:
        value = value[key]
    return value


@st.composite
def json_mutants(draw: st.DrawFn, seeds: Sequence[bytes]) -> bytes:
    """A JSON seed with 1-3 values replaced, removed, duplicated, moved or re-keyed."""
    data = json.loads(draw(st.sampled_from(seeds)))  # a fresh copy, faster than deepcopy
    for _ in range(draw(st.integers(1, 3))):
        path = _pick(draw, data)
        action = draw(st.integers(0, 4))
        if not path:
            if action == 0:
                data = draw(json_values)
            continue
        parent = _at(data, path[:-1])
        key = path[-1]
        if action == 0:  # replace
            parent[key] = draw(json_values)
        elif action == 1:  # remove
            del parent[key]
        elif action == 2:  # insert beside it (a list) or add a key (an object)
            if isinstance(parent, list):
                parent.insert(key, draw(json_values))
            else:
                parent[draw(st.sampled_from(JSON_KEYS))] = draw(json_values)
        elif action == 3:  # replace it with a copy of another part of the document
            source = _pick(draw, data)
            if source[:len(path)] != path:
                parent[key] = copy.deepcopy(_at(data, source))
        else:  # rename a key, or move a list item to the end
            if isinstance(parent, dict):
                parent[draw(st.sampled_from(JSON_KEYS))] = parent.pop(key)
            else:
                parent.append(parent.pop(key))
    text = json.dumps(data, ensure_ascii=draw(st.booleans()), allow_nan=True)
    return text.encode("utf-8", "surrogatepass")


# -- structured protobuf mutations --------------------------------------------------------

#: Fields whose values are messages in a sentencepiece ModelProto (top level).
_NESTED = (1, 2, 3)


def parse_proto(data: bytes) -> list[list]:
    """A ModelProto as ``[field, wire type, value]`` rows; pieces, trainer and normalizer
    specs are parsed into rows too (the seeds are valid, so this does not fail)."""
    rows = []
    for field, wire_type, value, _ in pw.fields(data):
        if field in _NESTED and wire_type == pw.LENGTH:
            value = [[f, w, v] for f, w, v, _ in pw.fields(value)]
        rows.append([field, wire_type, value])
    return rows


def serialize_proto(rows: list[list]) -> bytes:
    out = bytearray()
    for field, wire_type, value in rows:
        if isinstance(value, list):
            value = serialize_proto(value)
        out += pw.varint(field << 3 | wire_type)
        if wire_type == pw.VARINT:
            out += pw.varint(value if isinstance(value, int) else len(value))
        elif wire_type == pw.LENGTH:
            raw = value if isinstance(value, bytes) else pw.varint(value)
            out += pw.varint(len(raw)) + raw
        else:
            size = 8 if wire_type == pw.FIXED64 else 4
            raw = value if isinstance(value, bytes) else \
                (value % (1 << 8 * size)).to_bytes(size, "little")
            out += raw[:size].ljust(size, b"\0")
    return bytes(out)


proto_values = (st.integers(0, 6) | st.integers(0, 2**64 - 1) | st.sampled_from(
    [b"", b"a", b"ab", b"\xe2\x96\x81", b"\xe2\x96\x81a", b"<unk>", b"\xff", b"\x00",
     b"\x00\x00\xc0\x7f", b"\x00\x00\x80\x7f", b"identity", b"nmt_nfkc_cf"]))


@st.composite
def proto_mutants(draw: st.DrawFn, seeds: Sequence[bytes]) -> bytes:
    """A sentencepiece model with 1-3 fields changed, dropped, duplicated or re-typed."""
    rows = copy.deepcopy(parse_proto(draw(st.sampled_from(seeds))))
    for _ in range(draw(st.integers(1, 3))):
        top = rows[draw(st.integers(0, len(rows) - 1))] if rows else None
        table = top[2] if top is not None and isinstance(top[2], list) and \
            draw(st.booleans()) else rows
        action = draw(st.integers(0, 4))
        if not table or action == 4:  # a new field
            table.insert(draw(st.integers(0, len(table))),
                         [draw(st.integers(1, 50)), draw(st.sampled_from([0, 1, 2, 5])),
                          draw(proto_values)])
            continue
        i = draw(st.integers(0, len(table) - 1))
        if action == 0:  # a new value
            table[i][2] = draw(proto_values)
        elif action == 1:
            del table[i]
        elif action == 2:
            table.insert(draw(st.integers(0, len(table))), copy.deepcopy(table[i]))
        else:  # another field number or wire type
            if draw(st.booleans()):
                table[i][0] = draw(st.integers(1, 50))
            else:
                table[i][1] = draw(st.sampled_from([0, 1, 2, 5]))
    return serialize_proto(rows)
