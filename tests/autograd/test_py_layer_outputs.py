"""PyLayer output handling as in Paddle: backward gets one gradient per Tensor output,
non-Tensor results of backward and forwards without a Tensor raise ValueError, inputs
returned as they are, materialize_grads, integer outputs."""
import numpy as np
import pytest

import sampan as paddle
from sampan.autograd import PyLayer


def _x(shape=(2, 3)):
    x = paddle.to_tensor(np.random.default_rng(0).standard_normal(shape))
    x.stop_gradient = False
    return x


def test_backward_receives_grads_of_tensor_outputs_only():
    class Two(PyLayer):
        @staticmethod
        def forward(ctx, x1, x2):
            return x1 * 2, 1, x2 * 3, None

        @staticmethod
        def backward(ctx, dy1, dy2):
            return dy1 * 2, dy2 * 3

    x = _x()
    out = Two.apply(x, x)
    (out[0] + out[2]).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full((2, 3), 5.0))


def test_forward_without_a_tensor_raises_value_error():
    class NoTensor(PyLayer):
        @staticmethod
        def forward(ctx, x):
            return 1

        @staticmethod
        def backward(ctx, dy):
            return dy

    with pytest.raises(ValueError, match="NoTensor.forward must return at least one Tensor"):
        NoTensor.apply(_x())


def test_backward_returning_a_number_raises_value_error():
    class BadGrad(PyLayer):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, dy):
            return 1

    with pytest.raises(ValueError, match="BadGrad.backward must return Tensors"):
        BadGrad.apply(_x()).sum().backward()


def test_missing_backward_is_not_implemented_and_os_error():
    class NoBackward(PyLayer):
        @staticmethod
        def forward(ctx, x):
            return x * 2

    y = NoBackward.apply(_x())
    with pytest.raises(OSError):
        y.sum().backward()
    with pytest.raises(NotImplementedError):
        NoBackward.apply(_x()).sum().backward()


def test_returning_an_input_leaf_needs_mark_not_inplace():
    class Same(PyLayer):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, dy):
            return dy

    with pytest.raises(ValueError, match="mark_not_inplace"):
        Same.apply(_x())

    class Marked(PyLayer):
        @staticmethod
        def forward(ctx, x):
            ctx.mark_not_inplace(x)
            ctx.set_materialize_grads(False)
            return x, x + x

        @staticmethod
        def backward(ctx, grad, grad2):
            assert grad2 is None  # not materialized
            return grad

    x = _x()
    Marked.apply(x)[0].sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.ones((2, 3)))


def test_integer_output_links_and_grad_is_cast_back():
    class ToInt(PyLayer):
        @staticmethod
        def forward(ctx, x):
            return paddle.cast(x, "int32")

        @staticmethod
        def backward(ctx, dy):
            return dy

    x = _x()
    paddle.cast(ToInt.apply(x), "float32").sum().backward()
    assert x.grad is not None and x.grad.dtype == paddle.float64
    np.testing.assert_allclose(x.grad.numpy(), np.ones((2, 3)))
