"""Op database entries for sampan/ops/nn_pool_fractional.py (fractional max pooling with
its mask). The reference computes each window from the paper's formula as Paddle's kernel
evaluates it (float32, u rescaled when no kernel size) and loops over windows in NumPy."""
import numpy as np

import sampan.nn.functional as F
from tests.ops.db.nn_pool import _distinct, _windows_max
from tests.ops.op_db import OpEntry, Sample


def _ranges(n, o, k, u):
    f = np.float32
    a = f(n - k) / f(o - 1 if k else o)
    if not k:
        b = n // o
        u = f(u) * min(f(b + 2) / a - f(1), f(n + 1 - b) / a - f(o - 1))
    u = f(u)
    out = []
    for i in range(o):
        s = int((f(i) + u) * a) - int(u * a)
        e = s + k if k else int((f(i + 1) + u) * a) - int(u * a)
        out.append(range(max(s, 0), min(e, n)))
    return out


def ref_fractional(x, output_size, kernel_size=None, random_u=None, return_mask=True):
    nd = x.ndim - 2
    kernel = [kernel_size] * nd if isinstance(kernel_size, int) else (kernel_size or [0] * nd)
    return _windows_max(x, [_ranges(n, o, k, random_u) for n, o, k in
                            zip(x.shape[2:], output_size, kernel)])


def _samples(nd):
    def samples(rng, dtype):
        def r(*shape):
            return _distinct(rng, dtype, *shape)
        if nd == 2:
            return [Sample((r(1, 2, 7, 6), [4, 3]), {"random_u": 0.3}, name="free"),
                    Sample((r(2, 1, 6, 5), [3, 3]), {"kernel_size": [2, 2], "random_u": 0.7},
                           name="kernel")]
        return [Sample((r(1, 1, 4, 5, 3), [2, 3, 2]), {"random_u": 0.6}, name="free"),
                Sample((r(1, 2, 4, 4, 4), [2, 2, 3]), {"kernel_size": 2, "random_u": 0.2},
                       name="kernel")]
    return samples


def _with_mask(fn):
    def call(x, *args, **kwargs):
        return fn(x, *args, return_mask=True, **kwargs)
    return call


ENTRIES = [
    # onnx: no ONNX operator pools over pseudo-random windows
    OpEntry("fractional_max_pool2d", _with_mask(F.fractional_max_pool2d), ref_fractional,
            _samples(2), onnx=False),
    OpEntry("fractional_max_pool3d", _with_mask(F.fractional_max_pool3d), ref_fractional,
            _samples(3), onnx=False),
]
