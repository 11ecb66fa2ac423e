"""dispatch's memo of passed `infer` checks (ops with `check = True`): a signature that passed
is skipped, anything that differs (shape, dtype, attr value or attr type) is checked again."""
import importlib

import numpy as np
import pytest

import sampan as paddle
from sampan.ops.opdef import REGISTRY

D = importlib.import_module("sampan.ops.dispatch")  # the module (sampan.ops.dispatch is the function)
CONV = REGISTRY["conv2d"]
ATTRS = {"stride": [1, 1], "padding": [0, 0, 0, 0], "padding_algorithm": "EXPLICIT",
         "dilation": [1, 1], "groups": 1, "data_format": "NCHW"}


def _conv(x, w, **attrs):
    return D.dispatch(CONV, (paddle.to_tensor(x), paddle.to_tensor(w), None),
                      {**ATTRS, **attrs})


def test_passed_signature_is_memoised_and_result_unchanged():
    x = np.random.default_rng(0).standard_normal((1, 2, 5, 5)).astype("float32")
    w = np.ones((3, 2, 3, 3), "float32")
    first = _conv(x, w).numpy()
    assert D._signature(CONV, [x, w, None], ATTRS) in D._CHECKED
    np.testing.assert_array_equal(_conv(x, w).numpy(), first)


def test_a_different_shape_is_checked_again():
    w = np.ones((3, 2, 3, 3), "float32")
    _conv(np.ones((1, 2, 5, 5), "float32"), w)
    with pytest.raises(ValueError, match="conv2d: x has 4 channels"):
        _conv(np.ones((1, 4, 5, 5), "float32"), w)


def test_attr_types_are_part_of_the_signature():
    x, w = np.ones((1, 2, 5, 5), "float32"), np.ones((2, 2, 3, 3), "float32")
    _conv(x, w, groups=1)
    assert D._signature(CONV, [x, w, None], {**ATTRS, "groups": 1}) != \
        D._signature(CONV, [x, w, None], {**ATTRS, "groups": 1.0})
    assert D._signature(CONV, [x, w, None], {**ATTRS, "stride": [True, 1]}) != \
        D._signature(CONV, [x, w, None], ATTRS)
    with pytest.raises(ValueError, match="groups must be a positive int"):
        _conv(x, w, groups=1.0)


def test_non_plain_attrs_are_not_memoised():
    x, w = np.ones((1, 2, 5, 5), "float32"), np.ones((2, 2, 3, 3), "float32")
    assert D._signature(CONV, [x, w, None], {**ATTRS, "stride": [np.int64(1), 1]}) is None
    assert D._signature(CONV, [x, w, None], {**ATTRS, "padding": [[0, 0], [0, 0]]}) is None
