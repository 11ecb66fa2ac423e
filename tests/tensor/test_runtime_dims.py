"""Shapes given as static Variables: full/zeros/ones/rand/randn/randint/normal take dims
known only at run time (ops/runtime_dims.py), reshape/unflatten take a shape tensor, and
full takes a Variable fill value; Paddle's dtype/type errors for such arguments."""
import numpy as np
import pytest

import sampan as paddle

from ..static_util import static_guard


def _run(build, feed):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with static_guard(main, startup):
        outs = build()
        exe = paddle.static.Executor()
    return outs, exe.run(main, feed=feed, fetch_list=list(outs))


def test_creation_with_variable_dims():
    def build():
        n = paddle.static.data("n", shape=[], dtype="int32")
        s = paddle.static.data("s", shape=[2], dtype="int64")
        k = paddle.tensor.fill_constant([1], "int64", 3)
        return (paddle.zeros([101, n]), paddle.full(s, 1.5), paddle.ones([k, 2], "int32"),
                paddle.rand([k, n]), paddle.randn(s), paddle.randint(0, 5, [n]),
                paddle.normal(shape=[2, k]), paddle.uniform(s, min=2.0, max=3.0))
    outs, res = _run(build, {"n": np.array(4, "int32"), "s": np.array([2, 3], "int64")})
    assert list(outs[0].shape) == [101, -1] and list(outs[1].shape) == [-1, -1]
    assert list(outs[2].shape) == [-1, 2]
    np.testing.assert_array_equal(res[0], np.zeros([101, 4], "float32"))
    np.testing.assert_array_equal(res[1], np.full([2, 3], 1.5, "float32"))
    np.testing.assert_array_equal(res[2], np.ones([3, 2], "int32"))
    assert [r.shape for r in res[3:]] == [(3, 4), (2, 3), (4,), (2, 3), (2, 3)]
    assert res[3].min() >= 0 and res[3].max() < 1 and res[5].max() < 5
    assert res[7].min() >= 2.0 and res[7].max() < 3.0


def test_full_with_variable_fill_value():
    def build():
        v = paddle.tensor.fill_constant([1], "float32", 1.1)
        s = paddle.static.data("s", shape=[2], dtype="int64")
        return (paddle.full(s, v), paddle.full([2, 2], v, dtype="float64"))
    _, res = _run(build, {"s": np.array([1, 2], "int64")})
    np.testing.assert_allclose(res[0], np.full([1, 2], 1.1, "float32"))
    assert res[1].dtype == np.float64 and res[1].shape == (2, 2)


def test_reshape_and_unflatten_with_shape_tensor():
    x_np = np.arange(96, dtype="float32").reshape(4, 6, 4)

    def build():
        x = paddle.static.data("x", shape=[4, 6, 4], dtype="float32")
        shape = paddle.static.data("shape", shape=[2], dtype="int32")
        d = paddle.static.data("d", shape=[1], dtype="int64")
        return (paddle.unflatten(x, axis=1, shape=shape), paddle.reshape(x, shape),
                paddle.reshape(x, [d, 0, -1]))
    outs, res = _run(build, {"x": x_np, "shape": np.array([-1, 3], "int32"),
                             "d": np.array([2], "int64")})
    assert list(outs[0].shape) == [4, -1, -1, 4] and list(outs[2].shape) == [-1, 6, -1]
    np.testing.assert_array_equal(res[0], x_np.reshape(4, 2, 3, 4))
    np.testing.assert_array_equal(res[1], x_np.reshape(-1, 3))
    np.testing.assert_array_equal(res[2], x_np.reshape(2, 6, 8))


def test_gradient_through_runtime_reshape():
    def build():
        x = paddle.static.data("x", shape=[2, 6], dtype="float32")
        x.stop_gradient = False
        s = paddle.static.data("s", shape=[2], dtype="int64")
        loss = (paddle.reshape(x, s) * 3.0).sum()
        (_, gx), = paddle.static.append_backward(loss, parameter_list=[x])
        return (gx,)
    _, res = _run(build, {"x": np.ones([2, 6], "float32"), "s": np.array([3, 4], "int64")})
    np.testing.assert_array_equal(res[0], np.full([2, 6], 3.0, "float32"))


def test_shape_argument_errors():
    main = paddle.static.Program()
    with static_guard(main):
        f = paddle.static.data("f", shape=[2], dtype="float32")
        with pytest.raises(TypeError, match="zeros: the data type of a shape tensor"):
            paddle.zeros(f)
        with pytest.raises(TypeError, match="normal: shape must be a list"):
            paddle.normal(shape=1)
        with pytest.raises(TypeError):
            paddle.normal([1, 2, 3])   # mean given as a list
        two = paddle.static.data("two", shape=[2], dtype="int32")
        with pytest.raises(ValueError, match="must hold one value"):
            paddle.full([two, 3], 1.0)
    with pytest.raises(ValueError, match="expected to be no less than 0"):
        paddle.zeros([-1, 5])


def test_runtime_negative_dim_is_refused():
    def build():
        n = paddle.static.data("n", shape=[1], dtype="int64")
        return (paddle.zeros([n, 2]),)
    with pytest.raises(ValueError, match="non-negative"):
        _run(build, {"n": np.array([-3], "int64")})
