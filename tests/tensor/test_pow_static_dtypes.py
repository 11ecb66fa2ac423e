"""pow in a static Program refuses the integer dtypes Paddle has no pow kernel for."""
import pytest

import sampan as paddle
from tests.static_util import static_guard


@pytest.mark.parametrize("dtype", ["int8", "int16", "uint8", "bool"])
def test_static_small_int_x_is_a_type_error(dtype):
    with static_guard(paddle.static.Program()):
        x = paddle.static.data("x", [2, 2], dtype)
        with pytest.raises(TypeError, match=f"pow: x must be .* static graph mode, got "
                                            f"{dtype}"):
            paddle.pow(x, 2)


def test_static_int32_and_float_build():
    with static_guard(paddle.static.Program()):
        for dtype in ("int32", "int64", "float32"):
            out = paddle.pow(paddle.static.data(f"x_{dtype}", [2], dtype), 2)
            assert out.dtype.name == dtype
