"""jacobian and hessian (paddle.autograd.jacobian/hessian) built on paddle.grad."""
from __future__ import annotations

from ..framework.tensor import Tensor
from ..ops.dispatch import call


def _reshape(x, shape: list):
    return call("reshape", x, shape=shape)


def _zeros(shape: list, dtype, stop_gradient: bool = True):
    """Zeros standing for an unused input's gradient; Paddle gives them the input's
    stop_gradient."""
    out = call("full", shape=list(shape), fill_value=0.0, dtype=dtype.name)
    out.stop_gradient = stop_gradient
    return out


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
                    rows.append(_zeros([xs.size], xs.dtype, xs.stop_gradient)
                                if g is None else _reshape(g, [-1]))
                self._value = _stack(rows) if rows else _zeros([0, xs.size], xs.dtype)
            else:
                b = ys.shape[0]
                flat = _reshape(ys, [b, -1])
                cols = []
                for i in range(flat.shape[1]):
                    (g,) = grad([flat[:, i].sum()], [xs], retain_graph=True,
                                create_graph=True, allow_unused=True)
                    cols.append(_zeros([b, xs.size // b], xs.dtype, xs.stop_gradient)
                                if g is None else _reshape(g, [b, -1]))
                self._value = _stack(cols, axis=1)
        return self._value

    @property
    def shape(self) -> list:
        """The shape as a plain list (Paddle's Jacobian.shape is a list, not paddle.Size)."""
        return list(self._evaluate().shape)

    def __getitem__(self, idx):
        return self._evaluate()[idx]

    def numpy(self):
        return self._evaluate().numpy()


def _is_seq(v) -> bool:
    return isinstance(v, (list, tuple))


def jacobian(ys, xs, batch_axis=None):
    """Jacobian of ys with respect to xs (lazily evaluated, indexable objects).

    ys and xs are each a Tensor or a sequence of Tensors; as in Paddle the result nests like
    them: one Jacobian, a tuple of Jacobians (one side a sequence), or a tuple (over ys) of
    tuples (over xs).

    Examples:
        .. code-block:: python

            >>> import sampan as paddle
            >>> x1 = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
            >>> x2 = paddle.to_tensor([3.0, 4.0, 5.0], stop_gradient=False)
            >>> y = x1.sum() * x2
            >>> J = paddle.autograd.jacobian(y, (x1, x2))
            >>> print(J[0].shape, J[1].shape)
            [3, 2] [3, 3]
    """
    if batch_axis not in (None, 0):
        raise ValueError(f"jacobian: batch_axis must be None or 0, got {batch_axis}")
    if _is_seq(ys) and _is_seq(xs):
        return tuple(tuple(Jacobian(y, x, batch_axis) for x in xs) for y in ys)
    if _is_seq(ys):
        return tuple(Jacobian(y, xs, batch_axis) for y in ys)
    if _is_seq(xs):
        return tuple(Jacobian(ys, x, batch_axis) for x in xs)
    return Jacobian(ys, xs, batch_axis)


def hessian(ys, xs, batch_axis=None):
    """Hessian of ys (one element; [B] with batch_axis=0) with respect to xs.

    xs is a Tensor (one Hessian) or a sequence of Tensors: then `H[i][j]` is the block of
    second derivatives over xs[i] and xs[j], shape [len(xs[i]), len(xs[j])] (as Paddle).

    Examples:
        .. code-block:: python

            >>> import sampan as paddle
            >>> x1 = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
            >>> x2 = paddle.to_tensor([3.0, 4.0, 5.0], stop_gradient=False)
            >>> y = (x1 * x1).sum() * x2.sum()
            >>> H = paddle.autograd.hessian(y, (x1, x2))
            >>> print(H[0][1][:])
            Tensor(shape=[2, 3], dtype=float32, place=Place(cpu), stop_gradient=False,
                   [[2., 2., 2.],
                    [4., 4., 4.]])
    """
    from . import grad
    if not isinstance(ys, Tensor):
        raise TypeError(f"hessian: ys must be one Tensor, got {type(ys).__name__}")
    if batch_axis is None and ys.size != 1:
        raise ValueError(f"hessian: ys must hold one element when batch_axis is None "
                         f"(got shape {list(ys.shape)})")
    if batch_axis is not None and ys.ndim > 1 and ys.size != ys.shape[0]:
        raise ValueError(f"hessian: with batch_axis=0 ys must hold one element per "
                         f"batch row (got shape {list(ys.shape)})")
    targets = list(xs) if _is_seq(xs) else [xs]
    grads = grad([ys], targets, create_graph=True, allow_unused=True)
    grads = [_zeros(x.shape, x.dtype, x.stop_gradient) if g is None else g
             for g, x in zip(grads, targets)]
    if not _is_seq(xs):
        return Jacobian(grads[0], xs, batch_axis)
    return tuple(tuple(Jacobian(g, x, batch_axis) for x in targets) for g in grads)
