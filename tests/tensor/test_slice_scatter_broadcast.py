"""slice_scatter broadcasts value to the slice's shape (Paddle 3.3.1: results recorded from
Paddle: every accepted value shape below fills the 8x2 slice, sum 16); gradients sum back."""
import numpy as np
import pytest

import sampan as paddle


@pytest.mark.parametrize("vshape", [[8, 1], [1, 2], [8, 2], [2], [1], []])
def test_value_broadcasts(vshape):
    out = paddle.slice_scatter(paddle.zeros([8, 9]), paddle.ones(vshape), [1], [2], [6], [2])
    assert out.sum().item() == 16.0
    assert out.numpy()[:, [2, 4]].all() and not out.numpy()[:, [0, 1, 3, 5]].any()


def test_incompatible_value_and_gradients():
    with pytest.raises(ValueError, match=r"value of shape \[8, 3\] cannot be broadcast"):
        paddle.slice_scatter(paddle.zeros([8, 9]), paddle.ones([8, 3]), [1], [2], [6], [2])
    v = paddle.ones([8, 1])
    x = paddle.zeros([8, 9])
    v.stop_gradient = x.stop_gradient = False
    paddle.slice_scatter(x, v, [1], [2], [6], [2]).sum().backward()
    np.testing.assert_allclose(v.grad.numpy(), np.full([8, 1], 2.0))
    np.testing.assert_allclose(x.grad.numpy()[0], [1, 1, 0, 1, 0, 1, 1, 1, 1])
