"""Tests of the public statistics API beyond the op database: composites (var, std, nanmean,
median, diff, trace, kron), gradient rules at ties, Paddle-specific semantics and errors."""
import numpy as np
import pytest

import sampan as paddle


def _t(a, grad=False):
    t = paddle.to_tensor(np.asarray(a))
    t.stop_gradient = not grad
    return t


@pytest.fixture
def rng():
    return np.random.default_rng(0)


def test_full_reductions_are_0d_and_shapes_are_lists(rng):
    x = _t(rng.standard_normal((2, 3)))
    for fn in (paddle.sum, paddle.mean, paddle.max, paddle.min, paddle.prod, paddle.amax,
               paddle.logsumexp, paddle.std, paddle.var, paddle.nansum, paddle.nanmean,
               paddle.median, paddle.count_nonzero):
        out = fn(x)
        assert out.shape == [], fn.__name__
    assert paddle.sum(x, axis=1, keepdim=True).shape == [2, 1]
    n = paddle.numel(x)
    assert n.shape == [] and n.dtype == paddle.int64 and int(n) == 6


def test_max_gives_full_grad_to_ties_amax_splits():
    data = [[0.1, 0.9, 0.9, 0.9], [0.9, 0.9, 0.6, 0.7]]
    x = _t(data, grad=True)
    paddle.max(x).backward()
    np.testing.assert_allclose(x.grad.numpy(), [[0, 1, 1, 1], [1, 1, 0, 0]])
    x = _t(data, grad=True)
    paddle.amax(x).backward()
    np.testing.assert_allclose(x.grad.numpy(), [[0, .2, .2, .2], [.2, .2, 0, 0]])
    x = _t(data, grad=True)
    paddle.amin(x, axis=1).backward()
    np.testing.assert_allclose(x.grad.numpy(), [[1, 0, 0, 0], [0, 0, 1, 0]])


def test_prod_grad_with_zeros():
    x = _t([[2.0, 0.0, 3.0], [0.0, 0.0, 5.0]], grad=True)
    paddle.prod(x, axis=1).backward()
    np.testing.assert_allclose(x.grad.numpy(), [[0, 6, 0], [0, 0, 0]])
    x = _t([[2.0, 0.0, 3.0], [1.0, 4.0, 5.0]], grad=True)
    paddle.prod(x).backward()
    np.testing.assert_allclose(x.grad.numpy(), [[0, 2 * 3 * 20, 0], [0, 0, 0]])


def test_mean_of_ints_is_float():
    out = paddle.mean(_t(np.array([1, 2, 4])))
    assert out.dtype == paddle.float32
    np.testing.assert_allclose(out.numpy(), 7 / 3, rtol=1e-6)


def test_sum_dtypes():
    assert paddle.sum(_t(np.array([1, 2], np.int32))).dtype == paddle.int64
    assert paddle.sum(_t(np.array([True, True]))).dtype == paddle.int64
    assert paddle.sum(_t(np.array([1, 2])), dtype="float32").dtype == paddle.float32


@pytest.mark.parametrize("unbiased", [True, False])
def test_var_std(rng, unbiased):
    a = rng.standard_normal((3, 4))
    ddof = 1 if unbiased else 0
    x = _t(a, grad=True)
    np.testing.assert_allclose(paddle.var(x, axis=1, unbiased=unbiased).numpy(),
                               a.var(axis=1, ddof=ddof))
    np.testing.assert_allclose(paddle.std(x, unbiased=unbiased).numpy(), a.std(ddof=ddof))
    np.testing.assert_allclose(x.std(axis=[0, 1], keepdim=True).numpy(),
                               a.std(ddof=1, keepdims=True))
    paddle.var(x, unbiased=unbiased).backward()
    want = 2 * (a - a.mean()) / (a.size - ddof)
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-10)


@pytest.mark.filterwarnings("ignore:Mean of empty slice")
def test_nanmean(rng):
    a = rng.standard_normal((3, 4))
    a[0, 1] = np.nan
    a[2, :] = np.nan
    x = _t(a, grad=True)
    np.testing.assert_allclose(paddle.nanmean(x, axis=1).numpy(), np.nanmean(a, axis=1))
    np.testing.assert_allclose(paddle.nanmean(x).numpy(), np.nanmean(a))
    paddle.nanmean(x).backward()
    want = np.where(np.isnan(a), 0, 1 / np.sum(~np.isnan(a)))
    np.testing.assert_allclose(x.grad.numpy(), want)


