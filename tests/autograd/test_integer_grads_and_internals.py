"""Integer/bool tensors marked stop_gradient=False carry gradients through ops (Paddle does),
and Paddle's internal Tensor gradient methods (_grad_ivar, _zero_grads,
_register_backward_hook)."""
import numpy as np
import pytest

import sampan as paddle


@pytest.mark.parametrize("dtype,grad_dtype,expected", [
    ("int32", "int32", [123, 123]), ("int64", "int64", [123, 123]),
    ("bool", "bool", [True, True]), ("float32", "float32", [123.0, 123.0])])
def test_grad_of_integer_and_bool_leaves(dtype, grad_dtype, expected):
    y = paddle.to_tensor([1, 0], dtype=dtype)
    y.stop_gradient = False
    z = y * 123
    assert z.stop_gradient is False
    g, = paddle.grad(z, y)
    assert g.dtype == getattr(paddle, grad_dtype)
    assert g.numpy().tolist() == expected


def test_split_parts_of_an_integer_tensor_are_differentiable():
    x = paddle.to_tensor(np.arange(6, dtype="int64"))
    x.stop_gradient = False
    parts = paddle.split(x, 3)
    assert all(not p.stop_gradient for p in parts)


def test_float_inputs_keep_integer_outputs_non_differentiable():
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    assert paddle.argmax(x).stop_gradient is True
    assert (x > 1).stop_gradient is True


def test_grad_ivar_and_zero_grads():
    lin = paddle.nn.Linear(2, 3)
    assert lin.weight._grad_ivar() is None
    lin(paddle.ones([1, 2])).sum().backward()
    g = lin.weight._grad_ivar()
    np.testing.assert_allclose(g.numpy(), np.ones((2, 3)))
    lin.weight._zero_grads()
    np.testing.assert_allclose(lin.weight.grad.numpy(), np.zeros((2, 3)))


def test_register_backward_hook_runs_after_each_backward():
    calls = []
    x = paddle.to_tensor([5.0], stop_gradient=False)
    x._register_backward_hook(lambda: calls.append(1))
    for _ in range(3):
        paddle.pow(x, 4.0).backward()
    assert len(calls) == 3
    np.testing.assert_allclose(x.grad.numpy(), [3 * 4 * 125.0])
    with pytest.raises(ValueError, match="leaf"):
        paddle.pow(x, 2.0)._register_backward_hook(lambda: None)
    with pytest.raises(ValueError, match="stop_gradient=False"):
        paddle.to_tensor([1.0])._register_backward_hook(lambda: None)


def test_tensor_split_bad_dims_raise_value_error():
    with pytest.raises(ValueError, match="tensor_split: x must have at least 1 dim"):
        paddle.tensor_split(paddle.to_tensor(1.0), 2)
    with pytest.raises(ValueError, match="tensor_split: axis 1 is out of range"):
        paddle.tensor_split(paddle.ones([6]), 3, axis=1)
