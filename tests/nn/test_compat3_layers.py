"""Paddle 3.x names in paddle.nn: PyTorch-style aliases, fixed-mode pad layers,
ParameterDict, nn.Parameter(data, requires_grad). Values recorded from Paddle 3.3.1."""
import numpy as np
import pytest

import sampan as paddle

nn = paddle.nn
X2 = paddle.arange(12, dtype="float32").reshape([1, 1, 3, 4])
X1 = paddle.arange(6, dtype="float32").reshape([1, 2, 3])


@pytest.mark.parametrize("alias,name", [
    ("Conv1d", "Conv1D"), ("Conv2d", "Conv2D"), ("Conv3d", "Conv3D"), ("Module", "Layer"),
    ("ModuleList", "LayerList"), ("ModuleDict", "LayerDict"),
    ("AdaptiveMaxPool1d", "AdaptiveMaxPool1D"), ("AdaptiveMaxPool2d", "AdaptiveMaxPool2D"),
    ("AdaptiveMaxPool3d", "AdaptiveMaxPool3D"), ("LPPool1d", "LPPool1D"),
    ("LPPool2d", "LPPool2D"), ("ConstantPad3d", "ConstantPad3D"),
    ("ReflectionPad1d", "ReflectionPad1D"), ("ReplicationPad2d", "ReplicationPad2D"),
    ("CircularPad3d", "CircularPad3D")])
def test_aliases_are_the_same_objects(alias, name):
    assert getattr(nn, alias) is getattr(nn, name)


def test_parameter_is_the_parameter_class():
    assert nn.Parameter is paddle.Parameter
    assert isinstance(paddle.create_parameter([2], "float32"), nn.Parameter)


def test_conv2d_pytorch_style_construction():
    conv = nn.Conv2d(3, 4, 3, padding=1, bias=False)
    assert conv.bias is None
    assert conv(paddle.ones([1, 3, 5, 5])).shape == [1, 4, 5, 5]


def test_constant_pad2d_values_and_repr():
    layer = nn.ConstantPad2D([1, 2, 0, 1], 2.0)
    assert repr(layer) == ("ConstantPad2D(padding=[1, 2, 0, 1], mode=constant, value=2.0, "
                           "data_format=NCHW)")
    expected = [[2., 0., 1., 2., 3., 2., 2.], [2., 4., 5., 6., 7., 2., 2.],
                [2., 8., 9., 10., 11., 2., 2.], [2.] * 7]
    np.testing.assert_array_equal(layer(X2).numpy()[0, 0], expected)


@pytest.mark.parametrize("name,expected", [
    ("ReflectionPad2D", [[1., 0., 1., 2., 3., 2., 1.], [5., 4., 5., 6., 7., 6., 5.],
                         [9., 8., 9., 10., 11., 10., 9.], [5., 4., 5., 6., 7., 6., 5.]]),
    ("ReplicationPad2D", [[0., 0., 1., 2., 3., 3., 3.], [4., 4., 5., 6., 7., 7., 7.],
                          [8., 8., 9., 10., 11., 11., 11.], [8., 8., 9., 10., 11., 11., 11.]]),
    ("CircularPad2D", [[3., 0., 1., 2., 3., 0., 1.], [7., 4., 5., 6., 7., 4., 5.],
                       [11., 8., 9., 10., 11., 8., 9.], [3., 0., 1., 2., 3., 0., 1.]])])
def test_fixed_mode_pad2d_values(name, expected):
    np.testing.assert_array_equal(getattr(nn, name)([1, 2, 0, 1])(X2).numpy()[0, 0], expected)


@pytest.mark.parametrize("name,expected", [
    ("ConstantPad1D", [[-1., -1., 0., 1., 2., -1., -1.], [-1., -1., 3., 4., 5., -1., -1.]]),
    ("ReflectionPad1D", [[2., 1., 0., 1., 2., 1.], [5., 4., 3., 4., 5., 4.]]),
    ("ReplicationPad1D", [[0., 0., 0., 1., 2., 2.], [3., 3., 3., 4., 5., 5.]]),
    ("CircularPad1D", [[1., 2., 0., 1., 2., 0.], [4., 5., 3., 4., 5., 3.]])])
def test_pad1d_values(name, expected):
    layer = nn.ConstantPad1D(2, -1.0) if name == "ConstantPad1D" else getattr(nn, name)((2, 1))
    np.testing.assert_array_equal(layer(X1).numpy()[0], expected)


@pytest.mark.parametrize("name,total,head", [
    ("ReflectionPad3D", 1696.0, [7., 6., 7., 9., 8., 9.]),
    ("ReplicationPad3D", 1568.0, [0., 0., 1., 2., 2., 3.]),
    ("CircularPad3D", 1792.0, [13., 12., 13., 15., 14., 15.])])
def test_pad3d_values(name, total, head):
    x = paddle.arange(36, dtype="float32").reshape([1, 2, 3, 3, 2])
    y = getattr(nn, name)([1, 0, 0, 1, 1, 0])(x)
    assert y.shape == [1, 2, 4, 4, 3]
    assert float(y.sum()) == total
    np.testing.assert_array_equal(y.numpy().ravel()[:6], head)


def test_constant_pad3d_int_padding():
    x = paddle.arange(36, dtype="float32").reshape([1, 2, 3, 3, 2])
    y = nn.ConstantPad3D(1, value=0.5)(x)
    assert y.shape == [1, 2, 5, 5, 4] and float(y.sum()) == 712.0


def test_pad_layer_gradient_and_input_keyword():
    x = paddle.ones([1, 1, 2, 3])
    x.stop_gradient = False
    nn.ReplicationPad2D([1, 0, 0, 0])(input=x).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy()[0, 0], [[2., 1., 1.], [2., 1., 1.]])


def test_pad_layer_errors():
    with pytest.raises(TypeError, match="value"):
        nn.ConstantPad1D(1)
    with pytest.raises(TypeError, match="mode"):
        nn.ReflectionPad1D(1, mode="constant")
    with pytest.raises(ValueError, match="data_format"):
        nn.CircularPad2D(1, data_format="NCL")


def test_parameter_dict_registers_parameters():
    params = nn.ParameterDict({"a": paddle.create_parameter([2], "float32")})
    params.update([("b", paddle.create_parameter([3], "float32"))])
    params["c"] = paddle.create_parameter([1], "float32")
    assert list(params) == ["a", "b", "c"] and len(params) == 3 and "b" in params
    holder = nn.Layer()
    holder.params = params
    assert list(holder.state_dict()) == ["params.a", "params.b", "params.c"]
    del params["a"]
    assert list(params) == ["b", "c"]


def test_parameter_dict_errors():
    params = nn.ParameterDict()
    with pytest.raises(TypeError, match="must be a Parameter"):
        params["x"] = paddle.ones([2])
    with pytest.raises(KeyError, match="no parameter named 'y'"):
        params["y"]
    with pytest.raises(TypeError, match="iterable"):
        nn.ParameterDict(3)
    with pytest.raises(ValueError, match="length 3"):
        nn.ParameterDict([("a", paddle.create_parameter([1], "float32"), 1)])


def test_parameter_from_tensor_requires_grad():
    t = paddle.to_tensor([1., 2.])
    p = nn.Parameter(t, False)
    assert p.stop_gradient and not p.trainable and p.persistable
    p = nn.Parameter(t, requires_grad=True, name="w")
    assert not p.stop_gradient and p.name == "w"
    np.testing.assert_array_equal(p.numpy(), [1., 2.])
    assert nn.Parameter(paddle.to_tensor([1, 2])).dtype == paddle.int64
    assert nn.Parameter().shape == [0]
