"""paddle.autograd.backward with a grad_tensors entry larger than its output: Paddle reads its
first out.numel values (numbers recorded from Paddle 3.3.1); paddle.grad still refuses it, and
refuses an input given twice (RuntimeError, as Paddle)."""
import numpy as np
import pytest

import sampan as paddle

X = np.array([[0.2, 0.3, 0.5, 0.9], [0.1, 0.2, 0.6, 0.7]])
G = np.arange(1, 9.0).reshape(2, 4)
PADDLE = {  # x.grad after paddle.autograd.backward([f(x)], [G]) in Paddle 3.3.1
    "sum0": [[1, 2, 3, 4], [1, 2, 3, 4]],
    "max0": [[1, 2, 0, 4], [0, 0, 3, 0]],
    "max1k": [[0, 0, 0, 1], [0, 0, 0, 2]],
    "amin0": [[0, 0, 3, 0], [1, 2, 0, 4]],
}
FUNCS = {"sum0": lambda x: x.sum(0), "max0": lambda x: x.max(0),
         "max1k": lambda x: x.max(1, keepdim=True), "amin0": lambda x: x.amin(0)}


@pytest.mark.parametrize("name", sorted(FUNCS))
def test_larger_grad_tensor_is_read_as_a_buffer(name):
    x = paddle.to_tensor(X, stop_gradient=False)
    with pytest.warns(UserWarning, match="first"):
        paddle.autograd.backward([FUNCS[name](x)], [paddle.to_tensor(G)], True)
    np.testing.assert_allclose(x.grad.numpy(), PADDLE[name])


def test_smaller_grad_tensor_is_refused():
    x = paddle.to_tensor(X, stop_gradient=False)
    with pytest.raises(ValueError, match=r"grad_outputs\[0\] has shape \[3\]"):
        paddle.autograd.backward([x.max(0)], [paddle.ones([3], "float64")])


def test_paddle_grad_still_checks_the_shape():
    x = paddle.to_tensor(X, stop_gradient=False)
    with pytest.raises(ValueError, match="has shape"):
        paddle.grad(x.max(0), x, grad_outputs=paddle.to_tensor(G))


def test_paddle_grad_refuses_duplicate_inputs():
    x = paddle.to_tensor(X, stop_gradient=False)
    with pytest.raises(RuntimeError, match="duplicate"):
        paddle.grad(x.sum(), [x, x])
