"""reshape of an x with no elements follows Paddle 3.3.1 (table recorded from Paddle):
0 is a literal 0 at any index, -1 is 0 or (x's nonzero dims) / (shape's positive dims)."""
import pytest

import sampan as paddle

CASES = [  # (x shape, target, Paddle 3.3.1's result shape or None for ValueError)
    ([0, 2], [-1], [0]), ([0, 2], [2, -1], [2, 0]), ([0, 2], [0, -1], [0, 2]),
    ([0], [2, 0, -1], None), ([0, 3], [0, -1, 3], [0, 1, 3]), ([2, 0], [-1, 5], [0, 5]),
    ([0, 2], [3, -1], [3, 0]), ([0, 2], [-1, 2], [0, 2]), ([0, 2], [-1, 0], [2, 0]),
    ([2, 0], [0, -1], [0, 2]), ([2, 0, 3], [0, -1], [0, 6]), ([0, 2, 3], [0, 0, -1], None),
    ([0, 2], [0, 0, -1], None), ([0, 2], [5, 0], [5, 0]), ([0], [0, -1], [0, 1]),
    ([0, 4], [2, -1, 2], [2, 0, 2]), ([0, 4], [0, 2, -1], [0, 2, 2]),
    ([2, 3], [0, 0, 0], None), ([0, 2], [2, 3, 0], [2, 3, 0]), ([0, 2], [0], [0]),
    ([0, 2], [5, 2], None),
]


@pytest.mark.parametrize("src,target,want", CASES)
def test_reshape_zero_size_like_paddle(src, target, want):
    x = paddle.rand(src)
    if want is None:
        with pytest.raises(ValueError, match="reshape"):
            paddle.reshape(x, target)
    else:
        assert list(paddle.reshape(x, target).shape) == want


def test_zero_size_reshape_backward():
    x = paddle.rand([0, 2])
    x.stop_gradient = False
    paddle.reshape(x, [2, 3, 0]).sum().backward()
    assert list(x.grad.shape) == [0, 2]
