"""Paddle 3.x creation and random names: window functions, paddle.range, as_tensor/asarray/
from_numpy, rand_like/randn_like, log_normal, bernoulli_ and the Tensor.new_* constructors;
composites of creation/random/math functions. Imports `framework`, `ops`, sibling modules.
"""
from __future__ import annotations

import math as _math

import numpy as np

from ..framework import dtype as _dt
from ..framework.random import op_seed
from ..framework.tensor import Tensor
from ..ops.dispatch import call
from . import creation, manipulation, math, random


def _finish(t, requires_grad: bool):
    t.stop_gradient = not requires_grad
    return t


def _window_n(api: str, window_length, periodic: bool, dtype):
    n = int(window_length)
    if n < 0:
        raise ValueError(f"{api}: window_length must be non-negative, got {window_length}")
    if _dt.convert_dtype(dtype).kind != "f":
        raise TypeError(f"{api}: dtype must be a floating type, got {dtype}")
    denom = n if periodic else n - 1
    return n, max(denom, 1), creation.arange(0, n, dtype=dtype)


def _cosine_window(api, window_length, periodic, coeffs, dtype, requires_grad):
    """sum_k (-1)^k a_k cos(2 pi k n / denom), the generalized cosine window."""
    n, denom, k = _window_n(api, window_length, periodic, dtype)
    if n == 1:
        return _finish(creation.ones([1], dtype=dtype), requires_grad)
    out = creation.full([n], coeffs[0], dtype=dtype)
    for i, a in enumerate(coeffs[1:], start=1):
        term = math.scale(math.cos(math.scale(k, 2.0 * _math.pi * i / denom)), a)
        out = out - term if i % 2 else out + term
    return _finish(out, requires_grad)


def hann_window(window_length: int, periodic: bool = True, *, dtype="float32", layout=None,
                device=None, pin_memory: bool = False, requires_grad: bool = False) -> Tensor:
    """Hann window 0.5 - 0.5 cos(2 pi n / N) (N = length if periodic, else length - 1).

    Examples:
        >>> import sampan as paddle
        >>> paddle.hann_window(4, periodic=False, dtype='float64')
        Tensor(shape=[4], dtype=float64, place=Place(cpu), stop_gradient=True,
               [0.        , 0.75000000, 0.75000000, 0.        ])
    """
    return _cosine_window("hann_window", window_length, periodic, (0.5, 0.5), dtype,
                          requires_grad)


def hamming_window(window_length: int, periodic: bool = True, alpha: float = 0.54,
                   beta: float = 0.46, *, dtype="float32", layout=None, device=None,
                   pin_memory: bool = False, requires_grad: bool = False) -> Tensor:
    """Hamming window alpha - beta cos(2 pi n / N)."""
    return _cosine_window("hamming_window", window_length, periodic, (alpha, beta), dtype,
                          requires_grad)


def blackman_window(window_length: int, periodic: bool = True, *, dtype="float32",
                    layout=None, device=None, pin_memory: bool = False,
                    requires_grad: bool = False) -> Tensor:
    """Blackman window 0.42 - 0.5 cos(2 pi n / N) + 0.08 cos(4 pi n / N)."""
    return _cosine_window("blackman_window", window_length, periodic, (0.42, 0.5, 0.08),
                          dtype, requires_grad)


def bartlett_window(window_length: int, periodic: bool = True, *, dtype="float32",
                    layout=None, device=None, pin_memory: bool = False,
                    requires_grad: bool = False) -> Tensor:
    """Bartlett (triangular) window 1 - |2 n / N - 1|."""
    n, denom, k = _window_n("bartlett_window", window_length, periodic, dtype)
    if n == 1:
        return _finish(creation.ones([1], dtype=dtype), requires_grad)
    out = 1.0 - math.abs(math.scale(k, 2.0 / denom) - 1.0)
    return _finish(out, requires_grad)


def kaiser_window(window_length: int, periodic: bool = True, beta: float = 12.0, *,
                  dtype="float32", layout=None, device=None, pin_memory: bool = False,
                  requires_grad: bool = False) -> Tensor:
    """Kaiser window i0(beta sqrt(1 - (2 n / N - 1)^2)) / i0(beta)."""
    n, denom, k = _window_n("kaiser_window", window_length, periodic, dtype)
    if n == 1:
        return _finish(creation.ones([1], dtype=dtype), requires_grad)
    r = math.scale(k, 2.0 / denom) - 1.0
    arg = math.scale(math.sqrt(math.clip(1.0 - r * r, min=0.0)), float(beta))
    out = math.scale(math.i0(arg), 1.0 / float(np.i0(float(beta))))
    return _finish(out, requires_grad)


