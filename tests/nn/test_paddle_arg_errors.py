"""Argument errors of the kinds Paddle 3.3.1 raises (recorded from its own API tests):
loss dtypes, layer_norm's normalized_shape, LayerDict.update, square_error_cost inputs,
conv1d_transpose ranks, pdist ranks, einsum without operands, Layer.astype dtypes."""
import numpy as np
import pytest

import sampan as paddle
import sampan.nn.functional as F


def test_loss_dtype_errors_are_value_errors_too():
    x = paddle.to_tensor(np.ones((3, 2), "int64"))
    with pytest.raises(ValueError, match="gaussian_nll_loss: input must be a float16"):
        F.gaussian_nll_loss(x, x, x)
    a = paddle.rand([3, 2])
    with pytest.raises(ValueError, match="cosine_embedding_loss: input1"):
        F.cosine_embedding_loss(x, a, paddle.to_tensor([1, -1, 1]))
    with pytest.raises(ValueError, match="label must be an int32, int64"):
        F.cosine_embedding_loss(a, a, paddle.to_tensor(np.array([1, -1, 1], "int16")))


def test_layer_norm_normalized_shape_checked_first():
    with pytest.raises(ValueError, match="normalized_shape must be an int, list or tuple"):
        F.layer_norm(np.ones((2, 3), "float32"), normalized_shape=1.0)


def test_layer_dict_update_of_a_non_sequence():
    d = paddle.nn.LayerDict()
    with pytest.raises(AssertionError, match="sublayers must be a dict"):
        d.update(1)
    with pytest.raises(ValueError, match="element 0 must be a"):
        d.update([("a", paddle.nn.Linear(1, 1), "extra")])


def test_square_error_cost_needs_tensors():
    with pytest.raises(TypeError, match="square_error_cost: input must be a Tensor"):
        F.square_error_cost([256, 3], paddle.rand([2]))


def test_rank_errors():
    with pytest.raises(ValueError, match="conv1d_transpose: x must be a 3-D tensor"):
        F.conv1d_transpose(paddle.to_tensor([], dtype="float32"),
                           paddle.to_tensor([], dtype="float32"))
    with pytest.raises(AssertionError, match="pdist: x must be a 2-D tensor"):
        paddle.pdist(paddle.rand([5, 2, 3]))
    with pytest.raises(AssertionError, match="At least one operand is expected"):
        paddle.einsum("ijk")


def test_layer_astype_any_layer_dtype():
    net = paddle.nn.Sequential(paddle.nn.Linear(2, 2))
    net.register_buffer("buf", paddle.to_tensor([0.0]), persistable=True)
    for dtype in ("bfloat16", "int8", "uint8", "complex64", "bool", "float64"):
        net.astype(dtype)
        assert net.parameters()[0].dtype.name == dtype and net.buffers()[0].dtype.name == dtype
    with pytest.raises(ValueError, match="dtype value error"):
        net.astype("invalid_type")


def test_parameter_trainable_is_not_stop_gradient():
    linear = paddle.nn.Linear(3, 3)
    x = paddle.rand([2, 3])
    assert not linear(x).stop_gradient
    linear.weight.trainable = False
    linear.bias.trainable = False
    assert linear.weight.stop_gradient and not linear.weight.trainable
    assert linear(x).stop_gradient
    linear.weight.stop_gradient = False
    assert linear.weight.trainable
    with pytest.raises(ValueError, match="trainable must be a bool"):
        linear.weight.trainable = "1"


def test_eager_param_base_from_shape():
    x = paddle.base.framework.EagerParamBase(dtype="float32", shape=[5, 10], name="x",
                                             optimize_attr={"learning_rate": 0.5})
    assert x.shape == [5, 10] and x.dtype == paddle.float32 and x.trainable
    assert x.optimize_attr == {"learning_rate": 0.5} and float(x.sum()) == 0.0
