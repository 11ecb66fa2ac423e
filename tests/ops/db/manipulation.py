"""Op database entries for sampan/ops/manipulation.py."""
import numpy as np

import sampan as paddle
from tests.ops.op_db import OpEntry, Sample


def _reshape_samples(rng, dtype):
    x = rng.standard_normal((2, 3, 4)).astype(dtype)
    return [Sample((x,), {"shape": [6, 4]}), Sample((x,), {"shape": [0, -1]}),
            Sample((x,), {"shape": [-1]}), Sample((np.asarray(1.5, dtype),), {"shape": [1, 1]}),
            Sample((x.transpose(2, 1, 0),), {"shape": [4, 6]}, name="non-contiguous")]


def _np_reshape(x, shape):
    shape = [x.shape[i] if s == 0 else s for i, s in enumerate(shape)]
    return np.reshape(x, shape)


ENTRIES = [
    OpEntry("reshape", paddle.reshape, _np_reshape, _reshape_samples),
    OpEntry("expand_as", paddle.expand_as, lambda x, y: np.broadcast_to(x, y.shape),
            lambda rng, dt: [Sample((rng.standard_normal((3, 1)).astype(dt),
                                     rng.standard_normal((2, 3, 4)).astype(dt))),
                             Sample((np.asarray(2.0, dt), rng.standard_normal((2,)).astype(dt)))],
            grad_args=(0,)),
]
