"""The static backward follows the same rulebook as the eager engine (ops/vjp_context.py):
none_grads / nondiff_outputs, fused gradient kernels (ctx.create_graph False), and
static.gradients mixed with append_backward on one Program."""
import ast
import contextlib
import pathlib

import numpy as np
import pytest

import sampan as paddle
from sampan import static
from sampan.ops.opdef import REGISTRY, OpDef
from sampan.ops.vjp_context import VjpContext, fill_missing, unbroadcast
from sampan.utils import unique_name


@contextlib.contextmanager
def _building(main, startup=None):
    was_dynamic = paddle.in_dynamic_mode()
    paddle.enable_static()
    try:
        with unique_name.guard(), static.program_guard(main, startup or static.Program()):
            yield
    finally:
        if was_dynamic:
            paddle.disable_static()


def _run(main, feed, fetch, startup=None):
    exe = static.Executor()
    if startup is not None:
        exe.run(startup)
    return exe.run(main, feed=feed, fetch_list=fetch)


def test_gradients_then_append_backward_on_one_program():
    # Paddle 3.3.1 runs this program and gives the analytic gradients checked below
    rng = np.random.default_rng(0)
    xv = rng.standard_normal((2, 3)).astype("float32")
    wv = rng.standard_normal((3, 1)).astype("float32")
    main, startup = static.Program(), static.Program()
    with _building(main, startup):
        x = static.data("x", [2, 3], "float32")
        x.stop_gradient = False
        w = static.create_parameter([3, 1], "float32", name="w",
                                    default_initializer=paddle.nn.initializer.Assign(wv))
        y = paddle.matmul(x, w)
        loss = (y * y).sum()
        (gx,) = static.gradients([loss], [x])
        pairs = static.append_backward(loss)
    assert [p.name for p, _ in pairs] == ["w"]
    got_gx, got_gw = _run(main, {"x": xv}, [gx, pairs[0][1]], startup)
    np.testing.assert_allclose(got_gx, 2 * (xv @ wv) @ wv.T, rtol=1e-5)
    np.testing.assert_allclose(got_gw, xv.T @ (2 * xv @ wv), rtol=1e-5)


def _bn_program(layer_norm=False):
    main, startup = static.Program(), static.Program()
    with _building(main, startup):
        x = static.data("x", [4, 3, 2, 2], "float64")
        x.stop_gradient = False
        if layer_norm:
            out = paddle.nn.functional.layer_norm(x, [3, 2, 2])
        else:
            mean = paddle.zeros([3], "float64")
            var = paddle.ones([3], "float64")
            out = paddle.nn.functional.batch_norm(x, mean, var, training=True)
        loss = (out * out * paddle.arange(48, dtype="float64").reshape([4, 3, 2, 2])).sum()
        (gx,) = static.gradients([loss], [x])
    return main, startup, x, gx


@pytest.mark.parametrize("layer_norm", [False, True])
def test_norm_backward_uses_the_fused_vjp_and_no_zero_fills(layer_norm):
    main, startup, x, gx = _bn_program(layer_norm)
    types = [op.type for op in main.global_block().ops]
    fused = "_layer_norm_vjp" if layer_norm else "_batch_norm_vjp"
    assert fused in types
    backward = types[types.index("full_like"):]
    # the loss's gradient, then the fused kernel: no primitives re-deriving the statistics
    # (the old static path emitted ~20) and no zeros for the nondiff saved_mean/invstd
    assert backward[-1] == fused and backward.count("full_like") == 1
    assert not {"mean", "rsqrt", "square", "subtract", "divide"} & set(backward)
    xv = np.random.default_rng(1).standard_normal((4, 3, 2, 2))
    (got,) = _run(main, {"x": xv}, [gx], startup)
    xt = paddle.to_tensor(xv, stop_gradient=False)
    if layer_norm:
        out = paddle.nn.functional.layer_norm(xt, [3, 2, 2])
    else:
        out = paddle.nn.functional.batch_norm(xt, paddle.zeros([3], "float64"),
                                              paddle.ones([3], "float64"), training=True)
    (out * out * paddle.arange(48, dtype="float64").reshape([4, 3, 2, 2])).sum().backward()
    np.testing.assert_allclose(got, xt.grad.numpy(), rtol=1e-10, atol=1e-12)


class _TwoOut(OpDef):
    """Test op: (x * 2, x * 3); the vjp records which output grads it got."""
    name = "_test_two_out"
    outputs = ("a", "b")
    seen: list = []

    def infer(self, x):
        return x, x

    def compute(self, xp, x):
        return x * 2, x * 3

    def vjp(self, ctx, ga, gb):
        type(self).seen.append((ga is None, gb is None))
        g = ga * 2.0 if ga is not None else None
        if gb is not None:
            g = gb * 3.0 if g is None else g + gb * 3.0
        return (g,)


