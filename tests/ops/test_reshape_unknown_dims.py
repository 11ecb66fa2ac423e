"""The gradient of reshape-like ops in a static Program where x has several unknown (-1)
dims: the cotangent takes x's shape when the Program runs."""
import numpy as np

import sampan as paddle
from tests.static_util import static_guard


def test_reshape_gradient_with_two_unknown_dims():
    main = paddle.static.Program()
    with static_guard(main):
        x = paddle.static.data("x", [-1, 3, -1], "float64")
        x.stop_gradient = False
        y = paddle.reshape(x, [0, -1])
        loss = (y * y).sum()
        gx, = paddle.static.gradients([loss], [x])
        assert gx.shape == [-1, 3, -1]
    exe = paddle.static.Executor()
    for shape in ((2, 3, 4), (1, 3, 5)):
        a = np.arange(np.prod(shape), dtype="float64").reshape(shape)
        got, = exe.run(main, feed={"x": a}, fetch_list=[gx])
        np.testing.assert_array_equal(got, 2 * a)
