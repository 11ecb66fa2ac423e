"""paddle.compat: Paddle 3.3.1's PyTorch-semantics functions (max/min/median/nanmedian/sort/
split/unique/slogdet/equal/seed), their named-tuple results and the short dtype names.

Paddle 3.3.1 reaches this module as the attribute `paddle.compat` (it is not in
`paddle.__all__`); paddle.max/min/sort/split point to it when given PyTorch keywords. Each
function is a composite of the public tensor functions (reduction over all dims, or values
with indices along `dim`; lower median; PyTorch's chunk-size split). Not here: compat.nn
(PyTorch-style Linear/Softmax/Unfold/AvgPool/MultiheadAttention) and the torch proxy.
Imports `framework` and `tensor`.
"""
from __future__ import annotations

import os
from typing import Any, NamedTuple

from .framework import dtype as _dtype
from .framework import random as _random
from .framework.tensor import Tensor, is_variable
from .tensor import FUNCTIONS as _F
from .tensor.out_arg import write_out
from .tensor.param_alias import forbid

__all__ = ["equal", "slogdet", "sort", "split", "min", "max", "unique", "median",
           "nanmedian", "seed"]

# short dtype names and Paddle's promotion of two tensors' dtypes (sampan's promote_types)
u1, i1, i2, i4, i8, f2, f4, f8, b1, bf = (
    _dtype.convert_dtype(n) for n in ("uint8", "int8", "int16", "int32", "int64", "float16",
                                      "float32", "float64", "bool", "bfloat16"))
PROMOTE_DICT = {(a, b): _dtype.promote_types(a, b)
                for a in (u1, i1, i2, i4, i8, f2, f4, f8, b1, bf)
                for b in (u1, i1, i2, i4, i8, f2, f4, f8, b1, bf)}


class MinMaxRetType(NamedTuple):
    values: Tensor
    indices: Tensor


class MedianRetType(NamedTuple):
    values: Tensor
    indices: Tensor


class SortRetType(NamedTuple):
    values: Tensor
    indices: Tensor


class SlogdetResult(NamedTuple):
    sign: Tensor
    logabsdet: Tensor


def _refuse(api: str, keys: set, instead: str):
    """Paddle's ForbidKeywordsDecorator: Paddle-style keywords point back to `instead`."""
    check = forbid(api, frozenset(keys), instead)

    def decorate(fn):
        def wrapper(*args, **kwargs):
            if kwargs:
                check(args, kwargs)
            return fn(*args, **kwargs)
        wrapper.__name__, wrapper.__qualname__ = fn.__name__, fn.__qualname__
        wrapper.__doc__, wrapper.__wrapped__ = fn.__doc__, fn
        wrapper.__module__ = fn.__module__
        return wrapper
    return decorate


def _out(api: str, result, out):
    if out is None:
        return result
    if isinstance(out, list):
        out = tuple(out)
    written = write_out(api, tuple(result) if isinstance(result, tuple) else result, out)
    return type(result)(*written) if isinstance(result, tuple) else written


def _is_tensor(value) -> bool:
    return isinstance(value, Tensor) or is_variable(value)


def _min_max_args(name: str, args: tuple, kwargs: dict):
    """(dim_or_other, keepdim) from PyTorch's three forms: (), (other), (dim[, keepdim])."""
    def invalid(detail: str = ""):
        given = [type(v).__name__ for v in args] + [f"{k}={type(v).__name__}"
                                                    for k, v in kwargs.items()]
        return TypeError(
            f"Invalid arguments for `paddle.compat.{name}`:\n{detail}Got: (paddle.Tensor "
            f"input, {', '.join(given)}), but expect one of:\n - (input: paddle.Tensor) for "
            f"reduce_{name} on all dims.\n - (input: paddle.Tensor, other: paddle.Tensor) -> "
            f"see paddle.{name}imum\n - (input: paddle.Tensor, int dim (cannot be None), "
            f"bool keepdim = False)\n")
    named = dict(kwargs)
    if len(args) + len(named) > 2 or set(named) - {"dim", "keepdim", "other"}:
        raise invalid()
    values = list(args) + [named.pop(k) for k in ("dim", "other") if k in named]
    keepdim = named.pop("keepdim", values.pop(1) if len(values) == 2 else False)
    if len(values) > 1 or (not values and (args or kwargs)):
        raise invalid()
    target = values[0] if values else None
    if (args or kwargs) and target is None:
        raise invalid()
    if target is not None and not _is_tensor(target) and type(target) is not int:
        raise invalid(f"The second input must be int or Tensor or implicit None in "
                      f"compat.{name}, but received {type(target)}.\n")
    if _is_tensor(target) and "keepdim" in kwargs:
        raise invalid()
    return target, keepdim


