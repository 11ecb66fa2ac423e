"""AMP on a device place (the fake device): float16 is supported there, auto_cast O1 and
decorate O2 compute with float16 device arrays and GradScaler unscales device gradients."""
from __future__ import annotations

import numpy as np
import pytest

import sampan as paddle
from sampan.backend.fake import FakeArray, FakePlace
from sampan.framework import place as _place

FAKE = FakePlace(0)


def test_float16_supported_on_devices_only():
    assert not paddle.amp.is_float16_supported()
    assert not paddle.amp.is_float16_supported("cpu")
    assert paddle.amp.is_float16_supported(FAKE)
    assert paddle.amp.is_bfloat16_supported() and not paddle.amp.is_bfloat16_supported(FAKE)


@pytest.mark.parametrize("level", ["O1", "O2"])
def test_float16_training_step_on_device(level):
    old = _place.current_place()
    _place.set_place(FAKE)
    try:
        paddle.seed(0)
        model = paddle.nn.Sequential(paddle.nn.Conv2D(3, 4, 3, padding=1),
                                     paddle.nn.BatchNorm2D(4), paddle.nn.ReLU(),
                                     paddle.nn.Flatten(), paddle.nn.Linear(4 * 6 * 6, 5))
        opt = paddle.optimizer.Momentum(0.01, parameters=model.parameters())
        if level == "O2":
            model, opt = paddle.amp.decorate(model, opt, level="O2")
        scaler = paddle.amp.GradScaler(init_loss_scaling=1024.0)
        x = paddle.to_tensor(np.random.default_rng(0).standard_normal((2, 3, 6, 6))
                             .astype("float32"))
        before = [p.numpy().astype("float32") for p in model.parameters()]
        with paddle.amp.auto_cast(level=level):
            logits = model(x)
            loss = paddle.nn.functional.cross_entropy(logits, paddle.to_tensor([1, 3]))
        assert logits.dtype == paddle.float16 and isinstance(logits._data, FakeArray)
        scaler.scale(loss).backward()
        grads = [p.grad for p in model.parameters() if p.grad is not None]
        assert len(grads) >= 4
        scaler.step(opt)
        scaler.update()
        assert all(isinstance(g._data, FakeArray) for g in grads)
        after = [p.numpy().astype("float32") for p in model.parameters()]
        assert np.isfinite(float(loss.numpy()))
        assert any(not np.allclose(a, b) for a, b in zip(after, before))
    finally:
        _place.set_place(old)


def test_bfloat16_on_a_device_warns_and_stays_float32():
    old = _place.current_place()
    _place.set_place(FAKE)
    try:
        model = paddle.nn.Linear(3, 2)
        x = paddle.to_tensor(np.ones((2, 3), "float32"))
        with pytest.warns(UserWarning, match="bfloat16 is not supported"):
            with paddle.amp.auto_cast(dtype="bfloat16"):
                y = model(x)
        assert y.dtype == paddle.float32
        model = paddle.amp.decorate(model, level="O2", dtype="bfloat16")
        assert model.weight.dtype == paddle.float32   # O2 casting is off where unsupported
    finally:
        _place.set_place(old)
