"""A small protobuf wire-format decoder (varints, length-delimited fields, fixed 32/64-bit)
for reading Paddle's ProgramDesc and TensorDesc messages without the protobuf package.

Imports nothing from sampan.
"""
from __future__ import annotations

import struct


class WireError(ValueError):
    """The bytes are not a well-formed protobuf message."""


def varint(buf: bytes, pos: int) -> tuple:
    """(value, next position) of the base-128 varint at `pos`."""
    result = shift = 0
    while True:
        if pos >= len(buf):
            raise WireError("truncated varint")
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7
        if shift > 70:
            raise WireError("varint longer than 10 bytes")


def fields(buf: bytes) -> list:
    """The message's fields in order as (field number, wire type, value): varints as ints,
    fixed32/fixed64 as raw bytes, length-delimited fields as bytes."""
    out = []
    pos, end = 0, len(buf)
    while pos < end:
        key, pos = varint(buf, pos)
        num, wtype = key >> 3, key & 7
        if wtype == 0:
            value, pos = varint(buf, pos)
        elif wtype == 1:
            value, pos = buf[pos:pos + 8], pos + 8
        elif wtype == 2:
            size, pos = varint(buf, pos)
            value, pos = buf[pos:pos + size], pos + size
        elif wtype == 5:
            value, pos = buf[pos:pos + 4], pos + 4
        else:
            raise WireError(f"unsupported wire type {wtype} (field {num})")
        if pos > end or num == 0:
            raise WireError(f"truncated or corrupt field {num}")
        out.append((num, wtype, value))
    return out


def signed64(v: int) -> int:
    """A varint read as int64/int32 (negative numbers are 10-byte two's complement)."""
    return v - (1 << 64) if v >= 1 << 63 else v


def packed_varints(value) -> list:
    """A repeated varint field's entry: one int (unpacked) or a packed run (bytes)."""
    if isinstance(value, int):
        return [signed64(value)]
    vals, pos = [], 0
    while pos < len(value):
        v, pos = varint(value, pos)
        vals.append(signed64(v))
    return vals


def packed_fixed(value, fmt: str) -> list:
    """A repeated float ('f') / double ('d') field's entry, packed or not."""
    size = struct.calcsize(fmt)
    if len(value) % size:
        raise WireError("packed fixed-width field has a partial element")
    return list(struct.unpack(f"<{len(value) // size}{fmt}", value))


def group(buf: bytes) -> dict:
    """{field number: [values in order]} of a message."""
    table: dict = {}
    for num, _, value in fields(buf):
        table.setdefault(num, []).append(value)
    return table
