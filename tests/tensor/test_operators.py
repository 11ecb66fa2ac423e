"""Tensor's Python operators against values recorded from PaddlePaddle 3.3.1."""
import operator

import numpy as np
import pytest

import sampan as paddle

T = paddle.to_tensor
I = [-7, 7, -8, 5]
F = [-7.5, 7.0, -8.25, 5.5]

# name: (expression, dtype, values) as Paddle 3.3.1 returned them
RECORDED = {
    "pos_f": (lambda: +T(F), "float32", F),
    "pos_i": (lambda: +T(I), "int64", I),
    "floordiv_i": (lambda: T(I) // 2, "int64", [-4, 3, -4, 2]),
    "floordiv_ineg": (lambda: T(I) // -2, "int64", [3, -4, 4, -3]),
    "rfloordiv_i": (lambda: -7 // T([2, -2, 3]), "int64", [-4, 3, -3]),
    "floordiv_f": (lambda: T(F) // 2, "float32", [-4.0, 3.0, -5.0, 2.0]),
    "floordiv_fneg": (lambda: T(F) // -2.0, "float32", [3.0, -4.0, 4.0, -3.0]),
    "floordiv_if": (lambda: T(I) // 2.0, "float32", [-4.0, 3.0, -4.0, 2.0]),
    "ifloordiv": (lambda: operator.ifloordiv(T([7, -7]), -2), "int64", [-4, 3]),
    "mod_i": (lambda: T(I) % 3, "int64", [2, 1, 1, 2]),
    "mod_ineg": (lambda: T(I) % -3, "int64", [-1, -2, -2, -1]),
    "mod_f": (lambda: T(F) % -2, "float32", [-1.5, -1.0, -0.25, -0.5]),
    "rmod": (lambda: 7 % T([-3, 3]), "int64", [-2, 1]),
    "truediv_i": (lambda: T(I) / 2, "float32", [-3.5, 3.5, -4.0, 2.5]),
    "rtruediv": (lambda: 1 / T([2, 4]), "float32", [0.5, 0.25]),
    "div_alias": (lambda: T([1., 2.]).__div__(2), "float32", [0.5, 1.0]),
    "rdiv_alias": (lambda: T([1., 2.]).__rdiv__(2), "float32", [2.0, 1.0]),
    "matmul": (lambda: T([[1., 2.], [3., 4.]]) @ T([[1.], [1.]]), "float32", [[3.0], [7.0]]),
    "rmatmul_np": (lambda: np.array([[1., 2.]], "float32") @ T([[1.], [1.]]), "float32",
                   [[3.0]]),
    "imatmul": (lambda: operator.imatmul(T([[1., 2.], [3., 4.]]), T([[1., 0.], [0., 2.]])),
                "float32", [[1.0, 4.0], [3.0, 8.0]]),
    "lshift": (lambda: T([1, 2, 3]) << T([1, 2, 3]), "int64", [2, 8, 24]),
    "rshift": (lambda: T([-8, 8]) >> T([1, 2]), "int64", [-4, 2]),
    "lshift_int": (lambda: T([1, 2, 3]) << 2, "int64", [4, 8, 12]),
    "rlshift": (lambda: 2 << T([1, 2]), "int64", [4, 8]),
    "rrshift": (lambda: 16 >> T([1, 2]), "int64", [8, 4]),
    "ilshift": (lambda: operator.ilshift(T([1, 2]), 1), "int64", [2, 4]),
    "lshift_broadcast": (lambda: T([[1], [2]]) << T([1, 2]), "int64", [[2, 4], [4, 8]]),
    "pow_i": (lambda: T([2, 3]) ** 2, "int64", [4, 9]),
    "pow_if": (lambda: T([2, 3]) ** 0.5, "float32", [1.4142135381698608, 1.7320507764816284]),
    "rpow": (lambda: 2 ** T([1., 2.]), "float32", [2.0, 4.0]),
    "rpow_i": (lambda: 2 ** T([1, 2]), "int64", [2, 4]),
    "ipow": (lambda: operator.ipow(T([1., 3.]), 2), "float32", [1.0, 9.0]),
    "add_int_float": (lambda: T([1, 2]) + 0.5, "float32", [1.5, 2.5]),
    "add_bool": (lambda: T([True]) + True, "bool", [True]),
    "add_bool_int": (lambda: T([True]) + 1, "int64", [2]),
    "rand_bool": (lambda: True & T([True, False]), "bool", [True, False]),
    "or_i": (lambda: 4 | T([1, 2]), "int64", [5, 6]),
    "invert_i": (lambda: ~T([0, 5]), "int64", [-1, -6]),
    "np_add": (lambda: np.array([1., 2.], "float32") + T([1., 2.]), "float32", [2.0, 4.0]),
    "np_float64_mul": (lambda: np.float64(2) * T([1., 2.]), "float32", [2.0, 4.0]),
    "truediv_zero_i": (lambda: T([1, 0]) / 0, "float32", [np.inf, np.nan]),
}


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_operator_matches_paddle(name):
    fn, dtype, values = RECORDED[name]
    out = fn()
    assert isinstance(out, paddle.Tensor)
    assert out.dtype == getattr(paddle, dtype)
    np.testing.assert_array_equal(out.numpy(), np.array(values, dtype=out.numpy().dtype))


def test_pos_returns_the_tensor_itself_and_keeps_the_graph():
    x = T([1., -2.], stop_gradient=False)
    y = +x
    assert y is x  # Paddle 3.3.1: `+x is x`
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1., 1.])


def test_pos_of_bool_raises_type_error():
    with pytest.raises(TypeError, match="bool"):
        +T([True, False])


@pytest.mark.parametrize("expr, value", [
    (lambda: [10, 20, 30][T(1)], 20),
    (lambda: [10, 20, 30][T(2, dtype="int32")], 30),
    (lambda: [10, 20, 30][T(True)], 20),
    (lambda: list(range(T(3))), [0, 1, 2]),
    (lambda: hex(T(255)), "0xff"),
    (lambda: T(3).__long__(), 3),
    (lambda: T(3).__nonzero__(), True),
    (lambda: T([1]) == None, False),  # noqa: E711  (Paddle's answer to `t == None`)
    (lambda: T([1]) != None, True),  # noqa: E711
])
def test_python_protocols_match_paddle(expr, value):
    assert expr() == value


def test_round_and_divmod_are_not_tensor_operators():
    # Paddle 3.3.1's Tensor defines neither __round__ nor __divmod__.
    with pytest.raises(TypeError):
        round(T([1.5]))
    with pytest.raises(TypeError):
        divmod(T([7]), 2)


def test_inplace_operators_rebind_like_paddle():
    a = T([1., 2.])
    b = a
    a += 1  # Tensor has no __iadd__ in Paddle: a is rebound to a new tensor
    assert a is not b
    np.testing.assert_array_equal(b.numpy(), [1., 2.])


def test_shift_rejects_float_tensors():
    with pytest.raises(TypeError, match="bitwise_left_shift: x must be an integer tensor"):
        T([1.]) << T([1])


# Recorded from Paddle 3.3.1: x = [-8, 8, 1, -1, 5, -128], y = [-1, 0, 1, 7, 8, 64]
SHIFT_GRID = {
    ("int8", True): ([0, 8, 2, -128, 0, 0], [-1, 8, 0, -1, 0, -1]),
    ("int8", False): ([0, 8, 2, -128, 0, 0], [0, 8, 0, 1, 0, 0]),
    ("int64", True): ([0, 8, 2, -128, 1280, 0], [-1, 8, 0, -1, 0, -1]),
    ("int64", False): ([0, 8, 2, -128, 1280, 0], [0, 8, 0, 144115188075855871, 0, 0]),
}


@pytest.mark.parametrize("dtype, arithmetic", sorted(SHIFT_GRID))
def test_shift_out_of_range_counts_match_paddle(dtype, arithmetic):
    x = T(np.array([-8, 8, 1, -1, 5, -128], dtype))
    y = T(np.array([-1, 0, 1, 7, 8, 64], dtype))
    left, right = SHIFT_GRID[dtype, arithmetic]
    assert paddle.bitwise_left_shift(x, y, arithmetic).tolist() == left
    assert paddle.bitwise_right_shift(x, y, is_arithmetic=arithmetic).tolist() == right


def test_shift_inplace_and_out():
    x = T([1, 2])
    assert x.bitwise_left_shift_(T(1)) is x and x.tolist() == [2, 4]
    out = T([0, 0])
    paddle.bitwise_right_shift(T([8, 16]), T([2, 2]), out=out)
    assert out.tolist() == [2, 4]
    assert paddle.bitwise_invert(T([0, 5])).tolist() == [-1, -6]
