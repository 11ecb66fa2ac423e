"""Normalization operators with fused kernels: batch_norm and layer_norm.

group_norm, instance_norm and local_response_norm are composites in
nn/functional/norm.py. Imports only `framework`, `backend` and sibling op modules; vjp
rules are written in sampan ops.
"""
from __future__ import annotations

from ..backend import numpy_ as _host
from .dispatch import call
from .opdef import OpDef, TensorSpec, register

_LAYOUTS = ("NC", "NCL", "NCHW", "NCDHW", "NLC", "NHWC", "NDHWC")


def channel_axis(data_format: str, ndim: int) -> int:
    """Index of the channel dim: 1 for N C ... layouts (and any 2-D input), else the last."""
    return 1 if data_format[1] == "C" or ndim == 2 else ndim - 1


def _bcast(t, shape):
    return call("reshape", t, shape=list(shape))


def _reduce_mean(x, axes):
    return call("mean", x, axis=list(axes), keepdim=True)


def _reduce_sum(x, axes, keepdim=False):
    if not axes:  # an empty axis list means "all axes" to sum
        return x
    return call("sum", x, axis=list(axes), keepdim=keepdim, dtype=None)


# --- batch_norm --------------------------------------------------------------------------

def _batch_norm_decompose(x, running_mean, running_var, weight=None, bias=None,
                          momentum=0.9, epsilon=1e-5, data_format="NCHW",
                          use_global_stats=False):
    c = channel_axis(data_format, x.ndim)
    axes = [i for i in range(x.ndim) if i != c]
    shape = [x.shape[i] if i == c else 1 for i in range(x.ndim)]
    if use_global_stats:
        mean, var = running_mean, running_var
        mean_b, var_b = _bcast(mean, shape), _bcast(var, shape)
        mean_out, var_out = call("assign", mean), call("assign", var)
    else:
        mean_b = _reduce_mean(x, axes)
        var_b = _reduce_mean(call("square", x - mean_b), axes)
        mean, var = _bcast(mean_b, [x.shape[c]]), _bcast(var_b, [x.shape[c]])
        mean_out = (running_mean * momentum
                    + call("cast", mean, dtype=running_mean.dtype.name) * (1.0 - momentum))
        var_out = (running_var * momentum
                   + call("cast", var, dtype=running_var.dtype.name) * (1.0 - momentum))
    invstd_b = call("rsqrt", var_b + epsilon)
    out = (x - mean_b) * invstd_b
    if weight is not None:
        out = out * _bcast(weight, shape)
    if bias is not None:
        out = out + _bcast(bias, shape)
    invstd = _bcast(invstd_b, [x.shape[c]])
    return (out, call("cast", mean, dtype=x.dtype.name),
            call("cast", invstd, dtype=x.dtype.name), mean_out, var_out)


