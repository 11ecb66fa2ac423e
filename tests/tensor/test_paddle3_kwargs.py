"""Paddle 3.3.1's added keyword arguments on 2.x math/stat/search functions (expected values
and error texts recorded from Paddle 3.3.1)."""
import inspect

import numpy as np
import pytest

import sampan as paddle


def t(v, dtype=None):
    return paddle.to_tensor(v, dtype=dtype)


def test_add_subtract_alpha():
    np.testing.assert_allclose(paddle.add(t([1., 2.]), t([3., 4.]), alpha=2).numpy(), [7., 10.])
    np.testing.assert_allclose(paddle.add(t([1., 2.]), t([3., 4.]), alpha=0.5).numpy(),
                               [2.5, 4.])
    r = paddle.subtract(t([1, 2]), t([3, 4]), alpha=2)
    assert r.dtype == paddle.int64 and r.tolist() == [-5, -6]
    x = t([1., 2.])
    x.add_(t([1., 1.]), alpha=3)
    assert x.tolist() == [4., 5.]
    assert x.subtract(t([1., 1.]), alpha=2).tolist() == [2., 3.]
    for fn in (paddle.add, paddle.subtract):
        assert inspect.signature(fn).parameters["alpha"].kind is inspect.Parameter.KEYWORD_ONLY
    with pytest.raises(TypeError, match="add: alpha must be an int or float, got str"):
        paddle.add(x, x, alpha="2")


def test_add_alpha_gradient():
    x, y = t([1., 2.]), t([3., 4.])
    x.stop_gradient = y.stop_gradient = False
    paddle.subtract(x, y, alpha=3).sum().backward()
    assert x.grad.tolist() == [1., 1.] and y.grad.tolist() == [-3., -3.]


def test_divide_rounding_mode_float():
    a, b = t([-7., 7., -7.5, 5.]), t([2., -2., 2., 0.])
    expect = {None: [-3.5, -3.5, -3.75, np.inf], "trunc": [-3., -3., -3., np.inf],
              "floor": [-4., -4., -4., np.inf]}
    for mode, want in expect.items():
        np.testing.assert_array_equal(paddle.divide(a, b, rounding_mode=mode).numpy(), want)
    np.testing.assert_array_equal(a.divide(b, rounding_mode="floor").numpy(), expect["floor"])


def test_divide_rounding_mode_int_keeps_dtype():
    a, b = t([-7, 7, 9]), t([2, -2, 4])
    assert paddle.divide(a, b).dtype == paddle.float32
    trunc = paddle.divide(a, b, rounding_mode="trunc")
    floor = paddle.divide(a, b, rounding_mode="floor")
    assert trunc.dtype == floor.dtype == paddle.int64
    assert trunc.tolist() == [-3, -3, 2] and floor.tolist() == [-4, -4, 2]
    c = t([-7, 7])
    c.divide_(t([2, 2]), rounding_mode="trunc")
    assert c.tolist() == [-3, 3]


def test_divide_bad_rounding_mode():
    # Paddle: ValueError "div expected rounding_mode to be one of None, 'trunc', or 'floor'..."
    with pytest.raises(ValueError, match="rounding_mode to be one of None, 'trunc', or 'floor'"):
        paddle.divide(t([1.]), t([2.]), rounding_mode="x")


def test_var_correction():
    v = t([[1., 2., 4.], [3., 5., 9.]])
    np.testing.assert_allclose(paddle.var(v, correction=0).item(), 6.666666507720947, rtol=1e-6)
    np.testing.assert_allclose(paddle.var(v, axis=1, correction=2).numpy(),
                               [4.666667, 18.666668], rtol=1e-6)
    np.testing.assert_allclose(paddle.var(v).item(), 8.0, rtol=1e-6)
    np.testing.assert_allclose(v.var(unbiased=False).item(), 6.666666507720947, rtol=1e-6)
    np.testing.assert_allclose(paddle.std(v).item(), 8.0 ** 0.5, rtol=1e-6)
    # Paddle: ValueError "Only one of unbiased and correction may be given"
    with pytest.raises(ValueError, match="only one of unbiased and correction"):
        paddle.var(v, unbiased=False, correction=0)


def test_mean_dtype():
    r = paddle.mean(t([1, 2]), dtype="float64")
    assert r.dtype == paddle.float64 and r.item() == 1.5
    r = t([[1., 2., 4.], [3., 5., 9.]]).mean(dtype="float64")
    assert r.dtype == paddle.float64 and r.item() == 4.0
    assert inspect.signature(paddle.mean).parameters["dtype"].kind is \
        inspect.Parameter.KEYWORD_ONLY
