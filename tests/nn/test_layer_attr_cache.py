"""Conv and BatchNorm layers reuse their checked op attrs between calls: a change of mode
(train/eval), of an argument or of a parameter object is seen at the next call, and the
layers give the functional forms' numbers."""
import numpy as np
import pytest

import sampan as paddle
import sampan.nn.functional as F


def _x(shape, seed=0):
    return paddle.to_tensor(np.random.default_rng(seed).standard_normal(shape).astype("float32"))


def test_batch_norm_follows_mode_and_arguments():
    bn = paddle.nn.BatchNorm2D(3, momentum=0.5)
    x = _x([4, 3, 5, 5])
    bn.train()
    out = bn(x)
    mean = x.numpy().mean(axis=(0, 2, 3))
    np.testing.assert_allclose(bn._mean.numpy(), 0.5 * mean, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out.numpy().mean(axis=(0, 2, 3)), 0, atol=1e-5)
    bn.eval()
    ref = F.batch_norm(x, bn._mean, bn._variance, bn.weight, bn.bias, training=False)
    np.testing.assert_allclose(bn(x).numpy(), ref.numpy(), rtol=1e-6)
    before = bn._mean.numpy().copy()
    bn(x)
    np.testing.assert_array_equal(bn._mean.numpy(), before)   # eval: stats unchanged
    bn._momentum = 0.0
    bn.train()
    bn(x)
    np.testing.assert_allclose(bn._mean.numpy(), mean, rtol=1e-5, atol=1e-6)


def test_batch_norm_sees_new_parameters_and_stats():
    bn = paddle.nn.BatchNorm2D(2)
    bn.eval()
    x = _x([1, 2, 3, 3], 1)
    first = bn(x).numpy()
    with paddle.no_grad():
        bn.weight.set_value(np.array([2.0, 3.0], "float32"))
        bn._mean.set_value(np.array([0.5, -0.5], "float32"))
    want = (x.numpy() - np.array([0.5, -0.5]).reshape(1, 2, 1, 1)) / np.sqrt(1 + 1e-5) \
        * np.array([2.0, 3.0]).reshape(1, 2, 1, 1)
    np.testing.assert_allclose(bn(x).numpy(), want, rtol=1e-5, atol=1e-6)
    assert not np.allclose(first, want)
    bn.bias = paddle.create_parameter([2], "float32",
                                      default_initializer=paddle.nn.initializer.Constant(1.0))
    np.testing.assert_allclose(bn(x).numpy(), want + 1, rtol=1e-5, atol=1e-6)


def test_batch_norm_without_affine_and_bad_input():
    bn = paddle.nn.BatchNorm2D(2, weight_attr=False, bias_attr=False)
    bn.eval()
    x = _x([1, 2, 3, 3], 2)
    np.testing.assert_allclose(bn(x).numpy(), x.numpy() / np.sqrt(1 + 1e-5), rtol=1e-6)
    with pytest.raises(ValueError, match="BatchNorm2D: expected 4D input"):
        bn(_x([2, 3]))
    with pytest.raises(TypeError, match="batch_norm: x must be a Tensor"):
        bn(np.ones((1, 2, 3, 3), "float32"))


def test_conv_layer_follows_arguments_and_parameters():
    conv = paddle.nn.Conv2D(2, 3, 3, padding=1)
    x = _x([1, 2, 6, 6], 3)
    ref = F.conv2d(x, conv.weight, conv.bias, padding=1)
    np.testing.assert_allclose(conv(x).numpy(), ref.numpy(), rtol=1e-5, atol=1e-6)
    conv._padding = 0
    assert conv(x).shape == [1, 3, 4, 4]
    conv.weight = paddle.create_parameter([3, 2, 3, 3], "float32")
    np.testing.assert_allclose(conv(x).numpy(),
                               F.conv2d(x, conv.weight, conv.bias).numpy(), rtol=1e-5, atol=1e-6)
    conv.bias = None
    np.testing.assert_allclose(conv(x).numpy(), F.conv2d(x, conv.weight).numpy(), rtol=1e-5,
                               atol=1e-6)
