"""Sequential.append / insert / extend (Paddle 3.x container methods)."""
import numpy as np
import pytest

import sampan as paddle


def _seq(*sizes):
    return [paddle.nn.Linear(a, b) for a, b in zip(sizes, sizes[1:])]


def test_append_insert_extend_chain_shapes_and_names():
    x = paddle.ones([5, 10])
    m = paddle.nn.Sequential(*_seq(10, 20))
    assert m.append(paddle.nn.Linear(20, 30)) is m
    assert m(x).shape == [5, 30]
    first, second = _seq(10, 20, 30)
    m = paddle.nn.Sequential(second).insert(0, first)
    assert list(m._sub_layers) == ["0", "1"] and m[0] is first and m[1] is second
    assert m(x).shape == [5, 30]
    m = paddle.nn.Sequential().extend(_seq(10, 20, 30))
    assert len(m) == 2 and m(x).shape == [5, 30]
    assert len(m.parameters()) == 4


def test_insert_negative_index_and_errors():
    a, b, c = _seq(1, 2, 3, 4)
    m = paddle.nn.Sequential(a, c).insert(-1, b)
    assert [m[i] for i in range(3)] == [a, b, c]
    np.testing.assert_equal(m(paddle.ones([1, 1])).shape, [1, 4])
    with pytest.raises(IndexError, match="Sequential.insert: index 5"):
        m.insert(5, paddle.nn.ReLU())
    with pytest.raises(AssertionError, match="Sequential.insert"):
        m.insert(0, "relu")
