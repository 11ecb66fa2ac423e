"""paddle.shape/rank/finfo/iinfo/tolist and Tensor layout methods."""
import numpy as np
import pytest

import sampan as paddle


def test_shape_rank_tolist():
    x = paddle.zeros([2, 3])
    assert paddle.shape(x).tolist() == [2, 3] and paddle.shape(x).dtype == paddle.int64
    assert paddle.rank(x).item() == 2
    assert paddle.tolist(paddle.to_tensor([[1, 2]])) == [[1, 2]]
    assert paddle.is_same_shape(x, paddle.ones([2, 3]))


def test_finfo_iinfo():
    assert paddle.finfo(paddle.float32).eps == float(np.finfo(np.float32).eps)
    assert paddle.finfo("bfloat16").bits == 16
    assert paddle.iinfo(paddle.int8).max == 127
    with pytest.raises(TypeError, match="integer"):
        paddle.iinfo("float32")
    with pytest.raises(TypeError, match="floating"):
        paddle.finfo("int64")


def test_layout_methods_and_inplace_version():
    x = paddle.to_tensor(np.arange(6.0).reshape(2, 3))
    assert x.is_contiguous() and x.contiguous() is x and x.strides == [3, 1]
    v = x.inplace_version
    x.copy_(paddle.ones([2, 3]))
    assert x.inplace_version == v + 1 and x.tolist() == [[1.0] * 3] * 2
    y = paddle.to_tensor([1.0], stop_gradient=False) * 2
    assert y.grad_fn is not None and x.grad_fn is None


def test_finfo_iinfo_print_as_paddle():
    # Paddle 3.3.1's text, recorded
    assert repr(paddle.iinfo(paddle.uint8)) == "paddle.iinfo(min=0, max=255, bits=8, dtype=uint8)"
    assert str(paddle.iinfo(paddle.int64)) == (
        "paddle.iinfo(min=-9223372036854775808, max=9223372036854775807, bits=64, "
        "dtype=int64)")
    assert str(paddle.finfo(paddle.float16)) == (
        "paddle.finfo(min=-65504, max=65504, eps=0.000976562, resolution=0.001, "
        "smallest_normal=6.10352e-05, tiny=6.10352e-05, bits=16, dtype=float16)")
    f = paddle.finfo(paddle.complex64)            # reports its real dtype
    assert f.dtype == "float32" and f.resolution == 1e-06 and f.bits == 32
    assert paddle.finfo(paddle.bfloat16).resolution == 0.01


def test_tensor_type_is_the_dense_tensor_var_type():
    t = paddle.to_tensor(1.0).type
    assert str(t) == "VarType.DENSE_TENSOR" and repr(t) == "<VarType.DENSE_TENSOR: 7>"
    assert t == paddle.base.core.VarDesc.VarType.DENSE_TENSOR == "dense_tensor"
    assert int(t) == 7
