"""Tests of the indexing family beyond the op database: __getitem__/__setitem__ semantics,
in-place behaviour and gradients, error messages, Tensor method binding."""
import numpy as np
import pytest

import sampan as paddle
from sampan.ops.indexing import index_shape
from sampan.ops.opdef import TensorSpec


def _t(a, grad=False):
    t = paddle.to_tensor(np.asarray(a))
    t.stop_gradient = not grad
    return t


X = np.arange(60, dtype=np.float64).reshape(3, 4, 5)


@pytest.mark.parametrize("key", [
    0, -1, (1, 2, 3), (-3, -4, -5), slice(None, None, -1), (Ellipsis, 2), (None, 1, None),
    (slice(1, None), None, slice(None, None, 2)), [2, 0, 2], ([0, 2], [1, 3]),
    (slice(None), [0, 3], [1, 4]), ([0, 2], slice(None), [1, 4]), (1, slice(None), [0, 4]),
    (Ellipsis, [[0, 1], [2, 3]]), ([0, 1], None, [1, 2]), (X[:, 0, 0] > 10,),
    (slice(None), X[0, :, 0] % 10 == 0), (X[..., 0] > 22, 1), (X > 30,), (True,),
    (np.array([], np.int64),), (slice(10, 20),),
])
def test_getitem_matches_numpy(key):
    got = _t(X)[key]
    want = X[key]
    assert got.shape == list(want.shape)
    np.testing.assert_array_equal(got.numpy(), want)


def test_getitem_tensor_keys_and_0d():
    x = _t(X)
    assert x[_t(np.array(2))].shape == [4, 5]
    assert x[1, 2, 3].shape == []
    assert float(x[1, 2, 3]) == X[1, 2, 3]
    np.testing.assert_array_equal(x[_t([0, 2]), 1].numpy(), X[[0, 2], 1])
    np.testing.assert_array_equal(x[_t(X[:, :, 0] > 20)].numpy(), X[X[:, :, 0] > 20])
    np.testing.assert_array_equal(x[_t(1):_t(3)].numpy(), X[1:3])
    np.testing.assert_array_equal(x[_t(np.array([1, 0], np.int32))].numpy(), X[[1, 0]])
    assert [r.shape for r in _t(X)] == [[4, 5]] * 3


def test_index_shape_agrees_with_numpy_fuzz():
    rng = np.random.default_rng(0)
    shape = (3, 4, 5, 2)
    pool = [0, -1, slice(None), slice(1, None, 2), None, Ellipsis, [0, 1], [[1], [0]],
            np.array([1, 0, 1])]
    for _ in range(300):
        n = rng.integers(1, 5)
        key = tuple(pool[i] for i in rng.integers(0, len(pool), n))
        if sum(k is Ellipsis for k in key) > 1:
            continue
        try:
            want = np.zeros(shape)[key].shape
        except IndexError:
            continue
        items, specs = [], []
        for k in key:
            if isinstance(k, slice):
                items.append([k.start, k.stop, k.step])
            elif k is Ellipsis:
                items.append("...")
            elif isinstance(k, (list, np.ndarray)):
                items.append("t")
                specs.append(TensorSpec(np.shape(k), "int64"))
            else:
                items.append(k)
        assert index_shape("getitem", shape, items, specs) == want, key


def test_getitem_grad_scatters_and_adds_repeats():
    x = _t(X, grad=True)
    y = x[[0, 0, 2], 1:3]
    y.sum().backward()
    want = np.zeros_like(X)
    np.add.at(want, ([0, 0, 2], slice(1, 3)), 1.0)
    np.testing.assert_array_equal(x.grad.numpy(), want)


def test_getitem_mask_grad():
    x = _t(X[0], grad=True)
    mask = _t(X[0] > 7)
    (x[mask] * 2).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), 2.0 * (X[0] > 7))


