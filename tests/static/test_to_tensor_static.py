"""paddle.to_tensor while building a Program returns a Variable whose value the Program
holds (Paddle 3.3.1 does this too), so it can be fetched and differentiated."""
import numpy as np

import sampan as paddle
from tests.static_util import static_guard


def test_to_tensor_builds_a_variable_holding_the_value():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with static_guard(main, startup):
        x = paddle.to_tensor([[3.0, 3.0], [3.0, 3.0]], dtype="float32")
        b = paddle.to_tensor([True, False])
        assert isinstance(x, paddle.static.Variable)
        assert x.shape == [2, 2] and x.stop_gradient and b.dtype == paddle.bool
        res = paddle.static.Executor().run(main, fetch_list=[x * 2, b])
    np.testing.assert_allclose(res[0], np.full((2, 2), 6.0))
    assert res[1].tolist() == [True, False]


def test_to_tensor_variables_take_gradients():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with static_guard(main, startup):
        x = paddle.to_tensor([[3.0, 3.0], [3.0, 3.0]], stop_gradient=False)
        y = paddle.to_tensor([[3.0, 3.0], [3.0, 1.0]], stop_gradient=False)
        out = paddle.dist(x, y)
        (_, gx), (_, gy) = paddle.static.append_backward(out, parameter_list=[x, y])
        res = paddle.static.Executor().run(main, fetch_list=[out, gx, gy])
    np.testing.assert_allclose(res[0], 2.0)
    np.testing.assert_allclose(res[1], [[0, 0], [0, 1]])
    np.testing.assert_allclose(res[2], [[0, 0], [0, -1]])


def test_to_tensor_of_a_variable_copies_it_with_a_dtype():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with static_guard(main, startup):
        v = paddle.static.data("v", [3], "int32")
        w = paddle.to_tensor(v, dtype="float64")
        got, = paddle.static.Executor().run(main, feed={"v": np.arange(3, dtype="int32")},
                                            fetch_list=[w])
    assert got.dtype == np.float64 and got.tolist() == [0.0, 1.0, 2.0]
