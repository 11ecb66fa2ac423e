"""Op database entries for sampan/ops/nn_pool.py (max pooling and adaptive max pooling with
their masks). References loop over output positions in NumPy."""
import itertools

import numpy as np

import sampan.nn.functional as F
from sampan.ops.dispatch import call
from tests.ops.op_db import OpEntry, Sample

_CL = ("NLC", "NHWC", "NDHWC")


def _expand(v, nd):
    return [int(v)] * nd if np.isscalar(v) else [int(e) for e in v]


def _windows_max(x, bounds):
    """out/mask of max over the windows given per dim as lists of index ranges."""
    n, c = x.shape[:2]
    spatial = x.shape[2:]
    out_shape = [len(b) for b in bounds]
    out = np.full((n, c, *out_shape), np.finfo(x.dtype).min, x.dtype)
    mask = np.full((n, c, *out_shape), -1, np.int32)
    for o in itertools.product(*[range(e) for e in out_shape]):
        ranges = [[i for i in bounds[d][o[d]] if 0 <= i < spatial[d]] for d in range(len(o))]
        for pos in itertools.product(*ranges):
            flat = int(np.ravel_multi_index(pos, spatial))
            v = x[(slice(None), slice(None)) + pos]
            better = v > out[(slice(None), slice(None)) + o]
            out[(slice(None), slice(None)) + o] = np.where(better, v,
                                                           out[(slice(None), slice(None)) + o])
            mask[(slice(None), slice(None)) + o] = np.where(better, flat,
                                                            mask[(slice(None), slice(None)) + o])
    return out, mask


