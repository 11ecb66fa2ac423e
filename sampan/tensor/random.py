"""Public random functions (rand, randn, randint, uniform, normal, bernoulli, ...).

Each draws one op seed from the global generator (`paddle.seed` makes results
reproducible) and passes it to a pure random op in `ops/random.py`. Imports `framework`
and `ops`.
"""
from __future__ import annotations

from ..framework import dtype as _dt
from ..framework.flags import in_dynamic_mode
from ..framework.random import get_rng_state, op_seed, set_rng_state
from ..framework.tensor import Tensor
from ..ops.dispatch import call, dispatch
from ..ops.opdef import REGISTRY, broadcast_shapes
from ._helpers import check_inplace, is_tensor
from .creation import as_dtype, as_scalar, dispatch_shaped, placed, shape_slots

__all__ = ["rand", "randn", "randint", "randint_like", "randperm", "uniform", "normal",
           "standard_normal", "bernoulli", "multinomial", "poisson", "uniform_", "normal_",
           "exponential_", "cauchy_", "geometric_", "get_cuda_rng_state",
           "set_cuda_rng_state"]


def _float_dtype(api: str, dtype) -> str:
    name = as_dtype(dtype)
    if _dt.convert_dtype(name).kind != "f":
        raise TypeError(f"{api}: dtype must be a floating point type (float16, bfloat16, "
                        f"float32, float64), got {name}")
    return name


def _int_dtype(api: str, dtype) -> str:
    name = as_dtype(dtype, "int64")
    if _dt.convert_dtype(name).kind not in "iu":
        raise TypeError(f"{api}: dtype must be int32 or int64, got {name}")
    return name


def _seed(api: str, seed) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"{api}: seed must be an int, got {type(seed).__name__}")
    return op_seed(seed)


def _uniform(shape: tuple, dtype, low, high, seed):
    """shape: shape_slots' (dims, tensors)."""
    return dispatch_shaped("uniform", shape, {"dtype": dtype, "min": float(low),
                                              "max": float(high), "seed": seed})


def _normal(shape: tuple, mean, std, dtype):
    """shape: shape_slots' (dims, tensors)."""
    return dispatch_shaped("normal", shape, {"mean": float(mean), "std": float(std),
                                             "dtype": dtype, "seed": op_seed()})


def gaussian(shape, mean=0.0, std=1.0, seed=0, dtype=None, name=None) -> Tensor:
    """Samples from N(mean, std ** 2) of `shape` (paddle.tensor.random.gaussian, the kernel
    behind paddle.normal); a non-zero `seed` makes the draw reproducible.

    Examples:
        >>> import sampan as paddle
        >>> paddle.tensor.random.gaussian([2, 3], seed=1).shape
        paddle.Size([2, 3])
    """
    return dispatch_shaped("normal", shape_slots("gaussian", shape), {
        "mean": float(as_scalar("gaussian", "mean", mean)),
        "std": float(as_scalar("gaussian", "std", std)),
        "dtype": _float_dtype("gaussian", dtype), "seed": _seed("gaussian", seed)})


def uniform(shape, dtype=None, min=-1.0, max=1.0, seed=0, name=None,
            *, device=None, requires_grad: bool = False) -> Tensor:
    """Samples from U[min, max) of `shape` (dtype None: the default float).

    Args:
        shape (list|tuple|Tensor): output shape.
        dtype (str|dtype, optional): float16, bfloat16, float32 or float64.
        min, max (float): the range.
        seed (int): 0 draws from the global generator; any other value fixes the result.

    Examples:
        >>> import sampan as paddle
        >>> paddle.uniform([2, 3], min=0.0, max=1.0).shape
        paddle.Size([2, 3])
    """
    low = float(as_scalar("uniform", "min", min))
    high = float(as_scalar("uniform", "max", max))
    if high < low:
        raise ValueError(f"uniform: max must be >= min, got min={low}, max={high}")
    result = _uniform(shape_slots("uniform", shape), _float_dtype("uniform", dtype), low, high,
                      _seed("uniform", seed))
    return placed("uniform", result, device, requires_grad)