@register
class BatchNorm(OpDef):
    """Batch normalization over every dim but the channel dim (dim 1 for N C ... layouts,
    the last for channels-last ones): out = (x - mean) / sqrt(var + epsilon) * weight +
    bias, per channel.

    use_global_stats False: mean/var are the batch statistics (biased variance) and
    mean_out = momentum * running_mean + (1 - momentum) * mean (likewise variance_out, with
    the biased batch variance, as Paddle). True: running_mean/running_var are used and
    returned unchanged. saved_mean / saved_invstd (1 / sqrt(var + epsilon)) are x's dtype;
    they and the running outputs carry no gradient. The running inputs get no gradient.
    """

    name = "batch_norm"
    test_attrs = {"use_global_stats": True}
    inputs = ("x", "running_mean", "running_var", "weight?", "bias?")
    outputs = ("out", "saved_mean", "saved_invstd", "mean_out", "variance_out")
    attrs = {"momentum": 0.9, "epsilon": 1e-5, "data_format": "NCHW",
             "use_global_stats": False}
    saves = ("x", "weight", "saved_mean", "saved_invstd")
    nondiff_outputs = (1, 2, 3, 4)

    def onnx(self, b, node):   # running statistics; training mode decomposes
        return b.batch_norm(node)

    decompose = staticmethod(_batch_norm_decompose)

    def infer(self, x, running_mean, running_var, weight=None, bias=None, momentum=0.9,
              epsilon=1e-5, data_format="NCHW", use_global_stats=False):
        if data_format not in _LAYOUTS:
            raise ValueError(f"batch_norm: data_format must be one of {list(_LAYOUTS)}, got "
                             f"{data_format!r}")
        if x.ndim < 2:
            raise ValueError(f"batch_norm: x must be at least 2-D [N, C, ...], got shape "
                             f"{list(x.shape)}")
        if x.dtype.kind != "f":
            raise TypeError(f"batch_norm: x must be a floating point tensor, got "
                            f"{x.dtype.name}")
        c = x.shape[channel_axis(data_format, x.ndim)]
        for arg, s in (("running_mean", running_mean), ("running_var", running_var),
                       ("weight", weight), ("bias", bias)):
            if s is not None and (s.ndim != 1 or (-1 not in (c, s.shape[0])
                                                  and s.shape[0] != c)):
                raise ValueError(f"batch_norm: {arg} must have shape [{c}] (the channels of "
                                 f"x, shape {list(x.shape)}, data_format {data_format}), got "
                                 f"{list(s.shape)}")
        stat = TensorSpec((c,), x.dtype)
        return (x, stat, stat, running_mean.with_shape((c,)), running_var.with_shape((c,)))

    def compute(self, xp, x, running_mean, running_var, weight=None, bias=None,
                momentum=0.9, epsilon=1e-5, data_format="NCHW", use_global_stats=False):
        x3 = _channel_3d(x, data_format)  # [A, C, B]: per-channel values repeat B times
        if use_global_stats:
            return _bn_global(xp, x, x3, running_mean, running_var, weight, bias, epsilon)
        a, c, b = x3.shape
        dt = x.dtype
        count = dt.type(max(a * b, 1))
        mean = xp.einsum("acb->c", x3) / count
        xc = x3.reshape(a, c * b) - _rows(xp, mean, b)
        xc3 = xc.reshape(a, c, b)
        var = xp.einsum("acb,acb->c", xc3, xc3) / count
        rdt = running_mean.dtype
        mean_out = running_mean * rdt.type(momentum) + mean.astype(rdt) * rdt.type(1 - momentum)
        var_out = running_var * rdt.type(momentum) + var.astype(rdt) * rdt.type(1 - momentum)
        invstd = (1.0 / xp.sqrt(var + dt.type(epsilon))).astype(dt)
        scale = invstd if weight is None else invstd * weight
        out = xc
        out *= _rows(xp, scale, b)  # xc is a fresh array: normalise in place
        if bias is not None:
            out += _rows(xp, bias.astype(dt, copy=False), b)
        return out.reshape(x.shape), mean.astype(dt), invstd, mean_out, var_out

    def vjp(self, ctx, g, *unused):
        x, w = ctx.x, ctx.weight
        batch = not ctx.use_global_stats
        need_gw, need_gb = ctx.needs[3], ctx.needs[4]
        if batch and not ctx.create_graph:  # the fused kernel (it has no vjp of its own)
            gx, gw, gb = call("_batch_norm_vjp", x, g, ctx.saved_mean, ctx.saved_invstd, w,
                              data_format=ctx.data_format)
        elif batch:  # create_graph: statistics recomputed from x for higher derivatives
            c = channel_axis(ctx.data_format, x.ndim)
            axes = [i for i in range(x.ndim) if i != c]
            mean = _reduce_mean(x, axes)
            invstd = call("rsqrt", _bcast(_reduce_mean(call("square", x - mean), axes),
                                          [x.shape[c]]) + ctx.epsilon)
            gx, gw, gb = _bn_grad(x, g, _bcast(mean, [x.shape[c]]), invstd, w,
                                  ctx.data_format)
        else:
            gx, gw, gb = _bn_grad_global(ctx, g, need_gw)
        return (gx if ctx.needs[0] else None, None, None, gw if need_gw else None,
                gb if need_gb else None)


