"""Op database entries for sampan/ops/attribute.py."""
import numpy as np

import sampan as paddle
from tests.ops.op_db import OpEntry, Sample

ENTRIES = [
    OpEntry("shape", paddle.shape, lambda x: np.asarray(x.shape, dtype=np.int64),
            lambda rng, dt: [Sample((np.zeros((2, 3, 0), dt),)), Sample((np.asarray(1.0, dt),)),
                             Sample((np.zeros((4, 3), dt).T,))],
            grad=False),
]
