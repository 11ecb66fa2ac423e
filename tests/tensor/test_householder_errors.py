"""householder_product argument errors: shape problems are AssertionErrors (Paddle asserts)
and ValueErrors; integer inputs are TypeErrors."""
import numpy as np
import pytest

import sampan as paddle

BAD_SHAPES = [([2, 2, 5, 4], [2, 3, 4]), ([3], [0]), ([3, 2, 1], [6, 2, 4]), ([3, 6], [6]),
              ([6, 3], [4])]


@pytest.mark.parametrize("xs,ts", BAD_SHAPES)
@pytest.mark.parametrize("err", [AssertionError, ValueError])
def test_bad_shapes(xs, ts, err):
    with pytest.raises(err, match="householder_product: need x"):
        paddle.linalg.householder_product(paddle.randn(xs), paddle.randn(ts))


def test_integer_dtype():
    with pytest.raises(TypeError, match="x must be float32"):
        paddle.linalg.householder_product(paddle.ones([3, 2, 1], "int32"),
                                          paddle.ones([3, 1], "int32"))


def test_valid_is_orthonormal():
    x = paddle.to_tensor(np.random.default_rng(0).standard_normal((4, 3)))
    q = paddle.linalg.householder_product(x, paddle.to_tensor([1.2, 0.5, 0.0]))
    assert list(q.shape) == [4, 3]
