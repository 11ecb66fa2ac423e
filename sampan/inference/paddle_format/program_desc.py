"""Reader of Paddle's protobuf ProgramDesc (`.pdmodel`, Paddle 2.x and 3.x with
FLAGS_enable_pir_api=0) into the reader-neutral `PModel`. Field numbers follow Paddle's
public framework.proto. Imports only its package's modules.
"""
from __future__ import annotations

import struct

from .ir import PModel, POp, PVar
from .wire import WireError, group, packed_fixed, packed_varints, signed64

# framework.proto VarType.Type -> dtype name
DTYPES = {0: "bool", 1: "int16", 2: "int32", 3: "int64", 4: "float16", 5: "float32",
          6: "float64", 20: "uint8", 21: "int8", 22: "bfloat16", 23: "complex64",
          24: "complex128"}


def _str(b: bytes) -> str:
    return bytes(b).decode("utf-8", errors="replace")


def _scalar(buf: bytes):
    g = group(buf)
    kind = g.get(1, [0])[0]
    if kind == 1:
        return bool(g.get(2, [0])[0])
    if kind == 2:
        return signed64(g.get(3, [0])[0])
    if kind == 3:
        return struct.unpack("<d", g.get(4, [b"\0" * 8])[0])[0]
    raise WireError(f"unsupported Scalar attribute kind {kind}")


def _repeated(g, num, conv) -> list:
    out = []
    for v in g.get(num, []):
        out.extend(conv(v))
    return out


def _attr(buf: bytes) -> tuple:
    """(name, value) of an OpDesc.Attr, chosen by its declared AttrType."""
    g = group(buf)
    name, kind = _str(g[1][0]), g.get(2, [0])[0]
    one = {0: (3, lambda v: signed64(v)), 1: (4, lambda v: struct.unpack("<f", v)[0]),
           2: (5, _str), 6: (10, bool), 8: (12, int), 9: (13, signed64),
           13: (17, _str), 15: (19, lambda v: struct.unpack("<d", v)[0]), 16: (20, _scalar)}
    if kind in one:
        num, conv = one[kind]
        vals = g.get(num)
        default = {2: "", 13: "", 6: False}.get(kind, 0)
        return name, conv(vals[-1]) if vals else default
    many = {3: (6, packed_varints), 11: (15, packed_varints), 10: (14, packed_varints),
            7: (11, lambda v: [bool(x) for x in packed_varints(v)]),
            4: (7, lambda v: packed_fixed(v, "f")), 12: (16, lambda v: packed_fixed(v, "d")),
            5: (8, lambda v: [_str(v)]), 14: (18, lambda v: [_str(v)]),
            17: (21, lambda v: [_scalar(v)])}
    if kind in many:
        num, conv = many[kind]
        return name, _repeated(g, num, conv)
    raise WireError(f"attribute {name!r} has unknown type {kind}")


def _slots(entries) -> dict:
    table = {}
    for buf in entries:
        g = group(buf)
        table[_str(g[1][0])] = [_str(a) for a in g.get(2, [])]
    return table


def _op(buf: bytes) -> POp:
    g = group(buf)
    attrs = dict(_attr(a) for a in g.get(4, []))
    return POp(_str(g[3][0]), _slots(g.get(1, [])), _slots(g.get(2, [])), attrs)


def _var(buf: bytes) -> PVar:
    g = group(buf)
    name = _str(g[1][0])
    persistable = bool(g.get(3, [0])[0])
    vtype = group(g[2][0]) if 2 in g else {}
    shape, dtype = [], "float32"
    if 3 in vtype:  # dense_tensor -> TensorDesc
        tdesc = group(group(vtype[3][0]).get(1, [b""])[0])
        dtype = DTYPES.get(tdesc.get(1, [5])[0], "unknown")
        shape = _repeated(tdesc, 2, packed_varints)
    return PVar(name, shape, dtype, persistable)


def read_program_desc(data: bytes, path: str) -> PModel:
    """Decode a ProgramDesc; raises ValueError naming `path` if the bytes are corrupt."""
    try:
        blocks = group(data).get(1, [])
        if not blocks:
            raise WireError("no blocks")
        block = group(blocks[0])
        ops = [_op(b) for b in block.get(4, [])]
        vars_ = [_var(b) for b in block.get(3, [])]
    except (WireError, KeyError, IndexError, struct.error, UnicodeDecodeError) as e:
        raise ValueError(f"paddle.inference: {path!r} is not a readable Paddle ProgramDesc "
                         f"(.pdmodel) file: {e}; the file may be truncated or corrupt") from None
    feeds = sorted((op.attrs.get("col", 0), op.output("Out")) for op in ops if op.type == "feed")
    fetches = sorted((op.attrs.get("col", 0), op.input("X")) for op in ops if op.type == "fetch")
    table = {v.name: v for v in vars_}
    params = [v.name for v in vars_ if v.persistable and v.name not in ("feed", "fetch")]
    body = [op for op in ops if op.type not in ("feed", "fetch")]
    return PModel(body, table, [n for _, n in feeds], [n for _, n in fetches], "pdmodel",
                  params)
