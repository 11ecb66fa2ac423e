"""paddle.onnx.export on whole models, run by onnxruntime: MLP, CNN with BatchNorm, a
Transformer encoder layer, LSTM/GRU, to_static control flow; errors before any write."""
from __future__ import annotations

import os

import numpy as np
import pytest

import sampan as paddle
from sampan import nn
from sampan.static import InputSpec
from tests.onnx.util import compare, need_onnx, run_model

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def _export_and_run(layer, specs, inputs, tmp_path, name="model"):
    need_onnx()
    path = str(tmp_path / name)
    paddle.onnx.export(layer, path, input_spec=specs)
    feed = {s.name: a for s, a in zip(specs, inputs)}
    got = run_model(path + ".onnx", feed)
    return got, [w.numpy() for w in _flat(layer(*[paddle.to_tensor(a) for a in inputs]))]


def _flat(out) -> list:
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in _flat(o)]
    return [out]


def _check(layer, specs, inputs, tmp_path):
    got, want = _export_and_run(layer, specs, inputs, tmp_path)
    assert len(got) == len(want)
    for k, (g, w) in enumerate(zip(got, want)):
        compare(g, w, 1e-5, 1e-5, f"output {k}")


def _rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype("float32")


def test_mlp_with_dynamic_batch(tmp_path):
    paddle.seed(1)
    net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3), nn.Softmax())
    spec = [InputSpec([None, 4], "float32", "x")]
    _check(net, spec, [_rand(5, 4)], tmp_path)
    # the batch dim stays dynamic: another batch size runs on the same file
    got = run_model(str(tmp_path / "model.onnx"), {"x": _rand(2, 4, seed=3)})[0]
    compare(got, net(paddle.to_tensor(_rand(2, 4, seed=3))).numpy(), what="batch 2")
    import onnx
    dims = onnx.load(str(tmp_path / "model.onnx")).graph.input[0].type.tensor_type.shape.dim
    assert dims[0].dim_param and not dims[0].HasField("dim_value")
    assert dims[1].dim_value == 4


class LeNetBN(nn.Layer):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2D(1, 4, 3, padding=1), nn.BatchNorm2D(4), nn.ReLU(), nn.MaxPool2D(2),
            nn.Conv2D(4, 6, 3, groups=2, dilation=2, padding="SAME"), nn.LeakyReLU(0.2),
            nn.AvgPool2D(2), nn.Conv2D(6, 6, 3, stride=2, padding="VALID"), nn.Sigmoid())
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(6 * 1 * 1, 10), nn.Tanh(),
                                  nn.GELU(), nn.Linear(10, 5))

    def forward(self, x):
        return self.head(self.features(x))


def test_cnn_with_batchnorm_and_conv_variants(tmp_path):
    paddle.seed(2)
    net = LeNetBN()
    bn = net.features[1]   # non-trivial running statistics
    bn._mean.set_value(paddle.to_tensor(_rand(4, seed=5)))
    bn._variance.set_value(paddle.to_tensor(np.abs(_rand(4, seed=6)) + 0.5))
    net.eval()
    _check(net, [InputSpec([None, 1, 14, 14], "float32", "img")], [_rand(3, 1, 14, 14)],
           tmp_path)


def test_leaky_relu_slope_is_kept(tmp_path):
    """Paddle2ONNX wrote a wrong LeakyReLU slope; the exported model must use the user's."""
    net = nn.LeakyReLU(0.37)
    x = np.linspace(-3, 3, 12, dtype="float32").reshape(3, 4)
    got, want = _export_and_run(net, [InputSpec([None, 4], "float32", "x")], [x], tmp_path)
    compare(got[0], want[0])
    compare(got[0][0, 0:1], np.array([-3 * 0.37], "float32"))


def test_transformer_encoder_layer(tmp_path):
    paddle.seed(3)
    enc = nn.TransformerEncoderLayer(16, 2, 32, dropout=0.1, activation="gelu")
    enc.eval()
    _check(enc, [InputSpec([None, 5, 16], "float32", "src")], [_rand(2, 5, 16)], tmp_path)


@pytest.mark.parametrize("cls", [nn.LSTM, nn.GRU])
def test_recurrent_layers(cls, tmp_path):
    paddle.seed(4)
    net = cls(4, 8)
    net.eval()
    _check(net, [InputSpec([2, 5, 4], "float32", "seq")], [_rand(2, 5, 4)], tmp_path)


