"""Reader of Paddle's combined parameter file (`.pdiparams`): a sequence of serialized
DenseTensors, one per persistable variable in sorted-name order. Each tensor is: uint32
version, uint64 LoD level count and per level a uint64 byte size plus offsets, uint32 tensor
version, int32 TensorDesc size, the TensorDesc protobuf (data type, dims), the raw data.
Imports NumPy and its package's modules.
"""
from __future__ import annotations

import struct

import numpy as np

from .program_desc import DTYPES
from .wire import WireError, group, packed_varints

_NP = {"bool": np.bool_, "int16": np.int16, "int32": np.int32, "int64": np.int64,
       "float16": np.float16, "float32": np.float32, "float64": np.float64,
       "uint8": np.uint8, "int8": np.int8, "complex64": np.complex64,
       "complex128": np.complex128}


class _Stream:
    def __init__(self, data: bytes, path: str) -> None:
        self.data, self.pos, self.path = memoryview(data), 0, path

    def take(self, n: int, what: str) -> memoryview:
        if n < 0 or self.pos + n > len(self.data):
            raise ValueError(f"paddle.inference: params file {self.path!r} is truncated or "
                             f"corrupt: {what} needs {n} bytes at offset {self.pos}, the file "
                             f"has {len(self.data)}")
        out = self.data[self.pos:self.pos + n]
        self.pos += n
        return out

    def unpack(self, fmt: str, what: str):
        return struct.unpack("<" + fmt, self.take(struct.calcsize("<" + fmt), what))[0]


def _bfloat16():
    import ml_dtypes  # NOTE: sampan's bfloat16 comes from ml_dtypes too
    return ml_dtypes.bfloat16


def _tensor(s: _Stream, name: str) -> np.ndarray:
    what = f"tensor {name!r}"
    if s.unpack("I", what + " version") != 0:
        raise ValueError(f"paddle.inference: params file {s.path!r}: {what} has an unknown "
                         f"format version (corrupt file?)")
    for _ in range(s.unpack("Q", what + " LoD levels")):
        s.take(s.unpack("Q", what + " LoD size"), what + " LoD")
    s.unpack("I", what + " tensor version")
    desc = bytes(s.take(s.unpack("i", what + " desc size"), what + " TensorDesc"))
    try:
        g = group(desc)
        dtype = DTYPES.get(g.get(1, [-1])[0])
        dims = [d for v in g.get(2, []) for d in packed_varints(v)]
    except WireError as e:
        raise ValueError(f"paddle.inference: params file {s.path!r}: {what} has a corrupt "
                         f"TensorDesc ({e})") from None
    if dtype is None or any(d < 0 for d in dims):
        raise ValueError(f"paddle.inference: params file {s.path!r}: {what} has an invalid "
                         f"description (dtype code {g.get(1)}, dims {dims}); corrupt file?")
    np_dtype = np.dtype(_bfloat16() if dtype == "bfloat16" else _NP[dtype])
    count = int(np.prod(dims, dtype=np.int64))
    raw = s.take(count * np_dtype.itemsize, what + f" data ({dtype}{dims})")
    return np.frombuffer(raw, np_dtype).reshape(dims).copy()


def read_params(data: bytes, names: list, path: str, shapes: dict | None = None) -> dict:
    """{name: array} for `names` (read in sorted order, as Paddle writes them). Checks each
    tensor against the program's declared shape (`shapes`; -1 = any dim, [] = undeclared)
    and that no bytes are left over, so a truncated, padded or mismatched file is an error
    naming `path`."""
    s = _Stream(data, path)
    out = {}
    for name in sorted(names):
        arr = _tensor(s, name)
        want = (shapes or {}).get(name)
        if want and (len(want) != arr.ndim or
                                 any(w not in (-1, a) for w, a in zip(want, arr.shape))):
            raise ValueError(f"paddle.inference: params file {path!r}: tensor {name!r} has "
                             f"shape {list(arr.shape)} but the model declares {list(want)}; "
                             f"the params file does not belong to this model")
        out[name] = arr
    if s.pos != len(s.data):
        raise ValueError(f"paddle.inference: params file {path!r} has {len(s.data) - s.pos} "
                         f"bytes after the {len(names)} parameters the model declares; it "
                         f"does not belong to this model or is corrupt")
    return out
