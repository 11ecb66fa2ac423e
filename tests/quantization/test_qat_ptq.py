"""QAT and PTQ end to end: layer replacement and configs, convert to int8 layers that run the
int8 kernels, jit.save/jit.load with a None batch dim, ONNX QDQ export."""
import os

import numpy as np
import pytest

import sampan as paddle
from sampan.framework.flags import dispatch_wrapper
from sampan.quantization import (PTQ, QAT, Int8Conv2D, Int8Linear, QuantConfig,
                                 QuantedConv2D, QuantedLinear)
from sampan.quantization.observers import (AbsMaxChannelWiseWeightObserver, AbsmaxObserver,
                                           HistObserver, KLObserver,
                                           MovingAverageAbsmaxObserver)
from sampan.quantization.quanters import (FakeQuanterChannelWiseAbsMax,
                                          FakeQuanterWithAbsMaxObserver)

SPEC = [paddle.static.InputSpec([None, 1, 8, 8], "float32", "x")]


class Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv = paddle.nn.Conv2D(1, 4, 3, padding=1)
        self.pool = paddle.nn.MaxPool2D(2)
        self.fc = paddle.nn.Linear(4 * 4 * 4, 10)

    def forward(self, x):
        x = self.pool(paddle.nn.functional.relu(self.conv(x)))
        return self.fc(paddle.flatten(x, 1))


def _data(n=6, seed=0):
    return paddle.to_tensor(np.random.default_rng(seed).uniform(-1, 1, (n, 1, 8, 8))
                            .astype("float32"))


def _qat_config():
    return QuantConfig(activation=FakeQuanterWithAbsMaxObserver(),
                       weight=FakeQuanterChannelWiseAbsMax())


class _OpLog:
    def __init__(self):
        self.names = []

    def __call__(self, op, inputs, attrs, nxt):
        self.names.append(op.name)
        return nxt(op, inputs, attrs)


def _trained_qat(steps=3):
    paddle.seed(0)
    model = QAT(_qat_config()).quantize(Net())
    opt = paddle.optimizer.SGD(0.01, parameters=model.parameters())
    for i in range(steps):
        loss = model(_data(seed=i)).square().mean()
        loss.backward()
        opt.step()
        opt.clear_grad()
    model.eval()
    return model


def test_quantize_replaces_layers_and_keeps_the_original():
    paddle.seed(0)
    net = Net()
    q = QAT(_qat_config()).quantize(net)
    assert isinstance(q.conv, QuantedConv2D) and isinstance(q.fc, QuantedLinear)
    assert type(net.conv) is paddle.nn.Conv2D          # inplace=False deep-copies
    same = QAT(_qat_config()).quantize(net, inplace=True)
    assert same is net and isinstance(net.fc, QuantedLinear)


def test_config_lookup_order():
    paddle.seed(0)
    net = Net()
    q = FakeQuanterWithAbsMaxObserver()
    cfg = QuantConfig(activation=None, weight=None)
    cfg.add_type_config(paddle.nn.Linear, activation=q, weight=q)
    cfg.add_layer_config(net.conv, activation=q, weight=None)
    assert cfg._get_config_by_layer(net.conv).weight is None
    cfg.add_name_config(net.conv.full_name(), activation=None, weight=q)
    assert cfg._get_config_by_layer(net.conv).activation is None     # name wins
    out = QAT(cfg).quantize(net)
    assert out.conv.activation_quanter is None and out.conv.weight_quanter is not None
    assert isinstance(out.fc, QuantedLinear)
    plain = QAT(QuantConfig(None, None)).quantize(Net())
    assert type(plain.fc) is paddle.nn.Linear        # nothing configured, nothing replaced


def test_qat_trains_and_converted_model_equals_fake_quant_model():
    model = _trained_qat()
    x = _data(4, seed=9)
    want = model(x).numpy()
    log = _OpLog()
    int8 = QAT(_qat_config()).convert(model)
    assert isinstance(int8.conv, Int8Conv2D) and isinstance(int8.fc, Int8Linear)
    assert int8.conv.weight.dtype == paddle.int8 and int8.fc.weight.dtype == paddle.int8
    with dispatch_wrapper(log):
        got = int8(x).numpy()
    assert {"int8_conv2d", "int8_matmul", "quantize_linear"} <= set(log.names)
    assert "conv2d" not in log.names and "matmul" not in log.names
    # the int8 kernels compute exactly the fake-quantized arithmetic (float rounding aside)
    np.testing.assert_allclose(got, want, atol=1e-5, rtol=1e-5)