def _bn_grad(x, dout, mean, invstd, weight=None, data_format="NCHW"):
    """batch_norm's gradients with batch statistics, in ops. With xc = x - mean,
    k = invstd * weight and N elements per channel (sums per channel):
        dbias = sum(dout),  dweight = sum(dout * xc) * invstd,
        dx = (dout - dbias / N) * k - xc * (k * invstd * dweight / N).
    The one copy of the formula: BatchNorm.vjp under create_graph and the decomposition
    of the fused kernel `_batch_norm_vjp` both use it."""
    c = channel_axis(data_format, x.ndim)
    axes = [i for i in range(x.ndim) if i != c]
    shape = [x.shape[i] if i == c else 1 for i in range(x.ndim)]
    count = float(max(x.size // max(x.shape[c], 1), 1))
    k = invstd if weight is None else invstd * weight
    xc = x - _bcast(mean, shape)
    gb = _reduce_sum(dout, axes)
    gw = _reduce_sum(dout * xc, axes) * invstd
    gx = ((dout - _bcast(gb / count, shape)) * _bcast(k, shape)
          - xc * _bcast(k * invstd * gw / count, shape))
    return gx, gw, gb


def _bn_grad_global(ctx, g, need_gw: bool):
    """batch_norm's gradients with running statistics (constants): dx = dout * k."""
    x, w = ctx.x, ctx.weight
    c = channel_axis(ctx.data_format, x.ndim)
    axes = [i for i in range(x.ndim) if i != c]
    shape = [x.shape[i] if i == c else 1 for i in range(x.ndim)]
    invstd = ctx.saved_invstd
    k = invstd if w is None else invstd * w
    gw = None
    if need_gw:
        gw = _reduce_sum(g * (x - _bcast(ctx.saved_mean, shape)), axes) * invstd
    gx = g * _bcast(k, shape) if ctx.needs[0] else None
    return gx, gw, _reduce_sum(g, axes) if ctx.needs[4] else None


@register
class BatchNormVjp(OpDef):
    """The cotangents of batch_norm with batch statistics (the kernel behind BatchNorm.vjp
    when no higher-order graph is built): given x, dout = d loss / d out and the forward's
    saved_mean / saved_invstd, with xc = x - mean, k = invstd * weight and N elements per
    channel, returns
        dx = k * (dout - sum(dout) / N) - xc * (k * invstd ** 2 * sum(dout * xc) / N),
        dweight = sum(dout * xc) * invstd,  dbias = sum(dout)   (sums per channel).
    One kernel with two full-size temporaries instead of ~15 ops. Under create_graph
    BatchNorm.vjp recomputes in differentiable ops and never calls this; its own vjp only
    says so (a second derivative through it would miss the statistics' dependence on x)."""

    name = "_batch_norm_vjp"
    inputs = ("x", "dout", "saved_mean", "saved_invstd", "weight?")
    outputs = ("dx", "dweight", "dbias")
    attrs = {"data_format": "NCHW"}
    decompose = staticmethod(_bn_grad)

    def infer(self, x, dout, saved_mean, saved_invstd, weight=None, data_format="NCHW"):
        if data_format not in _LAYOUTS:
            raise ValueError(f"_batch_norm_vjp: data_format must be one of {list(_LAYOUTS)}, "
                             f"got {data_format!r}")
        if x.ndim < 2 or tuple(dout.shape) != tuple(x.shape) or x.dtype.kind != "f":
            raise ValueError(f"_batch_norm_vjp: x and dout must be float tensors of one "
                             f"shape [N, C, ...], got {list(x.shape)} and {list(dout.shape)}")
        c = x.shape[channel_axis(data_format, x.ndim)]
        stat = TensorSpec((c,), x.dtype)
        return x, stat, stat

    def compute(self, xp, x, dout, saved_mean, saved_invstd, weight=None, data_format="NCHW"):
        if dout.shape != x.shape:
            raise ValueError("bad shapes")  # infer explains
        x3, g3 = _channel_3d(x, data_format), _channel_3d(dout, data_format)
        a, c, b = x3.shape
        dt = x.dtype
        n = dt.type(max(a * b, 1))
        invstd = saved_invstd.astype(dt, copy=False)
        xc = x3.reshape(a, c * b) - _rows(xp, saved_mean.astype(dt, copy=False), b)
        gb = xp.einsum("acb->c", g3)
        gw = xp.einsum("acb,acb->c", g3, xc.reshape(a, c, b)) * invstd
        k = invstd if weight is None else invstd * weight.astype(dt, copy=False)
        xc *= _rows(xp, k * invstd * gw / n, b)  # xc is ours: scale it in place
        gx = g3.reshape(a, c * b) * _rows(xp, k, b)
        gx -= xc
        gx -= _rows(xp, k * gb / n, b)
        return gx.reshape(x.shape), gw, gb

    def vjp(self, ctx, *grads):
        _no_second_order("batch_norm")


def _no_second_order(api: str):
    raise NotImplementedError(
        f"{api}: second-order gradients through {api} are not supported in a static Program "
        f"(its static backward uses the fused first-order kernel _{api}_vjp); take them in "
        f"dynamic mode with paddle.grad(..., create_graph=True)")


def _bn_global(xp, x, x3, running_mean, running_var, weight, bias, epsilon):
    """batch_norm on running statistics (eval / use_global_stats): one fused per-channel
    scale and shift, out = x * scale + shift with scale = weight / sqrt(var + epsilon) and
    shift = bias - mean * scale (PyTorch's eval form), the factors from `_bn_factors`."""
    a, c, b = x3.shape
    mean, invstd, srow, hrow = _bn_factors(xp, x.dtype, b, running_mean, running_var, weight,
                                           bias, epsilon)
    if srow.ndim == 2:  # large [C * B]: [C, 1] broadcasting, no repeated rows held
        out = x3.reshape(c, b) * srow if a == 1 else x3 * srow
    else:               # rows of [C * B] are ~2x faster than broadcasting [C, 1]
        out = x3.reshape(a, c * b) * srow
    out += hrow
    return (out.reshape(x.shape), mean.copy(), invstd.copy(), running_mean.copy(),
            running_var.copy())


# The eval factors of a batch_norm, memoised by the exact bytes of its [C] inputs (so a
# changed statistic or parameter is a new key, never a stale hit): at batch 1 the ~10 tiny
# [C] NumPy calls and the row repeats cost as much as the passes over x. Host arrays only
# (reading a device array's bytes would synchronise); entries are never written after
# they are stored (results are fresh arrays or copies).
_FACTORS: dict = {}
_FACTORS_BYTES = [0]
_FACTORS_MAX = 16 << 20
_ROWS_MAX = 1 << 20   # larger [C * B] rows are not held: [C, 1] broadcasting instead


def _bn_factors(xp, dt, b: int, running_mean, running_var, weight, bias, epsilon):
    """(mean, invstd, scale rows, shift rows) for x's dtype dt and B values per channel."""
    key = None
    if xp is _host and running_mean.__class__ is _host.ndarray:
        key = (dt, b, epsilon) + tuple(None if v is None else (v.dtype, v.tobytes())
                                       for v in (running_mean, running_var, weight, bias))
        hit = _FACTORS.get(key)
        if hit is not None:
            return hit
    mean = running_mean.astype(dt)
    invstd = running_var.astype(dt) + dt.type(epsilon)
    xp.sqrt(invstd, out=invstd)
    xp.reciprocal(invstd, out=invstd)
    scale = invstd if weight is None else invstd * weight
    shift = mean * scale
    if bias is None:
        xp.negative(shift, out=shift)
    else:
        xp.subtract(bias.astype(dt, copy=False), shift, out=shift)
    if scale.size * b * dt.itemsize > _ROWS_MAX:
        entry = (mean, invstd, scale[:, None], shift[:, None])
    else:
        entry = (mean, invstd, _rows(xp, scale, b), _rows(xp, shift, b))
    if key is not None:
        size = sum(v.nbytes for v in entry)
        if _FACTORS_BYTES[0] + size > _FACTORS_MAX:
            _FACTORS.clear()
            _FACTORS_BYTES[0] = 0
        _FACTORS[key] = entry
        _FACTORS_BYTES[0] += size
    return entry


def _channel_3d(a, data_format: str):
    """a viewed (copied if strided) as [before, C, after] around its channel axis."""
    c = channel_axis(data_format, a.ndim)
    before = _prod(a.shape[:c])
    return a.reshape(before, a.shape[c], _prod(a.shape[c + 1:]))


def _rows(xp, v, b: int):
    """Per-channel values v [C] as one row [C * b] matching an [A, C * b] view: broadcasting
    a row is ~1.5x faster in NumPy than broadcasting [C, 1] along a middle axis."""
    return v if b == 1 else xp.repeat(v, b)


# --- layer_norm --------------------------------------------------------------------------

def _layer_norm_decompose(x, weight=None, bias=None, begin_norm_axis=1, epsilon=1e-5):
    axes = list(range(begin_norm_axis, x.ndim))
    norm_shape = list(x.shape[begin_norm_axis:])
    mean_b = _reduce_mean(x, axes)
    xc = x - mean_b
    invstd_b = call("rsqrt", _reduce_mean(call("square", xc), axes) + epsilon)
    out = xc * invstd_b
    if weight is not None:
        out = out * _bcast(weight, norm_shape)
    if bias is not None:
        out = out + _bcast(bias, norm_shape)
    lead = list(x.shape[:begin_norm_axis])
    return out, _bcast(mean_b, lead), _bcast(invstd_b, lead)


@register
class LayerNorm(OpDef):
    """Layer normalization over the dims from `begin_norm_axis` on: out = (x - mean) /
    sqrt(var + epsilon) * weight + bias, with per-sample biased statistics. weight and bias
    hold prod(x.shape[begin_norm_axis:]) elements (any shape, usually flat).
    saved_mean / saved_invstd have shape x.shape[:begin_norm_axis] and no gradient."""

    amp = "float32"
    name = "layer_norm"
    inputs = ("x", "weight?", "bias?")
    outputs = ("out", "saved_mean", "saved_invstd")
    attrs = {"begin_norm_axis": 1, "epsilon": 1e-5}
    saves = ("x", "weight", "saved_mean", "saved_invstd")
    nondiff_outputs = (1, 2)

    def onnx(self, b, node):
        return b.layer_norm(node)

    decompose = staticmethod(_layer_norm_decompose)

    def infer(self, x, weight=None, bias=None, begin_norm_axis=1, epsilon=1e-5):
        if x.dtype.kind != "f":
            raise TypeError(f"layer_norm: x must be a floating point tensor, got "
                            f"{x.dtype.name}")
        if not 0 <= begin_norm_axis < max(x.ndim, 1) or x.ndim == 0:
            raise ValueError(f"layer_norm: begin_norm_axis must be in [0, {x.ndim}) for x of "
                             f"shape {list(x.shape)}, got {begin_norm_axis}")
        tail = x.shape[begin_norm_axis:]
        size = -1 if -1 in tail else _prod(tail)
        for arg, s in (("weight", weight), ("bias", bias)):
            if s is None:
                continue
            n = -1 if -1 in s.shape else _prod(s.shape)
            if -1 not in (n, size) and n != size:
                raise ValueError(f"layer_norm: {arg} (shape {list(s.shape)}) must have "
                                 f"{size} elements, the size of the normalized shape "
                                 f"{list(tail)} of x (shape {list(x.shape)})")
            if s.dtype is not x.dtype:
                raise TypeError(f"layer_norm: {arg} ({s.dtype.name}) must have x's dtype "
                                f"({x.dtype.name})")
        stat = TensorSpec(x.shape[:begin_norm_axis], x.dtype)
        return x, stat, stat

    def compute(self, xp, x, weight=None, bias=None, begin_norm_axis=1, epsilon=1e-5):
        lead, tail = x.shape[:begin_norm_axis], x.shape[begin_norm_axis:]
        if not tail or (weight is not None and weight.size != _prod(tail)):
            raise ValueError("bad shapes")  # infer explains
        dt = x.dtype
        rows = x.reshape(-1, _prod(tail))
        n = dt.type(max(rows.shape[1], 1))
        mean = xp.einsum("ij->i", rows)[:, None] / n  # einsum sums beat add.reduce 2x
        out = rows - mean
        var = xp.einsum("ij,ij->i", out, out)[:, None] / n
        invstd = (1.0 / xp.sqrt(var + dt.type(epsilon))).astype(dt)
        out *= invstd
        if weight is not None:
            out *= weight.reshape(-1)
        if bias is not None:
            out += bias.reshape(-1)
        return out.reshape(x.shape), mean.reshape(lead), invstd.reshape(lead)

    def vjp(self, ctx, g, *unused):
        x, w = ctx.x, ctx.weight
        begin = ctx.begin_norm_axis
        if ctx.needs[0] and not ctx.create_graph:
            gx, gw, gb = call("_layer_norm_vjp", x, g, ctx.saved_mean, ctx.saved_invstd, w,
                              begin_norm_axis=begin)
            return (gx, _bcast(gw, ctx.in_shapes[1]) if ctx.needs[1] else None,
                    _bcast(gb, ctx.in_shapes[2]) if ctx.needs[2] else None)
        axes = list(range(begin, x.ndim))
        lead_axes = list(range(begin))
        norm_shape = list(x.shape[begin:])
        stat_shape = list(x.shape[:begin]) + [1] * len(norm_shape)
        if ctx.create_graph:  # statistics recomputed from x for higher derivatives
            xc = x - _reduce_mean(x, axes)
            invstd_b = call("rsqrt", _reduce_mean(xc * xc, axes) + ctx.epsilon)
        else:
            xc = x - _bcast(ctx.saved_mean, stat_shape)
            invstd_b = _bcast(ctx.saved_invstd, stat_shape)
        xhat = xc * invstd_b
        gx = gw = gb = None
        if ctx.needs[1]:
            gw = _bcast(_reduce_sum(g * xhat, lead_axes), ctx.in_shapes[1])
        if ctx.needs[2]:
            gb = _bcast(_reduce_sum(g, lead_axes), ctx.in_shapes[2])
        if ctx.needs[0]:
            gxhat = g if w is None else g * _bcast(w, norm_shape)
            gx = (gxhat - _reduce_mean(gxhat, axes)
                  - xhat * _reduce_mean(gxhat * xhat, axes)) * invstd_b
        return gx, gw, gb


def _ln_vjp_decompose(x, dout, saved_mean, saved_invstd, weight=None, begin_norm_axis=1):
    begin = begin_norm_axis
    axes = list(range(begin, x.ndim))
    norm_shape = list(x.shape[begin:])
    stat_shape = list(x.shape[:begin]) + [1] * len(norm_shape)
    invstd_b = _bcast(saved_invstd, stat_shape)
    xhat = (x - _bcast(saved_mean, stat_shape)) * invstd_b
    size = [_prod(norm_shape)]
    gw = _bcast(_reduce_sum(dout * xhat, list(range(begin))), size)
    gb = _bcast(_reduce_sum(dout, list(range(begin))), size)
    gxhat = dout if weight is None else dout * _bcast(weight, norm_shape)
    gx = (gxhat - _reduce_mean(gxhat, axes) - xhat * _reduce_mean(gxhat * xhat, axes)) * invstd_b
    return gx, gw, gb


@register
class LayerNormVjp(OpDef):
    """The cotangents of layer_norm (the kernel behind LayerNorm.vjp when no higher-order
    graph is built): given x, dout = d loss / d out and the forward's saved_mean /
    saved_invstd, with rows over the normalized dims (D elements), xhat = (x - mean) *
    invstd and gxhat = dout * weight, returns
        dx = invstd * (gxhat - mean_row(gxhat) - xhat * mean_row(gxhat * xhat)),
        dweight = sum over rows of dout * xhat,  dbias = sum over rows of dout,
    dweight and dbias flat ([D]). Under create_graph LayerNorm.vjp recomputes in
    differentiable ops and never calls this; its own vjp only says so."""

    name = "_layer_norm_vjp"
    inputs = ("x", "dout", "saved_mean", "saved_invstd", "weight?")
    outputs = ("dx", "dweight", "dbias")
    attrs = {"begin_norm_axis": 1}
    decompose = staticmethod(_ln_vjp_decompose)

    def infer(self, x, dout, saved_mean, saved_invstd, weight=None, begin_norm_axis=1):
        if (tuple(dout.shape) != tuple(x.shape) or x.dtype.kind != "f"
                or not 0 <= begin_norm_axis < max(x.ndim, 1)):
            raise ValueError(f"_layer_norm_vjp: x and dout must be float tensors of one shape "
                             f"with begin_norm_axis in [0, {x.ndim}), got {list(x.shape)}, "
                             f"{list(dout.shape)} and {begin_norm_axis}")
        tail = x.shape[begin_norm_axis:]
        stat = TensorSpec((-1 if -1 in tail else _prod(tail),), x.dtype)
        return x, stat, stat

    def compute(self, xp, x, dout, saved_mean, saved_invstd, weight=None, begin_norm_axis=1):
        if dout.shape != x.shape:
            raise ValueError("bad shapes")  # infer explains
        dt = x.dtype
        d = _prod(x.shape[begin_norm_axis:])
        rows, g = x.reshape(-1, d), dout.reshape(-1, d)
        invstd = saved_invstd.reshape(-1, 1).astype(dt, copy=False)
        xhat = rows - saved_mean.reshape(-1, 1).astype(dt, copy=False)
        xhat *= invstd
        gb = xp.einsum("ij->j", g)
        gw = xp.einsum("ij,ij->j", g, xhat)
        gxhat = g * invstd if weight is None else g * weight.reshape(-1).astype(dt, copy=False)
        n = dt.type(max(d, 1))
        # dx = invstd * gxhat - xhat * (invstd * mean(gxhat * xhat)) - invstd * mean(gxhat),
        # with gxhat already scaled by invstd when there is no weight
        a = xp.einsum("ij->i", gxhat)[:, None] / n
        b = xp.einsum("ij,ij->i", gxhat, xhat)[:, None] / n
        if weight is not None:
            a *= invstd
            b *= invstd
            gxhat *= invstd
        xhat *= b
        xhat += a
        gxhat -= xhat
        return gxhat.reshape(x.shape), gw, gb

    def vjp(self, ctx, *grads):
        _no_second_order("layer_norm")


def _prod(shape) -> int:
    out = 1
    for d in shape:
        out *= int(d)
    return out
