"""Search and sort functions: argument forms, multi-output flags, gradients, errors."""
import numpy as np
import pytest

import sampan as paddle


def _t(values, dtype=None, grad=False):
    t = paddle.to_tensor(values, dtype=dtype)
    t.stop_gradient = not grad
    return t


def test_where_scalars_and_promotion():
    x = _t([1.0, -2.0, 3.0])
    out = paddle.where(x > 0, x, 0.0)
    np.testing.assert_array_equal(out.numpy(), [1.0, 0.0, 3.0])
    assert out.dtype == paddle.float32
    out = paddle.where(x > 0, _t([1, 2, 3], "int32"), _t([1.5, 2.5, 3.5], "float64"))
    assert out.dtype == paddle.float64
    np.testing.assert_array_equal(out.numpy(), [1.0, 2.5, 3.0])
    np.testing.assert_array_equal(paddle.where(x > 0, 1, 2).numpy(), [1, 2, 1])


def test_where_gradient_splits_by_condition():
    x, y = _t([1.0, 2.0, 3.0], grad=True), _t([4.0, 5.0, 6.0], grad=True)
    out = paddle.where(_t([True, False, True]), x, y)
    gx, gy = paddle.grad([out.sum()], [x, y])
    np.testing.assert_array_equal(gx.numpy(), [1.0, 0.0, 1.0])
    np.testing.assert_array_equal(gy.numpy(), [0.0, 1.0, 0.0])


def test_where_single_argument_is_nonzero_tuple():
    cond = _t([[True, False], [False, True]])
    rows, cols = paddle.where(cond)
    assert rows.shape == [2]  # Paddle 3.3.1: 1-D index tensors
    np.testing.assert_array_equal(rows.numpy().ravel(), [0, 1])
    np.testing.assert_array_equal(cols.numpy().ravel(), [0, 1])


def test_where_errors():
    with pytest.raises(ValueError, match="where: x and y must both be given"):
        paddle.where(_t([True]), _t([1.0]))
    with pytest.raises(TypeError, match="where: condition must be a bool tensor, got float32"):
        paddle.where(_t([1.0]), _t([1.0]), _t([2.0]))
    with pytest.raises(ValueError, match="where: .*cannot be broadcast"):
        paddle.where(_t([True, False]), _t([1.0, 2.0, 3.0]), _t([1.0]))


def test_where_inplace_updates_x():
    x = _t([1.0, 2.0, 3.0])
    res = paddle.where_(_t([True, False, True]), x, _t([0.0, 0.0, 0.0]))
    assert res is x
    np.testing.assert_array_equal(x.numpy(), [1.0, 0.0, 3.0])


def test_argmax_argmin_forms():
    x = _t([[1.0, 5.0, 2.0], [7.0, 0.0, 3.0]])
    assert int(paddle.argmax(x)) == 3 and paddle.argmax(x).shape == []
    np.testing.assert_array_equal(x.argmax(axis=1).numpy(), [1, 0])
    assert paddle.argmin(x, axis=0, keepdim=True).shape == [1, 3]
    assert paddle.argmax(x, axis=1, dtype="int32").dtype == paddle.int32
    assert int(paddle.argmax(_t(3.0))) == 0


def test_argmax_errors():
    x = _t([[1.0, 2.0]])
    with pytest.raises(IndexError, match="argmax: axis 2 is out of range"):
        paddle.argmax(x, axis=2)
    with pytest.raises(TypeError, match="argmax: dtype must be int32 or int64, got float32"):
        paddle.argmax(x, dtype="float32")
    with pytest.raises(TypeError, match="argmin: axis must be an int, got list"):
        paddle.argmin(x, axis=[0])
    with pytest.raises(ValueError, match="argmax: cannot reduce the empty axis"):
        paddle.argmax(paddle.to_tensor(np.zeros((0, 2))), axis=0)


def test_sort_argsort_descending_stable():
    x = _t([2, 1, 2, 3, 1])
    np.testing.assert_array_equal(paddle.argsort(x).numpy(), [1, 4, 0, 2, 3])
    np.testing.assert_array_equal(paddle.argsort(x, descending=True).numpy(),
                                  [3, 0, 2, 1, 4])
    np.testing.assert_array_equal(paddle.sort(x, descending=True).numpy(), [3, 2, 2, 1, 1])
    assert x.argsort().dtype == paddle.int64


def test_sort_gradient_follows_permutation():
    x = _t([3.0, 1.0, 2.0], grad=True)
    out = paddle.sort(x)
    (g,) = paddle.grad([(out * _t([1.0, 10.0, 100.0])).sum()], [x])
    np.testing.assert_array_equal(g.numpy(), [100.0, 1.0, 10.0])


def test_sort_axis_error():
    with pytest.raises(IndexError, match="sort: axis 3 is out of range"):
        paddle.sort(_t([[1.0]]), axis=3)


def test_topk_forms_and_gradient():
    x = _t([[1.0, 4.0, 3.0], [6.0, 5.0, 2.0]], grad=True)
    values, indices = paddle.topk(x, 2)
    np.testing.assert_array_equal(values.numpy(), [[4.0, 3.0], [6.0, 5.0]])
    np.testing.assert_array_equal(indices.numpy(), [[1, 2], [0, 1]])
    assert indices.dtype == paddle.int64 and indices.stop_gradient
    values, indices = paddle.topk(x, _t(1), axis=0, largest=False)
    np.testing.assert_array_equal(indices.numpy(), [[0, 0, 1]])
    (g,) = paddle.grad([paddle.topk(x, 1)[0].sum()], [x])
    np.testing.assert_array_equal(g.numpy(), [[0, 1, 0], [1, 0, 0]])


