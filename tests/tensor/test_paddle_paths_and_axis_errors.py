"""Axis-out-of-range errors are both IndexError and ValueError (Paddle raises ValueError in
most APIs), Paddle's module paths (paddle.tensor.math.nanmean, ...) and
paddle.tensor.random.gaussian."""
import numpy as np
import pytest

import sampan as paddle


@pytest.mark.parametrize("call", [
    lambda x: paddle.rot90(x, k=1, axes=[0, 3]),
    lambda x: paddle.topk(x, 1, axis=5),
    lambda x: paddle.count_nonzero(x, axis=10),
    lambda x: paddle.nn.functional.glu(x, axis=4),
    lambda x: paddle.nn.functional.normalize(x, axis=7)])
def test_axis_out_of_range_is_value_and_index_error(call):
    x = paddle.ones([2, 4])
    with pytest.raises(ValueError, match="out of range"):
        call(x)
    with pytest.raises(IndexError, match="out of range"):
        call(x)


def test_paddle_module_paths():
    assert paddle.tensor.math.nanmean is paddle.nanmean
    assert paddle.tensor.math.count_nonzero is paddle.count_nonzero
    assert paddle.tensor.math.vander is paddle.vander


def test_gaussian_seed_shape_dtype():
    a = paddle.tensor.random.gaussian([200, 50], mean=1.0, std=2.0, seed=7, dtype="float64")
    b = paddle.tensor.random.gaussian([200, 50], mean=1.0, std=2.0, seed=7, dtype="float64")
    assert a.dtype == paddle.float64 and a.shape == [200, 50]
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert abs(a.numpy().mean() - 1.0) < 0.1 and abs(a.numpy().std() - 2.0) < 0.1
    with pytest.raises(TypeError, match="gaussian: dtype"):
        paddle.tensor.random.gaussian([2], dtype="int32")


def test_sgn_refuses_integer_tensors_and_take_numpy_indices():
    with pytest.raises(TypeError, match="sgn: x must be a floating point or complex"):
        paddle.sgn(paddle.to_tensor([1, -2], dtype="int32"))
    np.testing.assert_allclose(paddle.sgn(paddle.to_tensor([-2.0, 0.0, 3.0])).numpy(),
                               [-1.0, 0.0, 1.0])
    x = paddle.arange(6)
    with pytest.raises(TypeError, match="take: index must be a Tensor, got ndarray"):
        paddle.take(x, np.array([1, 2]))
    assert paddle.take(x, paddle.to_tensor([1, 2])).tolist() == [1, 2]


def test_corrcoef_refuses_complex_input():
    with pytest.raises(TypeError, match="corrcoef: x must be a real"):
        paddle.linalg.corrcoef(paddle.to_tensor([1 + 1j, 2 + 0j]))
    np.testing.assert_allclose(paddle.linalg.corrcoef(
        paddle.to_tensor([[1.0, 2.0, 3.0], [2.0, 4.0, 7.0]])).numpy(),
        np.corrcoef([[1.0, 2.0, 3.0], [2.0, 4.0, 7.0]]), rtol=1e-6)


@pytest.mark.parametrize("api", ["inner", "outer"])
def test_inner_outer_take_tensors_only(api):
    t = paddle.to_tensor([1.0, 2.0])
    for x, y in ((np.ones(2), t), (t, np.ones(2)), (np.ones(2), np.ones(2))):
        with pytest.raises(TypeError, match=f"{api}: . must be a Tensor, got ndarray"):
            getattr(paddle, api)(x, y)
    assert getattr(paddle, api)(t, t).numpy().sum() == (5.0 if api == "inner" else 9.0)


def test_frac_dtypes_as_paddle():
    for dtype in ("int16", "uint8", "bool"):
        with pytest.raises(TypeError, match="frac: x must be an int32, int64 or floating"):
            paddle.frac(paddle.to_tensor([1, 0], dtype=dtype))
    assert paddle.frac(paddle.to_tensor([3, -2], dtype="int32")).tolist() == [0, 0]


def test_tensordot_axes_errors_are_paddles():
    x, y = paddle.ones([3, 4, 4]), paddle.ones([4, 4, 5])
    with pytest.raises(AssertionError):
        paddle.tensordot(x, y, axes=-1)
    with pytest.raises(IndexError):
        paddle.tensordot(x, y, axes=100)
    with pytest.raises(AssertionError):
        paddle.tensordot(x, y, axes=[[1, 2], [0, -1]])
    with pytest.raises(AssertionError):
        paddle.tensordot(x, y, axes=[0, 1, 2, 3])
    assert paddle.tensordot(x, y, axes=paddle.to_tensor([1])).shape == [3, 4, 4, 5]


@pytest.mark.parametrize("fn", [paddle.linalg.svd_lowrank, paddle.linalg.pca_lowrank])
def test_lowrank_refuses_numpy_input_with_paddles_value_error(fn):
    with pytest.raises(ValueError, match="must be a Tensor"):
        fn(np.ones((4, 3), "float32"))


def test_median_of_a_list_is_a_type_error():
    with pytest.raises(TypeError, match="median: x must be a Tensor"):
        paddle.median([1, 2, 3, 4])


def test_lowrank_niter_and_median_axis_errors_are_value_errors():
    x = paddle.rand([4, 3])
    for fn in (paddle.linalg.svd_lowrank, paddle.linalg.pca_lowrank):
        with pytest.raises(ValueError, match="niter"):
            fn(x, niter=-1)
    with pytest.raises(ValueError, match="axis must be an int"):
        paddle.median(paddle.arange(12).reshape([3, 4]), 1.0)


def test_bucketize_refuses_a_numpy_x_with_paddles_value_error():
    with pytest.raises(ValueError, match="bucketize: x must be a Tensor"):
        paddle.bucketize(np.array([1.0]), paddle.to_tensor([0.0, 2.0]))
