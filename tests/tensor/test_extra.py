"""tensor/extra.py: Paddle 3.3.1 numbers, gradients the op database cannot express, errors,
top_p_sampling statistics, the legacy `batch` reader decorator and `check_shape`."""
import numpy as np
import pytest

import sampan as paddle
from sampan.tensor import extra as E

_BOUND = hasattr(paddle.Tensor, "renorm") and hasattr(paddle, "combinations")


def test_renorm_matches_paddle_example():
    x = paddle.to_tensor([[[2.0, 2.0, -2.0], [3.0, 0.3, 3.0]],
                          [[2.0, -8.0, 2.0], [3.1, 3.7, 3.0]]])
    want = [[[0.40594056, 0.29285714, -0.41], [0.60891086, 0.04392857, 0.61500001]],
            [[0.40594056, -1.17142856, 0.41], [0.62920785, 0.54178572, 0.61500001]]]
    np.testing.assert_allclose(E.renorm(x, 1.0, 2, 2.05).numpy(), want, rtol=1e-6)


def test_renorm_gradient_matches_paddle():
    x = paddle.to_tensor(np.array([[1.0, -2.0, 3.0], [0.5, 0.2, -0.1]]))
    x.stop_gradient = False
    g = paddle.to_tensor(np.array([[0.3, -1.0, 2.0], [1.5, 0.7, -0.4]]))
    (E.renorm(x, 1.0, 1, 1.5) * g).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [[0.3, -0.01859504, 0.02497399],
                                                [1.5, -0.18595041, 0.74921956]], atol=1e-8)


def test_renorm_zero_slice_has_finite_gradient():
    x = paddle.to_tensor(np.array([[0.0, 0.0], [3.0, 4.0]]))
    x.stop_gradient = False
    y = E.renorm(x, 2.0, 0, 1.0)
    y.sum().backward()
    np.testing.assert_allclose(y.numpy(), [[0, 0], [0.6, 0.8]])
    assert np.isfinite(x.grad.numpy()).all()
    np.testing.assert_allclose(x.grad.numpy()[0], [1.0, 1.0])


def test_renorm_errors():
    x = paddle.ones([2, 3])
    with pytest.raises(ValueError, match="axis:2 should be less then"):
        E.renorm(x, 2.0, 2, 1.0)
    with pytest.raises(ValueError, match="axis:-3 should not be less than"):
        E.renorm(x, 2.0, -3, 1.0)
    with pytest.raises(ValueError, match="renorm: p must be positive"):
        E.renorm(x, 0.0, 0, 1.0)
    with pytest.raises(TypeError, match="renorm: x must be a float"):
        E.renorm(paddle.to_tensor([[1, 2]]), 2.0, 0, 1.0)


def test_as_strided_gradient_accumulates():
    # every read position gets the sum of its cotangents (finite differences agree);
    # Paddle 3.3.1 keeps only the last write ([1, 4, 5, 6]) for overlapping windows
    b = paddle.to_tensor([1.0, 2.0, 3.0, 4.0])
    b.stop_gradient = False
    out = E.as_strided(b, [2, 3], [1, 1])
    (out * paddle.to_tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])).sum().backward()
    np.testing.assert_allclose(b.grad.numpy(), [1.0, 6.0, 8.0, 6.0])


def test_as_strided_errors():
    x = paddle.arange(4)
    with pytest.raises(ValueError, match=r"read element 4 but x \(shape \[4\]\) has 4"):
        E.as_strided(x, [3, 3], [1, 1])
    with pytest.raises(ValueError, match="same length"):
        E.as_strided(x, [2, 2], [1])
    with pytest.raises(ValueError, match="non-negative"):
        E.as_strided(x, [2], [-1])
    with pytest.raises(TypeError, match="as_strided: shape must be a list"):
        E.as_strided(x, [2.0], [1])


def test_combinations_shapes_and_errors():
    a = paddle.to_tensor([1.0, 2.0, 3.0, 4.0])
    assert E.combinations(a, 3, True).shape == [20, 3]
    assert E.combinations(a, 0).shape == [0]
    assert E.combinations(a, 5).shape == [0, 5]
    assert E.combinations(paddle.to_tensor([], dtype="float32")).shape == [0, 2]
    assert E.combinations(paddle.to_tensor([1, 2, 3])).dtype == paddle.int64
    with pytest.raises(TypeError, match=r"1-D vector, but got x shape \[1, 2\]"):
        E.combinations(paddle.to_tensor([[1, 2]]))
    with pytest.raises(ValueError, match="non-negative int, but got r=-1"):
        E.combinations(a, -1)


