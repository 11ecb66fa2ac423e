"""Paddle 3.3.1's keyword-only `out=` argument, added to its functions by one wrapper.

Paddle 3.3.1 gives ~180 public functions and Tensor methods a keyword-only `out=None`.
Its behaviour (recorded from Paddle 3.3.1 in tests/tensor/test_out_arg.py): the function
computes its result as usual, then `out` takes that result over - its value, shape,
dtype and graph position (gradients flow through `out` as through the result); `out`'s
own shape and dtype do not matter. A multi-output function (topk, svd) takes a tuple
with one Tensor per output. `with_out` does exactly this through the in-place path
(`Tensor._rebind`, or the static Variable's SSA rebind), so eager, autograd and static
mode keep working; without `out` it costs one extra Python call.

The name lists are data from Paddle 3.3.1's signatures. This module imports only
`framework`.
"""
from __future__ import annotations

import functools
import inspect

from ..framework.tensor import Tensor, is_variable

# paddle.<name> and/or paddle.Tensor.<name> with `out` in Paddle 3.3.1 (sampan.tensor family
# functions; the Tensor methods are bound from the same objects).
TENSOR_NAMES = (
    "abs", "acos", "acosh", "add", "all", "amax", "amin", "any", "arange", "atanh", "bmm",
    "bucketize", "ceil", "clip", "complex", "concat", "cos", "cosh", "cumprod", "cumsum",
    "diff", "divide", "dot", "empty", "equal", "exp", "expm1", "eye", "floor",
    "floor_divide", "floor_mod", "frac", "full", "greater_equal", "greater_than",
    "index_add", "index_select", "less_equal", "less_than", "linspace", "log", "log10",
    "log1p", "log2", "logsumexp", "masked_select", "matmul", "maximum", "mean", "median",
    "minimum", "mod", "multinomial", "multiply", "nonzero", "normal", "not_equal", "ones",
    "outer", "polar", "pow", "quantile", "rand", "randn", "randperm", "remainder", "round",
    "rsqrt", "searchsorted", "sigmoid", "sign", "sin", "sinh", "solve", "sqrt", "stack",
    "standard_normal", "subtract", "sum", "take_along_axis", "tanh", "topk", "tril", "triu",
    "uniform", "var", "where", "zeros")
# paddle.fft.<name>, paddle.linalg.<name>, paddle.nn.functional.<name> with `out`
FFT_NAMES = (
    "fft", "fft2", "fftfreq", "fftn", "hfft", "hfft2", "hfftn", "ifft", "ifft2", "ifftn",
    "ihfft", "ihfft2", "ihfftn", "irfft", "irfft2", "irfftn", "rfft", "rfft2", "rfftfreq",
    "rfftn")
LINALG_NAMES = ("solve", "svd")
FUNCTIONAL_NAMES = ("sigmoid", "softmax", "tanh")


def with_out(fn, api: str | None = None):
    """`fn` with a keyword-only `out=None` (Paddle 3.3.1) in its call and `__signature__`.

    Args:
        fn (callable): a public function returning a Tensor or a tuple of Tensors.
        api (str, optional): the name used in error messages (default: ``fn.__name__``).

    Returns:
        callable: the wrapper; `fn` itself if it is wrapped already or takes `out` itself.

    Examples:
        .. code-block:: python

            >>> import sampan as paddle
            >>> out = paddle.zeros([2])
            >>> r = paddle.add(paddle.ones([2]), paddle.ones([2]), out=out)
            >>> r is out, out.numpy().tolist()
            (True, [2.0, 2.0])
    """
    sig = inspect.signature(fn)
    if getattr(fn, "_with_out", False) or "out" in sig.parameters:
        return fn  # wrapped already, or `fn` handles `out` itself
    api = api or f"paddle.{fn.__name__}"

    @functools.wraps(fn)
    def wrapper(*args, out=None, **kwargs):
        if out is None:
            return fn(*args, **kwargs)
        return write_out(api, fn(*args, **kwargs), out)

    wrapper.__signature__ = _signature_with_out(sig)
    wrapper._with_out = True
    return wrapper


def _signature_with_out(sig: inspect.Signature) -> inspect.Signature:
    params = list(sig.parameters.values())
    at = len(params)
    if params and params[-1].kind is inspect.Parameter.VAR_KEYWORD:
        at -= 1
    params.insert(at, inspect.Parameter("out", inspect.Parameter.KEYWORD_ONLY, default=None))
    return sig.replace(parameters=params)


def write_out(api: str, result, out):
    """Make `out` (a Tensor, or a tuple of them for several outputs) take `result` over."""
    if isinstance(result, (tuple, list)):
        if not isinstance(out, tuple) or len(out) != len(result):
            raise ValueError(f"{api}: the out argument must be a tuple with {len(result)} "
                             f"elements (one Tensor per output), got {_describe(out)}")
        for i, (r, o) in enumerate(zip(result, out)):
            _check_target(f"{api}: out[{i}]", o, r)
            o._rebind(r)
        return out
    _check_target(f"{api}: out", out, result)
    return out._rebind(result)


def _check_target(what: str, out, result) -> None:
    if is_variable(out):
        if not is_variable(result):
            raise TypeError(f"{what} is a static Variable but the result is an eager Tensor "
                            f"(call it while building the Program)")
    elif not isinstance(out, Tensor):
        raise TypeError(f"{what} must be a Tensor, got {_describe(out)}")
    elif is_variable(result):
        raise TypeError(f"{what} is an eager Tensor but the result is a static Variable; "
                        f"pass a Variable of the Program being built (e.g. paddle.zeros "
                        f"called in static mode)")


def _describe(value) -> str:
    if isinstance(value, (tuple, list)):
        return f"a {type(value).__name__} of {len(value)}"
    return type(value).__name__


def install(namespace: dict, names, prefix: str) -> None:
    """Wrap each of `names` in `namespace` with `with_out`, and every other name bound to the
    same function there (aliases such as clamp/clip stay the same object, as in Paddle)."""
    wrapped = {}
    for name in names:
        fn = namespace.get(name)
        if fn is not None and id(fn) not in wrapped:
            wrapped[id(fn)] = with_out(fn, f"{prefix}{name}")
    for name, fn in list(namespace.items()):
        if callable(fn) and id(fn) in wrapped:
            namespace[name] = wrapped[id(fn)]
