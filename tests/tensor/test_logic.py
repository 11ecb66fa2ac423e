"""Logic functions: operators, scalar operands, None, out=, errors, Python-bool predicates."""
import numpy as np
import pytest

import sampan as paddle


def _t(values, dtype=None):
    return paddle.to_tensor(values, dtype=dtype)


def test_comparison_operators_match_functions():
    x, y = _t([1.0, 2.0, 3.0]), _t([3.0, 2.0, 1.0])
    for op, fn in (("__eq__", paddle.equal), ("__ne__", paddle.not_equal),
                   ("__lt__", paddle.less_than), ("__le__", paddle.less_equal),
                   ("__gt__", paddle.greater_than), ("__ge__", paddle.greater_equal)):
        got = getattr(x, op)(y)
        assert got.dtype == paddle.bool
        np.testing.assert_array_equal(got.numpy(), fn(x, y).numpy())
    np.testing.assert_array_equal((x < y).numpy(), [True, False, False])


def test_compare_with_python_scalars_and_reflected():
    x = _t([1, 2, 3])
    np.testing.assert_array_equal((x == 2).numpy(), [False, True, False])
    np.testing.assert_array_equal((x > 1.5).numpy(), [False, True, True])
    np.testing.assert_array_equal((2 < x).numpy(), [False, False, True])


def test_compare_mixed_dtypes_promotes():
    out = paddle.equal(_t([1, 2], "int32"), _t([1.0, 2.5], "float64"))
    np.testing.assert_array_equal(out.numpy(), [True, False])
    out = paddle.less_than(_t([True, False]), _t([1, 1], "int64"))
    np.testing.assert_array_equal(out.numpy(), [False, True])


def test_equal_with_none_is_false():
    x = _t([1.0])
    assert paddle.equal(x, None) is False
    assert paddle.not_equal(x, None) is True


def test_compare_with_string_raises_type_error():
    with pytest.raises(TypeError, match="equal: y must be a Tensor"):
        paddle.equal(_t([1.0]), "a")


def test_compare_shapes_that_do_not_broadcast():
    with pytest.raises(ValueError, match=r"less_than: .*\[2\].*\[3\].*cannot be broadcast"):
        paddle.less_than(_t([1.0, 2.0]), _t([1.0, 2.0, 3.0]))


def test_comparisons_stop_gradient():
    x = _t([1.0, 2.0])
    x.stop_gradient = False
    assert (x > 1).stop_gradient


def test_bitwise_operators_on_ints_and_bools():
    a, b = _t([12, 10]), _t([10, 6])
    np.testing.assert_array_equal((a & b).numpy(), [8, 2])
    np.testing.assert_array_equal((a | b).numpy(), [14, 14])
    np.testing.assert_array_equal((a ^ b).numpy(), [6, 12])
    np.testing.assert_array_equal((~a).numpy(), [-13, -11])
    p, q = _t([True, False]), _t([True, True])
    np.testing.assert_array_equal((p & q).numpy(), [True, False])
    assert (~p).dtype == paddle.bool
    np.testing.assert_array_equal((a & 4).numpy(), [4, 0])


def test_bitwise_rejects_floats():
    with pytest.raises(TypeError, match="bitwise_and: x must be a bool or integer tensor, "
                                        "got float32"):
        paddle.bitwise_and(_t([1.0]), _t([1.0]))
    with pytest.raises(TypeError, match="bitwise_not: x must be a bool or integer"):
        paddle.bitwise_not(_t([1.5]))


def test_logical_ops_accept_any_dtype_and_out():
    x, y = _t([0.0, 1.5, 2.0]), _t([3, 0, 1])
    np.testing.assert_array_equal(paddle.logical_and(x, y).numpy(), [False, False, True])
    out = _t([False, False, False])
    res = paddle.logical_or(x, y, out=out)
    assert res is out
    np.testing.assert_array_equal(out.numpy(), [True, True, True])
    np.testing.assert_array_equal(paddle.logical_not(y).numpy(), [False, True, False])


def test_logical_inplace_method():
    x = _t([True, False, True])
    before = x._version
    x.logical_and_(_t([True, True, False]))
    np.testing.assert_array_equal(x.numpy(), [True, False, False])
    assert x._version == before + 1


def test_isnan_isinf_isfinite():
    x = _t([1.0, float("nan"), float("inf"), -float("inf")])
    np.testing.assert_array_equal(paddle.isnan(x).numpy(), [False, True, False, False])
    np.testing.assert_array_equal(paddle.isinf(x).numpy(), [False, False, True, True])
    np.testing.assert_array_equal(paddle.isfinite(x).numpy(), [True, False, False, False])
    assert paddle.isnan(_t([1, 2])).dtype == paddle.bool


def test_isclose_allclose():
    x = _t([1.0, float("nan")], "float64")
    y = _t([1.0 + 1e-9, float("nan")], "float64")
    np.testing.assert_array_equal(paddle.isclose(x, y).numpy(), [True, False])
    np.testing.assert_array_equal(paddle.isclose(x, y, equal_nan=True).numpy(), [True, True])
    out = paddle.allclose(x, y, equal_nan=True)
    assert out.shape == [] and bool(out)
    assert not bool(paddle.allclose(_t([1.0]), _t([1.1])))
    assert bool(paddle.allclose(_t([1.0]), _t([1.1]), rtol=0.0, atol=0.2))


def test_isclose_argument_errors():
    with pytest.raises(TypeError, match="isclose: rtol must be a float, got str"):
        paddle.isclose(_t([1.0]), _t([1.0]), rtol="1")
    with pytest.raises(TypeError, match="allclose: equal_nan must be a bool"):
        paddle.allclose(_t([1.0]), _t([1.0]), equal_nan=1)
    with pytest.raises(ValueError, match="allclose: .*cannot be broadcast"):
        paddle.allclose(_t([1.0, 2.0]), _t([1.0, 2.0, 3.0]))


def test_equal_all():
    x = _t([[1, 2], [3, 4]])
    assert bool(paddle.equal_all(x, _t([[1, 2], [3, 4]])))
    assert not bool(paddle.equal_all(x, _t([[1, 2], [3, 5]])))
    assert not bool(paddle.equal_all(x, _t([1, 2])))  # different shapes: False, no error
    assert paddle.equal_all(x, x).shape == []
    assert x.equal_all(x).dtype == paddle.bool


def test_predicates_return_python_bools():
    f, i, b = _t([1.0]), _t([1]), _t([True])
    c = paddle.to_tensor(np.array([1 + 2j], np.complex64))
    assert paddle.is_tensor(f) is True and paddle.is_tensor(np.ones(1)) is False
    assert paddle.is_floating_point(f) and not paddle.is_floating_point(i)
    assert paddle.is_integer(i) and not paddle.is_integer(b) and not paddle.is_integer(f)
    assert paddle.is_complex(c) and not paddle.is_complex(f)
    assert f.is_floating_point() is True
    with pytest.raises(TypeError, match="is_floating_point: x must be a Tensor"):
        paddle.is_floating_point(1.0)


def test_is_empty():
    assert bool(paddle.is_empty(paddle.to_tensor(np.zeros((0, 3)))))
    out = paddle.is_empty(_t([1.0]))
    assert out.shape == [] and out.dtype == paddle.bool and not bool(out)
