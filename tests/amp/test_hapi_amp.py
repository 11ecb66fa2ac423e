"""paddle.Model.prepare(amp_configs=...): float16 on CPU as Paddle 3.3.1 (float32, no scaler
effect), bfloat16 O1/O2 training that follows float32."""
import warnings

import numpy as np

import sampan as paddle
from sampan.hapi.model import Model


def _fit(amp_configs, steps=8):
    paddle.seed(3)
    net = paddle.nn.Sequential(paddle.nn.Linear(6, 16), paddle.nn.ReLU(),
                               paddle.nn.LayerNorm(16), paddle.nn.Linear(16, 3))
    model = Model(net)
    opt = paddle.optimizer.Adam(learning_rate=1e-2, parameters=net.parameters())
    model.prepare(opt, paddle.nn.CrossEntropyLoss(), amp_configs=amp_configs)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((32, 6)).astype("float32")
    y = x[:, :3].argmax(1).astype("int64")[:, None]
    losses = [float(model.train_batch([x], [y])[0]) for _ in range(steps)]
    return model, np.array(losses)


def test_float16_on_cpu_trains_in_float32_like_paddle():
    _, ref = _fit(None)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        model, amp = _fit({"level": "O1", "init_loss_scaling": 128.0})
    messages = {str(r.message) for r in rec}
    assert any("amp_guard can only be enabled" in m for m in messages)
    assert any("AmpScaler can only be enabled" in m for m in messages)
    assert not model._scaler.is_enable()
    np.testing.assert_allclose(amp, ref, rtol=1e-6)


def test_bfloat16_o1_o2_follow_float32():
    _, ref = _fit(None)
    assert ref[-1] < 0.8 * ref[0]
    for level in ("O1", "O2"):
        model, amp = _fit({"level": level, "dtype": "bfloat16"})
        np.testing.assert_allclose(amp, ref, rtol=0.03, atol=0.02)
        assert not np.array_equal(amp, ref)
        assert model._scaler is None
    weight = model.network[0].weight
    assert weight.dtype == paddle.bfloat16  # O2 decorated the network
