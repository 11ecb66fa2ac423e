"""Op database entry for sampan/ops/run_program.py (run_program).

run_program runs a static Program from eager mode; it is created by paddle.jit.to_static, so
the entry's `fn` is a to_static function (a new Program per input shape/dtype). Its gradient
runs the backward Program (checked against central differences); higher-order gradients are
not supported (double_grad=False). Traced into another Program the function runs inline, so
the static tests see the function's own ops.
"""
import numpy as np

import sampan as paddle
from tests.ops.op_db import OpEntry, Sample


def _body(x, w):
    h = paddle.tanh(paddle.matmul(x, w))
    return h * 2.0 + x.sum(), (h * h).mean(axis=0)


_fn = paddle.jit.to_static(_body)


def _ref(x, w):
    h = np.tanh(x @ w)
    return h * 2.0 + x.sum(), (h * h).mean(axis=0)


def _samples(rng, dtype):
    x = rng.standard_normal((3, 4)).astype(dtype)
    w = rng.standard_normal((4, 2)).astype(dtype)
    return [Sample((x, w), name="2d"),
            Sample((x[:1], w), name="one_row"),
            Sample((x[:, ::2], w[::2]), name="noncontiguous")]


ENTRIES = [OpEntry("run_program", _fn, _ref, _samples, double_grad=False)]
