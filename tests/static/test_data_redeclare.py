"""paddle.static.data may declare a name again in the same program (Paddle allows it): the
new declaration is what the name's feed now fills."""
import numpy as np
import pytest

import sampan as paddle
from tests.static_util import static_guard


def test_data_redeclared_with_the_same_name():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with static_guard(main, startup):
        first = paddle.static.data("x", [2, 3], "float32")
        second = paddle.static.data("x", [4], "int64")
        assert first.shape == [2, 3] and second.shape == [4]
        out = second + 1
        got, = paddle.static.Executor().run(main, feed={"x": np.arange(4)},
                                            fetch_list=[out])
    assert got.tolist() == [1, 2, 3, 4]


def test_non_data_name_still_refused():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with static_guard(main, startup):
        paddle.static.create_parameter([2], "float32", name="w_taken")
        with pytest.raises(ValueError, match="'w_taken' already exists"):
            paddle.static.data("w_taken", [2], "float32")


@pytest.mark.parametrize("make", [
    lambda: paddle.static.create_parameter([1.0, 2.0, 3.0], "float32"),
    lambda: paddle.static.create_global_var([1.0, 2.0], 0.0, "float32"),
    lambda: paddle.static.create_parameter(1, "float32"),
])
def test_shapes_of_non_ints_are_type_errors(make):
    paddle.enable_static()
    try:
        with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
            with pytest.raises(TypeError, match="shape"):
                make()
    finally:
        paddle.disable_static()
