"""PyLayer in static graphs: to_static and jit.save trace one `py_layer` op that keeps the
class's forward and backward (the backward used is the user's, not autodiff of forward)."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import sampan as paddle
from sampan.autograd import PyLayer
from tests.static_util import static_guard

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Tanh(PyLayer):
    @staticmethod
    def forward(ctx, x, scale=1.0):
        y = paddle.tanh(x) * scale
        ctx.save_for_backward(y)
        ctx.scale = scale
        return y

    @staticmethod
    def backward(ctx, dy):
        y, = ctx.saved_tensor()
        return dy * (ctx.scale - y * y / ctx.scale)


class StraightThrough(PyLayer):
    """round in forward, identity x 3 in backward (so the user's backward is visible)."""

    @staticmethod
    def forward(ctx, x, y):
        return paddle.round(x), x * y

    @staticmethod
    def backward(ctx, d_round, d_prod):
        return d_round * 3.0, d_prod * 0.0


class Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.linear = paddle.nn.Linear(3, 3)

    def forward(self, x):
        r, p = StraightThrough.apply(self.linear(x), x)
        return Tanh.apply(r + p, scale=2.0)


def _x(seed=0, shape=(4, 3)):
    return np.random.default_rng(seed).standard_normal(shape).astype("float32") * 2


def _net():
    paddle.seed(3)
    net = Net()
    net.linear.weight.set_value(paddle.to_tensor(_x(1, (3, 3))))
    return net


def test_static_program_has_one_op_per_call_and_user_backward():
    x_np = _x(2)
    main = paddle.static.Program()
    with static_guard(main):
        x = paddle.static.data("x", [-1, 3], "float32")
        x.stop_gradient = False
        r, p = StraightThrough.apply(x, x)
        loss = paddle.sum(r) + paddle.sum(p)
        gx, = paddle.static.gradients([loss], [x])
    types = [op.type for op in main.global_block().ops]
    assert types.count("py_layer") == 2 and "round" not in types   # forward + its backward
    assert main.num_blocks == 1
    got = paddle.static.Executor().run(main, feed={"x": x_np}, fetch_list=[loss, gx])
    np.testing.assert_allclose(got[0], np.round(x_np).sum() + (x_np * x_np).sum(), rtol=1e-5)
    np.testing.assert_allclose(got[1], np.full_like(x_np, 3.0))


def test_to_static_matches_eager_with_user_backward():
    x_np = _x(4)
    eager = _net()
    out_e = eager(paddle.to_tensor(x_np))
    out_e.sum().backward()
    static = paddle.jit.to_static(_net(), input_spec=[
        paddle.static.InputSpec([None, 3], "float32", "x")])
    out_s = static(paddle.to_tensor(x_np))
    out_s.sum().backward()
    np.testing.assert_allclose(out_s.numpy(), out_e.numpy(), rtol=1e-5)
    np.testing.assert_allclose(static.linear.weight.grad.numpy(),
                               eager.linear.weight.grad.numpy(), rtol=1e-5)
    program = static.forward.concrete_program.main_program
    assert [op.type for op in program.global_block().ops].count("py_layer") == 2


def test_non_json_argument_is_a_clear_error():
    main = paddle.static.Program()
    with static_guard(main), pytest.raises(TypeError, match="Tanh.apply.*object"):
        Tanh.apply(paddle.static.data("x", [2], "float32"), scale=object())


_LOAD = """
import sys, json, numpy as np
import sampan as paddle
layer = paddle.jit.load(sys.argv[1])
print(json.dumps(layer(paddle.to_tensor(np.load(sys.argv[2]))).numpy().tolist()))
"""


def test_jit_save_load_in_fresh_process(tmp_path):
    x_np = _x(5)
    net = _net()
    want = net(paddle.to_tensor(x_np)).numpy()
    prefix = str(tmp_path / "pylayer" / "net")
    paddle.jit.save(net, prefix, input_spec=[paddle.static.InputSpec([None, 3], "float32")])
    with open(prefix + ".pdmodel") as f:
        assert "tests.autograd.test_static_py_layer:Tanh" in f.read()
    np.save(tmp_path / "x.npy", x_np)
    proc = subprocess.run([sys.executable, "-c", _LOAD, prefix, str(tmp_path / "x.npy")],
                          capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": ROOT})
    assert proc.returncode == 0, proc.stderr
    got = np.array(json.loads(proc.stdout.strip().splitlines()[-1]), "float32")
    np.testing.assert_allclose(got, want, rtol=1e-5)