def rand(shape, dtype=None, name=None,
         *, device=None, requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """Samples from U[0, 1) of `shape` (dtype None: the default float)."""
    result = _uniform(shape_slots("rand", shape), _float_dtype("rand", dtype), 0.0, 1.0,
                      op_seed())
    return placed("rand", result, device, requires_grad, pin_memory)


def standard_normal(shape, dtype=None, name=None,
                    *, device=None, requires_grad: bool = False) -> Tensor:
    """Samples from N(0, 1) of `shape` (dtype None: the default float)."""
    result = _normal(shape_slots("standard_normal", shape), 0.0, 1.0,
                     _float_dtype("standard_normal", dtype))
    return placed("standard_normal", result, device, requires_grad)


def randn(shape, dtype=None, name=None,
          *, device=None, requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """Samples from N(0, 1) of `shape` (dtype None: the default float)."""
    result = _normal(shape_slots("randn", shape), 0.0, 1.0, _float_dtype("randn", dtype))
    return placed("randn", result, device, requires_grad, pin_memory)


def normal(mean=0.0, std=1.0, shape=None, name=None) -> Tensor:
    """Samples from N(mean, std ** 2).

    `mean` and `std` may be numbers or float Tensors; with a Tensor the output takes the
    broadcast shape of the Tensor arguments (shape is ignored) and their dtype, and is
    computed as mean + std * standard_normal, so gradients flow to mean and std.
    """
    mean_t, std_t = is_tensor(mean), is_tensor(std)
    if not (mean_t or std_t):
        as_scalar("normal", "mean", mean)  # TypeError for a list or array
        as_scalar("normal", "std", std)
        if shape is None:
            raise ValueError("normal: shape must be given when mean and std are numbers")
        if isinstance(shape, int) and not in_dynamic_mode():  # Paddle's static-mode check
            raise TypeError("normal: shape must be a list, tuple or Variable in static graph "
                            f"mode, got int {shape}")
        return _normal(shape_slots("normal", shape), as_scalar("normal", "mean", mean),
                       as_scalar("normal", "std", std), as_dtype(None))
    tensors = [t for t in (mean, std) if is_tensor(t)]
    for arg, t in (("mean", mean), ("std", std)):
        if is_tensor(t) and t.dtype.kind != "f":
            raise TypeError(f"normal: {arg} must be a floating point Tensor, got "
                            f"{t.dtype.name}")
    out_shape = tuple(tensors[0].shape)
    if len(tensors) == 2:
        out_shape = broadcast_shapes("normal", out_shape, tuple(std.shape), ("mean", "std"))
    dtype = tensors[0].dtype.name
    noise = _normal((list(out_shape), []), 0.0, 1.0, dtype)
    return noise * std + mean


def randint(low=0, high=None, shape=[1], dtype=None, name=None) -> Tensor:  # noqa: B006
    """Uniform random integers in [low, high) of `shape`; high None means [0, low).

    dtype None gives int64.
    """
    if high is None:
        low, high = 0, low
    low = as_scalar("randint", "low", low)
    high = as_scalar("randint", "high", high)
    if high <= low:
        raise ValueError(f"randint: high must be greater than low, got low={low}, "
                         f"high={high}")
    return dispatch_shaped("randint", shape_slots("randint", shape), {
        "low": int(low), "high": int(high), "dtype": _int_dtype("randint", dtype),
                                              "seed": op_seed()})


def randint_like(x, low=0, high=None, dtype=None, name=None) -> Tensor:
    """Uniform random integers in [low, high) shaped like x, in `dtype` (None: x's dtype)."""
    if not is_tensor(x):
        raise TypeError(f"randint_like: x must be a Tensor, got {type(x).__name__}")
    if high is None:
        low, high = 0, low
    low = as_scalar("randint_like", "low", low)
    high = as_scalar("randint_like", "high", high)
    if high <= low:
        raise ValueError(f"randint_like: high must be greater than low, got low={low}, "
                         f"high={high}")
    out_dtype = as_dtype(dtype, x.dtype)
    ints = dispatch(REGISTRY["randint"], (), {"low": int(low), "high": int(high),
                                              "shape": x.shape, "dtype": "int64",
                                              "seed": op_seed()})
    return ints if out_dtype == "int64" else call("cast", ints, dtype=out_dtype)


def randperm(n, dtype="int64", name=None,
             *, device=None, requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """A random permutation of 0 .. n-1."""
    n = as_scalar("randperm", "n", n)
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError(f"randperm: n must be a non-negative int, got {n!r}")
    result = dispatch(REGISTRY["randperm"], (), {"n": n, "dtype": as_dtype(dtype, "int64"),
                                                 "seed": op_seed()})
    return placed("randperm", result, device, requires_grad, pin_memory)


def bernoulli(x, p=None, name=None) -> Tensor:
    """Draws 1 with probability x[i] (else 0) for each element; same shape and dtype as x.
    With `p` (Paddle 3.x), every element is drawn with that one probability instead."""
    if p is not None:
        p = float(as_scalar("bernoulli", "p", p))
        if not 0.0 <= p <= 1.0:  # Paddle: IndexError "The probability should be <= 1"
            raise IndexError(f"bernoulli: p must be in [0, 1], got {p}")
        x = call("full_like", x, fill_value=p, dtype=None)
    return dispatch(REGISTRY["bernoulli"], (x,), {"seed": op_seed()})


def poisson(x, name=None) -> Tensor:
    """Draws from Poisson(x[i]) for each element; same shape and dtype as x."""
    return dispatch(REGISTRY["poisson"], (x,), {"seed": op_seed()})


def multinomial(x, num_samples=1, replacement=False, name=None) -> Tensor:
    """Draws `num_samples` category indices per row of x (weights ∝ x), as int64.

    x: 1-D [C] or 2-D [B, C]; without replacement num_samples must be <= C.
    """
    if isinstance(num_samples, bool) or not isinstance(num_samples, int) or num_samples < 1:
        raise ValueError(f"multinomial: num_samples must be a positive int, got "
                         f"{num_samples!r}")
    return dispatch(REGISTRY["multinomial"], (x,), {"num_samples": num_samples,
                                                    "replacement": bool(replacement),
                                                    "seed": op_seed()})


def uniform_(x, min=-1.0, max=1.0, seed=0, name=None) -> Tensor:
    """Fill x in place with samples from U[min, max); returns x."""
    check_inplace(x, "uniform_")
    out = _uniform((list(x.shape), []), _float_dtype("uniform_", x.dtype),
                   as_scalar("uniform_", "min", min), as_scalar("uniform_", "max", max), _seed("uniform_", seed))
    return x._rebind(out)


def normal_(x, mean=0.0, std=1.0, name=None) -> Tensor:
    """Fill x in place with samples from N(mean, std ** 2); returns x."""
    check_inplace(x, "normal_")
    out = _normal((list(x.shape), []), as_scalar("normal_", "mean", mean),
                  as_scalar("normal_", "std", std), _float_dtype("normal_", x.dtype))
    return x._rebind(out)


def exponential_(x, lam=1.0, name=None) -> Tensor:
    """Fill x in place with samples from Exponential(rate `lam`); returns x."""
    check_inplace(x, "exponential_")
    lam = float(as_scalar("exponential_", "lam", lam))
    if lam <= 0:
        raise ValueError(f"exponential_: lam must be positive, got {lam}")
    out = dispatch(REGISTRY["exponential"], (x._alias(),), {"lam": lam, "seed": op_seed()})
    return x._rebind(out)


def cauchy_(x, loc=0, scale=1, name=None) -> Tensor:
    """Fill x in place with samples from Cauchy(loc, scale); returns x."""
    check_inplace(x, "cauchy_")
    scale = float(as_scalar("cauchy_", "scale", scale))
    if scale <= 0:
        raise ValueError(f"cauchy_: scale must be positive, got {scale}")
    out = dispatch(REGISTRY["cauchy"], (x._alias(),), {
        "loc": float(as_scalar("cauchy_", "loc", loc)), "scale": scale, "seed": op_seed()})
    return x._rebind(out)


def geometric_(x, probs, name=None) -> Tensor:
    """Fill x in place with log(u) / log(1 - probs), u ~ U(0, 1] (as Paddle does: the values
    are not rounded, so ceil(x) ~ Geometric(probs) on {1, 2, ...}); returns x.

    probs: a float in (0, 1) or a one-element Tensor.
    """
    check_inplace(x, "geometric_")
    probs = float(as_scalar("geometric_", "probs", probs))
    if not 0 < probs < 1:
        raise ValueError(f"geometric_: probs must be in (0, 1), got {probs}")
    out = dispatch(REGISTRY["geometric"], (x._alias(),), {"probs": probs,
                                                          "seed": op_seed()})
    return x._rebind(out)


def get_cuda_rng_state() -> list:
    """The generator state (sampan has one CPU generator; same as paddle.get_rng_state)."""
    return get_rng_state()


def set_cuda_rng_state(state_list) -> None:
    """Restore a state from get_cuda_rng_state (same as paddle.set_rng_state)."""
    set_rng_state(state_list)
