"""decorate (O2 casts, norm layers kept float32, float32 master weights, save_dtype, Paddle 3.3.1
CPU float16 no-op) and bfloat16 O1/O2 training that follows float32 training."""
import numpy as np
import pytest

import sampan as paddle
import sampan.nn as nn


def test_decorate_float16_on_cpu_returns_models_unchanged():
    model = nn.Linear(3, 2)
    opt = paddle.optimizer.SGD(parameters=model.parameters())
    out = paddle.amp.decorate(model, opt, level="O2")
    assert out[0] is model and out[1] is opt and model.weight.dtype == paddle.float32
    assert paddle.amp.decorate(model, level="O2") is model


def test_decorate_o2_bfloat16_keeps_norms_float32():
    model = nn.Sequential(nn.Conv2D(1, 2, 3), nn.BatchNorm2D(2), nn.Linear(4, 4),
                          nn.LayerNorm(4))
    paddle.amp.decorate(model, level="O2", dtype="bfloat16")
    dtypes = {name: p.dtype for name, p in model.named_parameters()}
    assert dtypes["0.weight"] == paddle.bfloat16 and dtypes["2.weight"] == paddle.bfloat16
    assert dtypes["1.weight"] == paddle.float32 and dtypes["3.bias"] == paddle.float32
    excl = nn.Sequential(nn.Linear(2, 2), nn.Conv2D(1, 1, 1))
    paddle.amp.decorate(excl, level="O2", dtype="bfloat16", excluded_layers=[nn.Conv2D])
    assert excl[0].weight.dtype == paddle.bfloat16 and excl[1].weight.dtype == paddle.float32


def test_decorate_errors_and_save_dtype():
    with pytest.raises(ValueError, match="decorate: level"):
        paddle.amp.decorate(nn.Linear(2, 2), level="O3")
    with pytest.raises(ValueError, match="save_dtype"):
        paddle.amp.decorate(nn.Linear(2, 2), dtype="bfloat16", save_dtype="int8")
    model = nn.Linear(2, 2)
    paddle.amp.decorate(model, level="O1", dtype="bfloat16", save_dtype="float16")
    assert model.weight.dtype == paddle.float32
    assert model.state_dict()["weight"].dtype == paddle.float16


def test_master_weights_keep_tiny_updates():
    # 1 + 1e-4 is 1 in bfloat16: without master weights every update would be lost
    layer = nn.Linear(1, 1, bias_attr=False)
    layer.weight.set_value(np.ones((1, 1), "float32"))
    opt = paddle.optimizer.SGD(learning_rate=1e-4, parameters=layer.parameters())
    paddle.amp.decorate(layer, opt, level="O2", dtype="bfloat16")
    for _ in range(100):
        with paddle.amp.auto_cast(level="O2", dtype="bfloat16"):
            loss = layer(paddle.full([1, 1], -1.0)).sum()  # d loss / d w = -1
        loss.backward()
        opt.step()
        opt.clear_grad()
    master = opt._amp_masters[id(layer.weight)]
    np.testing.assert_allclose(master, [[1.01]], rtol=1e-5)
    assert layer.weight.dtype == paddle.bfloat16
    assert float(layer.weight.numpy().astype("float32")[0, 0]) == pytest.approx(1.0078125)


class SmallCNN(nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2D(1, 8, 3, padding=1)
        self.bn = nn.BatchNorm2D(8)
        self.conv2 = nn.Conv2D(8, 8, 3, stride=2, padding=1)
        self.fc = nn.Linear(8 * 4 * 4, 4)

    def forward(self, x):
        x = nn.functional.relu(self.bn(self.conv1(x)))
        x = nn.functional.relu(self.conv2(x))
        return self.fc(paddle.flatten(x, 1))


class TinyTransformer(nn.Layer):
    def __init__(self):
        super().__init__()
        self.embed = nn.Linear(8, 32)
        self.layer = nn.TransformerEncoderLayer(32, 4, 64, dropout=0.0)
        self.head = nn.Linear(32, 4)

    def forward(self, x):
        return self.head(self.layer(self.embed(x)).mean(axis=1))


def _data(kind):
    rng = np.random.default_rng(1)
    if kind == "cnn":
        x = rng.standard_normal((16, 1, 8, 8)).astype("float32")
    else:
        x = rng.standard_normal((16, 6, 8)).astype("float32")
    labels = (x.reshape(16, -1)[:, :4].argmax(1)).astype("int64")
    return paddle.to_tensor(x), paddle.to_tensor(labels)


def _train(kind, level=None, steps=12):
    paddle.seed(5)
    model = SmallCNN() if kind == "cnn" else TinyTransformer()
    opt = paddle.optimizer.Adam(learning_rate=3e-3, parameters=model.parameters())
    if level == "O2":
        model, opt = paddle.amp.decorate(model, opt, level="O2", dtype="bfloat16")
    x, y = _data(kind)
    losses = []
    for _ in range(steps):
        with paddle.amp.auto_cast(enable=level is not None, level=level or "O1",
                                  dtype="bfloat16"):
            logits = model(x)
            loss = nn.functional.cross_entropy(logits.astype("float32"), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
    return np.array(losses)


@pytest.mark.parametrize("kind", ["cnn", "transformer"])
@pytest.mark.parametrize("level", ["O1", "O2"])
def test_bfloat16_training_follows_float32(kind, level):
    ref = _train(kind)
    amp = _train(kind, level)
    assert ref[-1] < 0.8 * ref[0]  # the float32 run learns
    np.testing.assert_allclose(amp, ref, rtol=0.02, atol=0.02)
    assert not np.array_equal(amp, ref)  # and bfloat16 really ran


def test_master_weights_in_optimizer_state_dict():
    layer = nn.Linear(2, 2)
    opt = paddle.optimizer.Adam(learning_rate=1e-3, parameters=layer.parameters())
    paddle.amp.decorate(layer, opt, level="O2", dtype="bfloat16")
    with paddle.amp.auto_cast(level="O2", dtype="bfloat16"):
        layer(paddle.ones([3, 2])).sum().backward()
    opt.step()
    state = opt.state_dict()
    masters = state["master_weights"]
    assert masters[layer.weight.name].dtype == paddle.float32
    np.testing.assert_array_equal(masters[layer.weight.name].numpy(),
                                  opt._amp_masters[id(layer.weight)])
    other = paddle.optimizer.Adam(learning_rate=1e-3, parameters=layer.parameters())
    paddle.amp.decorate(layer, other, level="O2", dtype="bfloat16")
    other.set_state_dict(state)
    np.testing.assert_array_equal(other._amp_masters[id(layer.weight)],
                                  opt._amp_masters[id(layer.weight)])