@pytest.mark.parametrize("none_grads,expected", [(True, (False, True)),
                                                 (False, (False, False))])
def test_static_backward_honours_none_grads(none_grads, expected):
    op = type("_T", (_TwoOut,), {"none_grads": none_grads})()
    REGISTRY[op.name] = op
    _TwoOut.seen = []
    try:
        main = static.Program()
        with _building(main):
            x = static.data("x", [3], "float64")
            x.stop_gradient = False
            a, _ = paddle.ops.dispatch(op, (x,))
            (gx,) = static.gradients([a.sum()], [x])
        (got,) = _run(main, {"x": np.ones(3)}, [gx])
    finally:
        del REGISTRY[op.name]
    assert _TwoOut.seen == [expected]
    np.testing.assert_allclose(got, [2.0, 2.0, 2.0])


def test_fill_missing_rule():
    class Op:
        none_grads = False
        nondiff_outputs = (1,)
    assert fill_missing(Op, [None, None, 5], lambda i: f"z{i}") == ["z0", None, 5]
    Op.none_grads = True
    assert fill_missing(Op, [None, None, 5], lambda i: f"z{i}") == [None, None, 5]


def test_unbroadcast_eager_and_unknown_dims():
    g = paddle.ones([2, 3, 4])
    assert unbroadcast(g, [3, 1]).shape == [3, 1]
    assert float(unbroadcast(g, [3, 1]).sum()) == 24.0
    assert unbroadcast(g, [1, 3, 4]).shape == [1, 3, 4]
    main = static.Program()
    with _building(main):
        v = static.data("v", [-1, 3, 4], "float32")
        assert unbroadcast(v, [-1, 1, 4]).shape == [-1, 1, 4]
        assert unbroadcast(v, [4]).shape == [4]


def test_vjp_context_fields():
    ctx = VjpContext({"axis": 1}, (True,), [(2,)], True)
    assert (ctx.axis, ctx.needs, ctx.in_shapes, ctx.create_graph, ctx.blocks) == \
        (1, (True,), [(2,)], True, None)


def test_sub_block_vjp_without_a_block_builder_says_so():
    ctx = VjpContext(dict(REGISTRY["cond"].attrs), (False, (True,)), [None, (1,)], False)
    with pytest.raises(RuntimeError, match="cond: the gradient of this operator builds"):
        REGISTRY["cond"].vjp(ctx, paddle.ones([1]))


def _imports(path: pathlib.Path):
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            yield "." * node.level + (node.module or "")
        elif isinstance(node, ast.Import):
            yield from (a.name for a in node.names)


def test_ops_never_import_static_or_jit():
    root = pathlib.Path(paddle.__file__).parent / "ops"
    bad = [(p.name, m) for p in root.glob("*.py") for m in _imports(p)
           if m.startswith(("..static", "..jit", "..autograd", "sampan.static", "sampan.jit"))]
    assert bad == []


def test_static_second_order_through_the_fused_norm_kernel_says_so():
    main = static.Program()
    with _building(main):
        x = static.data("x", [4, 3], "float64")
        x.stop_gradient = False
        out = paddle.nn.functional.batch_norm(x, paddle.zeros([3], "float64"),
                                              paddle.ones([3], "float64"), training=True)
        (gx,) = static.gradients([(out * out * out).sum()], [x])
        with pytest.raises(NotImplementedError, match="batch_norm: second-order gradients"):
            static.gradients([gx.sum()], [x])


def test_eager_create_graph_recomputes_batch_norm_statistics():
    # ctx.create_graph picks the differentiable path: the second derivative must see the
    # batch statistics' dependence on x (checked against differences of the first grad)
    rng = np.random.default_rng(2)
    xv, cv, vv = (rng.standard_normal((4, 3)) for _ in range(3))

    def first(xa, create_graph):
        x = paddle.to_tensor(xa, stop_gradient=False)
        out = paddle.nn.functional.batch_norm(x, paddle.zeros([3], "float64"),
                                              paddle.ones([3], "float64"), training=True)
        (g,) = paddle.grad((out * out * out * paddle.to_tensor(cv)).sum(), x,
                           create_graph=create_graph)
        return x, g

    x, g = first(xv, True)
    (gg,) = paddle.grad((g * paddle.to_tensor(vv)).sum(), x)
    eps = 1e-6
    numeric = np.zeros_like(xv)
    for idx in np.ndindex(*xv.shape):
        d = np.zeros_like(xv)
        d[idx] = eps
        hi = (first(xv + d, False)[1].numpy() * vv).sum()
        lo = (first(xv - d, False)[1].numpy() * vv).sum()
        numeric[idx] = (hi - lo) / (2 * eps)
    np.testing.assert_allclose(gg.numpy(), numeric, rtol=1e-5, atol=1e-6)