def test_converted_model_survives_jit_save_load_with_none_batch(tmp_path):
    int8 = QAT(_qat_config()).convert(_trained_qat())
    path = os.path.join(tmp_path, "int8")
    paddle.jit.save(int8, path, input_spec=SPEC)
    loaded = paddle.jit.load(path)
    for n in (1, 5):                      # batch sizes other than any traced one
        x = _data(n, seed=n)
        np.testing.assert_array_equal(loaded(x).numpy(), int8(x).numpy())


@pytest.mark.parametrize("act, weight", [
    (AbsmaxObserver(), AbsmaxObserver()),
    (MovingAverageAbsmaxObserver(), AbsMaxChannelWiseWeightObserver()),
    (HistObserver(percent=0.9999), AbsMaxChannelWiseWeightObserver()),
    (KLObserver(), AbsMaxChannelWiseWeightObserver()),
])
def test_ptq_calibrate_convert_close_to_float(act, weight, tmp_path):
    paddle.seed(0)
    net = Net()
    net.eval()
    ptq = PTQ(QuantConfig(activation=act, weight=weight))
    observed = ptq.quantize(net)
    for i in range(3):
        np.testing.assert_array_equal(observed(_data(seed=i)).numpy(), net(_data(seed=i)).numpy())
    int8 = ptq.convert(observed)
    x = _data(8, seed=5)
    ref = net(x).numpy()
    err = np.abs(int8(x).numpy() - ref).max() / np.abs(ref).max()
    assert err < 0.05, err
    path = os.path.join(tmp_path, "ptq")
    paddle.jit.save(int8, path, input_spec=SPEC)
    np.testing.assert_array_equal(paddle.jit.load(path)(x).numpy(), int8(x).numpy())


def test_mode_and_convert_errors():
    net = Net()
    with pytest.raises(ValueError, match="model.eval"):
        PTQ(QuantConfig(AbsmaxObserver(), AbsmaxObserver())).quantize(net)
    net.eval()
    with pytest.raises(ValueError, match="model.train"):
        QAT(_qat_config()).quantize(net)
    with pytest.raises(ValueError, match="no quantized layers"):
        QAT(_qat_config()).convert(net)
    observed = PTQ(QuantConfig(AbsmaxObserver(), AbsmaxObserver())).quantize(net)
    with pytest.raises(RuntimeError, match="no data observed"):
        PTQ(QuantConfig(AbsmaxObserver(), AbsmaxObserver())).convert(observed)
    half = PTQ(QuantConfig(AbsmaxObserver(), None)).quantize(net)
    half(_data())
    with pytest.raises(ValueError, match="no weight quanter"):
        PTQ(QuantConfig(AbsmaxObserver(), None)).convert(half)
    with pytest.raises(TypeError, match="QuantConfig"):
        QAT({"activation": None})
    with pytest.raises(TypeError, match="factory"):
        QuantConfig(activation="abs_max", weight=None)


def test_onnx_qdq_export_runs_in_onnxruntime(tmp_path):
    pytest.importorskip("onnx")
    ort = pytest.importorskip("onnxruntime")
    import onnx
    qat_model = _trained_qat()
    int8 = QAT(_qat_config()).convert(qat_model)
    x = _data(3, seed=7)
    for model, name, must in ((qat_model, "qdq", {"QuantizeLinear", "DequantizeLinear"}),
                              (int8, "int8", {"QuantizeLinear", "DequantizeLinear",
                                              "ConvInteger", "MatMulInteger"})):
        path = os.path.join(tmp_path, name)
        paddle.onnx.export(model, path, input_spec=SPEC)
        ops = {n.op_type for n in onnx.load(path + ".onnx").graph.node}
        assert must <= ops, ops
        sess = ort.InferenceSession(path + ".onnx", providers=["CPUExecutionProvider"])
        got = sess.run(None, {sess.get_inputs()[0].name: x.numpy()})[0]
        np.testing.assert_allclose(got, model(x).numpy(), atol=1e-5, rtol=1e-5)
