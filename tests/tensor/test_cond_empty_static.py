"""linalg.cond of an empty x: refused while a static Program is built (Paddle), an empty
result of the batch shape in eager mode."""
import numpy as np
import pytest

import sampan as paddle
from tests.static_util import static_guard


@pytest.mark.parametrize("p", ["fro", "nuc", 1, -1, np.inf, -np.inf, None, 2, -2])
def test_static_empty_x_is_a_value_error(p):
    main = paddle.static.Program()
    with static_guard(main):
        x = paddle.static.data("X", [0, 7, 7], "float32")
        with pytest.raises(ValueError, match=r"cond: x must not be empty .* \[0, 7, 7\]"):
            paddle.linalg.cond(x, p)


def test_eager_empty_x_gives_empty_result():
    out = paddle.linalg.cond(paddle.ones([0, 4, 4]))
    assert out.shape == [0]