def test_median_modes():
    x = _t(np.arange(12).reshape(3, 4))
    out = paddle.median(x)
    assert out.dtype == paddle.float32 and float(out) == 5.5
    np.testing.assert_allclose(paddle.median(x, axis=1).numpy(), [1.5, 5.5, 9.5])
    vals, idx = paddle.median(x, axis=1, mode="min")
    assert vals.dtype == paddle.int64 and idx.dtype == paddle.int64
    np.testing.assert_array_equal(vals.numpy(), [1, 5, 9])
    np.testing.assert_array_equal(idx.numpy(), [1, 1, 1])
    assert paddle.median(x, mode="min").shape == []
    assert x.astype("float64").median().dtype == paddle.float64


def test_median_grad_splits_between_middle_elements():
    x = _t([3.0, 1.0, 4.0, 2.0], grad=True)
    paddle.median(x).backward()
    np.testing.assert_allclose(x.grad.numpy(), [0.5, 0, 0, 0.5])


def test_nanmedian():
    x = _t([[np.nan, 2., 3.], [0., 1., 2.]])
    assert float(x.nanmedian()) == 2.0
    np.testing.assert_allclose(x.nanmedian(0).numpy(), [0, 1.5, 2.5])
    vals, idx = paddle.nanmedian(x, 0, mode="min")
    np.testing.assert_allclose(vals.numpy(), [0, 1, 2])
    np.testing.assert_array_equal(idx.numpy(), [1, 1, 1])
    vals, idx = paddle.nanmedian(x, 1, mode="min")
    np.testing.assert_allclose(vals.numpy(), [2, 1])
    np.testing.assert_array_equal(idx.numpy(), [1, 1])
    assert np.isnan(paddle.nanmedian(_t([np.nan, np.nan])).numpy())


def test_quantile_nan_and_nearest_rounding():
    assert np.isnan(paddle.quantile(_t([1.0, np.nan, 3.0]), 0.5).numpy())
    # position 2.5 rounds half away from zero as Paddle does (numpy would pick 2)
    x = _t(np.arange(6.0))
    assert float(paddle.quantile(x, 0.5, interpolation="nearest")) == 3.0
    assert paddle.quantile(x, [0.1, 0.9]).shape == [2]


def test_kthvalue_mode_defaults():
    x = _t([[5.0, 1.0, 3.0], [2.0, 2.0, 0.0]])
    vals, idx = paddle.kthvalue(x, 2)
    np.testing.assert_allclose(vals.numpy(), [3, 2])
    assert idx.dtype == paddle.int64
    vals, idx = x.mode()
    np.testing.assert_allclose(vals.numpy(), [1, 2])
    np.testing.assert_array_equal(idx.numpy(), [1, 1])


def test_cumulative_flatten_and_methods(rng):
    a = rng.standard_normal((2, 3))
    x = _t(a)
    np.testing.assert_allclose(paddle.cumsum(x).numpy(), np.cumsum(a))
    np.testing.assert_allclose(x.cumsum(1).numpy(), np.cumsum(a, 1))
    np.testing.assert_allclose(x.cumprod(dim=0).numpy(), np.cumprod(a, 0))
    vals, idx = x.cummax(axis=1)
    assert idx.dtype == paddle.int64
    _, idx32 = paddle.cummin(x, axis=0, dtype="int32")
    assert idx32.dtype == paddle.int32
    np.testing.assert_allclose(x.logcumsumexp(0).numpy(), np.logaddexp.accumulate(a, 0))
    y = _t(a.copy())
    y.cumsum_(axis=1)
    np.testing.assert_allclose(y.numpy(), np.cumsum(a, 1))


def test_cummax_grad_goes_to_running_argmax():
    x = _t([1.0, 3.0, 2.0, 5.0], grad=True)
    vals, _ = paddle.cummax(x)
    vals.backward(paddle.to_tensor([1.0, 10.0, 100.0, 1000.0]))
    np.testing.assert_allclose(x.grad.numpy(), [1, 110, 0, 1000])


def test_logcumsumexp_large_values_grad():
    x = _t([1000.0, 1001.0, 999.0], grad=True)
    out = paddle.logcumsumexp(x)
    assert np.all(np.isfinite(out.numpy()))
    out.sum().backward()
    assert np.all(np.isfinite(x.grad.numpy()))


