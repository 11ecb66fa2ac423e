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


def test_index_add_alpha():
    x, idx, val = paddle.ones([3, 2]), t([0, 2]), t([[1., 2.], [3., 4.]])
    assert paddle.index_add(x, idx, 0, val, alpha=2).tolist() == [[3., 5.], [1., 1.], [7., 9.]]
    assert paddle.index_add(x, idx, 0, val, 0.5).tolist() == [[1.5, 2.], [1., 1.], [2.5, 3.]]
    assert x.index_add(idx, 0, val, alpha=2).tolist() == [[3., 5.], [1., 1.], [7., 9.]]


def test_searchsorted_side_and_sorter():
    s, v = t([1., 3., 3., 5.]), t([3., 4.])
    assert paddle.searchsorted(s, v).tolist() == [1, 3]
    assert paddle.searchsorted(s, v, side="right").tolist() == [3, 3]
    assert paddle.searchsorted(s, v, side="left", right=True).tolist() == [3, 3]  # as Paddle
    unsorted, sorter = t([5., 1., 3., 3.]), t([1, 2, 3, 0])
    assert paddle.searchsorted(unsorted, v, sorter=sorter).tolist() == [1, 3]
    assert paddle.searchsorted(unsorted, v, side="right", sorter=sorter).tolist() == [3, 3]
    with pytest.raises(ValueError, match="side must be 'left' or 'right', got 'middle'"):
        paddle.searchsorted(s, v, side="middle")
    with pytest.raises(ValueError, match="sorter must be an int tensor shaped like"):
        paddle.searchsorted(unsorted, v, sorter=t([1, 2]))


def test_repeat_interleave_output_size():
    r = paddle.repeat_interleave(t([1, 2]), t([2, 3]), output_size=5)
    assert r.tolist() == [1, 1, 2, 2, 2]
    assert paddle.repeat_interleave(t([1, 2]), 2, output_size=4).tolist() == [1, 1, 2, 2]
    # Paddle: ValueError "When output_size is provided, it should equal to sum of repeats..."
    with pytest.raises(ValueError, match="output_size=4, sum of repeats=5"):
        paddle.repeat_interleave(t([1, 2]), t([2, 3]), output_size=4)


def test_unique_sorted_flag():
    assert paddle.unique(t([3, 1, 2, 1]), sorted=False).tolist() == [1, 2, 3]  # Paddle (CPU)
    out, index = paddle.unique(t([3, 1, 2, 1]), return_index=True, sorted=False)
    assert out.tolist() == [1, 2, 3] and index.tolist() == [1, 2, 0]
    with pytest.raises(TypeError, match="unique: sorted must be a bool, got str"):
        paddle.unique(t([1]), sorted="yes")


def test_solve_left():
    a, b = t([[2., 1.], [1., 3.]]), t([[1., 2.], [3., 4.]])
    want = [[0.19999998807907104, 0.6000000238418579], [1.0, 1.0]]  # Paddle 3.3.1
    np.testing.assert_allclose(paddle.linalg.solve(a, b, left=False).numpy(), want, rtol=1e-6)
    np.testing.assert_allclose(paddle.linalg.solve(a, b, False).numpy(), want, rtol=1e-6)
    np.testing.assert_allclose((paddle.linalg.solve(a, b, left=False) @ a).numpy(), b.numpy(),
                               rtol=1e-6)
    with pytest.raises(ValueError, match="left=False needs y with at least 2 dims"):
        paddle.linalg.solve(a, t([1., 2.]), left=False)


def test_matrix_rank_atol_rtol():
    m = t([[1., 0., 0.], [0., 1e-3, 0.], [0., 0., 1e-6]])
    rank = paddle.linalg.matrix_rank
    assert rank(m).item() == 3
    assert rank(m, atol=1e-4).item() == 2
    assert rank(m, rtol=1e-2).item() == 1
    assert rank(m, atol=1e-7, rtol=1e-2).item() == 1
    assert rank(m, atol=t(1e-4)).item() == 2
    batch = paddle.stack([m, m * 0])
    assert rank(batch, atol=1e-4, hermitian=True).tolist() == [2, 0]
    assert rank(batch, rtol=1e-4).tolist() == [2, 0]
    # Paddle: ValueError "Only support to use tol alone or use atol and rtol without tol."
    with pytest.raises(ValueError, match="use tol alone or atol/rtol without tol"):
        rank(m, tol=1e-4, atol=1e-4)


def test_bernoulli_p():
    paddle.seed(1)
    x = paddle.zeros([20000])
    r = paddle.bernoulli(x, p=0.25)
    assert r.dtype == paddle.float32 and abs(r.mean().item() - 0.25) < 0.02
    assert paddle.bernoulli(x + 0.3, p=1.0).sum().item() == 20000
    assert paddle.bernoulli(x + 0.9, p=0.0).sum().item() == 0
    # Paddle: IndexError "The probability should be <= 1, but got 1.500000"
    with pytest.raises(IndexError, match="p must be in \\[0, 1\\], got 1.5"):
        paddle.bernoulli(x, p=1.5)


def test_renamed_first_arguments():
    assert paddle.trunc(input=t([1.5, -1.5])).tolist() == [1., -1.]
    assert t([1.5, -1.5]).trunc().tolist() == [1., -1.]
    with pytest.raises(TypeError):
        paddle.trunc(x=t([1.5]))  # Paddle 3.3.1 no longer takes x=
    g = paddle.seed(seed=3)
    a = paddle.rand([3]).numpy()
    paddle.seed(3)
    np.testing.assert_array_equal(paddle.rand([3]).numpy(), a)
    assert g is not None


def test_get_device_input():
    assert paddle.device.get_device() == "cpu"
    assert paddle.device.get_device(t([1.])) == -1  # Paddle 3.3.1: a CPU tensor gives -1
    assert paddle.device.get_device(input=paddle.CPUPlace()) == "cpu"


def test_tensor_get_device_names_the_gpu_holding_it():
    from types import SimpleNamespace

    from sampan.tensor.compat3_methods import get_device
    assert paddle.ones([2]).get_device() == -1
    assert get_device(SimpleNamespace(place=paddle.CUDAPlace(1))) == 1  # a tensor on gpu:1
