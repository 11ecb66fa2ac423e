"""pow's gradient keeps x and y only (as Paddle's elementwise_pow_grad): modifying pow's
output in place before using it again leaves the backward valid, and dy is unchanged."""
import numpy as np
import pytest

import sampan as paddle


def test_inplace_on_pow_output_then_backward():
    a = paddle.ones([4, 2, 3])
    a.stop_gradient = False
    b = a ** 2
    b[1:2] = 3.0            # modified in place before it is used again
    (b ** 2).sum().backward()
    want = np.full([4, 2, 3], 4.0, "float32")
    want[1] = 0.0           # the overwritten slice does not depend on a
    np.testing.assert_allclose(a.grad.numpy(), want)


def test_pow_gradients_of_both_inputs():
    xv, yv = np.array([1.5, 2.0, 0.5]), np.array([2.0, 3.0, -1.0])
    x = paddle.to_tensor(xv, stop_gradient=False)
    y = paddle.to_tensor(yv, stop_gradient=False)
    (x ** y).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), yv * xv ** (yv - 1))
    np.testing.assert_allclose(y.grad.numpy(), xv ** yv * np.log(xv))


def test_modified_after_use_names_both_versions():
    a = paddle.ones([4, 2, 3])
    a.stop_gradient = False
    b = a ** 2
    c = b ** 2              # pow keeps b for its gradient
    b[1:2] = 3.3            # then b changes: the backward must refuse
    with pytest.raises(RuntimeError,
                       match="received tensor_version:1 != wrapper_version_snapshot:0"):
        (c + b ** 2).sum().backward()
