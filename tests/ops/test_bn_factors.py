"""batch_norm on running statistics memoises its per-channel factors by the exact bytes of
the [C] inputs: in-place changes to the statistics or parameters are seen at once, results
match the decomposition, outputs never alias the memo, and the memo stays bounded."""
import numpy as np
import pytest

from sampan.backend import numpy_ as xp
from sampan.ops import nn_norm
from sampan.ops.opdef import REGISTRY

BN = REGISTRY["batch_norm"]


def _reference(x, mean, var, w, b, eps, axis=1):
    shape = [1] * x.ndim
    shape[axis] = -1
    out = (x.astype(np.float64) - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + eps)
    if w is not None:
        out = out * w.reshape(shape)
    if b is not None:
        out = out + b.reshape(shape)
    return out


def _run(x, mean, var, w, b, fmt="NCHW", eps=1e-5):
    return BN.compute(xp, x, mean, var, w, b, momentum=0.9, epsilon=eps, data_format=fmt,
                      use_global_stats=True)


@pytest.mark.parametrize("shape, fmt, axis", [((1, 6, 5, 4), "NCHW", 1),
                                               ((3, 6, 5, 4), "NCHW", 1),
                                               ((2, 5, 4, 6), "NHWC", 3),
                                               ((4, 6), "NC", 1)])
def test_in_place_changes_are_never_stale(shape, fmt, axis):
    rng = np.random.default_rng(0)
    c = shape[axis]
    x = rng.standard_normal(shape).astype("float32")
    mean, w, b = (rng.standard_normal(c).astype("float32") for _ in range(3))
    var = rng.random(c).astype("float32") + 0.5
    for step in range(4):
        out = _run(x, mean, var, w, b, fmt)
        np.testing.assert_allclose(out[0], _reference(x, mean, var, w, b, 1e-5, axis),
                                   rtol=1e-5, atol=1e-5)
        np.testing.assert_array_equal(out[3], mean)
        np.testing.assert_array_equal(out[4], var)
        # the next step edits every [C] input in place (same arrays, same ids)
        (mean, var, w, b)[step][0] += 0.25


def test_epsilon_none_weight_and_bias_are_part_of_the_key():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((1, 3, 4, 4))
    mean, var = rng.standard_normal(3), rng.random(3) + 0.5
    w = rng.standard_normal(3)
    a = _run(x, mean, var, w, None)[0]
    b = _run(x, mean, var, None, None)[0]
    c = _run(x, mean, var, w, None, eps=0.5)[0]
    np.testing.assert_allclose(a, _reference(x, mean, var, w, None, 1e-5), rtol=1e-12)
    np.testing.assert_allclose(b, _reference(x, mean, var, None, None, 1e-5), rtol=1e-12)
    np.testing.assert_allclose(c, _reference(x, mean, var, w, None, 0.5), rtol=1e-12)


def test_outputs_do_not_alias_the_memo():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((1, 4, 3, 3)).astype("float32")
    mean, var = np.zeros(4, "float32"), np.ones(4, "float32")
    first = _run(x, mean, var, None, None)
    for arr in first:
        arr[...] = 7.0   # a caller (e.g. an in-place pass) overwrites every output
    again = _run(x, mean, var, None, None)
    np.testing.assert_allclose(again[0], x / np.sqrt(np.float32(1 + 1e-5)), rtol=1e-6)
    np.testing.assert_array_equal(again[1], mean)


def test_large_rows_are_not_held_and_memo_is_bounded(monkeypatch):
    monkeypatch.setattr(nn_norm, "_FACTORS_MAX", 4000)
    monkeypatch.setattr(nn_norm, "_ROWS_MAX", 512)
    rng = np.random.default_rng(3)
    for size in (2, 4, 8, 16, 4, 2):   # rows of 4 * size * size values, some over _ROWS_MAX
        x = rng.standard_normal((1, 4, size, size)).astype("float32")
        mean, var = rng.standard_normal(4).astype("float32"), np.ones(4, "float32")
        np.testing.assert_allclose(_run(x, mean, var, None, None)[0],
                                   _reference(x, mean, var, None, None, 1e-5), rtol=1e-5,
                                   atol=1e-6)
        assert nn_norm._FACTORS_BYTES[0] <= 4000