def test_getitem_then_inplace_change_still_backprops():
    w = _t([1.0, 2.0, 3.0], grad=True)
    h = w * 2
    a = h[0]
    h[1] = 0.0
    (a * 3 + h.sum()).backward()
    np.testing.assert_array_equal(w.grad.numpy(), [8.0, 0.0, 2.0])


@pytest.mark.parametrize("key,value", [
    (1, 7.0), ((0, slice(None), 0), [1.0, 2.0, 3.0, 4.0]),
    ((Ellipsis, slice(None, None, -2)), -1.0),
    ([2, 0], np.ones((2, 4, 5))), ((X[:, 0, 0] > 10,), 5.0), ((0, [1, 3], 2), [9.0, 8.0]),
    ((None, 0), np.full((1, 4, 5), 3.0)),
])
def test_setitem_matches_numpy(key, value):
    x = _t(X)
    x.stop_gradient = True
    before = x._version
    x[key] = value
    want = X.copy()
    want[key] = value
    np.testing.assert_array_equal(x.numpy(), want)
    assert x._version == before + 1


def test_setitem_casts_value_and_does_not_touch_other_views():
    x = _t(np.zeros((2, 3), np.int32))
    y = x[0]
    x[0, 1] = 2.7
    assert x.dtype == paddle.int32
    assert x.numpy()[0, 1] == 2
    assert y.numpy()[1] == 0  # earlier results are not modified


def test_setitem_tensor_value_grad():
    x = _t(np.zeros((3, 4)))
    v = _t(np.arange(4.0), grad=True)
    x[1:] = v  # value broadcast over two rows
    assert not x.stop_gradient
    (x * _t(np.arange(12.0).reshape(3, 4))).sum().backward()
    np.testing.assert_array_equal(v.grad.numpy(), [4 + 8, 5 + 9, 6 + 10, 7 + 11])


def test_setitem_grad_zeroes_region_for_x():
    w = _t(np.ones((2, 3)), grad=True)
    h = w * 3
    h[:, 1] = 0.0
    h.sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), [[3, 0, 3], [3, 0, 3]])


def test_setitem_on_leaf_requiring_grad_raises():
    w = _t(np.ones(3), grad=True)
    with pytest.raises(ValueError, match="setitem.*leaf"):
        w[0] = 2.0
    with paddle.no_grad():
        w[0] = 2.0
    assert w.numpy()[0] == 2.0


def test_index_errors():
    x = _t(X)
    with pytest.raises(IndexError, match=r"getitem: index 3 .*axis 0 with size 3"):
        x[3]
    with pytest.raises(IndexError, match=r"index -6 .*axis 2 with size 5"):
        x[0, 0, -6]
    with pytest.raises(IndexError, match="too many indices"):
        x[0, 0, 0, 0]
    with pytest.raises(IndexError, match="single ellipsis"):
        x[..., 0, ...]
    with pytest.raises(IndexError, match="getitem.*out of bounds|getitem.*out of range"):
        x[_t([0, 5])]
    with pytest.raises(IndexError, match="integer or bool"):
        x[_t([0.0, 1.0])]
    with pytest.raises(IndexError, match="bool mask"):
        x[np.array([True, False])]
    with pytest.raises(TypeError, match="unsupported index type"):
        x["a"]
    with pytest.raises(ValueError, match="step cannot be zero"):
        x[::0]
    y = _t(X)
    with pytest.raises(ValueError, match="setitem.*broadcast"):
        y[0] = np.ones((3, 5))
    with pytest.raises(IndexError, match=r"setitem: index 4 .*axis 1 with size 4"):
        y[0, 4] = 1.0


