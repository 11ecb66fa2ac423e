"""Paddle 3.x tensor functions against values recorded from PaddlePaddle 3.3.1."""
import numpy as np
import pytest

import sampan as paddle

T = paddle.to_tensor
A1, B1 = [1, 2, 3], [4, 5, 6]
A2, B2 = [[1], [2]], [[3], [4]]

# (function, inputs) -> (shape, values) as Paddle 3.3.1 returned them
STACKS = {
    ("hstack", "1d"): ([6], [1, 2, 3, 4, 5, 6]),
    ("hstack", "2d"): ([2, 2], [[1, 3], [2, 4]]),
    ("hstack", "0d"): ([2], [1.0, 2.0]),
    ("vstack", "1d"): ([2, 3], [[1, 2, 3], [4, 5, 6]]),
    ("vstack", "2d"): ([4, 1], [[1], [2], [3], [4]]),
    ("vstack", "0d"): ([2, 1], [[1.0], [2.0]]),
    ("dstack", "1d"): ([1, 3, 2], [[[1, 4], [2, 5], [3, 6]]]),
    ("dstack", "2d"): ([2, 1, 2], [[[1, 3]], [[2, 4]]]),
    ("dstack", "0d"): ([1, 1, 2], [[[1.0, 2.0]]]),
    ("column_stack", "1d"): ([3, 2], [[1, 4], [2, 5], [3, 6]]),
    ("column_stack", "2d"): ([2, 2], [[1, 3], [2, 4]]),
    ("column_stack", "0d"): ([1, 2], [[1.0, 2.0]]),
    ("row_stack", "1d"): ([2, 3], [[1, 2, 3], [4, 5, 6]]),
    ("row_stack", "2d"): ([4, 1], [[1], [2], [3], [4]]),
    ("row_stack", "0d"): ([2, 1], [[1.0], [2.0]]),
}
INPUTS = {"1d": lambda: [T(A1), T(B1)], "2d": lambda: [T(A2), T(B2)],
          "0d": lambda: (T(1.), T(2.))}


@pytest.mark.parametrize("fn, kind", sorted(STACKS))
def test_stacks_match_paddle(fn, kind):
    shape, values = STACKS[fn, kind]
    out = getattr(paddle, fn)(INPUTS[kind]())
    assert out.shape == shape and out.tolist() == values


def test_stacks_reject_mixed_dtypes_and_a_bare_tensor():
    with pytest.raises(TypeError, match="same dtype"):
        paddle.hstack([T([1, 2]), T([3., 4.])])
    with pytest.raises(TypeError, match="hstack"):
        paddle.hstack(T([1, 2]))


def test_stack_gradient_flows_to_every_input():
    a = T([1., 2.], stop_gradient=False)
    b = T([3., 4.], stop_gradient=False)
    (paddle.column_stack([a, b]) * T([[1., 2.], [3., 4.]])).sum().backward()
    assert a.grad.tolist() == [1., 3.] and b.grad.tolist() == [2., 4.]


def test_nonzero_as_tuple_returns_1d_tensors():
    # Paddle 3.3.1: one int64 [z] tensor per dim (Paddle 2.x gave [z, 1])
    rows, cols = paddle.nonzero(T([[1, 0], [0, 3]]), as_tuple=True)
    assert rows.shape == [2] and rows.dtype == paddle.int64
    assert rows.tolist() == [0, 1] and cols.tolist() == [0, 1]
    (only,) = paddle.nonzero(T([0, 2, 3]), as_tuple=True)
    assert only.tolist() == [1, 2]
    x = T([[5., 0.], [0., 7.]])
    assert x[paddle.nonzero(x, as_tuple=True)].tolist() == [5., 7.]
    assert paddle.nonzero(T([[1, 0], [0, 3]])).tolist() == [[0, 0], [1, 1]]


def test_nonzero_as_tuple_of_0d_raises():
    with pytest.raises(ValueError, match="at least 1 dimension"):
        paddle.nonzero(T(3), as_tuple=True)


X = [[1., 2., 3.], [4., 5., 6.]]


