"""index_fill argument errors in Paddle's order and kinds: a non-Tensor index, a value with
more than one element and an axis out of range are ValueErrors (checked before x)."""
import numpy as np
import pytest

import sampan as paddle

DATA = np.random.default_rng(0).random((10, 10)).astype(np.float32)


def test_errors_in_paddle_order():
    index = paddle.to_tensor([0, 2])
    with pytest.raises(ValueError, match="index must be a Tensor, got list"):
        paddle.index_fill(DATA, [0, 2], axis=-1, value=-1)
    with pytest.raises(ValueError, match=r"one element, got shape \[2\]"):
        paddle.index_fill(DATA, index, axis=-1, value=paddle.to_tensor([-1, -4]))
    with pytest.raises(ValueError, match="axis 4 is out of range"):
        paddle.index_fill(DATA, index, axis=4, value=-1)
    with pytest.raises(IndexError):       # still an IndexError too
        paddle.index_fill(paddle.to_tensor(DATA), index, axis=4, value=-1)
    with pytest.raises(TypeError, match="x must be a Tensor, got ndarray"):
        paddle.index_fill(DATA, index, axis=0, value=-1)


def test_fill():
    x = paddle.zeros([3, 2])
    out = paddle.index_fill(x, paddle.to_tensor([0, 2]), 0, paddle.to_tensor(5.0))
    assert out.numpy().tolist() == [[5, 5], [0, 0], [5, 5]]
