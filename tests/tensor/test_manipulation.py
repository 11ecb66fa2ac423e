"""Shape manipulation beyond the op database: error messages, composites, in-place variants,
argument forms (Tensor shapes/axes), method binding and gradients of composites."""
import numpy as np
import pytest

import sampan as paddle


def _t(a, grad=False):
    t = paddle.to_tensor(np.asarray(a))
    t.stop_gradient = not grad
    return t


def _x(*shape):
    return _t(np.arange(int(np.prod(shape)), dtype="float64").reshape(shape))


# --- error messages ------------------------------------------------------------------------

def test_reshape_errors():
    with pytest.raises(ValueError, match=r"reshape: cannot reshape x of shape \[2, 3\]"):
        paddle.reshape(_x(2, 3), [4, 2])
    with pytest.raises(ValueError, match="only one dim of shape may be -1"):
        paddle.reshape(_x(2, 3), [-1, -1])
    with pytest.raises(TypeError, match="reshape: shape must be a list"):
        paddle.reshape(_x(2, 3), "6")


def test_transpose_errors():
    with pytest.raises(ValueError, match=r"transpose: perm \[0, 0\] is not a permutation"):
        paddle.transpose(_x(2, 3), [0, 0])
    with pytest.raises(ValueError, match=r"shape \[2, 3\]"):
        paddle.transpose(_x(2, 3), [1, 0, 2])
    with pytest.raises(TypeError, match="transpose: perm must be a list"):
        paddle.transpose(_x(2, 3), 1)


def test_concat_errors():
    with pytest.raises(ValueError, match=r"concat: all inputs must have the same rank.*"
                                         r"\[\[2, 3\], \[3\]\]"):
        paddle.concat([_x(2, 3), _x(3)])
    with pytest.raises(ValueError, match=r"concat: input 1 has shape \[2, 4\].*axis 0"):
        paddle.concat([_x(2, 3), _x(2, 4)], axis=0)
    with pytest.raises(TypeError, match="concat: all inputs must have the same dtype"):
        paddle.concat([_x(2), _t(np.arange(2, dtype="int32"))])
    with pytest.raises(IndexError, match="concat: axis 2 is out of range"):
        paddle.concat([_x(2, 3), _x(2, 3)], axis=2)
    with pytest.raises(TypeError, match="concat: x must be a list or tuple"):
        paddle.concat(_x(2, 3))
    with pytest.raises(ValueError, match="0-D tensors cannot be concatenated"):
        paddle.concat([_t(1.0), _t(2.0)])


def test_split_errors():
    with pytest.raises(ValueError, match=r"split: sections \[2, 2\] sum to 4 but dim 1 of x "
                                         r"\(shape \[3, 5\]\) is 5"):
        paddle.split(_x(3, 5), [2, 2], axis=1)
    with pytest.raises(ValueError, match=r"dim 1 of x \(shape \[3, 5\]\) is 5, which cannot "
                                         r"be split into 2 equal sections"):
        paddle.split(_x(3, 5), 2, axis=1)
    with pytest.raises(ValueError, match="at most one -1"):
        paddle.split(_x(3, 5), [-1, -1], axis=1)
    with pytest.raises(ValueError, match=r"chunk|split"):
        paddle.chunk(_x(3, 5), 2, axis=1)


def test_stack_tile_expand_errors():
    with pytest.raises(ValueError, match=r"stack: all inputs must have the same shape"):
        paddle.stack([_x(2, 3), _x(3, 2)])
    with pytest.raises(ValueError, match="tile: repeat_times must be non-negative"):
        paddle.tile(_x(2), [-1])
    with pytest.raises(TypeError, match="tile: repeat_times must be a list"):
        paddle.tile(_x(2), 2)
    with pytest.raises(ValueError, match=r"expand: dim 0 of x \(shape \[2, 3\]\) is 2 and "
                                         r"cannot be expanded to 4"):
        paddle.expand(_x(2, 3), [4, 3])
    with pytest.raises(ValueError, match="-1 may only keep existing dims"):
        paddle.expand(_x(2), [-1, 2])
    with pytest.raises(ValueError, match="broadcast_shape: shape of x_shape"):
        paddle.broadcast_shape([2, 3], [4])


