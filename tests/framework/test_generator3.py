"""paddle.Generator and paddle.autograd.Function (Paddle 3.x), checked against Paddle 3.3.1."""
import numpy as np
import pytest

import sampan as paddle


def test_generator_is_the_default_generator_of_the_device():
    g = paddle.Generator()
    assert g is paddle.Generator("cpu") is paddle.Generator(paddle.CPUPlace())
    assert g is paddle.Generator(0)
    paddle.seed(7)
    assert g.initial_seed() == 7
    g.manual_seed(3)
    a = paddle.rand([2]).numpy()
    g.manual_seed(3)
    np.testing.assert_array_equal(paddle.rand([2]).numpy(), a)


@pytest.mark.skipif(paddle.device.is_compiled_with_cuda(), reason="CPU-only answers")
def test_generator_device_errors_on_cpu_only_setup():
    with pytest.raises(ValueError, match="CPU device only supports index 0, got 3"):
        paddle.Generator(3)
    with pytest.raises(ValueError, match="should not be 'gpu', since PaddlePaddle is not "
                                         "compiled with CUDA"):
        paddle.Generator("gpu")
    with pytest.raises(ValueError, match="must be a string like 'cpu'"):
        paddle.Generator("tpu")


def test_autograd_function_is_pylayer():
    assert paddle.autograd.Function is paddle.autograd.PyLayer

    class Exp(paddle.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = paddle.exp(x)
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, dy):
            y, = ctx.saved_tensor()
            return dy * y

    x = paddle.to_tensor([1., 2.], stop_gradient=False)
    Exp.apply(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.7182817, 7.389056], rtol=1e-6)
