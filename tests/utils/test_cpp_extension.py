"""paddle.utils.cpp_extension: custom C++ ops (tests/utils/custom_ops/custom_ops.cc, built once
per module) in eager mode, static Programs, to_static and jit.save -> jit.load in a fresh
process, against NumPy."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

import sampan as paddle
from sampan.ops.custom_op import unregister_custom_ops
from sampan.utils import cpp_extension
from tests.static_util import static_guard

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(HERE, "custom_ops", "custom_ops.cc")
ROOT = os.path.dirname(os.path.dirname(HERE))

pytestmark = pytest.mark.skipif(shutil.which("c++") is None and shutil.which("g++") is None,
                                reason="no C++ compiler")


@pytest.fixture(scope="module")
def build_dir(tmp_path_factory):
    return str(tmp_path_factory.mktemp("cpp_ext") / "build")   # load creates it


@pytest.fixture(scope="module")
def ops(build_dir):
    module = cpp_extension.load("sampan_test_ops", [SOURCE], build_directory=build_dir)
    yield module
    unregister_custom_ops(["custom_relu", "scale_mix", "list_sum"])


def _np(seed=0, shape=(3, 4), dtype="float64"):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def _scale_mix_ref(x, y, alpha, power, g_prod, g_red):
    prod, red = alpha * x * y, (x ** power).sum(-1)
    gx, gy = np.zeros_like(x), np.zeros_like(y)
    if g_prod is not None:
        gx, gy = gx + alpha * y * g_prod, gy + alpha * x * g_prod
    if g_red is not None:
        gx = gx + g_red[..., None] * power * x ** (power - 1)
    return prod, red, gx, gy


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_relu_eager_forward_backward(ops, dtype):
    x_np = _np(1, dtype=dtype)
    x = paddle.to_tensor(x_np, stop_gradient=False)
    out = ops.custom_relu(x)
    assert out.dtype == getattr(paddle, dtype)
    np.testing.assert_array_equal(out.numpy(), np.maximum(x_np, 0))
    (out * out).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.maximum(x_np, 0), rtol=1e-6)


def test_relu_rejects_integer_input(ops):
    with pytest.raises(RuntimeError, match="relu_forward.*int64"):
        ops.custom_relu(paddle.to_tensor([1, 2]))


@pytest.mark.parametrize("used", ["both", "prod", "red"])
def test_multi_output_eager_with_attrs(ops, used):
    x_np, y_np = _np(2), _np(3)
    g_np = {"prod": _np(4), "red": _np(5, shape=(3,))}
    x = paddle.to_tensor(x_np, stop_gradient=False)
    y = paddle.to_tensor(y_np, stop_gradient=False)
    prod, red = ops.scale_mix(x, y, alpha=1.5, power=3)
    loss = 0
    if used in ("both", "prod"):
        loss = loss + (prod * paddle.to_tensor(g_np["prod"])).sum()
    if used in ("both", "red"):
        loss = loss + (red * paddle.to_tensor(g_np["red"])).sum()
    loss.backward()
    ref = _scale_mix_ref(x_np, y_np, 1.5, 3, g_np["prod"] if used != "red" else None,
                         g_np["red"] if used != "prod" else None)
    for got, want in zip([prod, red, x.grad, y.grad], ref):
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-10, atol=1e-12)


def test_positional_attrs_and_missing_attr(ops):
    x = paddle.to_tensor(_np(6))
    prod, _ = ops.scale_mix(x, x, 2.0, 2)
    np.testing.assert_allclose(prod.numpy(), 2 * x.numpy() ** 2)
    with pytest.raises(TypeError, match=r"scale_mix\(\) missing arguments \['power'\]"):
        ops.scale_mix(x, x, alpha=2.0)


def test_static_program_forward_and_gradients(ops):
    x_np, y_np = _np(7), _np(8)
    main, startup = paddle.static.Program(), paddle.static.Program()
    with static_guard(main, startup):
        x = paddle.static.data("x", [-1, 4], "float64")
        y = paddle.static.data("y", [-1, 4], "float64")
        x.stop_gradient = y.stop_gradient = False
        prod, red = ops.scale_mix(x, y, alpha=0.5, power=2)
        assert list(prod.shape) == [-1, 4] and list(red.shape) == [-1]
        loss = paddle.sum(ops.custom_relu(prod)) + paddle.sum(red)
        gx, gy = paddle.static.gradients([loss], [x, y])
    text = str(main)
    assert "scale_mix_grad(" in text and "custom_relu_grad(" in text
    exe = paddle.static.Executor()
    got = exe.run(main, feed={"x": x_np, "y": y_np}, fetch_list=[loss, gx, gy])
    mask = (0.5 * x_np * y_np > 0).astype("float64")
    np.testing.assert_allclose(got[0], np.maximum(0.5 * x_np * y_np, 0).sum()
                               + (x_np ** 2).sum())
    np.testing.assert_allclose(got[1], 0.5 * y_np * mask + 2 * x_np)
    np.testing.assert_allclose(got[2], 0.5 * x_np * mask)


def test_static_infer_shape_error_names_the_check(ops):
    main = paddle.static.Program()
    with static_guard(main), pytest.raises(RuntimeError, match="at least one dimension"):
        x = paddle.static.data("x", [], "float64")
        ops.scale_mix(x, x, alpha=1.0, power=1)


def test_vec_input_eager_and_static(ops):
    a_np, b_np, g_np = _np(20, (2, 3)), _np(21, (2, 3)), _np(22, (2, 3))
    a = paddle.to_tensor(a_np, stop_gradient=False)
    b = paddle.to_tensor(b_np, stop_gradient=False)
    out = ops.list_sum([a, b])
    np.testing.assert_allclose(out.numpy(), a_np + b_np)
    (out * paddle.to_tensor(g_np)).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), g_np)       # the kernel weights input k by k+1
    np.testing.assert_allclose(b.grad.numpy(), 2 * g_np)
    main = paddle.static.Program()
    with static_guard(main):
        x = paddle.static.data("x", [-1, 3], "float64")
        y = paddle.static.data("y", [-1, 3], "float64")
        x.stop_gradient = y.stop_gradient = False
        o = ops.list_sum([x, y, x])
        gx, gy = paddle.static.gradients([paddle.sum(o)], [x, y])
    got = paddle.static.Executor().run(main, feed={"x": a_np, "y": b_np},
                                       fetch_list=[o, gx, gy])
    np.testing.assert_allclose(got[0], 2 * a_np + b_np)
    np.testing.assert_allclose(got[1], np.full_like(a_np, 1.0 + 3.0))
    np.testing.assert_allclose(got[2], np.full_like(a_np, 2.0))


class _Net(paddle.nn.Layer):
    def __init__(self, ops):
        super().__init__()
        self.ops = ops
        self.linear = paddle.nn.Linear(4, 4)

    def forward(self, x):
        h = self.ops.custom_relu(self.linear(x))
        prod, red = self.ops.scale_mix(h, x, alpha=2.0, power=2)
        return prod.sum(-1) + red


def _net(ops):
    paddle.seed(11)
    net = _Net(ops)
    net.linear.weight.set_value(paddle.to_tensor(_np(12, (4, 4), "float32")))
    return net


def test_to_static_matches_eager_with_grads(ops):
    x_np = _np(13, (5, 4), "float32")
    eager = _net(ops)
    out_e = eager(paddle.to_tensor(x_np))
    out_e.sum().backward()
    static = paddle.jit.to_static(_net(ops), input_spec=[
        paddle.static.InputSpec([None, 4], "float32", "x")])
    out_s = static(paddle.to_tensor(x_np))
    out_s.sum().backward()
    np.testing.assert_allclose(out_s.numpy(), out_e.numpy(), rtol=1e-5)
    np.testing.assert_allclose(static.linear.weight.grad.numpy(),
                               eager.linear.weight.grad.numpy(), rtol=1e-5)
    assert "custom_relu" in str(static.forward.concrete_program.main_program)


_LOAD_SCRIPT = """
import sys, json, numpy as np
import sampan as paddle
x = np.load(sys.argv[2])
paddle.enable_static()   # static.load_inference_model first: it alone reloads the library
exe = paddle.static.Executor()
program, feeds, fetches = paddle.static.load_inference_model(sys.argv[1], exe)
static_out, = exe.run(program, feed={feeds[0]: x}, fetch_list=fetches)
paddle.disable_static()
out = paddle.jit.load(sys.argv[1])(paddle.to_tensor(x)).numpy()
assert np.allclose(static_out, out, rtol=1e-6), (static_out, out)
print(json.dumps(out.tolist()))
"""


def _load_in_fresh_process(prefix, x_np, tmp_path):
    np.save(tmp_path / "x.npy", x_np)
    proc = subprocess.run([sys.executable, "-c", _LOAD_SCRIPT, str(prefix),
                           str(tmp_path / "x.npy")], capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": ROOT})
    assert proc.returncode == 0, proc.stderr
    return np.array(json.loads(proc.stdout.strip().splitlines()[-1]), "float32")


def test_jit_save_load_in_fresh_process(ops, tmp_path):
    x_np = _np(14, (3, 4), "float32")
    net = _net(ops)
    want = net(paddle.to_tensor(x_np)).numpy()
    prefix = tmp_path / "model" / "net"
    paddle.jit.save(net, str(prefix),
                    input_spec=[paddle.static.InputSpec([None, 4], "float32", "x")])
    with open(f"{prefix}.pdmodel") as f:
        libs = json.load(f)["jit"]["custom_ops"]
    assert set(libs) == {"custom_relu", "scale_mix"} and os.path.exists(libs["custom_relu"])
    np.testing.assert_allclose(_load_in_fresh_process(prefix, x_np, tmp_path), want,
                               rtol=1e-5)
    # the library moved away: a copy next to the model is found
    model = json.load(open(f"{prefix}.pdmodel"))
    shutil.copy(libs["custom_relu"], tmp_path / "model")
    model["jit"]["custom_ops"] = {t: "/nonexistent/" + os.path.basename(p)
                                  for t, p in libs.items()}
    json.dump(model, open(f"{prefix}.pdmodel", "w"))
    np.testing.assert_allclose(_load_in_fresh_process(prefix, x_np, tmp_path), want,
                               rtol=1e-5)
    os.remove(tmp_path / "model" / os.path.basename(libs["custom_relu"]))
    proc = subprocess.run([sys.executable, "-c", _LOAD_SCRIPT, str(prefix),
                           str(tmp_path / "x.npy")], capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": ROOT})
    assert proc.returncode != 0 and "no longer exists" in proc.stderr


def test_onnx_export_writes_custom_domain_nodes(ops, tmp_path):
    onnx = pytest.importorskip("onnx")
    path = str(tmp_path / "net")
    paddle.onnx.export(_net(ops), path,
                       input_spec=[paddle.static.InputSpec([None, 4], "float32", "x")])
    model = onnx.load(path + ".onnx")
    custom = [(n.op_type, n.domain) for n in model.graph.node if n.domain]
    assert custom == [("custom_relu", "sampan.custom"), ("scale_mix", "sampan.custom")]
    assert {(o.domain, o.version) for o in model.opset_import} >= {("sampan.custom", 1)}
    node = next(n for n in model.graph.node if n.op_type == "scale_mix")
    assert {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute} == \
        {"alpha": 2.0, "power": 2}
    assert len(node.output) == 2
