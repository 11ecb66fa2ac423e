"""Tape autograd: backward, paddle.grad, hooks, grad modes, version counter, PyLayer."""
import numpy as np
import pytest

import sampan as paddle


def leaf(values, dtype="float64"):
    return paddle.to_tensor(np.asarray(values, dtype=dtype), stop_gradient=False)


def test_backward_accumulates_until_cleared():
    x = leaf([1.0, 2.0])
    (x * x).sum().backward()
    (x * x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 4 * x.numpy())
    x.clear_grad()
    np.testing.assert_allclose(x.grad.numpy(), [0.0, 0.0])
    x.clear_gradient(set_to_zero=False)
    assert x.grad is None


def test_backward_default_seed_is_ones_for_non_scalar():
    x = leaf([1.0, 2.0, 3.0])
    (x * 3.0).backward()
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 3.0, 3.0])


def test_backward_with_grad_tensor():
    x = leaf([1.0, 2.0])
    y = x * x
    y.backward(paddle.to_tensor([1.0, 10.0], dtype="float64"))
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 40.0])


def test_second_backward_needs_retain_graph():
    x = leaf([1.0, 2.0])
    y = (x.exp() * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    with pytest.raises(RuntimeError, match="retain_graph"):
        y.backward()


def test_backward_on_stop_gradient_tensor_does_nothing():
    # Paddle 3.3.1: backward from a tensor that stops gradient is a no-op (no error)
    lin = paddle.nn.Linear(2, 2)
    out = lin(paddle.to_tensor([[1.0, 2.0]]))
    out.stop_gradient = True
    out.sum().backward()
    assert lin.weight.grad is None
    x = paddle.to_tensor([1.0, 2.0])
    (x * 2).sum().backward()
    assert x.grad is None
    y = leaf(np.ones(2))
    paddle.autograd.backward([y * 2, paddle.to_tensor([3.0])])
    np.testing.assert_allclose(y.grad.numpy(), [2.0, 2.0])


def test_broadcast_gradient_is_reduced_to_input_shape():
    x = leaf(np.ones((3, 1)))
    y = leaf(np.arange(4.0))
    (x * y).sum().backward()
    assert x.grad.shape == [3, 1]
    np.testing.assert_allclose(x.grad.numpy(), np.full((3, 1), 6.0))
    np.testing.assert_allclose(y.grad.numpy(), np.full(4, 3.0))


def test_grad_returns_without_touching_dot_grad():
    x = leaf([1.0, 2.0])
    (g,) = paddle.grad([(x * x * x).sum()], [x])
    np.testing.assert_allclose(g.numpy(), 3 * x.numpy() ** 2)
    assert x.grad is None
    assert g.stop_gradient


def test_grad_of_intermediate_tensor():
    x = leaf([1.0, 2.0])
    h = x * 2.0
    y = (h * h).sum()
    (gh,) = paddle.grad(y, h)
    np.testing.assert_allclose(gh.numpy(), 2 * h.numpy())


def test_grad_create_graph_gives_higher_order():
    x = leaf([0.5, 1.5])
    y = (x * x * x).sum()
    (g,) = paddle.grad(y, x, create_graph=True)
    assert not g.stop_gradient
    (g2,) = paddle.grad(g.sum(), x, create_graph=True)
    np.testing.assert_allclose(g2.numpy(), 6 * x.numpy())
    (g3,) = paddle.grad(g2.sum(), x)
    np.testing.assert_allclose(g3.numpy(), [6.0, 6.0])


def test_grad_unused_input():
    x, z = leaf([1.0]), leaf([2.0])
    y = (x * 2).sum()
    with pytest.raises(ValueError, match="allow_unused"):
        paddle.grad(y, [x, z], retain_graph=True)
    gx, gz = paddle.grad(y, [x, z], allow_unused=True)
    assert gz is None and gx.numpy()[0] == 2.0


def test_grad_outputs_and_no_grad_vars():
    x = leaf([1.0, 2.0])
    h = x * x
    y = h * 3.0 + x
    (g,) = paddle.grad(y, x, grad_outputs=paddle.to_tensor([1.0, 1.0], dtype="float64"),
                       no_grad_vars=[h])
    np.testing.assert_allclose(g.numpy(), [1.0, 1.0])


def test_no_grad_context_decorator_and_enable_grad():
    x = leaf([1.0])
    with paddle.no_grad():
        y = x * 2
        with paddle.enable_grad():
            z = x * 2
    assert y.stop_gradient and not z.stop_gradient

    @paddle.no_grad()
    def f(t):
        return t * 2
    assert f(x).stop_gradient
    assert paddle.is_grad_enabled()
    with paddle.set_grad_enabled(False):
        assert not paddle.is_grad_enabled()
    assert paddle.is_grad_enabled()


def test_hooks_on_leaf_and_intermediate():
    x = leaf([1.0, 2.0])
    seen = []
    x.register_hook(lambda g: seen.append(g.numpy().copy()))
    h = x * 3.0
    handle = h.register_hook(lambda g: g * 10)
    h.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [30.0, 30.0])
    np.testing.assert_allclose(seen[0], [30.0, 30.0])
    assert handle.remove()


