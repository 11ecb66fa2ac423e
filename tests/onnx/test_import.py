"""sampan.onnx.load / load_program: models sampan exported, and graphs built with onnx.helper
covering the common opset, against sampan eager and onnxruntime; fine-tuning and re-export."""
from __future__ import annotations

import numpy as np
import pytest

import sampan as paddle
from sampan import nn
from sampan.static import InputSpec
from tests.onnx.test_export import LeNetBN, _branchy, _flat, _rand
from tests.onnx.util import compare, need_onnx, run_model

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def _models():
    paddle.seed(7)
    enc = nn.TransformerEncoderLayer(16, 2, 32)
    return [("mlp", nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3)),
             [None, 4], (3, 4)),
            ("cnn", LeNetBN(), [None, 1, 14, 14], (2, 1, 14, 14)),
            ("encoder", enc, [None, 5, 16], (2, 5, 16)),
            ("lstm", nn.LSTM(4, 8), [2, 5, 4], (2, 5, 4)),
            ("control-flow", _branchy, [None, 3], (2, 3))]


@pytest.mark.parametrize("case", _models(), ids=lambda c: c[0])
def test_round_trip_of_exported_models(case, tmp_path):
    need_onnx()
    name, net, shape, xshape = case
    if hasattr(net, "eval"):
        net.eval()
    path = str(tmp_path / name)
    paddle.onnx.export(net, path, input_spec=[InputSpec(shape, "float32", "x")])
    for sign in (1.0, -1.0):
        x = _rand(*xshape, seed=11) * sign
        want = [w.numpy() for w in _flat(net(paddle.to_tensor(x)))]
        got = _flat(paddle.onnx.load(path + ".onnx")(paddle.to_tensor(x)))
        assert len(got) == len(want)
        for g, w in zip(got, want):
            compare(g.numpy(), w, 1e-5, 1e-5, name)
        # the same graph as a static Program, run by the Executor
        prog, feeds, fetch = paddle.onnx.load_program(path + ".onnx")
        out = paddle.static.Executor().run(prog, feed={feeds[0]: x}, fetch_list=fetch)
        for g, w in zip(out, want):
            compare(np.asarray(g), w, 1e-5, 1e-5, name + " (Program)")