def test_misc_errors():
    with pytest.raises(ValueError, match="flatten: start_axis .* must not be after stop_axis"):
        paddle.flatten(_x(2, 3, 4), 2, 1)
    with pytest.raises(IndexError, match="unsqueeze: axis 4 is out of range"):
        paddle.unsqueeze(_x(2, 3), 4)
    with pytest.raises(IndexError, match="squeeze: axis 3 is out of range"):
        paddle.squeeze(_x(2, 1), 3)
    with pytest.raises(ValueError, match="flip: axis .* repeats an axis"):
        paddle.flip(_x(2, 3), [0, -2])
    with pytest.raises(ValueError, match="roll: shifts .* and axis .* must have the same"):
        paddle.roll(_x(2, 3), [1, 2], axis=[0])
    with pytest.raises(ValueError, match="rot90: axes must hold exactly 2 dims"):
        paddle.rot90(_x(2, 3), axes=[0])
    with pytest.raises(ValueError, match="t: input must have at most 2 dims"):
        paddle.t(_x(2, 3, 4))
    with pytest.raises(ValueError, match="repeat_interleave: repeats has 2 entries but dim 1"):
        paddle.repeat_interleave(_x(2, 3), [1, 2], axis=1)
    with pytest.raises(ValueError, match="crop: the box at offsets"):
        paddle.crop(_x(3, 4), [2, 2], [2, 3])
    with pytest.raises(ValueError, match=r"as_complex: the last dim of x must be 2"):
        paddle.as_complex(_x(2, 3))
    with pytest.raises(TypeError, match="as_real: x must be complex"):
        paddle.as_real(_x(2, 3))
    with pytest.raises(ValueError, match="unfold: size 5 must be in"):
        paddle.unfold(_x(4), 0, 5, 1)
    with pytest.raises(ValueError, match="shard_index: shard_id must be in"):
        paddle.shard_index(_t(np.zeros((2, 1), "int64")), 10, 2, 2)
    with pytest.raises(ValueError, match="view: cannot view x"):
        paddle.view(_x(3), "complex128")


def test_pad_errors():
    with pytest.raises(ValueError, match=r"pad: reflect padding of dim 2 \(size 3"):
        paddle.pad(_x(1, 1, 3), [3, 0], mode="reflect")
    with pytest.raises(ValueError, match="pad: mode must be one of"):
        paddle.pad(_x(1, 1, 3), [1, 0], mode="mirror")
    with pytest.raises(ValueError, match="needs a 3-D, 4-D or 5-D x"):
        paddle.pad(_x(3), [1, 0], mode="replicate")
    with pytest.raises(ValueError, match="data_format must be one of"):
        paddle.pad(_x(1, 1, 3), [1, 0], mode="reflect", data_format="NCHW")
    with pytest.raises(ValueError, match="even number"):
        paddle.pad(_x(2, 3), [1, 0, 1])
    with pytest.raises(ValueError, match="at most 4 values"):
        paddle.pad(_x(2, 3), [1] * 6)


# --- argument forms --------------------------------------------------------------------------

def test_tensor_arguments():
    x = _x(2, 3, 4)
    assert paddle.reshape(x, [_t(4), -1]).shape == [4, 6]
    assert paddle.reshape(x, _t(np.array([6, 4]))).shape == [6, 4]
    assert paddle.concat([x, x], axis=_t(1)).shape == [2, 6, 4]
    parts = paddle.split(x, [_t(1), 3], axis=_t(-1))
    assert [p.shape for p in parts] == [[2, 3, 1], [2, 3, 3]]
    assert paddle.expand(_x(3, 1), [_t(2), 3, -1]).shape == [2, 3, 1]
    assert paddle.tile(_x(2), _t(np.array([2, 2]))).shape == [2, 4]
    assert paddle.unsqueeze(_x(2), _t(np.array([0, 2]))).shape == [1, 2, 1]
    assert paddle.crop(x, shape=[1, _t(2), -1], offsets=_t(np.array([1, 1, 1]))).shape == \
        [1, 2, 3]


def test_squeeze_unsqueeze_semantics():
    x = _x(1, 3, 1)
    assert paddle.squeeze(x).shape == [3]
    assert paddle.squeeze(x, axis=1).shape == [1, 3, 1]  # non-1 dims are kept
    assert paddle.squeeze(x, axis=(0, 2)).shape == [3]
    assert paddle.unsqueeze(_x(2, 3), [0, -1]).shape == [1, 2, 3, 1]
    assert paddle.flatten(_t(2.0)).shape == [1]


