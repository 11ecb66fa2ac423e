"""Op database entries for sampan/ops/fused.py (fused_elementwise, fused_linear)."""
import math

import numpy as np
from scipy import special

from sampan.ops.fused import fused_elementwise, fused_linear
from tests.ops.op_db import OpEntry, Sample


def _away(rng, shape, dtype, lo=0.2, hi=1.5):
    """Values in [-hi, -lo] U [lo, hi] (no kinks of relu/heaviside/maximum at 0)."""
    a = rng.uniform(lo, hi, shape) * rng.choice([-1.0, 1.0], shape)
    return np.asarray(a).astype(dtype)


_NP = {
    "add": np.add, "subtract": np.subtract, "multiply": np.multiply, "divide": np.divide,
    "maximum": np.maximum, "exp": np.exp, "tanh": np.tanh, "neg": np.negative,
    "relu": lambda x: np.maximum(x, 0).astype(x.dtype),
    "sigmoid": lambda x: (1 / (1 + np.exp(-x))).astype(x.dtype),
    "heaviside": lambda x, y: np.where(x > 0, 1, np.where(x == 0, y, 0)).astype(x.dtype),
    "scale": lambda x, scale=1.0, bias=0.0, bias_after_scale=True:
        (x * scale + bias if bias_after_scale else (x + bias) * scale).astype(x.dtype),
    "cast": lambda x, dtype: x.astype(dtype),
}


def _graph_ref(xs, graph, inplace=-1):
    vals = list(xs)
    for typ, refs, attrs in graph:
        vals.append(np.asarray(_NP[typ](*[vals[r] for r in refs], **attrs)))
    return vals[-1]


def _fe(xs, graph, inplace=-1):
    return fused_elementwise(xs, graph, inplace)


_CHAIN = [["multiply", [0, 1], {}], ["exp", [2], {}], ["add", [3, 0], {}]]
_RELU_BIAS = [["add", [0, 1], {}], ["relu", [2], {}], ["multiply", [3, 0], {}]]
_RELU_GRAD = [["subtract", [0, 1], {}], ["scale", [3], {"scale": 0.0, "bias": 0.5}],
              ["heaviside", [3, 4], {}], ["multiply", [2, 5], {}]]


def _fe_samples(rng, dtype):
    def r(*shape):
        return _away(rng, shape, dtype)
    return [
        Sample(([r(3, 4), r(3, 4)], _CHAIN), name="chain"),
        Sample(([r(3, 4), r(4)], _RELU_BIAS), name="broadcast-relu"),
        Sample(([r(2, 3), r(1, 3), r(2, 3)], _RELU_GRAD), name="relu-grad-shape"),
        Sample(([r(), r()], [["multiply", [0, 1], {}], ["tanh", [2], {}]]), name="0-d"),
        Sample(([np.zeros((0, 3), dtype), r(3)], _CHAIN), name="empty"),
        Sample(([r(4, 3).T, r(3, 4)], _CHAIN), name="non-contiguous"),
        Sample(([r(3), r(2, 1)], [["subtract", [0, 1], {}], ["sigmoid", [2], {}],
                                  ["divide", [3, 1], {}], ["neg", [4], {}]]),
               name="outer-broadcast"),
        Sample(([r(3, 2)], [["scale", [0], {"scale": 2.0, "bias": 1.0}],
                            ["maximum", [1, 0], {}]]), name="one-input"),
    ]


def _linear_ref(x, w, b=None, activation="none"):
    x64, w64 = x.astype("float64"), w.astype("float64")
    out = x64 @ w64 if b is None else x64 @ w64 + b
    if activation == "relu":
        out = np.maximum(out, 0)
    elif activation == "gelu":
        out = 0.5 * out * (1 + special.erf(out / math.sqrt(2)))
    elif activation == "gelu_tanh":
        out = 0.5 * out * (1 + np.tanh(math.sqrt(2 / math.pi) * (out + 0.044715 * out ** 3)))
    elif activation == "tanh":
        out = np.tanh(out)
    elif activation == "sigmoid":
        out = 1 / (1 + np.exp(-out))
    elif activation == "silu":
        out = out / (1 + np.exp(-out))
    return out.astype(x.dtype)


def _fl_samples(rng, dtype):
    def r(*shape):
        return rng.uniform(-1, 1, shape).astype(dtype)
    # relu samples: biases chosen so that no pre-activation sits at 0
    return [Sample((r(3, 4), r(4, 2), r(2)), {"activation": "none"}, name="none"),
            Sample((r(3, 4), r(4, 2), r(2)), {"activation": "relu"}, name="relu"),
            Sample((r(2, 3, 4), r(4, 2), r(2)), {"activation": "gelu"}, name="3-d-gelu"),
            Sample((r(3, 4), r(4, 2), r(2)), {"activation": "gelu_tanh"}, name="gelu-tanh"),
            Sample((r(3, 4), r(4, 2)), {"activation": "tanh"}, name="no-bias-tanh"),
            Sample((r(4, 3).T, r(2, 4).T, r(1, 2)), {"activation": "sigmoid"},
                   name="non-contiguous-sigmoid"),
            Sample((r(4), r(4, 3), r(3)), {"activation": "silu"}, name="1-d-silu"),
            Sample((r(0, 4), r(4, 2), r(2)), {"activation": "relu"}, name="empty")]


ENTRIES = [
    OpEntry("fused_elementwise", _fe, _graph_ref, _fe_samples),
    OpEntry("fused_linear", fused_linear, _linear_ref, _fl_samples),
]
