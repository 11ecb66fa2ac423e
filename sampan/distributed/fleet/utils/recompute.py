"""fleet.utils.recompute: run a block without keeping its activations for backward; the
backward pass runs the block again (with the random state it had, so dropout draws the same
mask) and back-propagates through that second run.

One PyLayer: forward calls the function under no_grad and keeps its inputs (and the RNG
state); backward re-runs it on detached inputs with gradients on, calls backward on its
outputs with the incoming gradients (parameters accumulate their .grad there) and returns
the inputs' gradients. Imports `autograd`, `framework` only.
"""
from __future__ import annotations

from typing import Any, Callable

from ....autograd import PyLayer, backward, enable_grad
from ....framework import random as _random
from ....framework.tensor import Tensor

__all__ = ["recompute"]


class _RecomputeFunction(PyLayer):
    @staticmethod
    def forward(ctx, function, preserve_rng_state, kwargs, *args):
        ctx.function, ctx.kwargs, ctx.args = function, kwargs, args
        ctx.rng = _random.get_rng_state() if preserve_rng_state else None
        return function(*args, **kwargs)

    @staticmethod
    def backward(ctx, *grads):
        inputs = [_detached(a) for a in ctx.args]
        current = _random.get_rng_state() if ctx.rng is not None else None
        if ctx.rng is not None:
            _random.set_rng_state(ctx.rng)
        try:
            with enable_grad():
                outs = ctx.function(*inputs, **ctx.kwargs)
        finally:
            if current is not None:
                _random.set_rng_state(current)
        outs = [outs] if isinstance(outs, Tensor) else list(outs)
        pairs = [(o, g) for o, g in zip([o for o in outs if isinstance(o, Tensor)], grads)
                 if not o.stop_gradient and g is not None]
        if pairs:
            backward([o for o, _ in pairs], [g for _, g in pairs])
        return tuple(a.grad if not a.stop_gradient else None
                     for a in inputs if isinstance(a, Tensor))


def _detached(a):
    if not isinstance(a, Tensor):
        return a
    d = a.detach()
    d.stop_gradient = a.stop_gradient
    return d


def recompute(function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Run `function(*args, **kwargs)` keeping no intermediate activations; they are
    recomputed in backward. Gradients equal those of calling `function` directly.

    Args:
        function (Layer|callable): the block to run.
        *args: its inputs (Tensors and other values).
        preserve_rng_state (bool, optional): replay the random state in the recomputation,
            so random ops (dropout) draw the same values. Default: True.
        use_reentrant (bool, optional): accepted for Paddle compatibility (both ways give
            the same gradients here). Default: True.
        **kwargs: keyword arguments passed on to `function`.

    Returns:
        What `function` returns.

    Examples:
        >>> import sampan as paddle
        >>> from sampan.distributed.fleet.utils import recompute
        >>> _ = paddle.seed(1)
        >>> block = paddle.nn.Sequential(paddle.nn.Linear(4, 4), paddle.nn.ReLU())
        >>> x = paddle.rand([2, 4])
        >>> x.stop_gradient = False
        >>> y = recompute(block, x)
        >>> y.sum().backward()
        >>> x.grad.shape, block[0].weight.grad.shape
        (paddle.Size([2, 4]), paddle.Size([4, 4]))
    """
    preserve = kwargs.pop("preserve_rng_state", True)
    kwargs.pop("use_reentrant", None)
    if not isinstance(preserve, bool):
        raise TypeError(f"recompute: preserve_rng_state must be a bool, got {preserve!r}")
    if not callable(function):
        raise TypeError(f"recompute: function must be a Layer or callable, got "
                        f"{type(function).__name__}")
    if not any(isinstance(a, Tensor) and not a.stop_gradient for a in args):
        return function(*args, **kwargs)  # no input needs a gradient: nothing to recompute
    return _RecomputeFunction.apply(function, preserve, kwargs, *args)
