"""Paddle 3.x's device-generic queries in paddle.device (device_count, is_available,
manual_seed, get/set_rng_state, the `device` context)."""
import numpy as np
import pytest

import sampan as paddle


def test_counts_agree_with_the_gpu_api():
    n = paddle.device.device_count()
    assert n == paddle.device.cuda.device_count()
    assert paddle.device.is_available() == (n > 0)
    assert paddle.device.is_bf16_supported() is True


def test_manual_seed_and_rng_state_roundtrip():
    paddle.device.manual_seed(102)
    a = paddle.rand([3]).numpy()
    paddle.device.manual_seed(102)
    state = paddle.device.get_rng_state()
    assert not isinstance(state, list)          # one state (paddle.get_rng_state: a list)
    b = paddle.rand([3]).numpy()
    paddle.device.set_rng_state(state)
    c = paddle.rand([3]).numpy()
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(b, c)


def test_device_context_restores_the_device():
    before = paddle.device.get_device()
    with paddle.device.device("cpu"):
        assert paddle.device.get_device() == "cpu"
    with paddle.device.device(paddle.CPUPlace()):
        assert paddle.device.get_device() == "cpu"
    assert paddle.device.get_device() == before
    with pytest.raises(TypeError, match="paddle.device.device: device must be"):
        paddle.device.device(1.5)
