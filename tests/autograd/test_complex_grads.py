"""Complex gradients follow Paddle's convention dL/dRe + i dL/dIm (values recorded from
PaddlePaddle 3.3.1): products take the conjugate of the other operand."""
import numpy as np

import sampan as paddle


def _grad(fn, x):
    x = paddle.to_tensor(np.asarray(x, "complex64"), stop_gradient=False)
    fn(x).real().sum().backward()
    return x.grad.numpy()


def test_multiply_divide_matmul_conjugate_the_other_operand():
    np.testing.assert_allclose(_grad(lambda x: x * paddle.to_tensor([1 + 2j]), [1 + 0j]),
                               [1 - 2j])
    np.testing.assert_allclose(_grad(lambda x: paddle.to_tensor([2 + 1j]) / x, [1 + 1j]),
                               [-0.5 - 1j])
    w = paddle.to_tensor(np.array([[1 + 2j], [3 - 1j]], "complex64"))
    np.testing.assert_allclose(_grad(lambda x: paddle.matmul(x, w), [[1 + 1j, 2 - 1j]]),
                               [[1 - 2j, 3 + 1j]])