def test_cumprod_grad(rng):
    a = rng.uniform(0.5, 1.5, (2, 3))
    x = _t(a, grad=True)
    paddle.cumprod(x, dim=1).sum().backward()
    want = np.stack([[np.sum([np.prod(np.delete(r[:j + 1], i)) for j in range(i, 3)])
                      for i in range(3)] for r in a])
    np.testing.assert_allclose(x.grad.numpy(), want)


def test_diff(rng):
    a = rng.standard_normal((3, 4))
    x = _t(a, grad=True)
    np.testing.assert_allclose(paddle.diff(x).numpy(), np.diff(a))
    np.testing.assert_allclose(paddle.diff(x, n=2, axis=0).numpy(), np.diff(a, 2, axis=0))
    pre = rng.standard_normal((3, 1))
    np.testing.assert_allclose(paddle.diff(x, prepend=_t(pre), append=_t(pre)).numpy(),
                               np.diff(a, prepend=pre, append=pre))
    b = np.array([True, False, False, True])
    np.testing.assert_array_equal(paddle.diff(_t(b)).numpy(), np.diff(b))
    paddle.diff(x).sum().backward()
    want = np.zeros_like(a)
    want[:, 0], want[:, -1] = -1, 1
    np.testing.assert_allclose(x.grad.numpy(), want)


def test_trace_and_kron(rng):
    a = rng.standard_normal((3, 4))
    x = _t(a, grad=True)
    np.testing.assert_allclose(paddle.trace(x).numpy(), np.trace(a))
    np.testing.assert_allclose(paddle.trace(x, offset=1).numpy(), np.trace(a, 1))
    b = rng.standard_normal((2, 3, 4))
    np.testing.assert_allclose(paddle.trace(_t(b), 0, 1, 2).numpy(), np.trace(b, 0, 1, 2))
    paddle.trace(x).backward()
    np.testing.assert_allclose(x.grad.numpy(), np.eye(3, 4))
    y = rng.standard_normal((2, 2))
    np.testing.assert_allclose(paddle.kron(x, _t(y)).numpy(), np.kron(a, y))
    np.testing.assert_allclose(paddle.kron(_t(a[0]), _t(y)).numpy(), np.kron(a[0], y))


def test_errors():
    x = _t(np.ones((2, 3)))
    with pytest.raises(IndexError, match="sum: axis 2 is out of range"):
        paddle.sum(x, axis=2)
    with pytest.raises(IndexError, match="mean: axis -3"):
        paddle.mean(x, axis=[0, -3])
    with pytest.raises(TypeError, match="max: axis must be"):
        paddle.max(x, axis=1.5)
    with pytest.raises(ValueError, match=r"quantile: q must be in the range \[0, 1\]"):
        paddle.quantile(x, 1.5)
    with pytest.raises(ValueError, match="quantile: interpolation must be one of"):
        paddle.quantile(x, 0.5, interpolation="cubic")
    with pytest.raises(ValueError, match="median: mode must be 'avg' or 'min'"):
        paddle.median(x, mode="max")
    with pytest.raises(ValueError, match=r"kthvalue: k must be an int in \[1, 3\]"):
        paddle.kthvalue(x, 4)
    with pytest.raises(TypeError, match="cummax: dtype must be int32 or int64"):
        paddle.cummax(x, dtype="float32")
    with pytest.raises(IndexError, match="cumsum: axis 2 is out of range"):
        paddle.cumsum(x, axis=2)
    with pytest.raises(ValueError, match="max: x .*is empty"):
        paddle.max(_t(np.ones((0, 2))))
    with pytest.raises(ValueError, match="trace: x must have at least 2 dims"):
        paddle.trace(_t(np.ones(3)))


def test_median_min_index_of_a_slice_with_nan_is_its_first_nan():
    nan = float("nan")
    x = paddle.to_tensor(np.array([[1, nan, 3, nan], [1, 2, 3, 4], [nan, 1, 2, 3],
                                   [3, 2, nan, nan], [5, 4, 3, nan]]))
    val, idx = paddle.median(x, axis=1, mode="min")
    assert idx.tolist() == [1, 1, 0, 2, 3]          # Paddle 3.3.1's indices
    assert np.isnan(val.numpy()[[0, 2, 3, 4]]).all() and val.numpy()[1] == 2.0
    assert paddle.median(x, axis=0, mode="min")[1].tolist() == [2, 0, 3, 0]
    assert paddle.nanmedian(x, axis=1, mode="min")[1].tolist() == [0, 1, 2, 1, 1]