def _min_max(name: str, input: Tensor, args: tuple, kwargs: dict, out):
    target, keepdim = _min_max_args(name, args, kwargs)
    api = f"paddle.compat.{name}"
    if target is None:
        return _out(api, _F[name](input), out)
    if _is_tensor(target):
        return _out(api, _F[f"{name}imum"](input, target), out)
    values = _F[name](input, axis=target, keepdim=keepdim)
    indices = _F[f"arg{name}"](input, axis=target, keepdim=keepdim)
    return _out(api, MinMaxRetType(values, indices), out)


@_refuse("paddle.compat.max", {"x", "axis"}, "paddle.max")
def max(input: Tensor, *args: Any, out=None, **kwargs: Any):
    """PyTorch's max: `max(input)` over all elements, `max(input, other)` elementwise, or
    `max(input, dim, keepdim=False)` giving `(values, indices)`.

    Examples:
        .. code-block:: python

            >>> import sampan as paddle
            >>> x = paddle.to_tensor([[3.0, 1.0], [0.0, 5.0]])
            >>> r = paddle.compat.max(x, dim=1)
            >>> r.values.numpy().tolist(), r.indices.numpy().tolist()
            ([3.0, 5.0], [0, 1])
    """
    return _min_max("max", input, args, kwargs, out)


@_refuse("paddle.compat.min", {"x", "axis"}, "paddle.min")
def min(input: Tensor, *args: Any, out=None, **kwargs: Any):
    """PyTorch's min: `min(input)`, `min(input, other)` or `min(input, dim, keepdim=False)`
    giving `(values, indices)`.

    Examples:
        .. code-block:: python

            >>> import sampan as paddle
            >>> paddle.compat.min(paddle.to_tensor([[3.0, 1.0], [0.0, 5.0]])).item()
            0.0
    """
    return _min_max("min", input, args, kwargs, out)


def _median(name: str, input: Tensor, dim, keepdim: bool, out):
    fn = _F[name]
    if dim is None:
        return _out(f"paddle.compat.{name}", fn(input, mode="min"), out)
    values, indices = fn(input, axis=dim, keepdim=keepdim, mode="min")
    return _out(f"paddle.compat.{name}", MedianRetType(values, indices), out)


@_refuse("paddle.compat.median", {"x", "axis"}, "paddle.median")
def median(input: Tensor, dim: int | None = None, keepdim: bool = False, *, out=None):
    """PyTorch's median: the lower median of all elements, or `(values, indices)` along
    `dim`.

    Examples:
        .. code-block:: python

            >>> import sampan as paddle
            >>> paddle.compat.median(paddle.to_tensor([1.0, 2.0, 3.0, 4.0])).item()
            2.0
    """
    return _median("median", input, dim, keepdim, out)


@_refuse("paddle.compat.nanmedian", {"x", "axis"}, "paddle.nanmedian")
def nanmedian(input: Tensor, dim: int | None = None, keepdim: bool = False, *, out=None):
    """PyTorch's nanmedian: `median` ignoring NaN values.

    Examples:
        .. code-block:: python

            >>> import sampan as paddle
            >>> paddle.compat.nanmedian(paddle.to_tensor([1.0, float("nan"), 3.0])).item()
            1.0
    """
    return _median("nanmedian", input, dim, keepdim, out)


