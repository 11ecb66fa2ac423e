"""paddle.incubate.autograd: functional vjp / jvp and the lazy Jacobian / Hessian, over
paddle.grad (jvp by the double-vjp trick). Imports autograd and tensor only.
"""
from __future__ import annotations

from typing import Callable

from ..autograd import grad as _grad
from ..autograd.functional import Jacobian as _Jacobian
from ..framework.tensor import Tensor
from .. import tensor as T

__all__ = ["vjp", "jvp", "Jacobian", "Hessian", "enable_prim", "disable_prim",
           "forward_grad", "grad"]


def _as_list(api: str, arg: str, xs) -> tuple:
    single = isinstance(xs, Tensor)
    items = [xs] if single else list(xs)
    for t in items:
        if not isinstance(t, Tensor):
            raise TypeError(f"{api}: {arg} must be a Tensor or a sequence of Tensors, "
                            f"got {type(t).__name__}")
    return items, single


def _inputs(xs: list) -> list:
    out = []
    for t in xs:
        c = t.detach()
        c.stop_gradient = False
        out.append(c)
    return out


def vjp(func: Callable, xs, v=None):
    """Vector-Jacobian product: (func(xs), v^T J) where v defaults to ones.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([[1., 2.], [3., 4.]])
        >>> ys, g = paddle.incubate.autograd.vjp(lambda t: t * t, x)
        >>> g.numpy().tolist()
        [[2.0, 4.0], [6.0, 8.0]]
    """
    xs_l, single_x = _as_list("vjp", "xs", xs)
    xs_l = _inputs(xs_l)
    ys = func(*xs_l)
    ys_l, _ = _as_list("vjp", "func's output", ys)
    v_l = [T.ones_like(y) for y in ys_l] if v is None else _as_list("vjp", "v", v)[0]
    for y, vv in zip(ys_l, v_l):
        if list(y.shape) != list(vv.shape):
            raise ValueError(f"vjp: v shape {list(vv.shape)} must match the output shape "
                             f"{list(y.shape)}")
    gs = _grad(ys_l, xs_l, v_l, allow_unused=True)
    gs = [T.zeros_like(x) if g is None else g for g, x in zip(gs, xs_l)]
    return ys, gs[0] if single_x else gs


def jvp(func: Callable, xs, v=None):
    """Jacobian-vector product: (func(xs), J v) where v defaults to ones (by double vjp).

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([[1., 2.], [3., 4.]])
        >>> ys, t = paddle.incubate.autograd.jvp(lambda t: t * t, x)
        >>> t.numpy().tolist()
        [[2.0, 4.0], [6.0, 8.0]]
    """
    xs_l, _ = _as_list("jvp", "xs", xs)
    xs_l = _inputs(xs_l)
    v_l = [T.ones_like(x) for x in xs_l] if v is None else _as_list("jvp", "v", v)[0]
    for x, vv in zip(xs_l, v_l):
        if list(x.shape) != list(vv.shape):
            raise ValueError(f"jvp: v shape {list(vv.shape)} must match xs shape "
                             f"{list(x.shape)}")
    ys = func(*xs_l)
    ys_l, single_y = _as_list("jvp", "func's output", ys)
    us = []
    for y in ys_l:
        u = T.zeros_like(y)
        u.stop_gradient = False
        us.append(u)
    gs = _grad(ys_l, xs_l, us, create_graph=True, allow_unused=True)
    pairs = [(g, vv) for g, vv in zip(gs, v_l) if g is not None]
    if not pairs:
        outs = [T.zeros_like(y) for y in ys_l]
    else:
        outs = _grad([g for g, _ in pairs], us, [vv for _, vv in pairs], allow_unused=True)
        outs = [T.zeros_like(y) if o is None else o for o, y in zip(outs, ys_l)]
    return ys, outs[0] if single_y else outs


def _one_input(api: str, xs) -> Tensor:
    xs_l, _ = _as_list(api, "xs", xs)
    if len(xs_l) != 1:
        raise NotImplementedError(f"{api}: several input Tensors are not supported; pass one")
    return _inputs(xs_l)[0]


class Jacobian(_Jacobian):
    """Lazy Jacobian of func at xs (is_batched: the first axis is a batch), indexable.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([1., 2.])
        >>> J = paddle.incubate.autograd.Jacobian(lambda t: t * t, x)
        >>> J[:].numpy().tolist()
        [[2.0, 0.0], [0.0, 4.0]]
    """

    def __init__(self, func: Callable, xs, is_batched: bool = False) -> None:
        x = _one_input("Jacobian", xs)
        super().__init__(func(x), x, 0 if is_batched else None)


class Hessian(_Jacobian):
    """Lazy Hessian of a scalar func at xs, indexable.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([1., 2.])
        >>> H = paddle.incubate.autograd.Hessian(lambda t: (t * t * t).sum(), x)
        >>> H[:].numpy().tolist()
        [[6.0, 0.0], [0.0, 12.0]]
    """

    def __init__(self, func: Callable, xs, is_batched: bool = False) -> None:
        x = _one_input("Hessian", xs)
        y = func(x)
        if not is_batched and y.size != 1:
            raise ValueError(f"Hessian: func must return one element, got shape {list(y.shape)}")
        (g,) = _grad([y.sum() if is_batched else y], [x], create_graph=True)
        super().__init__(g, x, 0 if is_batched else None)


_PRIM = [False]


def enable_prim() -> None:
    """Turn on primitive-op lowering (sampan's ops are always primitive: a flag only)."""
    _PRIM[0] = True


def disable_prim() -> None:
    """Turn off primitive-op lowering (a flag only)."""
    _PRIM[0] = False


def forward_grad(outputs, inputs, grad_inputs=None):
    """Forward-mode gradient of outputs w.r.t. inputs along grad_inputs (eager, via jvp)."""
    raise NotImplementedError("forward_grad: needs a traced static program; use "
                              "paddle.incubate.autograd.jvp on a function instead")


def grad(outputs, inputs, grad_outputs=None):
    """Reverse-mode gradient (paddle.grad with create_graph)."""
    return _grad(outputs, inputs, grad_outputs, create_graph=True, allow_unused=True)
