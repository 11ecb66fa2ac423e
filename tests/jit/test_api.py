"""paddle.jit.to_static: decorator forms, values and gradients equal to eager, the program
cache, nesting, mixing with eager code, fallback, and the StaticFunction API."""
import logging
import warnings

import numpy as np
import pytest

import sampan as paddle
from sampan import nn
from sampan.static import InputSpec


def _t(arr, grad=False):
    return paddle.to_tensor(np.asarray(arr, "float32"), stop_gradient=not grad)


def _fn(x, y):
    return paddle.tanh(x) * y + x.sum(), paddle.matmul(x, y.T)


def test_function_values_and_grads_equal_eager():
    rng = np.random.RandomState(0)
    a, b = rng.randn(3, 4), rng.randn(3, 4)
    results = []
    for fn in (_fn, paddle.jit.to_static(_fn)):
        x, y = _t(a, True), _t(b, True)
        u, v = fn(x, y)
        (u.sum() * 3 + (v * v).mean()).backward()
        results.append([u.numpy(), v.numpy(), x.grad.numpy(), y.grad.numpy()])
    for e, s in zip(*results):
        np.testing.assert_allclose(s, e, rtol=1e-5, atol=1e-6)


def test_paddle_grad_and_mixing_with_eager_code():
    f = paddle.jit.to_static(lambda x: paddle.exp(x) * 2.0)
    x = _t([0.5, -1.0], True)
    h = x * 3.0                      # eager before
    out = (f(h) + h).sum()           # eager after
    (g,) = paddle.grad(out, [x])
    np.testing.assert_allclose(g.numpy(), 3 * (2 * np.exp([1.5, -3.0]) + 1), rtol=1e-6)


class _Net(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)
        self.drop = nn.Dropout(0.5)

    def forward(self, x, scale=1.0):
        return self.drop(self.fc(x)) * scale


class _Decorated(_Net):
    @paddle.jit.to_static(input_spec=[InputSpec([None, 4], "float32", "x")])
    def forward(self, x, scale=1.0):
        return self.drop(self.fc(x)) * scale


def test_layer_forms_share_parameters_and_train():
    paddle.seed(3)
    net = _Net()
    x = _t(np.ones((2, 4)))
    net.eval()
    eager = net(x).numpy()
    static = paddle.jit.to_static(net)
    assert static is net and isinstance(net.forward, paddle.jit.StaticFunction)
    np.testing.assert_allclose(net(x).numpy(), eager, rtol=1e-6)
    loss = net(x).sum()
    loss.backward()
    np.testing.assert_allclose(net.fc.bias.grad.numpy(), [2.0, 2.0, 2.0])
    with paddle.no_grad():
        net.fc.bias.set_value(net.fc.bias.numpy() + 1.0)
    np.testing.assert_allclose(net(x).numpy(), eager + 1.0, rtol=1e-6)   # params are shared


def test_program_cache_keys():
    paddle.seed(1)
    net = _Net()
    f = paddle.jit.to_static(net).forward
    net.eval()
    f(_t(np.ones((2, 4))))
    f(_t(np.ones((2, 4))))
    assert len(f.program_cache) == 1
    f(_t(np.ones((5, 4))))                      # new shape
    f(_t(np.ones((2, 4))), scale=2.0)           # new non-tensor value
    net.train()
    f(_t(np.ones((2, 4))))                      # train vs eval
    assert len(f.program_cache) == 4
    ops = [op.type for op in f.concrete_program.main_program.global_block().ops]
    assert "dropout" in ops


def test_input_spec_none_dims_one_program():
    paddle.seed(1)
    net = _Decorated()
    net.eval()
    for n in (1, 3, 7):
        out = net(_t(np.ones((n, 4))))
        assert out.shape == [n, 3]
    assert len(net.forward.program_cache) == 1
    x = net.forward.concrete_program.inputs[0]
    assert x.name == "x" and x.shape == [-1, 4]
    with pytest.raises(ValueError, match=r"shape \[2, 5\].*InputSpec shape \[-1, 4\]"):
        net(_t(np.ones((2, 5))))


def test_batchnorm_statistics_shared_and_two_calls_before_backward():
    paddle.seed(2)
    bn_e, bn_s = nn.BatchNorm1D(3), nn.BatchNorm1D(3)
    bn_s.set_state_dict(bn_e.state_dict())
    paddle.jit.to_static(bn_s)
    data = np.random.RandomState(1).randn(5, 3)
    grads = []
    for bn in (bn_e, bn_s):
        x = _t(data, True)
        a, b = bn(x), bn(x * 2.0)
        (a.sum() + (b * b).sum()).backward()
        grads.append(x.grad.numpy())
    np.testing.assert_allclose(bn_s._mean.numpy(), bn_e._mean.numpy(), rtol=1e-6)
    np.testing.assert_allclose(bn_s._variance.numpy(), bn_e._variance.numpy(), rtol=1e-6)
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-4, atol=1e-6)