@_refuse("paddle.compat.sort", {"x", "axis"}, "paddle.sort")
def sort(input: Tensor, dim: int = -1, descending: bool = False, stable: bool = False,
         out=None) -> SortRetType:
    """PyTorch's sort: `(values, indices)` along `dim`.

    Examples:
        .. code-block:: python

            >>> import sampan as paddle
            >>> paddle.compat.sort(paddle.to_tensor([3, 1, 2])).indices.numpy().tolist()
            [1, 2, 0]
    """
    values = _F["sort"](input, axis=dim, descending=descending, stable=stable)
    indices = _F["argsort"](input, axis=dim, descending=descending, stable=stable)
    return _out("paddle.compat.sort", SortRetType(values, indices), out)


@_refuse("paddle.compat.split", {"x", "num_or_sections", "axis"}, "paddle.split")
def split(tensor: Tensor, split_size_or_sections, dim: int = 0) -> tuple:
    """PyTorch's split: an int is the size of each chunk (the last may be smaller); a list
    gives the sizes.

    Examples:
        .. code-block:: python

            >>> import sampan as paddle
            >>> [t.shape[0] for t in paddle.compat.split(paddle.arange(10), 3)]
            [3, 3, 3, 1]
    """
    if isinstance(split_size_or_sections, int):
        if split_size_or_sections <= 0:  # AssertionError as Paddle 3.3.1
            raise AssertionError(f"paddle.compat.split: split_size_or_sections must be "
                                 f"greater than 0, got {split_size_or_sections}")
        length = tensor.shape[dim]
        sizes = [split_size_or_sections] * (length // split_size_or_sections)
        if length % split_size_or_sections:
            sizes.append(length % split_size_or_sections)
        split_size_or_sections = sizes or [length]
    return tuple(_F["split"](tensor, list(split_size_or_sections), axis=dim))


@_refuse("paddle.compat.unique", {"x", "axis"}, "paddle.unique")
def unique(input: Tensor, sorted: bool = True, return_inverse: bool = False,
           return_counts: bool = False, dim: int | None = None):
    """PyTorch's unique: the sorted unique values (of the whole tensor, or slices along
    `dim`), with the inverse indices and counts when asked.

    Examples:
        .. code-block:: python

            >>> import sampan as paddle
            >>> paddle.compat.unique(paddle.to_tensor([3, 1, 3])).numpy().tolist()
            [1, 3]
    """
    result = _F["unique"](input, return_inverse=return_inverse, return_counts=return_counts,
                          axis=dim)
    return tuple(result) if isinstance(result, (tuple, list)) else result


def slogdet(x: Tensor, out=None) -> SlogdetResult:
    """PyTorch's slogdet: `(sign, logabsdet)` of square matrices.

    Examples:
        .. code-block:: python

            >>> import sampan as paddle
            >>> r = paddle.compat.slogdet(paddle.to_tensor([[2.0, 1.0], [1.0, 3.0]]))
            >>> r.sign.item(), round(r.logabsdet.item(), 4)
            (1.0, 1.6094)
    """
    both = _F["slogdet"](x)
    result = SlogdetResult(both[0], both[1])
    return _out("paddle.compat.slogdet", result, out)


@_refuse("paddle.compat.equal", {"x", "y"}, "paddle.equal")
def equal(input: Tensor, other: Tensor) -> bool:
    """PyTorch's equal: True when both have the same shape and elements (dtypes promoted;
    NaN is never equal).

    Examples:
        .. code-block:: python

            >>> import sampan as paddle
            >>> paddle.compat.equal(paddle.to_tensor([1, 2]), paddle.to_tensor([1.0, 2.0]))
            True
    """
    if list(input.shape) != list(other.shape):
        return False
    common = PROMOTE_DICT.get((input.dtype, other.dtype), input.dtype)
    if input.dtype != common:
        input = _F["cast"](input, common)
    if other.dtype != common:
        other = _F["cast"](other, common)
    return bool(_F["equal_all"](input, other).item())


def seed() -> int:
    """Seed the global generator with a non-deterministic number and return it (PyTorch's
    torch.seed).

    Examples:
        .. code-block:: python

            >>> import sampan as paddle
            >>> isinstance(paddle.compat.seed(), int)
            True
    """
    value = int.from_bytes(os.urandom(8), "little") >> 1  # a non-negative int64
    _random.seed(value)
    return value
