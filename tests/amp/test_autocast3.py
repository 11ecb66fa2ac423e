"""Paddle 3.x AMP names: autocast, is_autocast_enabled, get_autocast_*dtype."""
import warnings

import pytest

import sampan as paddle


def test_same_objects_in_paddle_and_amp():
    for name in ("autocast", "is_autocast_enabled", "get_autocast_dtype",
                 "get_autocast_cpu_dtype", "get_autocast_gpu_dtype"):
        assert getattr(paddle, name) is getattr(paddle.amp, name)
    assert paddle.get_autocast_cpu_dtype is paddle.get_autocast_dtype


def test_outside_any_context():
    # Paddle 3.3.1: False and 'float16' (the default AMP dtype) outside auto_cast
    assert paddle.is_autocast_enabled() is False
    assert paddle.get_autocast_dtype() == "float16"
    assert paddle.get_autocast_gpu_dtype("gpu") == "float16"


def test_bfloat16_context_is_seen_and_casts():
    x = paddle.ones([2, 2])
    with paddle.autocast("cpu", dtype=paddle.bfloat16):
        assert paddle.is_autocast_enabled() and paddle.is_autocast_enabled("gpu")
        assert paddle.get_autocast_dtype() == "bfloat16"
        assert paddle.matmul(x, x).dtype == paddle.bfloat16
    assert not paddle.is_autocast_enabled()


def test_float16_on_cpu_has_no_effect_as_in_paddle():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with paddle.autocast("cpu"):
            assert paddle.is_autocast_enabled() is False
            assert paddle.matmul(paddle.ones([2, 2]), paddle.ones([2, 2])).dtype == \
                paddle.float32


def test_disabled_and_errors():
    with paddle.autocast("cpu", dtype="bfloat16", enabled=False):
        assert not paddle.is_autocast_enabled()
    with pytest.raises(TypeError, match="device_type"):
        paddle.autocast()
    with pytest.raises(ValueError, match="dtype must be 'float16' or 'bfloat16'"):
        with paddle.autocast("cpu", dtype="float32"):
            pass


def test_inner_auto_cast_disabled_turns_outer_casting_off():
    x, w = paddle.ones([2, 3]), paddle.ones([3, 4])
    with paddle.amp.auto_cast(dtype="bfloat16"):
        assert paddle.matmul(x, w).dtype == paddle.bfloat16
        with paddle.amp.auto_cast(enable=False):
            assert paddle.matmul(x, w).dtype == paddle.float32
            assert not paddle.amp.is_autocast_enabled()
        with paddle.amp.auto_cast(level="O0", dtype="bfloat16"):
            assert paddle.matmul(x, w).dtype == paddle.float32
        assert paddle.matmul(x, w).dtype == paddle.bfloat16
    assert paddle.matmul(x, w).dtype == paddle.float32