def test_retain_grads_keeps_intermediate_grad():
    x = leaf([1.0, 2.0])
    h = x * 3.0
    h.retain_grads()
    (h * h).sum().backward()
    np.testing.assert_allclose(h.grad.numpy(), 2 * h.numpy())


def test_register_hook_on_stop_gradient_tensor_raises():
    with pytest.raises(RuntimeError, match="stop_gradient"):
        paddle.to_tensor([1.0]).register_hook(lambda g: g)


def test_inplace_on_leaf_requiring_grad_raises():
    x = leaf([1.0, 2.0])
    with pytest.raises(ValueError, match="in-place"):
        x.exp_()
    with paddle.no_grad():
        x.exp_()
    np.testing.assert_allclose(x.numpy(), np.exp([1.0, 2.0]))


def test_inplace_keeps_graph_and_bumps_version():
    x = leaf([1.0, 2.0])
    y = x * 2.0
    v = y._version
    y.exp_()
    assert y._version == v + 1
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.exp(2 * x.numpy()))


def test_modified_saved_tensor_raises_instead_of_wrong_grad():
    x = leaf([1.0, 2.0])
    h = x * 2.0
    y = h * h           # multiply saves h
    h.exp_()            # ... which is then modified in place
    with pytest.raises(RuntimeError, match="in-place"):
        y.sum().backward()


def test_modified_saved_output_raises():
    x = leaf([1.0, 2.0])
    y = x.exp()         # exp saves its output
    y.add_(paddle.to_tensor([1.0, 1.0], dtype="float64"))
    with pytest.raises(RuntimeError, match="in-place"):
        y.sum().backward()


def test_detach_cuts_graph():
    x = leaf([1.0, 2.0])
    d = (x * 2).detach()
    assert d.stop_gradient and d.is_leaf
    y = (x * d).sum()
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), d.numpy())


def test_integer_outputs_stop_gradient():
    x = leaf([1.5, 2.5])
    assert (x * 2).astype("int64").stop_gradient


def test_pylayer_forward_backward_and_double_grad():
    class Cube(paddle.autograd.PyLayer):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensor()
            return g * 3.0 * x * x

    x = leaf([1.0, 2.0])
    y = Cube.apply(x)
    assert not y.stop_gradient
    (g,) = paddle.grad(y.sum(), x, create_graph=True)
    np.testing.assert_allclose(g.numpy(), 3 * x.numpy() ** 2)
    (g2,) = paddle.grad(g.sum(), x)
    np.testing.assert_allclose(g2.numpy(), 6 * x.numpy())


def test_pylayer_mark_non_differentiable_and_wrong_grad_count():
    class Two(paddle.autograd.PyLayer):
        @staticmethod
        def forward(ctx, x):
            mask = x * 0
            ctx.mark_non_differentiable(mask)
            return x * 2, mask

        @staticmethod
        def backward(ctx, g, gmask):
            return g * 2, g   # one too many

    x = leaf([1.0])
    y, mask = Two.apply(x)
    assert mask.stop_gradient and not y.stop_gradient
    with pytest.raises(ValueError, match="returned 2 gradients"):
        y.sum().backward()


def test_gradient_dtype_matches_input_dtype():
    x = paddle.to_tensor([1.0, 2.0], dtype="float32", stop_gradient=False)
    y = x.astype("float64") * 3.0
    y.sum().backward()
    assert x.grad.dtype == paddle.float32


def test_vjp_ctx_exposes_input_shapes_and_attr_defaults():
    seen = {}
    from sampan.autograd import engine
    original = engine._build_ctx

    def spy(node, create_graph):
        ctx = original(node, create_graph)
        seen[node.op.name] = ctx
        return ctx
    engine._build_ctx = spy
    try:
        x = leaf(np.ones((2, 3)))
        paddle.sum(x * 2.0).backward()
    finally:
        engine._build_ctx = original
    assert seen["sum"].in_shapes == [(2, 3)]
    assert seen["sum"].keepdim is False and seen["sum"].axis is None
