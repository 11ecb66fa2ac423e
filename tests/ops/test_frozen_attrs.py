"""FrozenAttrs: attrs shared by every call of a layer carry dispatch's `check` signature,
equal to the one built from a plain dict; they cannot be written; copies and pickles work;
a conv layer still gets infer's clear error for a bad input."""
import copy
import importlib
import pickle

import numpy as np
import pytest

import sampan as paddle
from sampan.ops.opdef import REGISTRY

D = importlib.import_module("sampan.ops.dispatch")  # the module (sampan.ops.dispatch is the function)
CONV = REGISTRY["conv2d"]
ATTRS = {"stride": [2, 2], "padding": [1, 1, 1, 1], "padding_algorithm": "EXPLICIT",
         "dilation": [1, 1], "groups": 1, "data_format": "NCHW"}


def test_signature_equals_the_plain_dicts():
    x, w = np.ones((1, 2, 5, 5), "float32"), np.ones((3, 2, 3, 3), "float32")
    frozen = D.FrozenAttrs(ATTRS)
    assert frozen == ATTRS
    assert D._signature(CONV, [x, w, None], frozen) == D._signature(CONV, [x, w, None], ATTRS)
    assert D._signature(CONV, [x, w, None], D.FrozenAttrs({**ATTRS, "groups": True})) != \
        D._signature(CONV, [x, w, None], frozen)


def test_not_plain_attrs_are_never_memoised():
    x = np.ones((1, 2, 5, 5), "float32")
    frozen = D.FrozenAttrs({**ATTRS, "stride": np.array([1, 1])})
    assert frozen.signature is None
    assert D._signature(CONV, [x, x, None], frozen) is None


@pytest.mark.parametrize("write", [
    lambda a: a.__setitem__("groups", 2), lambda a: a.pop("groups"), lambda a: a.clear(),
    lambda a: a.update(groups=2), lambda a: a.setdefault("new", 1), lambda a: a.popitem(),
    lambda a: a.__delitem__("groups")])
def test_cannot_be_written(write):
    frozen = D.FrozenAttrs(ATTRS)
    with pytest.raises(TypeError, match="FrozenAttrs"):
        write(frozen)
    assert frozen == ATTRS


def test_copies_and_pickles():
    frozen = D.FrozenAttrs(ATTRS)
    for other in (copy.copy(frozen), copy.deepcopy(frozen), pickle.loads(pickle.dumps(frozen))):
        assert type(other) is D.FrozenAttrs and other == ATTRS
        assert other.signature == frozen.signature


def test_conv_layer_still_checks_and_deepcopies():
    conv = paddle.nn.Conv2D(2, 3, 3, stride=2, padding=1)
    x = paddle.ones([1, 2, 6, 6])
    assert conv(x).shape == [1, 3, 3, 3]
    with pytest.raises(ValueError, match="conv2d: x has 4 channels"):
        conv(paddle.ones([1, 4, 6, 6]))
    twin = copy.deepcopy(conv)
    np.testing.assert_array_equal(twin(x).numpy(), conv(x).numpy())
    conv._stride = [1, 1]   # a changed argument is normalised again
    assert conv(x).shape == [1, 3, 6, 6]
