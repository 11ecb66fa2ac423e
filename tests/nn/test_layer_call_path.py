"""The eager layer call path (issue #16): Layer.__call__'s hook-free fast path and the conv
layers' cached op attrs must behave exactly like the plain functional calls."""
import numpy as np
import pytest

import sampan as paddle
import sampan.nn.functional as F


def test_hooks_still_run_and_replace_values():
    lin = paddle.nn.Linear(2, 2)
    seen = []
    pre = lin.register_forward_pre_hook(lambda layer, inputs: (inputs[0] * 2,))
    post = lin.register_forward_post_hook(lambda layer, inputs, out: seen.append(1) or out + 1)
    x = paddle.ones([1, 2])
    expected = F.linear(x * 2, lin.weight, lin.bias) + 1
    np.testing.assert_allclose(lin(x).numpy(), expected.numpy())
    assert seen == [1]
    pre.remove()
    post.remove()
    np.testing.assert_allclose(lin(x).numpy(), F.linear(x, lin.weight, lin.bias).numpy())


def test_layer_without_super_init_raises():
    class Bad(paddle.nn.Layer):
        def __init__(self):
            pass

        def forward(self, x):
            return x

    with pytest.raises(RuntimeError, match="call super"):
        Bad()(paddle.ones([1]))


def test_conv_layer_attrs_follow_argument_changes():
    paddle.seed(0)
    conv = paddle.nn.Conv2D(2, 3, 3, padding=1)
    x = paddle.rand([1, 2, 6, 6])

    def ref():
        return F.conv2d(x, conv.weight, conv.bias, stride=conv._stride, padding=conv._padding,
                        dilation=conv._dilation, groups=conv._groups)
    np.testing.assert_allclose(conv(x).numpy(), ref().numpy(), rtol=1e-6)
    conv._padding = 0                      # a new value
    assert conv(x).shape == [1, 3, 4, 4]
    conv._stride[0] = 2                    # an in-place change of the cached list
    assert conv(x).shape == [1, 3, 2, 4]
    np.testing.assert_allclose(conv(x).numpy(), ref().numpy(), rtol=1e-6)
    conv._padding = "SAME"
    np.testing.assert_allclose(conv(x).numpy(), ref().numpy(), rtol=1e-6)


def test_conv_layer_checks_its_input_like_the_functional_form():
    conv = paddle.nn.Conv2D(2, 3, 3)
    with pytest.raises(ValueError, match="conv2d: x has 4 channels"):
        conv(paddle.ones([1, 4, 5, 5]))