def ref_max_pool(x, kernel_size, stride=None, padding=0, ceil_mode=False, data_format=None):
    cl = data_format in _CL
    if cl:
        x = np.moveaxis(x, -1, 1)
    nd = x.ndim - 2
    kernel = _expand(kernel_size, nd)
    stride = kernel if stride is None else _expand(stride, nd)
    if np.isscalar(padding) or len(padding) == nd:
        pairs = [(p, p) for p in _expand(padding, nd)]
    else:
        pairs = [(padding[2 * i], padding[2 * i + 1]) for i in range(nd)]
    bounds = []
    for n, k, s, (pb, pa) in zip(x.shape[2:], kernel, stride, pairs):
        span = n + pb + pa - k
        count = -(-span // s) + 1 if ceil_mode else span // s + 1
        bounds.append([range(o * s - pb, o * s - pb + k) for o in range(count)])
    out, mask = _windows_max(x, bounds)
    if cl:
        return np.moveaxis(out, 1, -1), np.moveaxis(mask, 1, -1)
    return out, mask


def ref_adaptive_max(x, output_size):
    nd = x.ndim - 2
    sizes = _expand(output_size, nd)
    bounds = [[range(i * n // o, -(-(i + 1) * n // o)) for i in range(o)]
              for n, o in zip(x.shape[2:], sizes)]
    return _windows_max(x, bounds)


def _with_mask(fn):
    def call(x, *args, **kwargs):
        if kwargs.get("data_format") in _CL:
            return fn(x, *args, **kwargs), None
        return fn(x, *args, return_mask=True, **kwargs)
    return call


def _ref_with_mask(x, *args, **kwargs):
    out, mask = ref_max_pool(x, *args, **kwargs)
    return (out, None) if kwargs.get("data_format") in _CL else (out, mask)


def _distinct(rng, dtype, *shape):
    """Values without ties (so the argmax and its gradient are unambiguous)."""
    n = max(int(np.prod(shape)), 1)
    ranks = rng.permutation(int(np.prod(shape))).reshape(shape)
    return (ranks / n - 0.5 + rng.uniform(0, 0.1 / n, shape)).astype(dtype)


def _pool2d_samples(rng, dtype):
    def r(*shape):
        return _distinct(rng, dtype, *shape)
    return [Sample((r(2, 2, 4, 4), 2), name="basic"),
            Sample((r(1, 2, 5, 4), 3), {"stride": 2, "padding": 1}, name="overlap-pad"),
            Sample((r(1, 1, 5, 5), 2), {"stride": 2, "ceil_mode": True}, name="ceil"),
            Sample((r(1, 4, 3, 2), [2, 1]), {"stride": [1, 1], "padding": [1, 0, 0, 0],
                                            "data_format": "NHWC"}, name="nhwc"),
            Sample((r(1, 2, 4, 4).transpose(0, 1, 3, 2), 2), {"stride": 1},
                   name="non-contiguous"),
            Sample((r(0, 2, 4, 4), 2), name="empty"),
            Sample((r(1, 2, 5, 6), 2), {"stride": 3}, name="gaps"),
            Sample((r(2, 4, 4, 3), 2), {"stride": 2, "data_format": "NHWC"},
                   name="disjoint-nhwc")]


def _pool1d_samples(rng, dtype):
    def r(*shape):
        return _distinct(rng, dtype, *shape)
    return [Sample((r(2, 2, 7), 3), {"stride": 2, "padding": 1}, name="pad"),
            Sample((r(1, 3, 5), 2), {"ceil_mode": True}, name="ceil"),
            Sample((r(2, 2, 6), 2), {"stride": 2}, name="disjoint")]


def _pool3d_samples(rng, dtype):
    def r(*shape):
        return _distinct(rng, dtype, *shape)
    return [Sample((r(1, 2, 3, 4, 3), 2), {"stride": [1, 2, 2], "padding": [1, 0, 0]},
                   name="basic"),
            Sample((r(1, 3, 2, 3, 2), 2), {"stride": 1, "data_format": "NDHWC"},
                   name="ndhwc")]


def _adaptive_samples(nd):
    def samples(rng, dtype):
        def r(*shape):
            return _distinct(rng, dtype, *shape)
        spatial = {1: [(7,), (5,)], 2: [(5, 4), (4, 6)], 3: [(3, 4, 3), (2, 2, 5)]}[nd]
        outs = {1: [3, 5], 2: [[3, 2], 4], 3: [[2, 3, 2], [1, 2, 3]]}[nd]
        even = {1: (6,), 2: (4, 6), 3: (2, 4, 2)}[nd]
        return [Sample((r(1, 2, *spatial[0]), outs[0]), name="uneven"),
                Sample((r(2, 1, *spatial[1]), outs[1]), name="other"),
                Sample((r(1, 2, *even), [e // 2 for e in even]), name="disjoint")]
    return samples


def reshape_like(x, like):
    return call("_reshape_like", x, like)


def ref_reshape_like(x, like):
    return x.reshape(like.shape)


def _reshape_like_samples(rng, dtype):
    def r(*shape):
        return rng.uniform(-1, 1, shape).astype(dtype)
    return [Sample((r(2, 3, 4), r(2, 3, 2, 2)), name="split-last"),
            Sample((r(6, 2).T, r(12)), name="non-contiguous-flatten"),
            Sample((r(1), r()), name="0-d"),
            Sample((r(0, 3), r(3, 0)), name="empty")]


ENTRIES = [
    OpEntry("_reshape_like", reshape_like, ref_reshape_like, _reshape_like_samples,
            grad_args=(0,)),
    OpEntry("max_pool2d", _with_mask(F.max_pool2d), _ref_with_mask, _pool2d_samples,
            onnx=(0,)),
    OpEntry("max_pool1d", _with_mask(F.max_pool1d), _ref_with_mask, _pool1d_samples,
            onnx=(0,)),
    OpEntry("max_pool3d", _with_mask(F.max_pool3d), _ref_with_mask, _pool3d_samples,
            onnx=(0,)),
    OpEntry("adaptive_max_pool1d", _with_mask(F.adaptive_max_pool1d), ref_adaptive_max,
            _adaptive_samples(1), onnx=(0,)),
    OpEntry("adaptive_max_pool2d", _with_mask(F.adaptive_max_pool2d), ref_adaptive_max,
            _adaptive_samples(2), onnx=(0,)),
    OpEntry("adaptive_max_pool3d", _with_mask(F.adaptive_max_pool3d), ref_adaptive_max,
            _adaptive_samples(3), onnx=(0,)),
]
