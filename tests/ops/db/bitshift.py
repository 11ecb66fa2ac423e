"""Op database entries for sampan/ops/bitshift.py (integer only, non-differentiable)."""
import numpy as np

import sampan as paddle
from tests.ops.op_db import OpEntry, Sample


def _ref(x, y, is_arithmetic=True, left=True):
    """Per-element Python reference: shift on unbounded ints, then wrap into the width."""
    dtype = np.promote_types(x.dtype, y.dtype)
    x, y = np.broadcast_arrays(x.astype(dtype), y.astype(dtype))
    bits = dtype.itemsize * 8
    out = np.empty(x.shape, dtype)
    for idx in np.ndindex(x.shape):
        v, n = int(x[idx]), int(y[idx])
        if not is_arithmetic and not left and v < 0:
            v += 1 << bits  # the same bits read as unsigned
        if n < 0 or n >= bits:
            r = 0 if left or not is_arithmetic else (-1 if v < 0 else 0)
        else:
            r = v << n if left else v >> n
        r &= (1 << bits) - 1
        if dtype.kind == "i" and r >= 1 << (bits - 1):
            r -= 1 << bits
        out[idx] = r
    return out


def _samples(rng, dtype):
    lo = 0 if dtype == "uint8" else -100
    x = rng.integers(lo, 100, (3, 4)).astype(dtype)
    bits = np.dtype(dtype).itemsize * 8
    counts = np.array([250 if dtype == "uint8" else -1, 0, 1, 3, bits - 1, bits, bits + 5, 2],
                      dtype)
    return [Sample((x, rng.integers(0, 6, (3, 4)).astype(dtype)), name="same"),
            Sample((x[:2], counts.reshape(2, 4)), name="out-of-range counts"),
            Sample((x, np.asarray(2, dtype)), name="0-d count"),
            Sample((x.T, rng.integers(0, 4, (3,)).astype(dtype)), name="non-contiguous"),
            Sample((np.zeros((0, 4), dtype), np.ones(4, dtype)), name="empty")]


def _logical(rng, dtype):
    return [Sample(s.args, {"is_arithmetic": False}, s.name) for s in _samples(rng, dtype)]


_DTYPES = ("int64", "int32", "int8", "uint8")

ENTRIES = [
    OpEntry("bitwise_left_shift", paddle.bitwise_left_shift, _ref, _samples, dtypes=_DTYPES,
            grad=False, inplace="bitwise_left_shift_"),
    OpEntry("bitwise_right_shift", paddle.bitwise_right_shift,
            lambda x, y, is_arithmetic=True: _ref(x, y, is_arithmetic, left=False), _samples,
            dtypes=_DTYPES, grad=False, inplace="bitwise_right_shift_"),
    OpEntry("bitwise_right_shift", paddle.bitwise_right_shift,
            lambda x, y, is_arithmetic=True: _ref(x, y, is_arithmetic, left=False), _logical,
            dtypes=_DTYPES, grad=False, name="bitwise_right_shift-logical"),
]