def test_along_axis_errors_and_semantics():
    arr = _t(np.arange(12.0).reshape(3, 4))
    with pytest.raises(IndexError, match=r"take_along_axis: index 4 .*size 4"):
        paddle.take_along_axis(arr, _t([[4]]), 1)
    with pytest.raises(ValueError, match="same number of dims"):
        paddle.take_along_axis(arr, _t([1]), 1)
    with pytest.raises(TypeError, match="int32 or int64"):
        paddle.take_along_axis(arr, _t([[1.0]]), 1)
    with pytest.raises(ValueError, match="reduce must be one of"):
        paddle.put_along_axis(arr, _t([[1]]), 1.0, 1, reduce="max")
    with pytest.raises(IndexError, match="put_along_axis: index -5"):
        paddle.put_along_axis(arr, _t([[-5]]), 1.0, 1)
    out = paddle.take_along_axis(arr, _t(np.array([[0], [3], [1]], np.int32)), 1)
    np.testing.assert_array_equal(out.numpy().ravel(), [0, 7, 9])
    arr.put_along_axis_(_t([[0], [1], [2]]), 0.0, 1)
    np.testing.assert_array_equal(np.diag(arr.numpy()), [0, 0, 0])


def test_take_along_axis_grad_with_broadcast_arr():
    arr = _t(np.arange(4.0).reshape(1, 4), grad=True)
    out = paddle.take_along_axis(arr, _t([[0, 0], [3, 1], [1, 1]]), 1)
    assert out.shape == [3, 2]
    out.sum().backward()
    np.testing.assert_array_equal(arr.grad.numpy(), [[2, 3, 0, 1]])


def test_family_errors():
    x = _t(np.arange(12.0).reshape(3, 4))
    with pytest.raises(IndexError, match=r"gather: index 3 .*axis 0 .*size 3"):
        paddle.gather(x, _t([0, 3]))
    with pytest.raises(ValueError, match="gather: index must be a 0-D or 1-D"):
        paddle.gather(x, _t([[0, 1], [1, 2]]))
    with pytest.raises(ValueError, match="index_select: index must be a 1-D"):
        paddle.index_select(x, _t(np.array(1)))
    with pytest.raises(IndexError, match="gather_nd: index 4 .*axis 1"):
        paddle.gather_nd(x, _t([[0, 4]]))
    with pytest.raises(ValueError, match="gather_nd: the last dim of index"):
        paddle.gather_nd(x, _t([[0, 1, 2]]))
    with pytest.raises(ValueError, match="scatter: updates must have shape"):
        paddle.scatter(x, _t([0]), _t(np.ones((2, 4))))
    with pytest.raises(IndexError, match="scatter: index 3"):
        paddle.scatter(x, _t([3]), _t(np.ones((1, 4))))
    with pytest.raises(ValueError, match="scatter_nd_add: updates must have shape"):
        paddle.scatter_nd_add(x, _t([[0]]), _t(np.ones(3)))
    with pytest.raises(ValueError, match="index_add: value must have shape"):
        paddle.index_add(x, _t([0]), 1, _t(np.ones((3, 2))))
    with pytest.raises(IndexError, match="take: index 12 .*size 12"):
        paddle.take(x, _t([12]))
    with pytest.raises(ValueError, match="take: mode must be"):
        paddle.take(x, _t([1]), mode="bad")
    with pytest.raises(IndexError, match="one_hot: class index 3"):
        paddle.one_hot(_t([0, 3]), 3)
    with pytest.raises(TypeError, match="masked_fill: mask must be a bool"):
        paddle.masked_fill(x, _t(np.ones((3, 4))), 0.0)
    with pytest.raises(ValueError, match="masked_fill.*cannot be broadcast"):
        paddle.masked_fill(x, _t(np.ones(3, bool)), 0.0)
    with pytest.raises(ValueError, match="diagonal: axis1 and axis2 must differ"):
        paddle.diagonal(x, 0, 1, -1)
    with pytest.raises(ValueError, match="diagonal_scatter: y must have the shape"):
        paddle.diagonal_scatter(x, _t(np.ones(4)))
    with pytest.raises(ValueError, match="strided_slice: strides must not be 0"):
        paddle.strided_slice(x, [0], [0], [2], [0])
    with pytest.raises(ValueError, match="slice: axes, starts, ends"):
        paddle.slice(x, [0, 1], [0], [1])


