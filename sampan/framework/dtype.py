"""Data types: the `paddle.float32`-style objects, conversion from any spelling, promotion.

Imports nothing from sampan; every other room may import it.
"""
from __future__ import annotations

import numpy as np
import ml_dtypes


class DType:
    """A sampan/Paddle data type (`paddle.float32`, ...); compares equal to its name string."""

    __slots__ = ("name", "np", "kind", "itemsize")

    def __init__(self, name: str, np_dtype) -> None:
        self.name = name
        self.np = np.dtype(np_dtype)
        self.itemsize = self.np.itemsize
        if name == "bool":
            self.kind = "b"
        elif name in ("float16", "bfloat16", "float32", "float64"):
            self.kind = "f"
        elif name.startswith("complex"):
            self.kind = "c"
        elif name == "uint8":
            self.kind = "u"
        else:
            self.kind = "i"

    @property
    def is_floating_point(self) -> bool:
        return self.kind == "f"

    @property
    def is_complex(self) -> bool:
        return self.kind == "c"

    def __repr__(self) -> str:
        return "paddle." + self.name

    __str__ = __repr__

    def __eq__(self, other) -> bool:
        if isinstance(other, DType):
            return self is other
        try:
            return convert_dtype(other) is self
        except (TypeError, ValueError):
            return False

    def __hash__(self) -> int:
        return hash(self.name)

    def __reduce__(self):
        return (convert_dtype, (self.name,))


bool_ = DType("bool", np.bool_)
int8 = DType("int8", np.int8)
int16 = DType("int16", np.int16)
int32 = DType("int32", np.int32)
int64 = DType("int64", np.int64)
uint8 = DType("uint8", np.uint8)
float16 = DType("float16", np.float16)
bfloat16 = DType("bfloat16", ml_dtypes.bfloat16)
float32 = DType("float32", np.float32)
float64 = DType("float64", np.float64)
complex64 = DType("complex64", np.complex64)
complex128 = DType("complex128", np.complex128)

# Paddle 3.x names. uint16 is Paddle's storage name of bfloat16 (tensors created with it are
# bfloat16); uint32 and uint64 are names only: no sampan (or Paddle CPU) kernel takes them, so
# they stay out of ALL and tensors of them cannot be made.
class _NameOnlyDType(DType):
    """A dtype Paddle names but no kernel supports: convert_dtype refuses it."""

    __slots__ = ()


uint16 = bfloat16
uint32 = _NameOnlyDType("uint32", np.uint32)
uint64 = _NameOnlyDType("uint64", np.uint64)

ALL = (bool_, int8, int16, int32, int64, uint8, float16, bfloat16, float32, float64,
       complex64, complex128)
FLOATS = (float16, bfloat16, float32, float64)
_BY_NAME = {d.name: d for d in ALL}
_BY_NAME.update({"float": float32, "double": float64, "half": float16, "int": int64,
                 "long": int64, "bool_": bool_, "uint16": bfloat16})
_BY_NP = {d.np: d for d in ALL}
_BY_PY = {bool: bool_, int: int64, float: float32, complex: complex64}

_default_float = [float32]


def convert_dtype(dtype) -> DType:
    """Turn a DType, a name ('float32', 'paddle.int64'), a NumPy dtype or type into a DType."""
    if isinstance(dtype, DType):
        if dtype.__class__ is _NameOnlyDType:
            raise TypeError(f"dtype: {dtype.name} is not supported (no kernel takes it, as "
                            f"in Paddle's CPU build)")
        return dtype
    if isinstance(dtype, str):
        key = dtype[7:] if dtype.startswith("paddle.") else dtype
        found = _BY_NAME.get(key)
        if found is None:
            raise TypeError(f"dtype: unsupported data type {dtype!r}; expected one of "
                            f"{sorted(d.name for d in ALL)}")
        return found
    if dtype in _BY_PY:
        if dtype is float:
            return _default_float[0]
        return _BY_PY[dtype]
    try:
        npd = np.dtype(dtype)
    except TypeError:
        raise TypeError(f"dtype: unsupported data type {dtype!r}") from None
    found = _BY_NP.get(npd)
    if found is None:
        raise TypeError(f"dtype: unsupported data type {dtype!r}")
    return found


def from_numpy(npd) -> DType:
    """DType of a NumPy dtype (fast path for arrays already in a supported type)."""
    found = _BY_NP.get(npd)
    if found is None:
        raise TypeError(f"dtype: NumPy type {npd} has no sampan equivalent")
    return found


def get_default_dtype() -> str:
    """The default floating point dtype name ('float32' unless changed)."""
    return _default_float[0].name


def set_default_dtype(d) -> None:
    """Set the default floating point dtype (float16, bfloat16, float32 or float64)."""
    dt = convert_dtype(d)
    if dt.kind != "f":
        raise TypeError(f"set_default_dtype: d must be a floating point type "
                        f"(float16, bfloat16, float32, float64), got {dt.name}")
    _default_float[0] = dt


def default_float() -> DType:
    return _default_float[0]


def promote_float(dt: DType) -> DType:
    """Result type of a float-valued op on `dt`: ints/bool become the default float."""
    return dt if dt.kind in "fc" else _default_float[0]


# The complex <-> real pairs (one home: every op and API that maps between them uses these).
# Half-precision floats have no complex type of their own: they pair with complex64.
COMPLEX_OF = {"float16": "complex64", "bfloat16": "complex64", "float32": "complex64",
              "float64": "complex128"}
REAL_OF = {"complex64": "float32", "complex128": "float64"}


def complex_of(dtype) -> DType:
    """The complex dtype of a real float dtype (complex64 for float16/bfloat16/float32,
    complex128 for float64); complex and other dtypes are returned unchanged."""
    dt = convert_dtype(dtype)
    return _BY_NAME[COMPLEX_OF.get(dt.name, dt.name)]


def real_of(dtype) -> DType:
    """The dtype of the real and imaginary parts of a complex dtype (float32 for complex64,
    float64 for complex128); other dtypes are returned unchanged."""
    dt = convert_dtype(dtype)
    return _BY_NAME[REAL_OF.get(dt.name, dt.name)]


_RANK = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}


def promote_types(a: DType, b: DType) -> DType:
    """Tensor-with-tensor promotion as Paddle 3.x does it.

    Same kind: the wider type (float16 with bfloat16 gives float32; uint8 with int8 gives
    int16). Different kinds: the higher kind wins (bool < int < float < complex), keeping the
    higher kind's own width; complex keeps enough precision for a float64 partner.
    """
    if a is b:
        return a
    ka, kb = _RANK[a.kind], _RANK[b.kind]
    if ka != kb:
        hi, lo = (a, b) if ka > kb else (b, a)
        if hi.kind == "c" and lo is float64:
            return complex128
        return hi
    if a.kind == "f":
        if {a.name, b.name} == {"float16", "bfloat16"}:
            return float32
        return a if a.itemsize >= b.itemsize else b
    return from_numpy(np.promote_types(a.np, b.np))