# --- composites ------------------------------------------------------------------------------

def test_moveaxis_t_rot90_reverse():
    a = np.arange(24.0).reshape(2, 3, 4)
    x = _t(a)
    np.testing.assert_array_equal(paddle.moveaxis(x, 0, -1).numpy(), np.moveaxis(a, 0, -1))
    np.testing.assert_array_equal(paddle.moveaxis(x, [0, 1], [2, 0]).numpy(),
                                  np.moveaxis(a, [0, 1], [2, 0]))
    m = _x(2, 3)
    np.testing.assert_array_equal(paddle.t(m).numpy(), m.numpy().T)
    v = _x(3)
    assert paddle.t(v) is v
    for k in (-1, 0, 1, 2, 3, 5):
        np.testing.assert_array_equal(paddle.rot90(x, k, [1, 2]).numpy(),
                                      np.rot90(a, k, (1, 2)))
    np.testing.assert_array_equal(paddle.reverse(x, [0, 2]).numpy(), a[::-1, :, ::-1])


def test_split_family():
    a = np.arange(30.0).reshape(5, 6)
    x = _t(a)
    for got, want in zip(paddle.chunk(x, 3, axis=1), np.split(a, 3, axis=1)):
        np.testing.assert_array_equal(got.numpy(), want)
    for got, want in zip(paddle.unbind(x, 1), [a[:, i] for i in range(6)]):
        np.testing.assert_array_equal(got.numpy(), want)
    assert len(paddle.unstack(x, axis=0)) == 5
    with pytest.raises(ValueError, match="unstack: num"):
        paddle.unstack(x, num=3)
    for got, want in zip(paddle.tensor_split(x, 3), np.array_split(a, 3)):
        np.testing.assert_array_equal(got.numpy(), want)
    for got, want in zip(paddle.tensor_split(x, [1, 4, 10], axis=1),
                         np.array_split(a, [1, 4, 10], axis=1)):
        np.testing.assert_array_equal(got.numpy(), want)
    assert [p.shape for p in paddle.vsplit(x, [2])] == [[2, 6], [3, 6]]
    assert [p.shape for p in paddle.hsplit(x, 2)] == [[5, 3], [5, 3]]
    assert [p.shape for p in paddle.hsplit(_x(4), 2)] == [[2], [2]]
    assert [p.shape for p in paddle.dsplit(_x(1, 2, 4), [1])] == [[1, 2, 1], [1, 2, 3]]
    with pytest.raises(ValueError, match="dsplit: x must have at least 3 dims"):
        paddle.dsplit(x, 2)


def test_broadcast_helpers():
    a, b = _x(2, 1), _x(3)
    outs = paddle.broadcast_tensors([a, b])
    assert [o.shape for o in outs] == [[2, 3], [2, 3]]
    assert paddle.broadcast_shape([2, 1, 3], [4, 1]) == [2, 4, 3]
    assert paddle.broadcast_to(_x(3), [2, 3]).shape == [2, 3]


def test_view_unflatten_atleast():
    x = _x(2, 6)
    assert paddle.view(x, [3, 4]).shape == [3, 4]
    assert paddle.view_as(x, _x(4, 3)).shape == [4, 3]
    assert paddle.unflatten(x, 1, [2, -1]).shape == [2, 2, 3]
    assert paddle.unflatten(x, -1, (3, 2)).shape == [2, 3, 2]
    with pytest.raises(ValueError, match="unflatten: shape"):
        paddle.unflatten(x, 1, [4, 2])
    assert paddle.atleast_1d(_t(1.0)).shape == [1]
    assert paddle.atleast_2d(_x(3)).shape == [1, 3]
    assert paddle.atleast_3d(_x(3)).shape == [1, 3, 1]
    assert paddle.atleast_3d(_x(2, 3)).shape == [2, 3, 1]
    outs = paddle.atleast_2d(_t(1.0), _x(2, 2, 2))
    assert [o.shape for o in outs] == [[1, 1], [2, 2, 2]]


