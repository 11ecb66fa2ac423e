"""jacobian and hessian (paddle.autograd.jacobian/hessian) built on paddle.grad."""
from __future__ import annotations

from ..framework.tensor import Tensor
from ..ops.dispatch import call


def _reshape(x, shape: list):
    return call("reshape", x, shape=shape)


def _zeros(shape: list, dtype):
    return call("full", shape=list(shape), fill_value=0.0, dtype=dtype.name)


def _stack(xs: list, axis: int = 0):
    return call("stack", xs, axis=axis)

class Jacobian:
    """Lazily evaluated Jacobian of ys w.r.t. xs, indexable like a tensor (`J[:]`, `J[i, j]`).

    Without batch_axis the shape is [ys.numel, xs.numel]; with batch_axis=0 it is
    [batch, ys.numel/batch, xs.numel/batch].
    """

    def __init__(self, ys: Tensor, xs: Tensor, batch_axis=None, is_hessian=False) -> None:
        if batch_axis not in (None, 0):
            raise ValueError(f"jacobian: batch_axis must be None or 0, got {batch_axis}")
        self._ys, self._xs, self._batch = ys, xs, batch_axis
        self._value = None

    def _evaluate(self) -> Tensor:
        if self._value is None:
            from . import grad
            ys, xs = self._ys, self._xs
            if self._batch is None:
                flat = _reshape(ys, [-1])
                rows = []
                for i in range(flat.shape[0]):
                    (g,) = grad([flat[i]], [xs], retain_graph=True, create_graph=True,
                                allow_unused=True)
                    rows.append(_zeros([xs.size], xs.dtype) if g is None else
                                _reshape(g, [-1]))
                self._value = _stack(rows) if rows else _zeros([0, xs.size], xs.dtype)
            else:
                b = ys.shape[0]
                flat = _reshape(ys, [b, -1])
                cols = []
                for i in range(flat.shape[1]):
                    (g,) = grad([flat[:, i].sum()], [xs], retain_graph=True,
                                create_graph=True, allow_unused=True)
                    cols.append(_zeros([b, xs.size // b], xs.dtype) if g is None else
                                _reshape(g, [b, -1]))
                self._value = _stack(cols, axis=1)
        return self._value

    @property
    def shape(self) -> list:
        return self._evaluate().shape

    def __getitem__(self, idx):
        return self._evaluate()[idx]

    def numpy(self):
        return self._evaluate().numpy()


def _single(v, what):
    if isinstance(v, (list, tuple)):
        if len(v) != 1:
            raise NotImplementedError(f"{what}: sequences of several tensors are not supported "
                                      f"yet; pass one Tensor")
        return v[0]
    return v


def jacobian(ys, xs, batch_axis=None):
    """Jacobian of ys with respect to xs (a lazily evaluated, indexable object)."""
    return Jacobian(_single(ys, "jacobian"), _single(xs, "jacobian"), batch_axis)


def hessian(ys, xs, batch_axis=None):
    """Hessian of the scalar ys with respect to xs."""
    from . import grad
    ys, xs = _single(ys, "hessian"), _single(xs, "hessian")
    if ys.size != 1:
        raise ValueError(f"hessian: ys must hold one element (got shape {ys.shape})")
    (g,) = grad([ys], [xs], create_graph=True)
    return Jacobian(g, xs, batch_axis)
