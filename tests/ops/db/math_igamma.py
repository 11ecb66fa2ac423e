"""Op database entry for sampan/ops/math_igamma.py (gammaincc; reference scipy.special)."""
import scipy.special as sp

import sampan as paddle
from tests.ops.db.math import _binary_samples
from tests.ops.op_db import OpEntry


def _samples(rng, dtype):
    # x (shape) and y (limit) positive and away from 0, where Q is smooth in y
    return _binary_samples(rng, dtype, 0.5, 4.0)


ENTRIES = [
    # onnx=False: ONNX has no incomplete-gamma operator
    OpEntry("gammaincc", paddle.gammaincc, lambda x, y: sp.gammaincc(x, y).astype(x.dtype),
            _samples, grad_args=(1,), onnx=False),
]