def test_combinations_gradient_matches_paddle():
    b = paddle.to_tensor([1.0, 2.0, 3.0])
    b.stop_gradient = False
    (E.combinations(b) * paddle.to_tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])).sum().backward()
    np.testing.assert_allclose(b.grad.numpy(), [4.0, 7.0, 10.0])


def test_trapezoid_matches_paddle():
    y = paddle.to_tensor([[1.0, 2.0, 4.0], [3.0, 5.0, 8.0]])
    np.testing.assert_allclose(E.trapezoid(y).numpy(), [4.5, 10.5])
    np.testing.assert_allclose(E.trapezoid(y, dx=0.5, axis=0).numpy(), [1.0, 1.75, 3.0])
    out = E.trapezoid(paddle.to_tensor([1.0, 2.0, 4.0]), x=paddle.to_tensor([0.0, 1.0, 3.0]))
    assert out.shape == [] and float(out) == 7.5
    np.testing.assert_allclose(
        E.cumulative_trapezoid(y, x=paddle.to_tensor([[0.0, 1.0, 3.0], [0.0, 2.0, 3.0]])).numpy(),
        [[1.5, 7.5], [8.0, 14.5]])
    assert float(E.trapezoid(paddle.to_tensor([1.0]))) == 0.0
    assert E.cumulative_trapezoid(paddle.to_tensor([1.0])).shape == [0]
    assert float(E.trapezoid(paddle.to_tensor([1.0, 2.0, 4.0]), dx=paddle.to_tensor(2.0))) == 9.0


def test_trapezoid_errors():
    y = paddle.to_tensor([1.0, 2.0])
    with pytest.raises(ValueError, match="not permitted to specify both x and dx"):
        E.trapezoid(y, x=y, dx=1.0)
    with pytest.raises(TypeError, match="trapezoid: y must be a float16, float32 or float64"):
        E.trapezoid(paddle.to_tensor([1, 2, 3]))
    with pytest.raises(ValueError, match="expected dx to be a scalar"):
        E.cumulative_trapezoid(y, dx=paddle.ones([2, 2]))
    with pytest.raises(ValueError, match=r"1-D x must have the length of y along axis 0 \(2\)"):
        E.trapezoid(y, x=paddle.to_tensor([1.0, 2.0, 3.0]))


def test_fill_diagonal_tensor_paddle_examples_and_grads():
    x = paddle.ones([4, 3]) * 2
    np.testing.assert_array_equal(E.fill_diagonal_tensor(x, paddle.ones([3])).numpy(),
                                  [[1, 2, 2], [2, 1, 2], [2, 2, 1], [2, 2, 2]])
    np.testing.assert_array_equal(
        E.fill_diagonal_tensor(paddle.ones([4, 3]), paddle.zeros([2]), offset=1).numpy(),
        [[1, 0, 1], [1, 1, 0], [1, 1, 1], [1, 1, 1]])
    x = paddle.ones([3, 3])
    y = paddle.to_tensor([1.0, 2.0, 3.0])
    x.stop_gradient = y.stop_gradient = False
    w = paddle.arange(9).reshape([3, 3]).astype("float32")
    (E.fill_diagonal_tensor(x, y) * w).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[0, 1, 2], [3, 0, 5], [6, 7, 0]])
    # Paddle 3.3.1 gives y no gradient; the diagonal of the cotangent is the true one
    np.testing.assert_array_equal(y.grad.numpy(), [0, 4, 8])


def test_fill_diagonal_tensor_errors():
    with pytest.raises(ValueError, match=r"the y shape should be \[3\], got \[2\]"):
        E.fill_diagonal_tensor(paddle.ones([4, 3]), paddle.zeros([2]))
    with pytest.raises(ValueError, match="at least 2 dims"):
        E.fill_diagonal_tensor(paddle.ones([3]), paddle.zeros([1]))
    with pytest.raises(ValueError, match=r"dim2 2 should be in \[-2, 2\)"):
        E.fill_diagonal_tensor(paddle.ones([3, 3]), paddle.zeros([3]), dim2=2)


