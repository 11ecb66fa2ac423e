"""Paddle 3.x dtype names uint16/uint32/uint64 (checked against Paddle 3.3.1: uint16 makes
bfloat16 tensors and prints as paddle.bfloat16; uint32/uint64 tensors cannot be made on CPU)."""
import pytest

import sampan as paddle


def test_uint16_is_bfloat16_storage():
    assert str(paddle.uint16) == "paddle.bfloat16"
    assert paddle.to_tensor([1, 2], dtype="uint16").dtype == paddle.bfloat16
    assert paddle.ones([2], dtype=paddle.uint16).dtype == paddle.bfloat16
    assert paddle.to_tensor([1., 2.]).astype("uint16").dtype == paddle.bfloat16


@pytest.mark.parametrize("name", ["uint32", "uint64"])
def test_uint32_uint64_are_names_only(name):
    dt = getattr(paddle, name)
    assert str(dt) == f"paddle.{name}"
    with pytest.raises(TypeError, match=name):
        paddle.ones([2], dtype=name)
    with pytest.raises(TypeError, match=name):
        paddle.to_tensor([1, 2], dtype=dt)
    with pytest.raises(TypeError, match=name):
        paddle.to_tensor([1, 2]).astype(name)
