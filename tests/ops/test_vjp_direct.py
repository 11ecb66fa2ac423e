"""The direct gradient path (ops/vjp_context.grad_call, and the engine's direct gradient sums
and unbroadcast): eager backward without create_graph runs a rule's arithmetic on the kernels
directly; it must give exactly the gradients of the general path (dispatch, which
create_graph=True takes), fall back to dispatch where that is not the same thing, and keep
the engine's order and leaf-hook semantics."""
import numpy as np
import pytest

import sampan as paddle
import sampan.nn.functional as F
from sampan.framework import flags
from sampan.ops import vjp_context
from sampan.ops.dispatch import call


def _leaf(shape, seed, dtype="float64"):
    data = np.random.RandomState(seed).standard_normal(shape).astype(dtype)
    return paddle.to_tensor(data, stop_gradient=False)


def _both_paths(fn, leaves):
    """Gradients of sum(fn(*leaves)) by plain backward (direct path) and by paddle.grad
    with create_graph=True (every gradient op dispatched and recorded)."""
    fn(*leaves).sum().backward()
    fast = [t.grad.numpy().copy() for t in leaves]
    for t in leaves:
        t.clear_gradient()
    general = paddle.grad(fn(*leaves).sum(), leaves, create_graph=True)
    return fast, [g.numpy() for g in general]


CASES = {
    "multiply_broadcast": (lambda x, y: x * y, [(3, 4), (4,)]),
    "exp_tanh_add": (lambda x, w, b: (x * w + b).tanh().exp(), [(2, 5), (2, 5), (5,)]),
    "sum_axis_keepdim": (lambda x: paddle.sum(x * x, axis=1, keepdim=True), [(3, 4)]),
    "sum_middle_axis": (lambda x: paddle.sum(x.exp(), axis=1), [(2, 3, 4)]),
    "mean_axes": (lambda x: paddle.mean(x * x, axis=[0, 2]), [(2, 3, 4)]),
    "mean_all": (lambda x: paddle.mean(x.tanh()).reshape([1]), [(3, 4)]),
    "matmul": (lambda x, y: paddle.matmul(x, y), [(3, 4), (4, 2)]),
    "matmul_transposed": (lambda x, y: paddle.matmul(x, y, transpose_x=True,
                                                       transpose_y=True), [(4, 3), (2, 4)]),
    "matmul_vector": (lambda x, y: paddle.matmul(x, y), [(4,), (2, 4, 3)]),
    "linear_3d": (lambda x, w, b: F.linear(x, w, b), [(2, 3, 4), (4, 5), (5,)]),
    "relu": (lambda x: F.relu(x) * x, [(3, 4)]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_direct_path_gives_the_general_path_gradients(name):
    fn, shapes = CASES[name]
    leaves = [_leaf(s, i) for i, s in enumerate(shapes)]
    fast, general = _both_paths(fn, leaves)
    for f, g, t in zip(fast, general, leaves):
        assert f.shape == tuple(t.shape)
        np.testing.assert_array_equal(f, g)


def test_cross_entropy_gradients_match_the_general_path():
    label = paddle.to_tensor(np.array([[1], [0], [2]], "int64"))
    logits = _leaf((3, 4), 7, "float32")
    fast, general = _both_paths(lambda z: F.cross_entropy(z * 2.0, label).reshape([1]),
                                [logits])
    np.testing.assert_array_equal(fast[0], general[0])


def test_grad_call_falls_back_to_dispatch_under_a_wrapper():
    seen = []

    def spy(op, inputs, attrs, nxt):
        seen.append(op.name)
        return nxt(op, inputs, attrs)

    x = _leaf((2, 3), 1)
    y = (x * x).tanh().sum()
    with flags.dispatch_wrapper(spy):
        y.backward()
    assert "multiply" in seen   # the rules' arithmetic went through dispatch
    np.testing.assert_allclose(x.grad.numpy(),
                               2 * x.numpy() * (1 - np.tanh(x.numpy() ** 2) ** 2))


class _Ctx:
    create_graph = False


def test_direct_matches_dispatch_and_returns_arrays():
    a = paddle.to_tensor(np.arange(6.0).reshape(2, 3))
    b = paddle.to_tensor(np.ones(3))
    with paddle.no_grad():
        got = vjp_context.grad_call(_Ctx(), "multiply", a, b)
        s = vjp_context.grad_call(_Ctx(), "sum", a, axis=None, keepdim=False, dtype=None)
    np.testing.assert_array_equal(got.numpy(), call("multiply", a, b).numpy())
    assert isinstance(s._data, np.ndarray) and s._data.shape == ()   # not a NumPy scalar
    assert s.stop_gradient


def test_direct_promotes_and_explains_errors_like_dispatch():
    a = paddle.to_tensor(np.ones((2, 3), "float32"))
    b = paddle.to_tensor(np.ones((2, 3), "float64"))
    with paddle.no_grad():
        mixed = vjp_context.grad_call(_Ctx(), "multiply", a, b)
        assert mixed.dtype == call("multiply", a, b).dtype
        with pytest.raises(ValueError, match="matmul"):
            vjp_context.grad_call(_Ctx(), "matmul", a, paddle.to_tensor(np.ones((2, 3))))
        with pytest.raises(ValueError, match="reshape"):
            vjp_context.grad_call(_Ctx(), "reshape", a, shape=[5])


def test_root_reachable_from_another_root_waits_for_it():
    x = _leaf((3,), 2)
    y = x * x            # a root that also feeds the other root
    z = (y * 3.0).sum()
    paddle.autograd.backward([z, y.sum()])
    np.testing.assert_allclose(x.grad.numpy(), 2 * x.numpy() * 3.0 + 2 * x.numpy())
    y = x * x
    gx, = paddle.grad([(y * 3.0).sum(), y], [x])
    np.testing.assert_allclose(gx.numpy(), 2 * x.numpy() * 3.0 + 2 * x.numpy())


def test_paddle_grad_with_dependent_outputs_and_diamond():
    x = _leaf((4,), 3)
    a = x.exp()
    b = a * x          # diamond: x reaches b directly and through a
    c = b.tanh()
    ga, gx = paddle.grad([c.sum(), b.sum()], [a, x])
    xv = x.numpy()
    av, bv = np.exp(xv), np.exp(xv) * xv
    dc = 1 - np.tanh(bv) ** 2 + 1.0          # from c and from b
    np.testing.assert_allclose(ga.numpy(), dc * xv, rtol=1e-12)
    np.testing.assert_allclose(gx.numpy(), dc * (av + av * xv), rtol=1e-12)


def test_unbroadcast_direct_matches_the_op_path():
    g = paddle.to_tensor(np.random.RandomState(0).standard_normal((2, 3, 4)))
    with paddle.no_grad():
        for shape in [(4,), (3, 1), (1, 3, 1), (2, 1, 4)]:
            fast = vjp_context.unbroadcast(g, shape, recorded=False)
            slow = vjp_context.unbroadcast(g, shape)
            assert tuple(fast.shape) == shape
            np.testing.assert_array_equal(fast.numpy(), slow.numpy())
