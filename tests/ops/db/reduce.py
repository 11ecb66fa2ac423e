"""Op database entries for sampan/ops/reduce.py."""
import numpy as np

import sampan as paddle
from tests.ops.op_db import OpEntry, Sample


def _reduce_samples(rng, dtype):
    x = rng.standard_normal((3, 4, 2)).astype(dtype)
    return [Sample((x,), {}), Sample((x,), {"axis": 1}), Sample((x,), {"axis": [0, 2]}),
            Sample((x,), {"axis": -1, "keepdim": True}),
            Sample((np.asarray(rng.standard_normal(), dtype=dtype),), {}, name="0-d"),
            Sample((rng.standard_normal((0, 3)).astype(dtype),), {"axis": 0}, name="empty"),
            Sample((x.transpose(2, 0, 1),), {"axis": 2}, name="non-contiguous")]


def _np_sum(x, axis=None, keepdim=False):
    if isinstance(axis, list):
        axis = tuple(axis)
    return np.sum(x, axis=axis, keepdims=keepdim)


ENTRIES = [
    OpEntry("sum", paddle.sum, _np_sum, _reduce_samples),
]
