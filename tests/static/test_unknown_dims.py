"""Static Programs with an unknown (-1) batch dim: shapes and gradients that eager
mode computes from concrete sizes must still come out right."""
import numpy as np
import pytest

import sampan as paddle
from sampan import static
from tests.static_util import static_guard


def _run(build, feed):
    paddle.enable_static()
    try:
        main = static.Program()
        with static_guard(main, static.Program()):
            fetch = build()
        return static.Executor().run(main, feed=feed, fetch_list=fetch)
    finally:
        paddle.disable_static()


def test_take_along_axis_gradient_with_unknown_batch():
    xv = np.random.default_rng(0).normal(size=(5, 4))
    iv = np.array([[1], [0], [3], [2], [1]])

    def build():
        x = static.data("x", [None, 4], "float64")
        x.stop_gradient = False
        i = static.data("i", [None, 1], "int64")
        loss = paddle.take_along_axis(x, i, 1).mean()
        return static.gradients([loss], [x])

    (gx,) = _run(build, {"x": xv, "i": iv})
    want = np.zeros((5, 4))
    want[np.arange(5), iv[:, 0]] = 1 / 5
    np.testing.assert_allclose(gx, want)


def test_reshape_zero_copies_an_unknown_dim():
    xv = np.random.default_rng(1).normal(size=(3, 8, 2, 2)).astype("float32")

    def build():
        x = static.data("x", [None, 8, 2, 2], "float32")
        y = paddle.reshape(x, [0, 4, -1])
        assert y.shape == [-1, 4, 8]
        return [y, paddle.nn.functional.group_norm(x, 4)]

    y, gn = _run(build, {"x": xv})
    np.testing.assert_array_equal(y, xv.reshape(3, 4, 8))
    g = xv.reshape(3, 4, -1)
    want = ((g - g.mean(-1, keepdims=True)) / np.sqrt(g.var(-1, keepdims=True) + 1e-5))
    np.testing.assert_allclose(gn, want.reshape(xv.shape), rtol=1e-4, atol=1e-5)


def test_optimizer_without_parameters_in_static_mode_trains_everything():
    rng = np.random.default_rng(0)
    xv = rng.normal(size=(64, 4)).astype("float32")
    yv = xv.sum(1, keepdims=True)
    paddle.enable_static()
    try:
        main, start = static.Program(), static.Program()
        with static_guard(main, start):
            x = static.data("x", [None, 4], "float32")
            y = static.data("y", [None, 1], "float32")
            loss = ((static.nn.fc(x, 1) - y) ** 2).mean()
            paddle.optimizer.Adam(0.05).minimize(loss)
        exe = static.Executor()
        exe.run(start)
        first = exe.run(main, feed={"x": xv, "y": yv}, fetch_list=[loss])[0]
        for _ in range(60):
            last = exe.run(main, feed={"x": xv, "y": yv}, fetch_list=[loss])[0]
    finally:
        paddle.disable_static()
    assert last < 0.05 * first


def test_static_create_parameter_takes_initializer_objects():
    def build():
        init = paddle.nn.initializer
        w = static.create_parameter([2, 3], "float32", default_initializer=init.Constant(0.5))
        v = static.create_parameter([3, 3], "float32", default_initializer=init.Orthogonal())
        return [w, paddle.matmul(v, v, transpose_y=True)]

    paddle.enable_static()
    try:
        main, start = static.Program(), static.Program()
        with static_guard(main, start):
            fetch = build()
        exe = static.Executor()
        exe.run(start)
        w, vvt = exe.run(main, fetch_list=fetch)
    finally:
        paddle.disable_static()
    np.testing.assert_array_equal(w, np.full((2, 3), 0.5, "float32"))
    np.testing.assert_allclose(vvt, np.eye(3), atol=1e-5)


@pytest.mark.parametrize("case", ["nearest", "bilinear", "add_n", "lstm", "gru", "cell"])
def test_layers_with_a_run_time_batch_match_eager(case):
    """Functions that used to multiply or fill with a build-time -1 batch dim."""
    import sampan.nn.functional as F
    paddle.seed(3)
    lstm = paddle.nn.LSTM(3, 4, num_layers=2, direction="bidirect")
    gru = paddle.nn.GRU(3, 4)
    cell = paddle.nn.GRUCell(3, 4)
    fns = {
        "nearest": (lambda x: F.interpolate(x, scale_factor=2, mode="nearest"), [3, 4, 4]),
        "bilinear": (lambda x: F.interpolate(x, size=[6, 5], mode="bilinear"), [3, 4, 4]),
        "add_n": (lambda x: paddle.add_n([x, paddle.ones([1, 3]).expand([2, 3]) * 0 + x]),
                  [3]),
        "lstm": (lambda x: lstm(x)[0], [5, 3]),
        "gru": (lambda x: gru(x)[1], [5, 3]),
        "cell": (lambda x: cell.get_initial_states(x, shape=[4], init_value=0.5) + x.sum(),
                 [3]),
    }
    fn, rest = fns[case]
    main = static.Program()
    paddle.enable_static()
    try:
        with static.program_guard(main, static.Program()):
            x = static.data("x", [-1] + rest, "float32")
            y = fn(x)
        exe = static.Executor()
        for batch in (2, 3):
            value = np.random.default_rng(batch).standard_normal([batch] + rest)
            value = value.astype("float32")
            if case == "add_n" and batch != 2:
                continue  # the second input has a fixed batch of 2
            got = exe.run(main, feed={"x": value}, fetch_list=[y])[0]
            paddle.disable_static()
            want = fn(paddle.to_tensor(value)).numpy()
            paddle.enable_static()
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    finally:
        paddle.disable_static()


def test_top_level_in_place_function_on_a_variable_builds_the_op():
    main = static.Program()
    with static_guard(main, static.Program()):
        x = static.data("x", [-1, 3], "float32")
        y = paddle.ceil_(x)   # top-level in-place form on a Variable (used to raise)
        z = y * 2.0
    got = static.Executor().run(main, feed={"x": np.array([[0.2, 1.5, -0.7]], "float32")},
                                fetch_list=[z])[0]
    np.testing.assert_allclose(got, [[2.0, 4.0, -0.0]])
