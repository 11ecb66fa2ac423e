"""Op database entries for sampan/ops/nn_norm.py (batch_norm, layer_norm)."""
import numpy as np

from sampan.ops import REGISTRY
from sampan.ops.dispatch import dispatch
from tests.ops.op_db import OpEntry, Sample

_BN_DEFAULTS = {"momentum": 0.9, "epsilon": 1e-5, "data_format": "NCHW",
                "use_global_stats": False}


def _bn_all(x, rm, rv, w=None, b=None, **kw):
    """All five outputs of the op (forward and infer checks)."""
    return dispatch(REGISTRY["batch_norm"], (x, rm, rv, w, b), {**_BN_DEFAULTS, **kw})


def _bn_out(x, rm, rv, w=None, b=None, **kw):
    return _bn_all(x, rm, rv, w, b, **kw)[0]


def _bn_ref(x, rm, rv, w=None, b=None, momentum=0.9, epsilon=1e-5, data_format="NCHW",
            use_global_stats=False):
    c = 1 if data_format[1] == "C" or x.ndim == 2 else x.ndim - 1
    axes = tuple(i for i in range(x.ndim) if i != c)
    shape = [x.shape[i] if i == c else 1 for i in range(x.ndim)]
    if use_global_stats:
        mean, var = rm, rv
        mean_out, var_out = rm, rv
    else:
        mean, var = x.mean(axes), x.var(axes)
        mean_out = momentum * rm + (1 - momentum) * mean
        var_out = momentum * rv + (1 - momentum) * var
    invstd = 1 / np.sqrt(var + epsilon)
    out = (x - mean.reshape(shape)) * invstd.reshape(shape)
    if w is not None:
        out = out * w.reshape(shape)
    if b is not None:
        out = out + b.reshape(shape)
    return out, mean, invstd, mean_out, var_out


def _bn_ref_out(*args, **kw):
    return _bn_ref(*args, **kw)[0]


def _bn_samples(rng, dtype):
    def r(*shape, lo=-1.0, hi=1.0):
        return rng.uniform(lo, hi, shape).astype(dtype)

    def stats(c):
        return r(c), r(c, lo=0.5, hi=1.5)
    return [Sample((r(3, 2, 4), *stats(2), r(2), r(2)), {"data_format": "NCL"}, name="NCL"),
            Sample((r(2, 2, 2, 3), *stats(2), r(2), r(2)), name="NCHW"),
            Sample((r(4, 3), *stats(3), r(3), r(3)), {"data_format": "NC"}, name="NC"),
            Sample((r(2, 2, 3), *stats(3), r(3), r(3)), {"data_format": "NLC"}, name="NLC"),
            Sample((r(3, 2, 4), *stats(2)), {"data_format": "NCL"}, name="no-affine"),
            Sample((r(3, 2, 4), *stats(2), r(2)), {"data_format": "NCL", "momentum": 0.5,
                                                   "epsilon": 1e-3}, name="weight-only"),
            Sample((r(4, 3, 2).transpose(0, 2, 1), *stats(3), r(3), r(3)),
                   {"data_format": "NLC"}, name="non-contiguous")]


def _bn_global_samples(rng, dtype):
    """Normalizing with the running statistics (they get no gradient: grad_args skips them)."""
    def r(*shape, lo=-1.0, hi=1.0):
        return rng.uniform(lo, hi, shape).astype(dtype)
    kw = {"use_global_stats": True}
    return [Sample((r(3, 2, 4), r(2), r(2, lo=0.5, hi=1.5), r(2), r(2)),
                   {**kw, "data_format": "NCL"}),
            Sample((r(2, 2, 3), r(3), r(3, lo=0.5, hi=1.5), r(3), r(3)),
                   {**kw, "data_format": "NLC", "epsilon": 1e-2}, name="NLC")]


def _ln_all(x, w=None, b=None, **kw):
    return dispatch(REGISTRY["layer_norm"], (x, w, b), {"begin_norm_axis": 1,
                                                         "epsilon": 1e-5, **kw})


def _ln_out(x, w=None, b=None, **kw):
    return _ln_all(x, w, b, **kw)[0]


def _ln_ref(x, w=None, b=None, begin_norm_axis=1, epsilon=1e-5):
    axes = tuple(range(begin_norm_axis, x.ndim))
    norm_shape = x.shape[begin_norm_axis:]
    mean = x.mean(axes, keepdims=True)
    invstd = 1 / np.sqrt(x.var(axes, keepdims=True) + epsilon)
    out = (x - mean) * invstd
    if w is not None:
        out = out * w.reshape(norm_shape)
    if b is not None:
        out = out + b.reshape(norm_shape)
    lead = x.shape[:begin_norm_axis]
    return out, mean.reshape(lead), invstd.reshape(lead)


def _ln_ref_out(*args, **kw):
    return _ln_ref(*args, **kw)[0]


def _ln_samples(rng, dtype):
    def r(*shape):
        return rng.uniform(-1, 1, shape).astype(dtype)
    return [Sample((r(3, 4), r(4), r(4)), name="2-d"),
            Sample((r(2, 3, 4), r(12), r(12)), name="last-2"),
            Sample((r(2, 3, 4), r(4), r(4)), {"begin_norm_axis": 2}, name="last-1"),
            Sample((r(2, 3, 4), r(3, 4), r(12)), name="shaped-weight"),
            Sample((r(3, 5),), name="no-affine"),
            Sample((r(3, 5), r(5)), {"epsilon": 1e-2}, name="weight-only"),
            Sample((r(5, 3).T, r(5), r(5)), name="non-contiguous"),
            Sample((r(6,), r(6), r(6)), {"begin_norm_axis": 0}, name="1-d"),
            Sample((r(0, 4), r(4), r(4)), name="empty")]


ENTRIES = [
    OpEntry("batch_norm", _bn_all, _bn_ref, _bn_samples, grad=False),
    OpEntry("batch_norm", _bn_out, _bn_ref_out, _bn_samples, name="batch_norm-out"),
    OpEntry("batch_norm", _bn_all, _bn_ref, _bn_global_samples, grad=False,
            name="batch_norm-global"),
    OpEntry("batch_norm", _bn_out, _bn_ref_out, _bn_global_samples, grad_args=(0, 3, 4),
            name="batch_norm-global-out"),
    OpEntry("layer_norm", _ln_all, _ln_ref, _ln_samples, grad=False),
    OpEntry("layer_norm", _ln_out, _ln_ref_out, _ln_samples, name="layer_norm-out"),
]