@paddle.jit.to_static
def _branchy(x):
    if x.sum() > 0:
        y = x * 2.0
    else:
        y = x - 1.0
    i = paddle.zeros([1])
    while i < 3:
        y = y + i
        i = i + 1
    return y


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_tensor_if_and_while_become_if_and_loop(sign, tmp_path):
    need_onnx()
    import onnx
    path = str(tmp_path / "cf")
    paddle.onnx.export(_branchy, path, input_spec=[InputSpec([None, 3], "float32", "x")])
    types = {n.op_type for n in onnx.load(path + ".onnx").graph.node}
    assert {"If", "Loop"} <= types
    x = (np.abs(_rand(2, 3)) + 0.1) * sign
    got = run_model(path + ".onnx", {"x": x})[0]
    compare(got, _branchy(paddle.to_tensor(x)).numpy())


def test_unsupported_ops_listed_once_and_nothing_written(tmp_path):
    need_onnx()

    def f(x):
        y = paddle.linalg.inv(x)          # no ONNX lowering
        z = paddle.linalg.det(x)          # none either
        return y * z

    path = str(tmp_path / "bad")
    with pytest.raises(paddle.onnx.ExportError) as info:
        paddle.onnx.export(f, path, input_spec=[InputSpec([3, 3], "float32", "x")])
    msg = str(info.value)
    assert "inverse" in msg and "det" in msg and "nothing was written" in msg
    assert f"{__file__}:" in msg   # the user's source lines
    assert not os.path.exists(path + ".onnx")
    assert not [p for p in os.listdir(tmp_path) if p.startswith(".bad")]


def test_other_opset_is_refused(tmp_path):
    net = nn.Linear(2, 2)
    with pytest.raises(ValueError, match="opset_version 11 is not supported"):
        paddle.onnx.export(net, str(tmp_path / "m"), input_spec=[InputSpec([1, 2])],
                           opset_version=11)
    assert not os.listdir(tmp_path)


def test_unknown_config_is_refused(tmp_path):
    with pytest.raises(ValueError, match="unknown config 'foo'"):
        paddle.onnx.export(nn.Linear(2, 2), str(tmp_path / "m"), foo=1)


def test_export_uses_inference_behaviour(tmp_path):
    """A layer left in training mode exports as jit.save does: dropout off."""
    paddle.seed(5)
    net = nn.Sequential(nn.Linear(4, 4), nn.Dropout(0.5))
    net.train()
    x = _rand(3, 4)
    paddle.onnx.export(net, str(tmp_path / "m"), input_spec=[InputSpec([None, 4], "float32",
                                                                         "x")])
    got = run_model(str(tmp_path / "m.onnx"), {"x": x})[0]
    net.eval()
    compare(got, net(paddle.to_tensor(x)).numpy())


def test_training_dropout_op_is_refused_with_a_hint():
    need_onnx()
    from sampan.onnx.export import program_to_onnx
    from tests.onnx.util import build_sample
    main, feed, fetch = build_sample(
        lambda x: paddle.nn.functional.dropout(x, 0.5, training=True), (_rand(2, 2),), {})
    with pytest.raises(paddle.onnx.ExportError, match="layer.eval"):
        program_to_onnx(main, list(feed), fetch)


@pytest.mark.parametrize("name", ["resnet18", "mobilenet_v2", "mobilenet_v3_small"])
def test_vision_zoo_models(name, tmp_path):
    need_onnx()
    models = pytest.importorskip("sampan.vision.models")
    paddle.seed(9)
    net = getattr(models, name)(num_classes=10)
    net.eval()
    spec = [InputSpec([None, 3, 32, 32], "float32", "x")]
    x = _rand(2, 3, 32, 32)
    got, want = _export_and_run(net, spec, [x], tmp_path, name)
    scale = float(np.abs(want[0]).max())
    compare(got[0], want[0], 1e-5 * scale, 1e-5, name)


@pytest.mark.parametrize("descending", [False, True])
def test_argsort_ties_keep_index_order(descending):
    need_onnx()
    from sampan.onnx.export import program_to_onnx
    from tests.onnx.util import build_sample
    x = np.array([[1, 1, 0, 1, 2, 1, 2]], "float32")
    main, feed, fetch = build_sample(lambda t: paddle.argsort(t, descending=descending),
                                     (x,), {})
    got = run_model(program_to_onnx(main, list(feed), fetch), feed)[0]
    compare(got, paddle.argsort(paddle.to_tensor(x), descending=descending).numpy())
