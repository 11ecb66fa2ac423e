"""Op database entries for sampan/ops/nn_activation.py."""
import math

import numpy as np
from scipy import special

import sampan.nn.functional as F
from tests.ops.op_db import OpEntry, Sample


def _away_from_zero(rng, shape, dtype, lo=0.1, hi=2.0):
    """Values in [-hi, -lo] U [lo, hi]: no sample sits on a kink at 0."""
    a = rng.uniform(lo, hi, shape) * rng.choice([-1.0, 1.0], shape)
    return np.asarray(a).astype(dtype)


def _unary(rng, dtype, lo=0.1, hi=2.0):
    return [Sample((_away_from_zero(rng, (3, 4), dtype, lo, hi),), name="2-d"),
            Sample((_away_from_zero(rng, (), dtype, lo, hi),), name="0-d"),
            Sample((_away_from_zero(rng, (4, 3), dtype, lo, hi).T,), name="non-contiguous"),
            Sample((np.zeros((0, 3), dtype),), name="empty")]


def _with(kwargs, lo=0.1, hi=2.0):
    def samples(rng, dtype):
        return [Sample(s.args, dict(kwargs), s.name) for s in _unary(rng, dtype, lo, hi)]
    return samples


def _relu_ref(x):
    return np.maximum(x, 0)


def _leaky_ref(x, negative_slope=0.01):
    return np.where(x > 0, x, x * negative_slope).astype(x.dtype)


def _elu_ref(x, alpha=1.0):
    return np.where(x > 0, x, alpha * np.expm1(np.minimum(x, 0))).astype(x.dtype)


def _gelu_ref(x, approximate=False):
    x64 = x.astype("float64")
    if approximate:
        inner = math.sqrt(2 / math.pi) * (x64 + 0.044715 * x64 ** 3)
        out = 0.5 * x64 * (1 + np.tanh(inner))
    else:
        out = 0.5 * x64 * (1 + special.erf(x64 / math.sqrt(2)))
    return out.astype(x.dtype)


def _silu_ref(x):
    return (x / (1 + np.exp(-x.astype("float64")))).astype(x.dtype)


def _softplus_ref(x, beta=1.0, threshold=20.0):
    x64 = x.astype("float64")
    soft = np.log1p(np.exp(beta * x64)) / beta
    return np.where(beta * x64 > threshold, x64, soft).astype(x.dtype)


def _softmax_samples(rng, dtype):
    def r(*shape):
        return rng.uniform(-3, 3, shape).astype(dtype)
    return [Sample((r(3, 4),), name="last-axis"),
            Sample((r(3, 4),), {"axis": 0}, name="axis-0"),
            Sample((r(2, 3, 2),), {"axis": 1}, name="middle-axis"),
            Sample((r(4, 3).T,), {"axis": -1}, name="non-contiguous"),
            Sample((r(),), name="0-d"),
            Sample((r(0, 3),), name="empty"),
            Sample((np.asarray([[1000.0, 1001.0, 999.0]], dtype),), name="large")]


def _softmax_ref(x, axis=-1):
    if x.ndim == 0:
        return np.ones_like(x)
    x64 = x.astype("float64")
    e = np.exp(x64 - x64.max(axis=axis, keepdims=True)) if x.size else x64
    return (e / e.sum(axis=axis, keepdims=True) if x.size else e).astype(x.dtype)


def _log_softmax_ref(x, axis=-1):
    if x.ndim == 0:
        return np.zeros_like(x)
    if x.size == 0:
        return x.copy()
    return special.log_softmax(x.astype("float64"), axis=axis).astype(x.dtype)


ENTRIES = [
    OpEntry("relu", F.relu, _relu_ref, _unary, double_grad=False),
    OpEntry("leaky_relu", F.leaky_relu, _leaky_ref, _with({"negative_slope": 0.2}),
            double_grad=False),
    OpEntry("leaky_relu", F.leaky_relu, _leaky_ref, _unary, double_grad=False,
            name="leaky_relu-default"),
    OpEntry("elu", F.elu, _elu_ref, _with({"alpha": 0.7})),
    OpEntry("gelu", F.gelu, _gelu_ref, _with({}, 0.0, 3.0)),
    OpEntry("gelu", F.gelu, _gelu_ref, _with({"approximate": True}, 0.0, 3.0),
            name="gelu-tanh"),
    OpEntry("silu", F.silu, _silu_ref, _with({}, 0.0, 3.0)),
    OpEntry("softplus", F.softplus, _softplus_ref, _with({}, 0.0, 3.0)),
    OpEntry("softplus", F.softplus, _softplus_ref, _with({"beta": 2.0, "threshold": 3.0}, 0.0,
                                                          3.0), name="softplus-threshold"),
    OpEntry("softmax", F.softmax, _softmax_ref, _softmax_samples),
    OpEntry("log_softmax", F.log_softmax, _log_softmax_ref, _softmax_samples),
]
