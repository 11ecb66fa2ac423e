"""histogramdd and linalg.matrix_exp in static mode (values read only when the Program runs),
matrix_exp's gradient, and histogramdd's argument checks in Paddle's order and kinds."""
import numpy as np
import pytest

import sampan as paddle
from tests.static_util import static_guard

# exp of [[0, 1], [-1, 0]] * t is the rotation [[cos t, sin t], [-sin t, cos t]]
ROT = np.array([[0.0, 1.0], [-1.0, 0.0]])


def _run_static(build, feed):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with static_guard(main, startup):
        fetch = build()
        return paddle.static.Executor().run(main, feed=feed, fetch_list=fetch)


def test_matrix_exp_static_matches_eager_and_closed_form():
    t = np.array([0.3, 2.5, 7.0]).reshape(3, 1, 1)
    a = ROT * t  # norms 0.3 (no squaring) to 7 (several squarings), one batch
    want = np.stack([[[np.cos(v), np.sin(v)], [-np.sin(v), np.cos(v)]] for v in t.ravel()])
    eager = paddle.linalg.matrix_exp(paddle.to_tensor(a)).numpy()
    np.testing.assert_allclose(eager, want, rtol=1e-12, atol=1e-12)
    out, = _run_static(lambda: [paddle.linalg.matrix_exp(
        paddle.static.data("x", [3, 2, 2], "float64"))], {"x": a})
    np.testing.assert_allclose(out, want, rtol=1e-12, atol=1e-12)
    # the program holds one matrix_exp op: the squarings are chosen when it runs
    main = paddle.static.Program()
    with static_guard(main):
        paddle.linalg.matrix_exp(paddle.static.data("x", [-1, 2, 2], "float32"))
    assert [op.type for op in main.global_block().ops] == ["matrix_exp"]


def test_matrix_exp_gradient_matches_finite_differences():
    rng = np.random.default_rng(0)
    a, g = rng.normal(size=(2, 3, 3)), rng.normal(size=(2, 3, 3))
    x = paddle.to_tensor(a, stop_gradient=False)
    (paddle.linalg.matrix_exp(x) * paddle.to_tensor(g)).sum().backward()

    def f(v):
        return float((paddle.linalg.matrix_exp(paddle.to_tensor(v)).numpy() * g).sum())

    num = np.zeros_like(a)
    for i in np.ndindex(a.shape):
        d = np.zeros_like(a)
        d[i] = 1e-6
        num[i] = (f(a + d) - f(a - d)) / 2e-6
    np.testing.assert_allclose(x.grad.numpy(), num, rtol=1e-6, atol=1e-7)


def test_matrix_exp_static_backward():
    a = ROT * 0.5
    main, startup = paddle.static.Program(), paddle.static.Program()
    with static_guard(main, startup):
        x = paddle.static.data("x", [2, 2], "float64")
        x.stop_gradient = False
        loss = paddle.linalg.matrix_exp(x).sum()
        grad, = paddle.static.gradients([loss], [x])
        res, = paddle.static.Executor().run(main, feed={"x": a}, fetch_list=[grad])
    xe = paddle.to_tensor(a, stop_gradient=False)
    paddle.linalg.matrix_exp(xe).sum().backward()
    np.testing.assert_allclose(res, xe.grad.numpy(), rtol=1e-12)


def test_matrix_exp_errors():
    with pytest.raises(ValueError, match="matrix_exp: x must be square"):
        paddle.linalg.matrix_exp(paddle.ones([2, 3]))
    with pytest.raises(TypeError, match="matrix_exp: x must be a floating point"):
        paddle.linalg.matrix_exp(paddle.ones([2, 2], dtype="int64"))


PTS = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 0.5], [2.0, 2.0], [0.5, 1.5]])


@pytest.mark.parametrize("bins,ranges,density", [([3, 2], None, False), (4, None, True),
                                                  ([2, 2], [0.0, 1.0, 0.0, 1.0], True)])
def test_histogramdd_static_equals_numpy(bins, ranges, density):
    w = np.array([1.0, 2.0, 4.0, 8.0, 16.0])

    def build():
        x = paddle.static.data("x", [5, 2], "float64")
        ws = paddle.static.data("w", [5], "float64")
        hist, edges = paddle.histogramdd(x, bins=bins, ranges=ranges, density=density,
                                         weights=ws)
        return [hist] + edges

    res = _run_static(build, {"x": PTS, "w": w})
    rng = None if ranges is None else np.reshape(ranges, (2, 2))
    want, want_edges = np.histogramdd(PTS, bins, rng, density, w)
    np.testing.assert_allclose(res[0], want, rtol=1e-12)
    for got, e in zip(res[1:], want_edges):
        np.testing.assert_allclose(got, e, rtol=1e-12)


def test_histogramdd_static_ranges_come_from_the_fed_values():
    def build():
        hist, edges = paddle.histogramdd(paddle.static.data("x", [-1, 2], "float32"), bins=2)
        return [hist, edges[0]]

    for scale in (1.0, 10.0):  # one Program, two feeds: edges follow the data
        hist, e0 = _run_static(build, {"x": (PTS * scale).astype("float32")})
        np.testing.assert_allclose(e0, [0.0, scale, 2.0 * scale])
        assert hist.sum() == 5


def test_histogramdd_argument_errors_in_paddle_order():
    x = paddle.ones([4, 2])
    with pytest.raises(TypeError, match="density must be a bool"):
        paddle.histogramdd(x, density=10)
    with pytest.raises(TypeError, match="ranges must be a list or tuple"):
        paddle.histogramdd(x, ranges=10)
    with pytest.raises(AttributeError):  # weights are read as a Tensor first, as in Paddle
        paddle.histogramdd(x, weights=10)
    with pytest.raises(AssertionError, match=r"weights must have x's shape .* got \[3\]"):
        paddle.histogramdd(x, weights=paddle.ones([3]))
    with pytest.raises(ValueError, match="bins must be an int, a list of ints"):
        paddle.histogramdd(x, bins=2.0)
    with pytest.raises(ValueError, match=r"bins\[0\] must be a positive int"):
        paddle.histogramdd(x, bins=[3.4, 4.5])
    with pytest.raises(AssertionError, match="the length of ranges must be 4"):
        paddle.histogramdd(x, ranges=[0.0, 1.0])


def test_histogramdd_static_checks_dtype_before_reading_values():
    main = paddle.static.Program()
    with static_guard(main):
        with pytest.raises(TypeError, match="x must be float32 or float64, got bool"):
            paddle.histogramdd(paddle.static.data("b", [4, 2], "bool"))
        with pytest.raises(AssertionError, match=r"weights must have x's shape"):
            paddle.histogramdd(paddle.static.data("x", [4, 2, 2], "float32"),
                               weights=paddle.static.data("w", [3], "float32"))