def test_nested_static_functions_trace_inline():
    inner = paddle.jit.to_static(lambda x: x * 2.0 + 1.0)

    @paddle.jit.to_static
    def outer(x):
        return inner(x) - inner(x * 0.5)

    out = outer(_t([1.0, 2.0]))
    np.testing.assert_allclose(out.numpy(), [1.0, 2.0])
    ops = [op.type for op in outer.concrete_program.main_program.global_block().ops]
    assert "run_program" not in ops and ops.count("scale") + ops.count("multiply") >= 2
    assert len(inner.program_cache) == 0


def test_enable_to_static_false_runs_eagerly():
    f = paddle.jit.to_static(lambda x: x + 1.0)
    try:
        paddle.jit.enable_to_static(False)
        assert f(_t([1.0])).numpy()[0] == 2.0
        assert len(f.program_cache) == 0
    finally:
        paddle.jit.enable_to_static(True)
    with pytest.raises(TypeError, match="enable_to_static_bool must be a bool"):
        paddle.jit.enable_to_static(1)


def _needs_numpy(x):
    y = x * 2.0
    scale = float(np.abs(y.numpy()).max())   # not expressible in a static graph
    return y / scale


def test_fallback_warns_once_and_stays_correct():
    f = paddle.jit.to_static(_needs_numpy)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out1 = f(_t([1.0, -4.0]))
        out2 = f(_t([2.0, 1.0]))
    np.testing.assert_allclose(out1.numpy(), [0.25, -1.0])
    np.testing.assert_allclose(out2.numpy(), [1.0, 0.5])
    msgs = [str(w.message) for w in caught if "to_static" in str(w.message)]
    assert len(msgs) == 1
    assert "_needs_numpy" in msgs[0] and "test_api.py" in msgs[0] and "y.numpy()" in msgs[0]


def test_full_graph_raises_with_location():
    f = paddle.jit.to_static(_needs_numpy, full_graph=True)
    with pytest.raises(Exception, match=r"(?s)test_api\.py.*\d+.*y\.numpy\(\)") as info:
        f(_t([1.0]))
    assert "full_graph" in str(info.value) or "_needs_numpy" in str(info.value)


def test_static_function_api():
    def g(x):
        return x * 3.0
    f = paddle.jit.to_static(g, input_spec=[InputSpec([None], "float32", "v")])
    assert "return x * 3.0" in f.code
    concrete, runner = f.get_concrete_program(InputSpec([None], "float32", "v"))
    assert concrete is f.concrete_program and concrete.inputs[0].name == "v"
    assert f.rollback() is g and f.dygraph_function is g
    net = paddle.jit.to_static(_Net())
    original = net.forward.rollback()
    assert "forward" not in net.__dict__ and original.__func__ is _Net.forward
    with pytest.raises(TypeError, match="input_spec must be a list"):
        paddle.jit.to_static(g, input_spec=InputSpec([1]))
    with pytest.raises(ValueError, match="backend"):
        paddle.jit.to_static(g, backend="TVM")
    with pytest.raises(RuntimeError, match="has not been called"):
        paddle.jit.to_static(g).concrete_program


def test_not_to_static_ignore_module_and_logging(caplog):
    @paddle.jit.not_to_static
    def plain(x):
        return x + 1
    assert plain._sampan_not_to_static and paddle.jit.marker.unified(plain) is plain
    paddle.jit.ignore_module([np])
    with pytest.raises(TypeError, match="not a module"):
        paddle.jit.ignore_module(["numpy"])
    with pytest.raises(TypeError, match="level must be an int"):
        paddle.jit.set_code_level("high")
    try:
        paddle.jit.set_verbosity(1)
        with caplog.at_level(logging.INFO, logger="sampan.jit"):
            paddle.jit.to_static(lambda x: x - 1.0)(_t([1.0]))
        assert any("tracing" in r.message for r in caplog.records)
    finally:
        paddle.jit.set_verbosity(0)


def test_higher_order_gradient_is_a_clear_error():
    f = paddle.jit.to_static(lambda x: x * x * x)
    x = _t([2.0], True)
    (g,) = paddle.grad(f(x), [x], create_graph=True)
    np.testing.assert_allclose(g.numpy(), [12.0])
    with pytest.raises(NotImplementedError, match="higher-order gradients"):
        g.backward()


def test_a_step_frees_its_saved_values_without_the_cyclic_gc():
    import gc
    from sampan.ops.run_program import Saved
    net = paddle.jit.to_static(_Net())
    gc.collect()
    gc.disable()
    try:
        for _ in range(3):
            out = net(_t(np.ones((2, 4))))
            ((out * out).sum()).backward()
            del out
        alive = sum(isinstance(o, Saved) for o in gc.get_objects())
    finally:
        gc.enable()
    assert alive == 0   # a reference cycle would keep every step's intermediates alive
