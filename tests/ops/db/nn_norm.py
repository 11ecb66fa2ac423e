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
                   {**kw, "data_format": "NLC", "epsilon": 1e-2}, name="NLC"),
            Sample((r(1, 3, 2, 4), r(3), r(3, lo=0.5, hi=1.5), r(3), r(3)), kw, name="batch 1"),
            Sample((r(1, 4, 3), r(3), r(3, lo=0.5, hi=1.5), r(3), r(3)),
                   {**kw, "data_format": "NLC"}, name="batch 1 NLC")]


def _bn_vjp(x, dout, mean, invstd, w=None, **kw):
    return dispatch(REGISTRY["_batch_norm_vjp"], (x, dout, mean, invstd, w), kw)


def _bn_vjp_ref(x, dout, mean, invstd, w=None, data_format="NCHW"):
    c = 1 if data_format[1] == "C" or x.ndim == 2 else x.ndim - 1
    axes = tuple(i for i in range(x.ndim) if i != c)
    shape = [x.shape[i] if i == c else 1 for i in range(x.ndim)]
    n = x.size // x.shape[c]
    xhat = (x - mean.reshape(shape)) * invstd.reshape(shape)
    gb = dout.sum(axes)
    gw = (dout * xhat).sum(axes)
    k = invstd if w is None else invstd * w
    gx = k.reshape(shape) * (dout - (gb / n).reshape(shape) - xhat * (gw / n).reshape(shape))
    return gx, gw, gb


def _bn_vjp_samples(rng, dtype):
    """(x, dout, saved_mean, saved_invstd[, weight]) with the statistics of x."""
    def r(*shape):
        return rng.uniform(-1, 1, shape).astype(dtype)

    def sample(x, w, fmt, name):
        c = 1 if fmt[1] == "C" or x.ndim == 2 else x.ndim - 1
        axes = tuple(i for i in range(x.ndim) if i != c)
        stats = (x.mean(axes).astype(dtype), (1 / np.sqrt(x.var(axes) + 1e-5)).astype(dtype))
        args = (x, r(*x.shape), *stats) + (() if w is None else (w,))
        return Sample(args, {"data_format": fmt}, name=name)
    return [sample(r(2, 3, 2, 2), r(3), "NCHW", "NCHW"),
            sample(r(4, 3), r(3), "NC", "NC"),
            sample(r(2, 3, 2), r(2), "NLC", "NLC"),
            sample(r(3, 2, 4), None, "NCL", "no-weight"),
            sample(r(4, 3, 2).transpose(0, 2, 1), r(3), "NLC", "non-contiguous")]


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


def _ln_vjp(x, dout, mean, invstd, w=None, **kw):
    return dispatch(REGISTRY["_layer_norm_vjp"], (x, dout, mean, invstd, w), kw)


def _ln_vjp_ref(x, dout, mean, invstd, w=None, begin_norm_axis=1):
    d = int(np.prod(x.shape[begin_norm_axis:]))
    rows, g = x.reshape(-1, d), dout.reshape(-1, d)
    xhat = (rows - mean.reshape(-1, 1)) * invstd.reshape(-1, 1)
    gxhat = g if w is None else g * w.reshape(-1)
    gx = invstd.reshape(-1, 1) * (gxhat - gxhat.mean(1, keepdims=True)
                                  - xhat * (gxhat * xhat).mean(1, keepdims=True))
    return gx.reshape(x.shape), (g * xhat).sum(0), g.sum(0)


def _ln_vjp_samples(rng, dtype):
    """(x, dout, saved_mean, saved_invstd[, weight]) with the statistics of x."""
    def r(*shape):
        return rng.uniform(-1, 1, shape).astype(dtype)

    def sample(x, w, begin, name):
        axes = tuple(range(begin, x.ndim))
        stats = (x.mean(axes).astype(dtype),
                 (1 / np.sqrt(x.var(axes) + 1e-5)).astype(dtype))
        args = (x, r(*x.shape), *stats) + (() if w is None else (w,))
        return Sample(args, {"begin_norm_axis": begin}, name=name)
    return [sample(r(3, 4), r(4), 1, "2-d"),
            sample(r(2, 3, 4), r(3, 4), 1, "last-2"),
            sample(r(2, 3, 4), r(4), 2, "last-1"),
            sample(r(3, 5), None, 1, "no-weight"),
            sample(r(5, 3).T, r(5), 1, "non-contiguous"),
            sample(r(6), r(6), 0, "1-d"),
            sample(r(0, 4), r(4), 1, "empty")]


ENTRIES = [
    OpEntry("batch_norm", _bn_all, _bn_ref, _bn_samples, grad=False, onnx=(0,)),
    OpEntry("batch_norm", _bn_out, _bn_ref_out, _bn_samples, name="batch_norm-out"),
    OpEntry("batch_norm", _bn_all, _bn_ref, _bn_global_samples, grad=False,
            name="batch_norm-global", onnx=(0,)),
    OpEntry("batch_norm", _bn_out, _bn_ref_out, _bn_global_samples, grad_args=(0, 3, 4),
            name="batch_norm-global-out"),
    OpEntry("_batch_norm_vjp", _bn_vjp, _bn_vjp_ref, _bn_vjp_samples, grad=False),
    OpEntry("layer_norm", _ln_all, _ln_ref, _ln_samples, grad=False, onnx=(0,)),
    OpEntry("layer_norm", _ln_out, _ln_ref_out, _ln_samples, name="layer_norm-out"),
    OpEntry("_layer_norm_vjp", _ln_vjp, _ln_vjp_ref, _ln_vjp_samples, grad=False),
]