def test_top_p_sampling_distribution():
    x = paddle.to_tensor(np.tile([[0.5, 0.3, 0.15, 0.05]], (4000, 1)).astype("float32"))
    paddle.seed(7)
    value, ids = E.top_p_sampling(x, paddle.full([4000], 0.7))
    assert value.shape == [4000, 1] and ids.dtype == paddle.int64
    counts = np.bincount(ids.numpy().reshape(-1), minlength=4)
    # top-p 0.7 keeps {0.5, 0.3}: renormalised 0.625 / 0.375, nothing else
    assert counts[2] == counts[3] == 0
    assert abs(counts[0] / 4000 - 0.625) < 0.03
    np.testing.assert_array_equal(value.numpy().reshape(-1),
                                  np.where(ids.numpy().reshape(-1) == 0, 0.5, 0.3).astype("float32"))


def test_top_p_sampling_seeds_and_errors():
    x = paddle.to_tensor(np.random.default_rng(0).dirichlet(np.ones(8), 5).astype("float32"))
    ps = paddle.full([5], 0.9)
    a = E.top_p_sampling(x, ps, seed=3)[1].numpy()
    b = E.top_p_sampling(x, ps, seed=3)[1].numpy()
    np.testing.assert_array_equal(a, b)
    seeds = paddle.to_tensor(np.arange(5, dtype="int64"))
    c = E.top_p_sampling(x, ps, topp_seed=seeds)[1].numpy()
    np.testing.assert_array_equal(c, E.top_p_sampling(x, ps, topp_seed=seeds)[1].numpy())
    with pytest.raises(ValueError, match="top_p_sampling: x must be a 2-D tensor"):
        E.top_p_sampling(paddle.ones([3]), ps)
    with pytest.raises(ValueError, match=r"ps must hold one value per row of x \(batch 5\)"):
        E.top_p_sampling(x, paddle.full([4], 0.5))
    with pytest.raises(ValueError, match="mode must be"):
        E.top_p_sampling(x, ps, mode="greedy")
    with pytest.raises(ValueError, match=r"k must be in \[0, 8\]"):
        E.top_p_sampling(x, ps, k=9)


def test_batch_reader():
    assert list(E.batch(lambda: iter(range(7)), 3)()) == [[0, 1, 2], [3, 4, 5], [6]]
    assert list(E.batch(lambda: iter(range(7)), 3, drop_last=True)()) == [[0, 1, 2],
                                                                          [3, 4, 5]]
    reader = E.batch(lambda: iter("abcd"), 2)
    assert list(reader()) == list(reader()) == [["a", "b"], ["c", "d"]]
    with pytest.raises(ValueError, match="batch_size should be a positive integer"):
        E.batch(lambda: iter(range(3)), 0)


def test_check_shape():
    assert E.check_shape([2, "a"], "reshape") is None  # dynamic mode: no check, as Paddle
    paddle.enable_static()
    try:
        E.check_shape([2, 3], "fill_constant")
        with pytest.raises(TypeError, match="'shape' in fill_constant must be"):
            E.check_shape("23", "fill_constant")
        with pytest.raises(TypeError, match="'element of shape' in fill_constant"):
            E.check_shape([2, 3.0], "fill_constant")
        v = paddle.static.data("shp", [2], "float32")
        with pytest.raises(TypeError, match="data type of 'shape' in fill_constant"):
            E.check_shape(v, "fill_constant")
    finally:
        paddle.disable_static()


@pytest.mark.skipif(not _BOUND, reason="tensor/extra.py not yet listed in tensor/__init__.py")
def test_top_level_names_and_methods():
    x = paddle.to_tensor([[3.0, 4.0], [0.3, 0.4]])
    for name in E.__all__:
        assert getattr(paddle, name) is getattr(E, name)
    np.testing.assert_allclose(x.renorm(2.0, 0, 1.0).numpy(), [[0.6, 0.8], [0.3, 0.4]],
                               rtol=1e-6)
    assert x.renorm_(2.0, 0, 1.0) is x
    assert paddle.to_tensor([1.0, 2.0]).combinations().shape == [1, 2]
    y = paddle.ones([2, 2])
    assert y.fill_diagonal_tensor_(paddle.zeros([2])) is y and float(y.sum()) == 2.0