def test_tensordot():
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((2, 3, 4)), rng.standard_normal((3, 4, 5))
    x, y = _t(a, True), _t(b, True)
    np.testing.assert_allclose(paddle.tensordot(x, y).numpy(), np.tensordot(a, b), 1e-12)
    bt = b.transpose(1, 2, 0)
    np.testing.assert_allclose(paddle.tensordot(x, _t(bt), [[1], [2]]).numpy(),
                               np.tensordot(a, bt, [[1], [2]]), 1e-12)
    b2 = b.transpose(0, 2, 1)  # the shorter axes list [0] is extended to [0, 2]
    np.testing.assert_allclose(paddle.tensordot(x, _t(b2), [[1, 2], [0]]).numpy(),
                               np.tensordot(a, b2, [[1, 2], [0, 2]]), 1e-12)
    sq = rng.standard_normal((3, 3))
    np.testing.assert_allclose(paddle.tensordot(_t(sq), _t(sq), [0, 1]).numpy(),
                               np.tensordot(sq, sq, [[0, 1], [0, 1]]), 1e-12)
    np.testing.assert_allclose(paddle.tensordot(x, y, 0).numpy(), np.tensordot(a, b, 0), 1e-12)
    out = paddle.tensordot(x, y)
    gx, gy = paddle.grad([out.sum()], [x, y])
    np.testing.assert_allclose(gx.numpy(), np.broadcast_to(b.sum(2), (2, 3, 4)), 1e-12)
    np.testing.assert_allclose(gy.numpy(), np.broadcast_to(a.sum((0,))[..., None], (3, 4, 5)),
                               1e-12)
    with pytest.raises(ValueError, match="tensordot: dim 2 of x"):
        paddle.tensordot(x, y, [[2], [0]])


def test_pad_layouts():
    a = np.arange(24.0).reshape(1, 2, 3, 4)
    x = _t(a)
    got = paddle.pad(x, [1, 2, 0, 1], mode="replicate", data_format="NHWC")
    np.testing.assert_array_equal(got.numpy(), np.pad(a, [(0, 0), (0, 1), (1, 2), (0, 0)],
                                                      mode="edge"))
    got = paddle.pad(x, [0, 0, 0, 0, 1, 0, 0, 2], pad_from_left_axis=False)
    np.testing.assert_array_equal(got.numpy(), np.pad(a, [(0, 2), (1, 0), (0, 0), (0, 0)]))
    got = paddle.pad(x, [1, 1])
    np.testing.assert_array_equal(got.numpy(), np.pad(a, [(0, 0)] * 3 + [(1, 1)]))
    got = paddle.pad(x, _t(np.array([1, 0, 0, 1])), mode="constant", value=-1.0)
    np.testing.assert_array_equal(got.numpy(), np.pad(a, [(0, 0), (0, 0), (0, 1), (1, 0)],
                                                      constant_values=-1))
    i = paddle.pad(_t(np.ones((2, 2), "int64")), [1, 1, 0, 0], value=3)
    assert i.dtype == paddle.int64 and i.numpy()[0, 0] == 3


# --- in-place variants -------------------------------------------------------------------------

@pytest.mark.parametrize("api, args, shape", [
    ("reshape_", ([3, 2],), [3, 2]), ("squeeze_", (), [2, 3]), ("unsqueeze_", (0,), [1, 2, 1, 3]),
    ("flatten_", (), [6]), ("transpose_", ([2, 0, 1],), [3, 2, 1]),
])
def test_shape_inplace(api, args, shape):
    x = _t(np.arange(6.0).reshape(2, 1, 3))
    before = x._version
    out = getattr(x, api)(*args)
    assert out is x and x.shape == shape and x._version == before + 1
    np.testing.assert_array_equal(np.sort(x.numpy().reshape(-1)), np.arange(6.0))
    assert getattr(paddle, api)(_t(np.arange(6.0).reshape(2, 1, 3)), *args).shape == shape


def test_inplace_keeps_graph_and_refuses_leaves():
    w = _t(np.arange(6.0).reshape(2, 3), grad=True)
    with pytest.raises(ValueError, match="reshape_: leaf Tensor"):
        w.reshape_([3, 2])
    y = w * 2.0
    y.reshape_([6]).unsqueeze_(0)
    assert y.shape == [1, 6]
    (g,) = paddle.grad([(y * _t(np.arange(6.0).reshape(1, 6))).sum()], [w])
    np.testing.assert_allclose(g.numpy(), 2.0 * np.arange(6.0).reshape(2, 3))
    m = _x(2, 3)
    m.t_()
    assert m.shape == [3, 2]