def test_topk_k_too_large():
    with pytest.raises(ValueError, match=r"topk: k must be in \[0, 3\].*got 4"):
        paddle.topk(_t([1.0, 2.0, 3.0]), 4)


def test_nonzero_and_masked_select():
    x = _t([[0.0, 1.5], [2.0, 0.0]])
    np.testing.assert_array_equal(paddle.nonzero(x).numpy(), [[0, 1], [1, 0]])
    assert paddle.nonzero(x).dtype == paddle.int64
    np.testing.assert_array_equal(paddle.masked_select(x, x > 1).numpy(), [1.5, 2.0])


def test_masked_select_gradient_and_errors():
    x = _t([1.0, 2.0, 3.0], grad=True)
    out = paddle.masked_select(x, _t([True, False, True]))
    (g,) = paddle.grad([(out * _t([5.0, 7.0])).sum()], [x])
    np.testing.assert_array_equal(g.numpy(), [5.0, 0.0, 7.0])
    with pytest.raises(TypeError, match="masked_select: mask must be a bool tensor, got int64"):
        paddle.masked_select(x, _t([1, 0, 1]))


def test_masked_scatter_value_too_small():
    with pytest.raises(ValueError, match="masked_scatter: value has 1 elements but mask "
                                         "selects 2"):
        paddle.masked_scatter(_t([1.0, 2.0]), _t([True, True]), _t([9.0]))


def test_index_sample_errors():
    with pytest.raises(ValueError, match="index_sample: x and index must be 2-D"):
        paddle.index_sample(_t([1.0, 2.0]), _t([0]))
    with pytest.raises(TypeError, match="index_sample: index must be int32 or int64"):
        paddle.index_sample(_t([[1.0, 2.0]]), _t([[0.0]]))


def test_searchsorted_and_bucketize():
    seq = _t([1, 3, 5, 7])
    np.testing.assert_array_equal(paddle.searchsorted(seq, _t([3, 6])).numpy(), [1, 3])
    np.testing.assert_array_equal(paddle.searchsorted(seq, _t([3]), right=True).numpy(), [2])
    assert paddle.searchsorted(seq, _t([3]), out_int32=True).dtype == paddle.int32
    np.testing.assert_array_equal(paddle.bucketize(_t([0, 4, 9]), seq).numpy(), [0, 2, 4])
    with pytest.raises(ValueError, match="searchsorted: the leading dims of sorted_sequence"):
        paddle.searchsorted(_t([[1, 2], [3, 4]]), _t([[1], [2], [3]]))
    with pytest.raises(ValueError, match="bucketize: sorted_sequence must be 1-D"):
        paddle.bucketize(_t([1]), _t([[1, 2]]))


def test_unique_flags_select_outputs():
    x = _t([2, 3, 3, 1, 5, 3])
    out = paddle.unique(x)
    assert isinstance(out, paddle.Tensor)
    np.testing.assert_array_equal(out.numpy(), [1, 2, 3, 5])
    out, inverse, counts = paddle.unique(x, return_inverse=True, return_counts=True)
    np.testing.assert_array_equal(inverse.numpy(), [1, 2, 2, 0, 3, 2])
    np.testing.assert_array_equal(counts.numpy(), [1, 1, 3, 1])
    out, index = paddle.unique(x, return_index=True, dtype="int32")
    np.testing.assert_array_equal(index.numpy(), [3, 0, 1, 4])
    assert index.dtype == paddle.int32
    with pytest.raises(TypeError, match="unique: dtype must be int32 or int64"):
        paddle.unique(x, dtype="float32")


def test_unique_consecutive():
    x = _t([1, 1, 2, 2, 3, 1, 1, 2])
    out, inverse, counts = paddle.unique_consecutive(x, return_inverse=True,
                                                     return_counts=True)
    np.testing.assert_array_equal(out.numpy(), [1, 2, 3, 1, 2])
    np.testing.assert_array_equal(inverse.numpy(), [0, 0, 1, 1, 2, 3, 3, 4])
    np.testing.assert_array_equal(counts.numpy(), [2, 2, 1, 2, 1])


def test_histogram_and_bincount():
    np.testing.assert_array_equal(paddle.histogram(_t([1, 2, 1]), bins=4, min=0, max=3)
                                  .numpy(), [0, 2, 1, 0])
    assert paddle.histogram(_t([1.0, 2.0]), bins=2).dtype == paddle.int64
    with pytest.raises(ValueError, match="histogram: min must not exceed max"):
        paddle.histogram(_t([1.0]), bins=2, min=2, max=1)
    np.testing.assert_array_equal(paddle.bincount(_t([0, 1, 1, 3])).numpy(), [1, 2, 0, 1])
    w = paddle.bincount(_t([0, 1, 1]), weights=_t([0.5, 1.0, 2.0]))
    assert w.dtype == paddle.float32
    np.testing.assert_allclose(w.numpy(), [0.5, 3.0])
    with pytest.raises(ValueError, match="bincount: the elements of x must be non-negative"):
        paddle.bincount(_t([1, -1]))
    with pytest.raises(ValueError, match="bincount: x must be a 1-D integer tensor"):
        paddle.bincount(_t([1.0]))
