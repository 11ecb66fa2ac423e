"""vander argument errors as Paddle: a non-Tensor x is a TypeError, a wrong rank a ValueError."""
import pytest

import sampan as paddle
from tests.static_util import static_guard


def test_non_tensor_is_type_error():
    with pytest.raises(TypeError, match="vander: x must be a 1-D Tensor, got int"):
        paddle.vander(1)


def test_wrong_rank_is_value_error_eager_and_static():
    with pytest.raises(ValueError, match=r"got shape \[2, 2\]"):
        paddle.vander(paddle.ones([2, 2]))
    with static_guard(paddle.static.Program(), paddle.static.Program()):
        x = paddle.static.data("X", [10, 12], "int32")
        with pytest.raises(ValueError, match=r"got shape \[10, 12\]"):
            paddle.vander(x)
        with pytest.raises(TypeError):
            paddle.vander(1)