def range(start=0, end=None, step=1, dtype=None, *, out=None, device=None,
          requires_grad: bool = False, name=None) -> Tensor:
    """Values start, start + step, ... up to and including `end` (deprecated in Paddle 3 in
    favour of arange, whose end is exclusive). range(n) counts 0..n. dtype None: the
    default float.

    Examples:
        >>> import sampan as paddle
        >>> paddle.range(0, 1, 0.25)
        Tensor(shape=[5], dtype=float32, place=Place(cpu), stop_gradient=True,
               [0.        , 0.25000000, 0.50000000, 0.75000000, 1.        ])
    """
    if out is not None:
        raise NotImplementedError("range: out= is not supported by sampan; use the result")
    if end is None:
        start, end = 0, start
    start, end, step = (float(v.item()) if hasattr(v, "item") else float(v)
                        for v in (start, end, step))
    if step == 0:
        raise ValueError("range: step must not be 0")
    count = max(int(_math.floor((end - start) / step + 1e-9)) + 1, 0)
    dtype = _dt.default_float() if dtype is None else dtype
    idx = creation.arange(0, count, dtype="float64")
    vals = math.scale(idx, step, bias=start)
    return _finish(manipulation.cast(vals, dtype), requires_grad)


def as_tensor(data, dtype=None, device=None, requires_grad: bool = False,
              pin_memory: bool = False) -> Tensor:
    """A Tensor of `data`; a Tensor of the same dtype is returned as it is."""
    if isinstance(data, Tensor) and (dtype is None or _dt.convert_dtype(dtype) == data.dtype):
        return data
    return creation.to_tensor(data, dtype=dtype, stop_gradient=not requires_grad)


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad: bool = False):
    """A Tensor of `obj` (lists, NumPy arrays, Tensors); `copy` is accepted, data is copied."""
    return creation.to_tensor(obj, dtype=dtype, stop_gradient=not requires_grad)


def from_numpy(ndarray) -> Tensor:
    """A Tensor with the values and dtype of a NumPy array."""
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"from_numpy: expected a numpy.ndarray, got {type(ndarray).__name__}")
    return creation.to_tensor(ndarray)


class _Capsule:
    """Wraps a bare DLPack capsule so numpy.from_dlpack can read it (CPU memory only)."""

    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, **kwargs):
        return self.capsule

    def __dlpack_device__(self):
        return (1, 0)  # kDLCPU


def to_dlpack(x):
    """A DLPack capsule sharing x's (CPU) memory, for other frameworks' from_dlpack."""
    if not hasattr(x, "numpy"):
        raise TypeError(f"to_dlpack: x must be a Tensor, got {type(x).__name__}")
    return x.numpy().__dlpack__()


def from_dlpack(dlpack, *, device=None, copy=None) -> Tensor:
    """A Tensor of the values in a DLPack capsule or an object with `__dlpack__` (the
    data is copied into the new Tensor)."""
    source = dlpack if hasattr(dlpack, "__dlpack__") else _Capsule(dlpack)
    try:
        array = np.from_dlpack(source)
    except (TypeError, ValueError, BufferError, RuntimeError) as exc:
        raise TypeError(f"from_dlpack: cannot read {type(dlpack).__name__} as CPU DLPack "
                        f"data ({exc})") from None
    return creation.to_tensor(array)


def rand_like(input, name=None, *, dtype=None, device=None, requires_grad: bool = False):
    """Samples from U[0, 1) shaped like `input` (dtype None: input's dtype)."""
    out = random.rand(list(input.shape), dtype=dtype or input.dtype)
    return _finish(out, requires_grad)


def randn_like(x, dtype=None, name=None, *, device=None, requires_grad: bool = False):
    """Samples from N(0, 1) shaped like `x` (dtype None: x's dtype)."""
    out = random.randn(list(x.shape), dtype=dtype or x.dtype)
    return _finish(out, requires_grad)


