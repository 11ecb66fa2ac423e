"""paddle.grad argument handling as Paddle: malformed arguments raise an error that is both
TypeError/ValueError and AssertionError (Paddle asserts), a grad_outputs entry with the
output's element count is reshaped to it, and create_graph results are differentiable."""
import numpy as np
import pytest

import sampan as paddle


def _var(shape=(2, 3)):
    t = paddle.to_tensor(np.random.default_rng(1).uniform(-1, 1, shape).astype("float32"))
    return t


@pytest.mark.parametrize("args,kwargs", [
    ((None, None), {}), ((1, "x"), {}), (("x", 1), {}), (([1], ["x"]), {}),
    ((["x"], [1]), {}), ((["x", "x"], ["x"], ["x"]), {}),
    ((["x"], ["x"]), {"no_grad_vars": [1]}), ((["x"], ["x"]), {"no_grad_vars": 1})])
def test_malformed_arguments_raise_assertion_errors(args, kwargs):
    args = [[_var() if a == "x" else a for a in v] if isinstance(v, list) else
            (_var() if v == "x" else v) for v in args]
    with pytest.raises(AssertionError):
        paddle.grad(*args, **kwargs)
    with pytest.raises((TypeError, ValueError)):
        paddle.grad(*args, **kwargs)


def test_grad_output_with_the_same_element_count_is_reshaped():
    x = _var()
    x.stop_gradient = False
    y = (x * x).sum()
    g, = paddle.grad(y, x, grad_outputs=paddle.to_tensor([2.0]))
    np.testing.assert_allclose(g.numpy(), 4 * x.numpy(), rtol=1e-6)
    with pytest.raises(ValueError, match="grad_outputs\\[0\\] has shape \\[2\\]"):
        paddle.grad(y, x, grad_outputs=paddle.to_tensor([2.0, 1.0]))


@pytest.mark.parametrize("create_graph", [False, True])
def test_create_graph_results_are_differentiable(create_graph):
    x = _var()
    x.stop_gradient = False
    dx, = paddle.grad([x], [x], create_graph=create_graph)
    assert dx.stop_gradient is (not create_graph)
    assert np.all(dx.numpy() == 1)
    assert x.stop_gradient is False
