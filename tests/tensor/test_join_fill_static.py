"""h/v/d/column/row_stack and atleast_* build static Programs (no NumPy on Variables),
mixed-dtype joins raise an error that is both ValueError and TypeError (Paddle: ValueError in
dynamic mode, TypeError while building), and paddle.tensor.fill_constant."""
import numpy as np
import pytest

import sampan as paddle
from tests.static_util import static_guard

JOINS = {"hstack": np.hstack, "vstack": np.vstack, "dstack": np.dstack,
         "column_stack": np.column_stack, "row_stack": np.vstack}


@pytest.mark.parametrize("api", sorted(JOINS))
@pytest.mark.parametrize("shape", [[], [3], [2, 3], [2, 3, 1]])
def test_joins_build_static_programs(api, shape):
    rng = np.random.default_rng(0)
    a = rng.standard_normal(shape).astype("float64")
    b = rng.standard_normal(shape).astype("float64")
    main, startup = paddle.static.Program(), paddle.static.Program()
    with static_guard(main, startup):
        xa = paddle.static.data("a", shape, "float64")
        xb = paddle.static.data("b", shape, "float64")
        out = getattr(paddle, api)([xa, xb])
        got, = paddle.static.Executor().run(main, feed={"a": a, "b": b}, fetch_list=[out])
    np.testing.assert_allclose(got, JOINS[api]([a, b]))
    eager = getattr(paddle, api)([paddle.to_tensor(a), paddle.to_tensor(b)])
    np.testing.assert_allclose(eager.numpy(), got)


def test_atleast_3d_of_a_variable():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with static_guard(main, startup):
        x = paddle.static.data("x", [4], "float32")
        out = paddle.atleast_3d(x)
        assert out.shape == [1, 4, 1]


@pytest.mark.parametrize("api", sorted(JOINS) + ["concat"])
def test_mixed_dtypes_raise_value_and_type_error(api):
    a = paddle.to_tensor([1.0, 2.0], dtype="float32")
    b = paddle.to_tensor([1.0, 2.0], dtype="float64")
    with pytest.raises(ValueError, match=rf"{api}: all inputs must have the same dtype"):
        getattr(paddle, api)([a, b])
    main, startup = paddle.static.Program(), paddle.static.Program()
    with static_guard(main, startup):
        xa = paddle.static.data("a", [2], "float32")
        xb = paddle.static.data("b", [2], "float64")
        with pytest.raises(TypeError, match="float32.*float64"):
            getattr(paddle, api)([xa, xb])


def test_fill_constant_eager_out_and_static():
    t = paddle.tensor.fill_constant([2, 3], "int64", 7)
    assert t.dtype == paddle.int64 and t.numpy().tolist() == [[7] * 3] * 2
    out = paddle.zeros([2], dtype="float32")
    res = paddle.tensor.fill_constant([2], "float32", 1.5, out=out)
    assert res is out and out.numpy().tolist() == [1.5, 1.5]
    with pytest.raises(TypeError, match="fill_constant: dtype"):
        paddle.tensor.fill_constant([2], None, 1)
    assert not hasattr(paddle, "fill_constant")  # only paddle.tensor.fill_constant
    main, startup = paddle.static.Program(), paddle.static.Program()
    with static_guard(main, startup):
        v = paddle.tensor.fill_constant([3], "float64", -2.0)
        got, = paddle.static.Executor().run(main, fetch_list=[v])
    assert got.dtype == np.float64 and got.tolist() == [-2.0] * 3