def test_cast_and_cast_inplace():
    x = _x(2, 2)
    assert x.astype("int32").dtype == paddle.int32
    assert paddle.cast(x, paddle.float32).dtype == paddle.float32
    out = x.cast_("float32")
    assert out is x and x.dtype == paddle.float32


# --- gradients the op database cannot express --------------------------------------------------

def test_as_complex_as_real_grads():
    rng = np.random.default_rng(3)
    a = rng.standard_normal((3, 2))
    x = _t(a, grad=True)
    c = rng.standard_normal((3, 2))
    out = (paddle.as_real(paddle.as_complex(x)) * _t(c)).sum()
    (g,) = paddle.grad([out], [x])
    np.testing.assert_allclose(g.numpy(), c)
    z = paddle.as_complex(x)
    assert z.dtype == paddle.complex128 and z.shape == [3]
    np.testing.assert_allclose(z.numpy(), a[:, 0] + 1j * a[:, 1])


def test_split_grad_with_unused_outputs():
    x = _t(np.arange(6.0).reshape(2, 3), grad=True)
    a, b = paddle.split(x, [1, 2], axis=1)
    (g,) = paddle.grad([(b * 3.0).sum()], [x])
    np.testing.assert_array_equal(g.numpy(), [[0, 3, 3], [0, 3, 3]])


def test_methods_are_bound():
    x = _x(2, 3)
    assert x.reshape([3, 2]).shape == [3, 2]
    assert x.transpose([1, 0]).shape == [3, 2]
    assert x.T.shape == [3, 2]
    assert [p.shape for p in x.split(3, axis=1)] == [[2, 1]] * 3
    assert x.tile([2, 1]).shape == [4, 3]
    assert x.flip(0).shape == [2, 3]
    assert x.unsqueeze(0).squeeze(0).shape == [2, 3]
    assert x.expand([4, 2, 3]).shape == [4, 2, 3]
    assert x.unfold(1, 2, 1).shape == [2, 2, 2]


def test_infer_with_unknown_dims():
    from sampan.ops import REGISTRY
    from sampan.ops.opdef import TensorSpec
    x = TensorSpec([-1, 3, 4], "float32")
    assert REGISTRY["transpose"].infer(x, perm=[2, 0, 1]).shape == (4, -1, 3)
    assert REGISTRY["flatten"].infer(x, start_axis=0, stop_axis=1).shape == (-1, 4)
    assert REGISTRY["flatten"].infer(x, start_axis=1, stop_axis=2).shape == (-1, 12)
    assert REGISTRY["concat"].infer([x, x], axis=1).shape == (-1, 6, 4)
    assert REGISTRY["concat"].infer([x, x], axis=0).shape == (-1, 3, 4)
    outs = REGISTRY["split"].infer(x, num_or_sections=[1, -1], axis=1)
    assert [o.shape for o in outs] == [(-1, 1, 4), (-1, 2, 4)]
    assert REGISTRY["tile"].infer(x, repeat_times=[2, 2, 1]).shape == (-1, 6, 4)
    assert REGISTRY["expand"].infer(x, shape=[2, -1, 3, 4]).shape == (2, -1, 3, 4)
    assert REGISTRY["pad"].infer(x, pad=[0, 0, 1, 1, 0, 2], mode="reflect",
                                 value=0.0).shape == (-1, 5, 6)
    assert REGISTRY["unfold"].infer(x, axis=2, size=2, step=2).shape == (-1, 3, 2, 2)
    assert REGISTRY["stack"].infer([x, x], axis=1).shape == (-1, 2, 3, 4)


def test_concat_grad_only_where_needed():
    a = _t(np.ones((2, 2)), grad=True)
    b = _t(np.ones((1, 2)))
    out = paddle.concat([a, b]) * _t(np.arange(6.0).reshape(3, 2))
    (g,) = paddle.grad([out.sum()], [a])
    np.testing.assert_array_equal(g.numpy(), [[0, 1], [2, 3]])
    assert b.grad is None