def _helper_model():
    """A graph written with onnx.helper: Conv (pads, strides, groups), BatchNormalization,
    LeakyRelu, MaxPool, AveragePool, Concat, Slice, Transpose, Reshape, Gather, Flatten, Gemm
    (transB, alpha, beta), Sigmoid, Tanh, Softmax, GlobalAveragePool, If and Loop."""
    from onnx import TensorProto, helper, numpy_helper
    rng = np.random.default_rng(0)

    def init(name, *shape, scale=0.5, dtype=np.float32):
        return numpy_helper.from_array((rng.standard_normal(shape) * scale).astype(dtype), name)
    inits = [init("w", 4, 1, 3, 3), init("b", 4), init("scale", 4), init("bias", 4),
             init("mean", 4), numpy_helper.from_array(
                 (np.abs(rng.standard_normal(4)) + 0.5).astype(np.float32), "var"),
             init("gw", 3, 32), init("gb", 3),
             numpy_helper.from_array(np.array([0, 0, 0, 1], np.int64), "starts"),
             numpy_helper.from_array(np.array([1, 4, 2, 2], np.int64), "ends"),
             numpy_helper.from_array(np.array([0, 1, 2, 3], np.int64), "axes"),
             numpy_helper.from_array(np.array([-1, 4], np.int64), "shape"),
             numpy_helper.from_array(np.array([2, 0], np.int64), "gidx"),
             numpy_helper.from_array(np.array(3, np.int64), "trip"),
             numpy_helper.from_array(np.array(True), "true"),
             numpy_helper.from_array(np.array(0.5, np.float32), "half")]
    then_g = helper.make_graph([helper.make_node("Sigmoid", ["g"], ["t_out"])], "then", [],
                               [helper.make_tensor_value_info("t_out", TensorProto.FLOAT,
                                                              None)])
    else_g = helper.make_graph([helper.make_node("Tanh", ["g"], ["e_out"])], "else", [],
                               [helper.make_tensor_value_info("e_out", TensorProto.FLOAT,
                                                              None)])
    body = helper.make_graph(
        [helper.make_node("Identity", ["cond_in"], ["cond_out"]),
         helper.make_node("Mul", ["acc", "half"], ["acc_half"]),
         helper.make_node("Add", ["acc_half", "sel"], ["acc_out"])],
        "body", [helper.make_tensor_value_info("i", TensorProto.INT64, []),
                 helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
                 helper.make_tensor_value_info("acc", TensorProto.FLOAT, None)],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc_out", TensorProto.FLOAT, None)])
    nodes = [
        helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1], strides=[1, 1],
                         group=2),
        helper.make_node("BatchNormalization", ["c", "scale", "bias", "mean", "var"], ["bn"],
                         epsilon=1e-3),
        helper.make_node("LeakyRelu", ["bn"], ["lr"], alpha=0.3),
        helper.make_node("MaxPool", ["lr"], ["mp"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("AveragePool", ["lr"], ["ap"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Concat", ["mp", "ap"], ["cat"], axis=1),
        helper.make_node("Slice", ["cat", "starts", "ends", "axes"], ["sl"]),
        helper.make_node("Transpose", ["sl"], ["tr"], perm=[0, 1, 3, 2]),
        helper.make_node("Reshape", ["tr", "shape"], ["rs"]),
        helper.make_node("Gather", ["rs", "gidx"], ["ga"], axis=1),
        helper.make_node("Flatten", ["x"], ["fx"], axis=1),
        helper.make_node("Gemm", ["fx", "gw", "gb"], ["gm"], transB=1, alpha=0.7, beta=0.4),
        helper.make_node("Softmax", ["gm"], ["g"], axis=-1),
        helper.make_node("GlobalAveragePool", ["x"], ["gap"]),
        helper.make_node("ReduceSum", ["gap"], ["s"], keepdims=0),
        helper.make_node("Greater", ["s", "half"], ["pred"]),
        helper.make_node("If", ["pred"], ["sel"], then_branch=then_g, else_branch=else_g),
        helper.make_node("Loop", ["trip", "true", "g"], ["looped"], body=body),
    ]
    graph = helper.make_graph(
        nodes, "helper_model", [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                                              ["n", 2, 4, 4])],
        [helper.make_tensor_value_info("ga", TensorProto.FLOAT, None),
         helper.make_tensor_value_info("looped", TensorProto.FLOAT, None)], initializer=inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


@pytest.mark.parametrize("scale", [1.0, -3.0])
def test_helper_built_model_matches_onnxruntime(scale, tmp_path):
    need_onnx()
    model = _helper_model()
    x = _rand(1, 2, 4, 4, seed=2) * scale
    want = run_model(model, {"x": x})
    got = paddle.onnx.load(model)(paddle.to_tensor(x))
    for g, w in zip(got, want):
        compare(g.numpy(), w, 1e-5, 1e-5)


def test_fine_tune_and_re_export(tmp_path):
    need_onnx()
    paddle.seed(8)
    net = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
    paddle.onnx.export(net, str(tmp_path / "m"), input_spec=[InputSpec([None, 4], "float32",
                                                                         "x")])
    model = paddle.onnx.load(str(tmp_path / "m.onnx"))
    assert len(model.parameters()) == 4
    x, y = paddle.to_tensor(_rand(16, 4)), paddle.to_tensor(_rand(16, 1, seed=1))
    opt = paddle.optimizer.SGD(0.1, parameters=model.parameters())
    losses = []
    for _ in range(20):
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
    assert losses[-1] < 0.7 * losses[0]
    paddle.onnx.export(model, str(tmp_path / "again"),
                       input_spec=[InputSpec([None, 4], "float32", "x")])
    got = run_model(str(tmp_path / "again.onnx"), {"x": x.numpy()})[0]
    compare(got, model(x).numpy())


def test_unsupported_ops_listed_in_one_error():
    need_onnx()
    from onnx import TensorProto, helper
    nodes = [helper.make_node("Hardmax", ["x"], ["a"]), helper.make_node("Celu", ["a"], ["b"])]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info(
        "x", TensorProto.FLOAT, [2])], [helper.make_tensor_value_info("b", TensorProto.FLOAT,
                                                                      [2])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    with pytest.raises(NotImplementedError, match="Celu, Hardmax"):
        paddle.onnx.load(model)


def test_corrupt_or_missing_file(tmp_path):
    need_onnx()
    with pytest.raises(FileNotFoundError, match="no ONNX file"):
        paddle.onnx.load(str(tmp_path / "none.onnx"))
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"\x08\x07garbage\xff")
    with pytest.raises(ValueError, match="not a valid ONNX model"):
        paddle.onnx.load(str(bad))


def _rnn_model(op: str, direction: str, **attrs):
    from onnx import TensorProto, helper, numpy_helper
    rng = np.random.default_rng(4)
    gates = 4 if op == "LSTM" else 3
    dirs, hidden, feat = (2 if direction == "bidirectional" else 1), 5, 3
    inits = [numpy_helper.from_array(rng.uniform(-0.5, 0.5, shape).astype(np.float32), n)
             for n, shape in (("W", (dirs, gates * hidden, feat)),
                              ("R", (dirs, gates * hidden, hidden)),
                              ("B", (dirs, 2 * gates * hidden)),
                              ("h0", (dirs, 2, hidden)))]
    ins = ["x", "W", "R", "B", "", "h0"]
    outs = ["y", "yh"] + (["yc"] if op == "LSTM" else [])
    node = helper.make_node(op, ins, outs, hidden_size=hidden, direction=direction, **attrs)
    vi = [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in outs]
    graph = helper.make_graph([node], "rnn", [helper.make_tensor_value_info(
        "x", TensorProto.FLOAT, [4, 2, feat])], vi, initializer=inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


@pytest.mark.parametrize("op,direction,attrs", [
    ("LSTM", "forward", {}), ("LSTM", "bidirectional", {}), ("LSTM", "reverse", {}),
    ("GRU", "forward", {}), ("GRU", "bidirectional", {"linear_before_reset": 1})])
def test_recurrent_onnx_ops_match_onnxruntime(op, direction, attrs):
    need_onnx()
    model = _rnn_model(op, direction, **attrs)
    x = _rand(4, 2, 3, seed=12)
    want = run_model(model, {"x": x})
    got = paddle.onnx.load(model)(paddle.to_tensor(x))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        compare(g.numpy(), w, 1e-5, 1e-5, f"{op} {direction}")
