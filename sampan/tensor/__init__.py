"""The public tensor API (paddle.* functions) and Tensor's methods and operators.

Each family module defines Paddle-signature functions over dispatch and lists them in
`__all__`. This file binds them as Tensor methods (the names Paddle's Tensor has), derives
the in-place `name_` variants, and installs the Python operators. Imports `framework`,
`ops`, `autograd`.
"""
from __future__ import annotations

from ..framework.tensor import Tensor
from . import (attribute, compat3, compat3_creation, compat3_linalg, compat3_methods,
               compat3_names, creation, extra, indexing, linalg, logic, manipulation, math,
               random, search, special_methods, stat)
from ..ops.dispatch import dispatch
from ._helpers import binary, make_inplace, operand
from ._names import TENSOR_METHODS, TOP_LEVEL_INPLACE
from . import array  # noqa: F401  (paddle.tensor.array; not paddle.* names)
from . import out_arg
from . import methods3  # Paddle 3.x: Tensor.set_tensor, Tensor.is_coalesced
from .array import array_length, array_read, array_write, create_array  # noqa: F401

_FAMILIES = (creation, math, manipulation, indexing, linalg, logic, search, stat, random,
             attribute, extra, compat3, compat3_creation, compat3_linalg, compat3_names)
TENSOR_METHODS = TENSOR_METHODS + compat3.METHOD_NAMES  # Paddle 3.3.1's additions
TOP_LEVEL_INPLACE = TOP_LEVEL_INPLACE + compat3.TOP_LEVEL_INPLACE

FUNCTIONS: dict = {}
for _mod in _FAMILIES:
    for _name in _mod.__all__:
        if _name in FUNCTIONS:
            raise ImportError(f"sampan.tensor: {_name} defined in two families")
        FUNCTIONS[_name] = getattr(_mod, _name)

# In-place variants Paddle has (add_, exp_, ...) that no family wrote by hand.
INPLACE: dict = {}
for _name in TENSOR_METHODS + TOP_LEVEL_INPLACE:
    if _name.endswith("_") and _name not in FUNCTIONS and _name[:-1] in FUNCTIONS:
        INPLACE[_name] = make_inplace(FUNCTIONS[_name[:-1]], _name)
for _name in ("zero_", "fill_", "uniform_", "normal_", "exponential_"):
    INPLACE.pop(_name, None)  # these are defined by their families with their own signatures

# Paddle 3.3.1's `out=`, alias keywords (input=, dim=, ...) and positional forms (ones(2, 3))
out_arg.install(FUNCTIONS, out_arg.TENSOR_NAMES, "paddle.")
out_arg.install(INPLACE, (), "paddle.")

for _name in TENSOR_METHODS:
    if _name in Tensor.__dict__:
        continue
    fn = FUNCTIONS.get(_name) or INPLACE.get(_name) or compat3_linalg.LINALG.get(_name)
    if fn is not None:
        setattr(Tensor, _name, fn)
for _name, _fn in {**compat3_methods.METHODS, **compat3_creation.METHODS,
                   **compat3_methods.PROPERTIES}.items():
    setattr(Tensor, _name, _fn)  # Tensor-only methods and properties of Paddle 3.3.1
for _name, _fn in {**special_methods.METHODS, **special_methods.PROPERTIES,
                   **methods3.METHODS}.items():
    setattr(Tensor, _name, _fn)  # sparse, SelectedRows, vocab and distributed views
out_arg.install_methods(Tensor)  # aliases of Tensor methods not bound from FUNCTIONS


def _forward_operator(op):
    def operator(self, other):
        if other.__class__ is not Tensor:
            if other is None and op.name in ("equal", "not_equal"):
                return op.name == "not_equal"  # Paddle: `t == None` is False
            other = operand(self, other)
        return dispatch(op, (self, other))
    operator.__name__ = f"__{op.name}__"
    return operator


def _bind_operators() -> None:
    table = {"add": ("__add__", "__radd__"), "subtract": ("__sub__", "__rsub__"),
             "multiply": ("__mul__", "__rmul__"), "divide": ("__truediv__", "__rtruediv__"),
             "floor_divide": ("__floordiv__", "__rfloordiv__"),
             "remainder": ("__mod__", "__rmod__"), "pow": ("__pow__", "__rpow__"),
             "matmul": ("__matmul__", "__rmatmul__"),
             "bitwise_and": ("__and__", "__rand__"), "bitwise_or": ("__or__", "__ror__"),
             "bitwise_xor": ("__xor__", "__rxor__"),
             "equal": ("__eq__", None), "not_equal": ("__ne__", None),
             "less_than": ("__lt__", None), "less_equal": ("__le__", None),
             "greater_than": ("__gt__", None), "greater_equal": ("__ge__", None)}
    from ..ops.opdef import REGISTRY
    for op_name, (fwd, rev) in table.items():
        op = REGISTRY.get(op_name)
        if op is None:
            continue
        setattr(Tensor, fwd, _forward_operator(op))
        if rev:
            setattr(Tensor, rev, lambda self, other, _op=op: binary(_op, operand(self, other),
                                                                     self))
    for dunder, fn_name in (("__neg__", "neg"), ("__abs__", "abs"), ("__invert__",
                                                                    "bitwise_not")):
        if fn_name in FUNCTIONS:
            setattr(Tensor, dunder, FUNCTIONS[fn_name])
    Tensor.__hash__ = lambda self: id(self)
    Tensor.__pos__ = _pos
    Tensor.__lshift__ = lambda self, other: logic.bitwise_left_shift(self, other)
    Tensor.__rlshift__ = lambda self, other: logic.bitwise_left_shift(other, self)
    Tensor.__rshift__ = lambda self, other: logic.bitwise_right_shift(self, other)
    Tensor.__rrshift__ = lambda self, other: logic.bitwise_right_shift(other, self)
    # Python 2 names Paddle's Tensor still carries (some Paddle tests call them directly)
    Tensor.__div__, Tensor.__rdiv__ = Tensor.__truediv__, Tensor.__rtruediv__
    Tensor.__long__, Tensor.__nonzero__ = Tensor.__int__, Tensor.__bool__


def _pos(self):
    """`+x` is x itself (Paddle), and a TypeError for bool tensors as in Python's numbers."""
    if self.dtype.kind == "b":
        raise TypeError("unary + is not supported for bool tensors; use x.astype('int64') "
                        "or x.clone()")
    return self


_bind_operators()
if "cast" in FUNCTIONS:
    Tensor.astype = FUNCTIONS["cast"]


def _stft(self, *args, **kwargs):
    from ..signal import stft  # paddle.signal loads lazily
    return stft(self, *args, **kwargs)


def _istft(self, *args, **kwargs):
    from ..signal import istft
    return istft(self, *args, **kwargs)


Tensor.stft, Tensor.istft = _stft, _istft

__all__ = sorted(FUNCTIONS) + sorted(INPLACE)
globals().update(FUNCTIONS)
globals().update(INPLACE)
fill_constant = creation.fill_constant  # paddle.tensor.fill_constant only, not top-level
# Paddle's module paths for functions sampan keeps in other family files
math.nanmean, math.count_nonzero, math.vander = stat.nanmean, stat.count_nonzero, \
    creation.vander
