"""Static Programs with an unknown (-1) batch dim: shapes and gradients that eager
mode computes from concrete sizes must still come out right."""
import numpy as np

import sampan as paddle
from sampan import static


def _run(build, feed):
    paddle.enable_static()
    try:
        main = static.Program()
        with static.program_guard(main, static.Program()):
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
