"""Op database entry for sampan/ops/linalg_exp.py (matrix_exp), with SciPy's expm as the
reference. Samples span norms that need no squaring and several squarings."""
import numpy as np
import scipy.linalg

import sampan.linalg as L
from tests.ops.op_db import OpEntry, Sample


def _expm(a):
    if a.size == 0:
        return a.copy()
    flat = a.reshape((-1,) + a.shape[-2:])
    return np.stack([scipy.linalg.expm(m) for m in flat]).reshape(a.shape).astype(a.dtype)


def _samples(rng, dt):
    return [Sample((rng.uniform(-0.1, 0.1, (3, 3)).astype(dt),), name="small-norm"),
            Sample((rng.uniform(-1, 1, (2, 3, 3)).astype(dt),), name="batch"),
            Sample((rng.uniform(-2, 2, (4, 4)).astype(dt),), name="squarings"),
            Sample((rng.uniform(-1, 1, (1, 1)).astype(dt),), name="1x1"),
            Sample((np.zeros((0, 2, 2), dt),), name="empty"),
            Sample((np.ascontiguousarray(rng.uniform(-1, 1, (3, 3)).astype(dt)).T,),
                   name="non-contiguous")]


# onnx: no lowering (the squaring count is data-dependent)
ENTRIES = [OpEntry("matrix_exp", L.matrix_exp, _expm, _samples, tol=100, onnx=False)]
