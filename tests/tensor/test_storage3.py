"""Paddle 3.x storage methods: Tensor.resize_, set_, _is_shared_buffer_with, dense_dim."""
import numpy as np
import pytest

import sampan as paddle


def test_resize_cuts_or_extends_in_flat_order():
    x = paddle.to_tensor([1.0, 2.0, 3.0])
    assert x.resize_([2, 1]) is x
    assert x.shape == [2, 1] and x.tolist() == [[1.0], [2.0]]
    y = paddle.to_tensor([1.0, 2.0, 3.0])
    y.resize_([2, 3], fill_zero=True)
    assert y.tolist() == [[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]]
    with pytest.raises(ValueError, match="resize_: shape must not hold negative"):
        y.resize_([-1, 2])
    with pytest.raises(TypeError, match="resize_: shape must be a list or tuple of ints"):
        y.resize_(3)
    leaf = paddle.to_tensor([1.0], stop_gradient=False)
    with pytest.raises(ValueError, match="resize_: leaf Tensor"):
        leaf.resize_([2])


def test_set_views_the_source_buffer():
    # outputs recorded from Paddle 3.3.1's doc example
    src = paddle.to_tensor([[11.0, 22.0, 33.0]])
    src2 = paddle.to_tensor([11.0, 22.0, 33.0, 44.0, 55.0, 66.0])
    x = paddle.to_tensor([1.0, 2.0, 3.0, 4.0, 5.0])
    assert x.set_() is x and x.shape == [0] and x.dtype == paddle.float32
    x.set_(src)
    assert x.tolist() == [[11.0, 22.0, 33.0]] and x._is_shared_buffer_with(src)
    assert x.set_(src, shape=[2, 1]).tolist() == [[11.0], [22.0]]
    assert x.set_(src2, shape=[3], stride=[2]).tolist() == [11.0, 33.0, 55.0]
    assert x.set_(src2, shape=[5], offset=4).tolist() == [22.0, 33.0, 44.0, 55.0, 66.0]
    assert not paddle.to_tensor([1.0])._is_shared_buffer_with(src2)


def test_set_refuses_what_paddle_would_reinterpret():
    x = paddle.to_tensor([1.0, 2.0])
    with pytest.raises(TypeError, match="set_: source must have x's dtype float32"):
        x.set_(paddle.to_tensor([1, 2]))
    with pytest.raises(ValueError, match="set_: shape \\[5\\], stride \\[1\\] and offset 0 "
                                         "reach element 4 of a source holding 2"):
        x.set_(paddle.to_tensor([1.0, 2.0]), shape=[5])
    with pytest.raises(ValueError, match="offset must be a non-negative multiple"):
        x.set_(paddle.to_tensor([1.0, 2.0]), shape=[1], offset=3)


def test_dense_dim_of_a_dense_tensor():
    assert paddle.to_tensor([[1, 2, 3]]).dense_dim() == 2
    assert paddle.to_tensor(np.float32(1.0)).dense_dim() == 0
