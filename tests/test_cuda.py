"""paddle.cuda (Paddle 3.x): the GPU API and device queries under PyTorch-style names."""
import numpy as np
import pytest

import sampan as paddle


def test_names_are_the_device_ones():
    assert paddle.cuda.device_count is paddle.device.device_count
    assert paddle.cuda.is_available is paddle.device.is_available
    assert paddle.cuda.Stream is paddle.device.cuda.Stream
    assert paddle.cuda.memory_allocated is paddle.device.cuda.memory_allocated
    for name in paddle.cuda.__all__:
        assert hasattr(paddle.cuda, name), name


def test_seed_rng_state_and_device_context():
    paddle.cuda.manual_seed_all(7)
    a = paddle.rand([2]).numpy()
    paddle.cuda.manual_seed(7)
    state = paddle.cuda.get_rng_state()
    np.testing.assert_array_equal(paddle.rand([2]).numpy(), a)
    paddle.cuda.set_rng_state(state)
    np.testing.assert_array_equal(paddle.rand([2]).numpy(), a)
    with paddle.cuda.device("cpu"):
        assert paddle.device.get_device() == "cpu"
    assert paddle.cuda.is_bf16_supported() is True


def test_current_device_needs_a_gpu():
    assert paddle.cuda.is_initialized() == paddle.cuda.is_available()
    if paddle.device.get_device() == "cpu":
        with pytest.raises(RuntimeError, match="paddle.cuda.current_device: no GPU"):
            paddle.cuda.current_device()
