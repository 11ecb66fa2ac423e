"""The engine zero-fills the gradient of a differentiable output nobody used, unless the
OpDef sets `none_grads = True`: then its vjp receives None for that output."""
from __future__ import annotations

import numpy as np

import sampan as paddle
from sampan.ops.dispatch import dispatch
from sampan.ops.opdef import OpDef, TensorSpec


class _TwoOuts(OpDef):
    """out = 2 x, twice = 3 x; records the cotangents its vjp receives (not registered)."""

    name = "_test_two_outs"
    outputs = ("out", "twice")
    saves = ()

    def __init__(self, none_grads: bool) -> None:
        super().__init__()
        self.none_grads = none_grads
        self.seen = []

    def infer(self, x):
        return TensorSpec(x.shape, x.dtype), TensorSpec(x.shape, x.dtype)

    def compute(self, xp, x):
        return 2 * x, 3 * x

    def vjp(self, ctx, g_out, g_twice):
        self.seen.append((g_out, g_twice))
        total = g_out * 2.0
        if g_twice is not None:
            total = total + g_twice * 3.0
        return (total,)


def _grad_of_first_output(op):
    x = paddle.to_tensor(np.array([1.0, 2.0], dtype="float32"), stop_gradient=False)
    out, _ = dispatch(op, (x,))
    out.sum().backward()
    return x.grad.numpy()


def test_unused_output_gets_zeros_by_default():
    op = _TwoOuts(none_grads=False)
    np.testing.assert_array_equal(_grad_of_first_output(op), [2.0, 2.0])
    (g_out, g_twice), = op.seen
    np.testing.assert_array_equal(g_twice.numpy(), [0.0, 0.0])


def test_none_grads_op_gets_none_for_the_unused_output():
    op = _TwoOuts(none_grads=True)
    np.testing.assert_array_equal(_grad_of_first_output(op), [2.0, 2.0])
    (g_out, g_twice), = op.seen
    assert g_twice is None
    np.testing.assert_array_equal(g_out.numpy(), [1.0, 1.0])


def test_none_grads_op_gets_both_when_both_are_used():
    op = _TwoOuts(none_grads=True)
    x = paddle.to_tensor(np.array([1.0, 2.0], dtype="float32"), stop_gradient=False)
    out, twice = dispatch(op, (x,))
    (out + twice).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [5.0, 5.0])
    assert all(g is not None for g in op.seen[0])
