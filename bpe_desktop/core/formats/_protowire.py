"""The protobuf wire format, as much of it as a sentencepiece ``.model`` needs.

Writing and reading by hand keeps the ``protobuf`` package out of the dependencies
(sentencepiece's wheel does not depend on it either). Fields are written in the order
given; callers pass them in field-number order, as protobuf's own serializer does, so
the bytes equal ``SerializeToString()``'s.
"""

from __future__ import annotations

import struct
from typing import Iterator

VARINT, FIXED64, LENGTH, FIXED32 = 0, 1, 2, 5


class WireError(ValueError):
    """Malformed protobuf data; ``offset`` is the byte where reading failed."""

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(message)
        self.offset = offset


# -- writing ----------------------------------------------------------------------------


def varint(n: int) -> bytes:
    """A base-128 varint; negative numbers as 64-bit two's complement (int32 -1 is 10 bytes)."""
    if n < 0:
        n += 1 << 64
    out = bytearray()
    while True:
        low = n & 0x7F
        n >>= 7
        if n:
            out.append(low | 0x80)
        else:
            out.append(low)
            return bytes(out)


def _key(field: int, wire_type: int) -> bytes:
    return varint((field << 3) | wire_type)


def int_field(field: int, value: int) -> bytes:
    """int32, int64, bool and enum fields."""
    return _key(field, VARINT) + varint(int(value))


def float_field(field: int, value: float) -> bytes:
    return _key(field, FIXED32) + struct.pack("<f", value)


def bytes_field(field: int, value: bytes) -> bytes:
    """Length-delimited: bytes, UTF-8 strings and embedded messages."""
    return _key(field, LENGTH) + varint(len(value)) + value


def str_field(field: int, value: str) -> bytes:
    return bytes_field(field, value.encode("utf-8"))


# -- reading ----------------------------------------------------------------------------


def _read_varint(data: bytes, pos: int) -> tuple[int, int]:
    result = shift = 0
    start = pos
    while True:
        if pos >= len(data):
            raise WireError("the data ends inside a number", start)
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result, pos
        shift += 7
        if shift > 63:
            raise WireError("a number is longer than 10 bytes", start)


def fields(data: bytes, base: int = 0) -> Iterator[tuple[int, int, int | bytes, int]]:
    """``(field number, wire type, value, offset)`` for each field of one message.

    Varints come as unsigned ints, fixed32/64 as raw bytes, length-delimited fields as
    bytes. ``offset`` is where the value starts, counted from ``base``: pass it as the
    ``base`` of a nested message so that errors name positions in the whole file.
    """
    pos = 0
    while pos < len(data):
        start = pos
        key, pos = _read_varint(data, pos)
        field, wire_type = key >> 3, key & 7
        if field == 0:
            raise WireError("field number 0 is not allowed", base + start)
        if wire_type == LENGTH:
            length, pos = _read_varint(data, pos)
        at = pos
        if wire_type == VARINT:
            value, pos = _read_varint(data, pos)
        elif wire_type in (FIXED64, FIXED32, LENGTH):
            size = {FIXED64: 8, FIXED32: 4}.get(wire_type) or length
            value, pos = data[pos:pos + size], pos + size
        else:
            raise WireError(f"unsupported wire type {wire_type} (field {field})", base + start)
        if pos > len(data):
            raise WireError(f"field {field} runs past the end of the data", base + start)
        yield field, wire_type, value, base + at


def as_float(value: int | bytes, offset: int) -> float:
    if not isinstance(value, bytes) or len(value) != 4:
        raise WireError("expected a 32-bit float", offset)
    return struct.unpack("<f", value)[0]


def as_int32(value: int | bytes, offset: int) -> int:
    if not isinstance(value, int):
        raise WireError("expected a number", offset)
    value &= (1 << 64) - 1
    return value - (1 << 64) if value >= 1 << 63 else value


def as_bytes(value: int | bytes, offset: int) -> bytes:
    if not isinstance(value, bytes):
        raise WireError("expected a length-delimited field", offset)
    return value


def as_str(value: int | bytes, offset: int) -> str:
    try:
        return as_bytes(value, offset).decode("utf-8")
    except UnicodeDecodeError:
        raise WireError("a string is not valid UTF-8", offset) from None