def log_normal(mean=1.0, std=2.0, shape=None, name=None) -> Tensor:
    """exp(N(mean, std ** 2)) samples (the log-normal distribution)."""
    return math.exp(random.normal(mean, std, shape))


def log_normal_(x, mean: float = 1.0, std: float = 2.0, name=None) -> Tensor:
    """Fill x in place with log-normal samples exp(N(mean, std ** 2)); returns x."""
    random.normal_(x, mean, std)
    return x._rebind(math.exp(x))


def bernoulli_(x, p=0.5, name=None) -> Tensor:
    """Fill x in place with 1 (probability p, a number or Tensor) or 0; returns x."""
    if not hasattr(p, "shape"):
        p = creation.full_like(x, float(p))
    else:
        p = manipulation.expand(manipulation.cast(p, x.dtype), list(x.shape))
    return x._rebind(manipulation.cast(random.bernoulli(p), x.dtype))


def standard_gamma(x, name=None) -> Tensor:
    """Samples from Gamma(x[i], 1) for each element (x > 0, float); x's shape and dtype."""
    return call("standard_gamma", x, seed=op_seed())


def binomial(count, prob, name=None) -> Tensor:
    """Samples from Binomial(count[i], prob[i]) (broadcast) as int64."""
    return call("binomial", count, prob, seed=op_seed())


def random_(x, from_: int = 0, to=None, *, generator=None) -> Tensor:
    """Fill x in place with integers drawn uniformly from [from_, to); returns x.

    to None: up to 2**mantissa bits + 1 for floats (2**24 for float32), the dtype's max
    + 1 for integers.
    """
    if to is None:
        kind = x.dtype.kind
        to = 2 ** (np.finfo(x.dtype.np).nmant + 1) if kind == "f" else \
            int(np.iinfo(x.dtype.np).max) if kind in "iu" else 2
    if int(to) <= int(from_):
        raise ValueError(f"random_: to ({to}) must be greater than from_ ({from_})")
    draws = random.randint(int(from_), min(int(to), 2 ** 63 - 1), list(x.shape))
    return x._rebind(manipulation.cast(draws, x.dtype))


def _size(api: str, size, more) -> list:
    if isinstance(size, (int, np.integer)):
        return [int(size), *(int(s) for s in more)]
    if more:
        raise TypeError(f"{api}: give size as one list or as separate ints, not both")
    return [int(s) for s in size]


def new_full(var, size, fill_value, *, dtype=None, device=None, requires_grad: bool = False,
             pin_memory: bool = False) -> Tensor:
    """A tensor of `size` filled with `fill_value`, with var's dtype unless `dtype` is given."""
    out = creation.full(_size("new_full", size, ()), fill_value, dtype=dtype or var.dtype)
    return _finish(out, requires_grad)


def new_zeros(var, size, *more, dtype=None, device=None, requires_grad: bool = False,
              pin_memory: bool = False) -> Tensor:
    """Zeros of `size` (a list, or separate ints) with var's dtype unless `dtype` is given."""
    out = creation.zeros(_size("new_zeros", size, more), dtype=dtype or var.dtype)
    return _finish(out, requires_grad)


def new_ones(var, size, *more, dtype=None, device=None, requires_grad: bool = False,
             pin_memory: bool = False) -> Tensor:
    """Ones of `size` (a list, or separate ints) with var's dtype unless `dtype` is given."""
    out = creation.ones(_size("new_ones", size, more), dtype=dtype or var.dtype)
    return _finish(out, requires_grad)


def new_empty(var, size, *more, dtype=None, device=None, requires_grad: bool = False,
              pin_memory: bool = False) -> Tensor:
    """An uninitialised tensor of `size` with var's dtype unless `dtype` is given."""
    out = creation.empty(_size("new_empty", size, more), dtype=dtype or var.dtype)
    return _finish(out, requires_grad)


__all__ = ["as_tensor", "asarray", "bartlett_window", "bernoulli_", "binomial",
           "blackman_window", "from_dlpack", "from_numpy", "hamming_window", "hann_window",
           "kaiser_window", "log_normal", "log_normal_", "rand_like", "randn_like", "range",
           "standard_gamma", "to_dlpack"]
METHODS = {"random_": random_, "new_full": new_full, "new_zeros": new_zeros,
           "new_ones": new_ones, "new_empty": new_empty}
