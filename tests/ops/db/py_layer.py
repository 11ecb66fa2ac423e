"""op_db entry of `py_layer` (a PyLayer call in a static graph): a tanh PyLayer whose
backward is the user's rule."""
from __future__ import annotations

import numpy as np

import sampan as paddle
from sampan.autograd import PyLayer
from sampan.ops.dispatch import call

from ..op_db import OpEntry, Sample


class DbTanh(PyLayer):
    @staticmethod
    def forward(ctx, x):
        y = paddle.tanh(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, dy):
        y, = ctx.saved_tensor()
        return dy * (1.0 - y * y)


_KEY = f"{__name__}:DbTanh"


def _py_layer_fn(x):
    return call("py_layer", [x], layer=_KEY, layout=[[None, "t", 0]], n_inputs=1,
                backward=False, out_shapes=[list(x.shape)], out_dtypes=[x.dtype.name])[0]


def _samples(rng, dtype):
    x = rng.standard_normal((2, 3)).astype(dtype)
    return [Sample((x,), name="2d"), Sample((np.array(x[0, 0]),), name="0d"),
            Sample((x[:, ::2],), name="noncontiguous"),
            Sample((np.zeros((0, 3), dtype),), name="empty")]


ENTRIES = [
    OpEntry("py_layer", _py_layer_fn, np.tanh, _samples, double_grad=False, onnx=False),
]
