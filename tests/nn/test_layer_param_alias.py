"""Paddle 3.3.1's alias keywords and call forms on nn Layers (sampan/nn/layer/param_alias.py).

Behaviour and messages recorded from Paddle 3.3.1 (eager, CPU).
"""
import inspect
import warnings

import numpy as np
import pytest

import sampan as paddle
import sampan.nn as nn
from sampan.nn.layer import param_alias as pa


@pytest.mark.parametrize("key", sorted(pa.LAYERS), ids=lambda k: ".".join(k))
def test_every_entry_is_installed(key):
    cls_name, method = key
    cls = getattr(nn, cls_name, None)
    if cls is None:  # Paddle 3.3.1's ConstantPad1D ... families are not in sampan yet
        pytest.skip(f"paddle.nn.{cls_name} is not in sampan")
    fn = cls.__dict__[method]  # set on the class itself
    spec = fn._call_spec
    assert spec[2] == pa.LAYERS[key]
    params = inspect.signature(spec[0]).parameters
    for alias, canonical in pa.LAYERS[key].items():
        assert canonical in params and alias not in params, (key, alias)


def test_constructor_aliases():
    assert nn.LayerNorm(3, eps=1e-3)._epsilon == 1e-3
    assert nn.GroupNorm(2, 4, eps=1e-3)._epsilon == 1e-3
    assert nn.GLU(dim=0)._axis == 0
    assert nn.CosineSimilarity(dim=0)._axis == 0
    assert nn.Hardshrink(lambd=0.3)._threshold == 0.3
    assert nn.AdaptiveMaxPool2D(2, return_indices=True)._return_mask is True
    assert nn.PairwiseDistance(eps=1e-3).epsilon == 1e-3
    fold = nn.Fold(output_size=[4, 4], kernel_size=2)
    assert repr(fold) == "Fold(kernel_size=2, dilation=1, padding=0, stride=1)"
    with pytest.raises(TypeError, match="'eps'"):
        nn.LayerNorm(3, epsilon=1e-3, eps=1e-3)
    with pytest.raises(ValueError, match="both 'output_sizes' and its alias 'output_size'"):
        nn.Fold(output_sizes=[4, 4], output_size=[4, 4], kernel_sizes=2)


def test_forward_aliases():
    paddle.seed(3)
    x = paddle.rand([1, 2, 3])
    conv = nn.Conv1D(2, 2, 1)
    np.testing.assert_array_equal(conv(input=x).numpy(), conv(x).numpy())
    with pytest.raises(TypeError, match="'input'"):
        conv(x=x, input=x)
    with pytest.raises(TypeError, match="input"):  # not on the transposed conv (Paddle)
        nn.Conv1DTranspose(2, 2, 1)(input=x)
    assert nn.Pad1D(1)(input=x).shape == [1, 2, 5]
    assert nn.Embedding(4, 2)(input=paddle.to_tensor([1])).shape == [1, 2]
    a, b = paddle.rand([2, 3]), paddle.rand([2, 3])
    np.testing.assert_allclose(nn.PairwiseDistance()(x1=a, x2=b).numpy(),
                               nn.PairwiseDistance()(a, b).numpy())
    logits, label = paddle.rand([2, 3]), paddle.to_tensor([0, 1])
    loss = nn.CrossEntropyLoss()
    np.testing.assert_allclose(loss(logits, target=label).numpy(), loss(logits, label).numpy())
    with pytest.raises(ValueError, match="both 'label' and its alias 'target'"):
        loss(logits, label=label, target=label)


def test_layer_method_aliases():
    seq = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 2))
    assert len(seq.parameters(recurse=False)) == 0 and len(seq.parameters(recurse=True)) == 4
    assert len(list(seq.named_parameters(recurse=False))) == 0
    with pytest.raises(TypeError, match="'recurse'"):
        seq.parameters(include_sublayers=False, recurse=False)
    layer = nn.Linear(2, 2)
    layer.register_buffer("b", paddle.ones([1]), persistent=False)
    assert "b" not in layer.state_dict()
    assert len(layer.buffers(recurse=True)) == 1
    layers = nn.LayerList(modules=[nn.Linear(1, 1)])
    layers.append(module=nn.Linear(1, 1))
    layers.insert(0, module=nn.Linear(1, 1))
    layers.extend(modules=[nn.Linear(1, 1)])
    assert len(layers) == 4
    d = nn.LayerDict(modules={"a": nn.Linear(1, 1)})
    d.update(modules={"b": nn.Linear(1, 1)})
    assert list(d.keys()) == ["a", "b"]


def test_lp_pool_ceil_mode_by_position():
    with pytest.warns(Warning, match="ceil_mode"):
        assert nn.LPPool1D(2, 2, 2, True).ceil_mode is True
    x = paddle.rand([1, 2, 5])
    with pytest.warns(Warning, match="ceil_mode"):
        out = paddle.nn.functional.lp_pool1d(x, 2, 2, 2, True)
    assert out.shape == [1, 2, 3]


# Paddle 3.3.1's messages for the legacy reduction arguments
@pytest.mark.parametrize("make,detected,suggested", [
    (lambda: nn.MSELoss(size_average=True), "reduce=None, size_average=True", "mean"),
    (lambda: nn.MSELoss(True), "reduce=None, size_average=True", "mean"),
    (lambda: nn.MSELoss(reduce=False), "reduce=False, size_average=None", "none"),
    (lambda: nn.L1Loss(size_average=False), "reduce=None, size_average=False", "sum"),
    (lambda: nn.CrossEntropyLoss(None, True), "reduce=None, size_average=True", "mean"),
    (lambda: nn.KLDivLoss(reduce=True), "reduce=True, size_average=None", "mean"),
    (lambda: nn.BCELoss(None, True), "reduce=None, size_average=True", "mean"),
    (lambda: nn.TripletMarginLoss(reduce=None), "reduce=None, size_average=None", "mean"),
])
def test_legacy_reduction_is_refused(make, detected, suggested):
    with pytest.raises(ValueError, match="no longer supports 'reduce' or 'size_average'") as e:
        make()
    assert f"Detected: {detected}" in str(e.value)
    assert f"Please use: reduction='{suggested}' instead." in str(e.value)


def test_legacy_bools_that_are_real_arguments():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nn.CrossEntropyLoss(None, -100, "mean", True)  # soft_label=True after a reduction
        nn.KLDivLoss("mean", True)  # log_target=True
        nn.MSELoss("sum")


def test_pytorch_constructor_keywords_refused_with_hint():
    with pytest.raises(TypeError, match=r"(?s)paddle.nn.Linear\(\) received unexpected keyword "
                                        r"argument 'bias'.*paddle.compat.nn.Linear\(\)"):
        nn.Linear(2, 2, bias=False)
    with pytest.raises(TypeError, match=r"paddle.nn.Unfold\(\) received unexpected keyword "
                                        r"argument 'kernel_size'"):
        nn.Unfold(kernel_size=2)
    assert nn.Linear(2, 2).weight.shape == [2, 2]