def test_family_values():
    x = _t(np.arange(12.0).reshape(3, 4))
    np.testing.assert_array_equal(paddle.gather(x, _t(1), axis=1).numpy(), [1, 5, 9])
    out = paddle.scatter(x, _t([1, 1]), _t(np.ones((2, 4))), overwrite=False)
    np.testing.assert_array_equal(out.numpy()[1], [2, 2, 2, 2])
    out = paddle.scatter_nd(_t([[1], [1]]), _t(np.ones((2, 2))), [3, 2])
    np.testing.assert_array_equal(out.numpy(), [[0, 0], [2, 2], [0, 0]])
    np.testing.assert_array_equal(paddle.take(x, _t([-1, 13]), mode="clip").numpy(), [0, 11])
    out = paddle.index_put(x, (_t([0, 0]), _t([1, 1])), _t(1.0), accumulate=True)
    assert out.numpy()[0, 1] == 3.0
    out = paddle.put_along_axis(x, _t([[0, 0]]), _t([[5.0, 7.0]]), 1, reduce="mean",
                                include_self=False)
    np.testing.assert_array_equal(out.numpy()[:, 0], [6, 6, 6])
    assert paddle.one_hot(_t([1]), 2).dtype == paddle.float32


def test_methods_and_inplace_variants():
    x = _t(np.arange(6.0).reshape(2, 3))
    np.testing.assert_array_equal(x.index_select(_t([2]), axis=1).numpy(), [[2], [5]])
    np.testing.assert_array_equal(x.gather(_t([1])).numpy(), [[3, 4, 5]])
    np.testing.assert_array_equal(x.diagonal().numpy(), [0, 4])
    y = x.masked_fill_(_t(np.array([True, False, False])), -1.0)
    assert y is x and x.numpy()[1, 0] == -1.0
    x.index_fill_(_t([2]), 1, 9.0)
    np.testing.assert_array_equal(x.numpy()[:, 2], [9, 9])
    x.scatter_(_t([0]), _t(np.zeros((1, 3))))
    np.testing.assert_array_equal(x.numpy()[0], [0, 0, 0])


def test_composites_have_gradients():
    x = _t(np.arange(12.0).reshape(3, 4), grad=True)
    paddle.strided_slice(x, [1], [3], [0], [-2]).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy()[0], [0, 1, 0, 1])
    x.clear_grad()
    v = _t(np.ones(4), grad=True)
    out = paddle.select_scatter(x * 1, v * 2, 0, 1)
    (out * out).sum().backward()
    np.testing.assert_array_equal(v.grad.numpy(), [8, 8, 8, 8])
    np.testing.assert_array_equal(x.grad.numpy()[1], [0, 0, 0, 0])


def test_put_along_axis_amax_grad_goes_to_winner():
    arr = _t(np.array([[1.0, 5.0]]), grad=True)
    vals = _t(np.array([[3.0, 2.0]]), grad=True)
    out = paddle.put_along_axis(arr, _t([[0, 1]]), vals, 1, reduce="amax")
    np.testing.assert_array_equal(out.numpy(), [[3, 5]])
    out.sum().backward()
    np.testing.assert_array_equal(arr.grad.numpy(), [[0, 1]])
    np.testing.assert_array_equal(vals.grad.numpy(), [[1, 0]])


def test_json_serializable_attrs():
    import json
    from sampan.tensor.indexing import encode_index
    items, tensors = encode_index(_t(X), (Ellipsis, None, slice(1, None, -1), [0, 1], 2))
    assert json.loads(json.dumps(items)) == items
    assert len(tensors) == 1
    assert items == ["...", None, [1, None, -1], "t", 2]