@pytest.mark.parametrize("mode, index, values", [
    ("raise", [-1, -6, 5], [6.0, 1.0, 6.0]),
    ("wrap", [[-1, 7], [0, -8]], [[6.0, 2.0], [1.0, 5.0]]),
    ("clip", [[-1, 7], [0, -8]], [[1.0, 6.0], [1.0, 1.0]]),
])
def test_take_modes_match_paddle(mode, index, values):
    assert paddle.take(T(X), T(index), mode=mode).tolist() == values


def test_take_raise_out_of_range_and_bad_mode():
    with pytest.raises(IndexError, match="out of range"):
        paddle.take(T(X), T([[-1, 7], [0, -8]]), mode="raise")
    with pytest.raises(ValueError, match="mode"):
        paddle.take(T(X), T([0]), mode="foo")


def test_take_raise_negative_index_gradient():
    x = T(X, stop_gradient=False)
    paddle.take(x, T([-1, -1, 0])).sum().backward()
    assert x.grad.tolist() == [[1., 0., 0.], [0., 0., 2.]]


def test_numpy_accepts_paddles_optional_argument():
    # Paddle 3.3.1: t.numpy(False) and t.numpy(True) both return the values
    t = T([1.5])
    assert t.numpy(False).tolist() == [1.5] and t.numpy(True).tolist() == [1.5]
    with pytest.raises(TypeError, match="at most 1 argument"):
        t.numpy(1, 2)


PTS = [[0., 0.], [3., 4.], [6., 8.]]


@pytest.mark.parametrize("x, p, values", [
    (PTS, 2.0, [5.0, 10.0, 5.0]),
    (PTS, 1.0, [7.0, 14.0, 7.0]),
    ([[0., 0.], [3., 4.], [6., 9.]], float("inf"), [4.0, 9.0, 5.0]),
    ([[0., 0.], [3., 4.], [0., 9.]], 0.0, [2.0, 1.0, 2.0]),
    ([[0., 0.]], 2.0, []),
])
def test_pdist_matches_paddle(x, p, values):
    out = paddle.pdist(T(x), p=p)
    assert out.shape == [len(values)] and out.tolist() == values


def test_pdist_gradient_and_errors():
    x = T([[0., 0.], [3., 4.]], stop_gradient=False)
    paddle.pdist(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [[-0.6, -0.8], [0.6, 0.8]], rtol=1e-6)
    with pytest.raises(ValueError, match=r"pdist: x must be a 2-D tensor \[N, M\]"):
        paddle.pdist(T([1., 2.]))
    with pytest.raises(ValueError, match="p must be >= 0"):
        paddle.pdist(T(PTS), p=-1)


A3 = [[3., 1., 2.], [6., 3., 4.], [3., 1., 5.]]


@pytest.mark.parametrize("trans, values", [
    ("N", [[-0.11111000180244446], [0.0], [0.666670024394989]]),
    ("T", [[-3.777780055999756], [1.6666699647903442], [0.7777799963951111]]),
])
def test_lu_solve_matches_paddle(trans, values):
    lu, piv = paddle.linalg.lu(T(A3))
    out = paddle.linalg.lu_solve(T([[1.], [2.], [3.]]), lu, piv, trans=trans)
    np.testing.assert_allclose(out.numpy(), values, atol=1e-5)  # Paddle printed 5 decimals


def test_lu_solve_batched_gradient_and_errors():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((2, 4, 4)) + 4 * np.eye(4)
    b = T(rng.standard_normal((2, 4, 3)), stop_gradient=False)
    lu, piv = paddle.linalg.lu(T(a))
    x = paddle.linalg.lu_solve(b, lu, piv)
    np.testing.assert_allclose(x.numpy(), np.linalg.solve(a, b.numpy()), rtol=1e-10)
    x.sum().backward()  # d(sum A^-1 b)/db = A^-T 1
    want = np.linalg.solve(np.swapaxes(a, -1, -2), np.ones((2, 4, 3)))
    np.testing.assert_allclose(b.grad.numpy(), want, rtol=1e-10)
    with pytest.raises(ValueError, match="trans must be 'N', 'T' or 'C'"):
        paddle.linalg.lu_solve(b, lu, piv, trans="X")
    with pytest.raises(ValueError, match=r"b must be \[\*, N, K\] with N = 4"):
        paddle.linalg.lu_solve(T(np.ones((2, 3, 1))), lu, piv)
    assert not hasattr(paddle, "lu_solve")  # paddle.linalg only, as in Paddle 3.3.1
