"""Op database entries for sampan/ops/nn_conv.py (convolutions, transposed convolutions,
im2col (F.unfold) and fold). References loop over kernel offsets in NumPy."""
import itertools

import numpy as np

import sampan.nn.functional as F
from sampan.ops.dispatch import call
from tests.ops.op_db import OpEntry, Sample

_CL = ("NLC", "NHWC", "NDHWC")


def _expand(v, nd):
    return [int(v)] * nd if np.isscalar(v) else [int(e) for e in v]


def _pads(padding, nd, spatial, kernel, stride, dilation):
    """[(before, after)] per dim and the dilation (Paddle's 'SAME' uses dilation 1)."""
    if isinstance(padding, str):
        if padding == "VALID":
            return [(0, 0)] * nd, dilation
        out = []
        for n, k, s in zip(spatial, kernel, stride):
            total = max(((n + s - 1) // s - 1) * s + k - n, 0)
            out.append((total // 2, total - total // 2))
        return out, [1] * nd
    if np.isscalar(padding):
        return [(int(padding),) * 2] * nd, dilation
    if isinstance(padding[0], list):  # pairs incl. batch/channel (channels-first here)
        return [tuple(p) for p in padding[2:]], dilation
    if len(padding) == nd:
        return [(int(p), int(p)) for p in padding], dilation
    return [(int(padding[2 * i]), int(padding[2 * i + 1])) for i in range(nd)], dilation


def _slices(k, stride, dilation, count):
    return tuple(slice(kk * d, kk * d + (c - 1) * s + 1, s)
                 for kk, s, d, c in zip(k, stride, dilation, count))


def ref_conv(x, w, b=None, stride=1, padding=0, dilation=1, groups=1, data_format="NCHW"):
    cl = data_format in _CL
    if cl:
        x = np.moveaxis(x, -1, 1)
    nd = x.ndim - 2
    stride, dilation = _expand(stride, nd), _expand(dilation, nd)
    kernel = w.shape[2:]
    pairs, dilation = _pads(padding, nd, x.shape[2:], kernel, stride, dilation)
    xp = np.pad(x, [(0, 0), (0, 0)] + pairs)
    out_len = [(n - d * (k - 1) - 1) // s + 1
               for n, k, s, d in zip(xp.shape[2:], kernel, stride, dilation)]
    o, cg = w.shape[:2]
    og = o // groups
    out = np.zeros((x.shape[0], o, *out_len), x.dtype)
    for g in range(groups):
        for k in itertools.product(*[range(e) for e in kernel]):
            patch = xp[:, g * cg:(g + 1) * cg][(Ellipsis,) + _slices(k, stride, dilation,
                                                                      out_len)]
            out[:, g * og:(g + 1) * og] += np.einsum("nc...,oc->no...", patch,
                                                     w[(slice(g * og, (g + 1) * og),
                                                        slice(None)) + k])
    if b is not None:
        out += b.reshape((1, -1) + (1,) * nd)
    return np.moveaxis(out, 1, -1) if cl else out


def ref_conv_transpose(x, w, b=None, stride=1, padding=0, output_padding=0, dilation=1,
                       groups=1, output_size=None, data_format="NCHW"):
    cl = data_format in _CL
    if cl:
        x = np.moveaxis(x, -1, 1)
    nd = x.ndim - 2
    stride, dilation = _expand(stride, nd), _expand(dilation, nd)
    kernel = w.shape[2:]
    pairs, dilation = _pads(padding, nd, x.shape[2:], kernel, stride, dilation)
    size = [(i - 1) * s - pb - pa + d * (k - 1) + 1 + op for i, s, (pb, pa), d, k, op in
            zip(x.shape[2:], stride, pairs, dilation, kernel, _expand(output_padding, nd))]
    if output_size is not None:
        size = list(output_size)
    cin, og = w.shape[:2]
    cg = cin // groups
    extent = [max(pb + n, (i - 1) * s + d * (k - 1) + 1) for (pb, _), n, i, s, d, k in
              zip(pairs, size, x.shape[2:], stride, dilation, kernel)]
    buf = np.zeros((x.shape[0], og * groups, *extent), x.dtype)
    for g in range(groups):
        for k in itertools.product(*[range(e) for e in kernel]):
            sl = (slice(None), slice(g * og, (g + 1) * og)) + _slices(k, stride, dilation,
                                                                       x.shape[2:])
            buf[sl] += np.einsum("nc...,co->no...", x[:, g * cg:(g + 1) * cg],
                                 w[(slice(g * cg, (g + 1) * cg), slice(None)) + k])
    out = buf[(slice(None), slice(None)) + tuple(slice(pb, pb + n)
                                                 for (pb, _), n in zip(pairs, size))]
    if b is not None:
        out = out + b.reshape((1, -1) + (1,) * nd)
    return np.moveaxis(out, 1, -1) if cl else out


def ref_unfold(x, kernel_sizes, strides=1, paddings=0, dilations=1):
    kernel, stride, dil = (_expand(v, 2) for v in (kernel_sizes, strides, dilations))
    p = _expand(paddings, 2) if np.isscalar(paddings) or len(paddings) == 2 else paddings
    pairs = [(p[0], p[0]), (p[1], p[1])] if len(p) == 2 else [(p[0], p[2]), (p[1], p[3])]
    xp = np.pad(x, [(0, 0), (0, 0)] + pairs)
    out_len = [(n - d * (k - 1) - 1) // s + 1
               for n, k, s, d in zip(xp.shape[2:], kernel, stride, dil)]
    n, c = x.shape[:2]
    cols = np.zeros((n, c, kernel[0] * kernel[1], out_len[0] * out_len[1]), x.dtype)
    for i, k in enumerate(itertools.product(range(kernel[0]), range(kernel[1]))):
        cols[:, :, i] = xp[(Ellipsis,) + _slices(k, stride, dil, out_len)].reshape(
            n, c, out_len[0] * out_len[1])
    return cols.reshape(n, c * kernel[0] * kernel[1], out_len[0] * out_len[1])


def ref_fold(x, output_sizes, kernel_sizes, strides=1, paddings=0, dilations=1):
    size, kernel, stride, dil = (_expand(v, 2) for v in (output_sizes, kernel_sizes, strides,
                                                          dilations))
    p = _expand(paddings, 2) if np.isscalar(paddings) or len(paddings) == 2 else paddings
    pairs = [(p[0], p[0]), (p[1], p[1])] if len(p) == 2 else [(p[0], p[2]), (p[1], p[3])]
    padded = [n + a + b for n, (a, b) in zip(size, pairs)]
    out_len = [(n - d * (k - 1) - 1) // s + 1 for n, k, s, d in zip(padded, kernel, stride, dil)]
    n = x.shape[0]
    cols = x.reshape(n, -1, kernel[0] * kernel[1], *out_len)
    buf = np.zeros((n, cols.shape[1], *padded), x.dtype)
    for i, k in enumerate(itertools.product(range(kernel[0]), range(kernel[1]))):
        buf[(Ellipsis,) + _slices(k, stride, dil, out_len)] += cols[:, :, i]
    return buf[:, :, pairs[0][0]:pairs[0][0] + size[0], pairs[1][0]:pairs[1][0] + size[1]]


def _corr_attrs(nd, stride, padding, dilation):
    return (list(stride or [1] * nd), list(padding or [0] * (2 * nd)),
            list(dilation or [1] * nd))


def weight_corr(x, dout, kernel_size, stride=None, padding=None, dilation=None, groups=1):
    stride, padding, dilation = _corr_attrs(x.ndim - 2, stride, padding, dilation)
    return call("_conv_weight_corr", x, dout, kernel_size=list(kernel_size), stride=stride,
                padding=padding, dilation=dilation, groups=groups)


def ref_weight_corr(x, dout, kernel_size, stride=None, padding=None, dilation=None, groups=1):
    nd = x.ndim - 2
    stride, padding, dilation = _corr_attrs(nd, stride, padding, dilation)
    x = x[(slice(None), slice(None)) + tuple(
        slice(max(-padding[2 * i], 0), x.shape[2 + i] - max(-padding[2 * i + 1], 0))
        for i in range(nd))]
    xp = np.pad(x, [(0, 0), (0, 0)] + [(max(padding[2 * i], 0), max(padding[2 * i + 1], 0))
                                       for i in range(nd)])
    a, c = dout.shape[1], x.shape[1]
    ag, cg = a // groups, c // groups
    out = np.zeros((a, cg, *kernel_size), x.dtype)
    axes = [0] + list(range(2, nd + 2))
    for g in range(groups):
        for k in itertools.product(*[range(e) for e in kernel_size]):
            patch = xp[:, g * cg:(g + 1) * cg][(Ellipsis,) + _slices(k, stride, dilation,
                                                                      dout.shape[2:])]
            out[(slice(g * ag, (g + 1) * ag), slice(None)) + k] = np.tensordot(
                dout[:, g * ag:(g + 1) * ag], patch, axes=(axes, axes))
    return out


def conv_input_grad(dout, weight, x, **attrs):
    nd = x.ndim - 2
    full = {"stride": [1] * nd, "padding": [0] * (2 * nd), "dilation": [1] * nd,
            "data_format": {1: "NCL", 2: "NCHW", 3: "NCDHW"}[nd], **attrs}
    return call("_conv_input_grad", dout, weight, x, **full)


def ref_conv_input_grad(dout, weight, x, stride=None, padding=None,
                        padding_algorithm="EXPLICIT", dilation=None, groups=1,
                        data_format=None):
    """The adjoint of ref_conv in x: its transposed convolution sized like x."""
    nd = x.ndim - 2
    stride, dilation = stride or [1] * nd, dilation or [1] * nd
    spatial = x.shape[1:-1] if data_format in _CL else x.shape[2:]
    if padding_algorithm == "EXPLICIT":
        pads = padding or [0] * (2 * nd)
    else:
        pairs, dilation = _pads(padding_algorithm, nd, spatial, weight.shape[2:], stride,
                                dilation)
        pads = [p for pair in pairs for p in pair]
    return ref_conv_transpose(dout, weight, None, stride, pads, 0, dilation, groups,
                              list(spatial), data_format or "NCHW")


def _r(rng, dtype):
    def r(*shape):
        return rng.uniform(-1, 1, shape).astype(dtype)
    return r


def _conv2d_samples(rng, dtype):
    r = _r(rng, dtype)
    return [Sample((r(2, 2, 4, 3), r(3, 2, 2, 2), r(3)), name="basic-bias"),
            Sample((r(1, 4, 5, 4), r(2, 2, 3, 2)), {"stride": [2, 1], "padding": [1, 0, 2, 1],
                                                   "dilation": [1, 2], "groups": 2},
                   name="groups-asym"),
            Sample((r(1, 2, 4, 4), r(2, 1, 3, 3)), {"padding": 1, "groups": 2},
                   name="depthwise"),
            Sample((r(1, 3, 4, 2), r(2, 2, 2, 2)), {"padding": "SAME", "stride": 2,
                                                   "data_format": "NHWC"}, name="same-nhwc"),
            Sample((r(2, 2, 3, 4).transpose(0, 1, 3, 2), r(2, 2, 2, 2)),
                   {"padding": [[0, 0], [0, 0], [1, 0], [0, 1]]}, name="non-contiguous-pairs"),
            Sample((r(0, 2, 4, 4), r(3, 2, 3, 3), r(3)), {"padding": "VALID"}, name="empty"),
            Sample((r(1, 16, 3, 3), r(2, 16, 2, 2), r(2)), {"padding": [1, 0, 0, 1]},
                   name="shifted-gemms"),
            Sample((r(1, 6, 3, 4), r(2, 6, 2, 4)), {"padding": [0, 0, 1, 2],
                                                   "dilation": [2, 1]}, name="stacked-shifts")]


def _conv1d_samples(rng, dtype):
    r = _r(rng, dtype)
    return [Sample((r(2, 2, 6), r(3, 2, 3), r(3)), {"stride": 2, "padding": [1, 2]},
                   name="basic"),
            Sample((r(1, 5, 4), r(4, 2, 2)), {"dilation": 2, "groups": 2, "padding": 1,
                                              "data_format": "NLC"}, name="nlc-groups"),
            Sample((r(1, 4, 16), r(2, 16, 3)), {"dilation": 2, "padding": [2, 1],
                                               "data_format": "NLC"}, name="nlc-shifted")]


def _conv3d_samples(rng, dtype):
    r = _r(rng, dtype)
    return [Sample((r(1, 2, 3, 3, 2), r(2, 2, 2, 2, 1), r(2)), {"padding": [1, 0, 0]},
                   name="basic"),
            Sample((r(1, 3, 2, 3, 2), r(2, 2, 1, 2, 2)), {"stride": 2, "padding": 1,
                                                        "data_format": "NDHWC"}, name="ndhwc"),
            Sample((r(1, 16, 2, 3, 2), r(1, 16, 2, 2, 1)), {"padding": [0, 0, 1, 0, 0, 1]},
                   name="shifted-gemms"),
            Sample((r(1, 2, 3, 2, 6), r(1, 6, 2, 1, 2)), {"padding": [1, 0, 0, 1, 1, 0],
                                                        "data_format": "NDHWC"},
                   name="stacked-ndhwc")]


def _conv2d_t_samples(rng, dtype):
    r = _r(rng, dtype)
    return [Sample((r(1, 2, 3, 2), r(2, 2, 2, 2), r(2)), {"stride": 2, "padding": 1,
                                                         "output_padding": 1}, name="basic"),
            Sample((r(1, 4, 2, 3), r(4, 1, 3, 2)), {"stride": [1, 2], "groups": 2,
                                                   "dilation": [2, 1], "padding": [1, 0, 0, 1]},
                   name="groups-dilation"),
            Sample((r(1, 2, 3, 2), r(2, 1, 2, 2)), {"groups": 2, "stride": 2},
                   name="depthwise"),
            Sample((r(1, 2, 2, 3), r(3, 2, 3, 3)), {"stride": 2, "padding": 1,
                                                   "output_size": [4, 4],
                                                   "data_format": "NHWC"},
                   name="output-size-nhwc"),
            Sample((r(0, 2, 3, 3), r(2, 2, 2, 2)), name="empty"),
            Sample((r(1, 16, 2, 2), r(16, 16, 1, 2)), {"padding": [0, 0, 1, 0]},
                   name="flipped-shifted")]


def _conv1d_t_samples(rng, dtype):
    r = _r(rng, dtype)
    return [Sample((r(2, 2, 4), r(2, 3, 3), r(3)), {"stride": 3, "padding": [1, 2]},
                   name="basic"),
            Sample((r(1, 3, 4), r(4, 1, 2)), {"groups": 2, "stride": 2, "output_padding": 1,
                                              "dilation": 2, "data_format": "NLC"},
                   name="nlc-groups")]


def _conv3d_t_samples(rng, dtype):
    r = _r(rng, dtype)
    return [Sample((r(1, 2, 2, 2, 2), r(2, 2, 2, 1, 2), r(2)), {"stride": 2, "padding": 1},
                   name="basic")]


def _unfold_samples(rng, dtype):
    r = _r(rng, dtype)
    return [Sample((r(2, 2, 4, 3), [2, 2]), name="basic"),
            Sample((r(1, 2, 5, 4), [2, 3]), {"strides": [2, 1], "paddings": [1, 0, 0, 1],
                                            "dilations": [1, 2]}, name="all-args"),
            Sample((r(1, 3, 4, 4).transpose(0, 1, 3, 2), 3), {"paddings": 1},
                   name="non-contiguous"),
            Sample((r(0, 2, 3, 3), 2), name="empty")]


def _fold_samples(rng, dtype):
    r = _r(rng, dtype)
    return [Sample((r(2, 8, 6), [3, 4], [2, 2]), name="basic"),
            Sample((r(1, 6, 9), [3, 5], [1, 3]), {"strides": [1, 2], "paddings": [0, 1],
                                                 "dilations": 1}, name="strided"),
            Sample((r(1, 4, 4), [4, 4], 2), {"strides": 2, "paddings": [1, 0, 0, 1],
                                            "dilations": [1, 2]}, name="pads-dilation")]


def _input_grad_samples(rng, dtype):
    r = _r(rng, dtype)
    return [Sample((r(2, 3, 4, 5), r(3, 2, 3, 3), r(2, 2, 7, 9)),
                   {"stride": [2, 2], "padding_algorithm": "SAME"}, name="same-odd"),
            Sample((r(1, 4, 3, 3), r(3, 2, 3, 2), r(1, 8, 6, 2)),
                   {"stride": [2, 2], "padding_algorithm": "SAME", "dilation": [2, 2],
                    "data_format": "NHWC"}, name="same-even-nhwc"),
            Sample((r(1, 4, 2, 5), r(4, 1, 3, 2), r(1, 2, 5, 4)),
                   {"stride": [2, 1], "padding": [1, 0, 2, 1], "dilation": [1, 2],
                    "groups": 2}, name="explicit-groups"),
            Sample((r(1, 16, 3), r(16, 16, 2), r(1, 16, 4)), {"padding": [0, 0]},
                   name="1d-shifted"),
            Sample((r(1, 2, 1, 1, 2), r(2, 2, 2, 2, 1), r(1, 2, 3, 3, 3)),
                   {"stride": [2, 2, 2], "padding_algorithm": "VALID"}, name="3d-valid"),
            Sample((r(0, 2, 2, 2), r(2, 2, 2, 2), r(0, 2, 3, 3)), name="empty")]


def _weight_corr_samples(rng, dtype):
    r = _r(rng, dtype)
    return [Sample((r(1, 16, 3, 3), r(1, 2, 3, 2), [2, 2]), {"padding": [1, 0, 0, 0]},
                   name="shifted-gemms"),
            Sample((r(1, 6, 3, 5), r(1, 2, 3, 3), [2, 4]), {"padding": [0, 1, 1, 0]},
                   name="stacked-shifts"),
            Sample((r(1, 4, 5, 4), r(1, 2, 2, 5), [3, 2]), {"stride": [2, 1], "groups": 2,
                                                           "padding": [1, 0, 2, 1],
                                                           "dilation": [1, 2]},
                   name="im2col-groups"),
            Sample((r(2, 16, 5), r(2, 3, 3), [3]), {"padding": [1, -1], "dilation": [1]},
                   name="1d-negative-pad"),
            Sample((r(1, 16, 2, 3, 2), r(1, 1, 1, 3, 2), [2, 2, 1]),
                   {"padding": [0, 0, 1, 0, 0, 0]}, name="3d"),
            Sample((r(0, 16, 3, 3), r(0, 2, 2, 2), [2, 2]), name="empty")]


# _relu_mask_mul (sampan/ops/nn_activation.py, the relu backward) lives here with the other
# hot-path helpers of the conv-net benchmarks.
def relu_mask_mul(dout, ref):
    return call("_relu_mask_mul", dout, ref)


def ref_relu_mask_mul(dout, ref):
    return (dout * (ref > 0)).astype(dout.dtype)


def _relu_mask_samples(rng, dtype):
    def r(*shape):
        return rng.uniform(-2, 2, shape).astype(dtype)
    ref = r(3, 4)
    ref[0, :2] = 0.0  # the kink itself: masked out
    return [Sample((r(3, 4), ref), name="2-d"),
            Sample((r(), r()), name="0-d"),
            Sample((r(4, 3).T, r(4, 3).T), name="non-contiguous"),
            Sample((r(0, 3), r(0, 3)), name="empty")]


def _entry(op, fn, ref, samples, **kw):
    return OpEntry(op, fn, ref, samples, tol=10.0, **kw)


ENTRIES = [
    _entry("conv2d", F.conv2d, ref_conv, _conv2d_samples),
    _entry("conv1d", F.conv1d, ref_conv, _conv1d_samples),
    _entry("conv3d", F.conv3d, ref_conv, _conv3d_samples),
    _entry("conv2d_transpose", F.conv2d_transpose, ref_conv_transpose, _conv2d_t_samples),
    _entry("conv1d_transpose", F.conv1d_transpose, ref_conv_transpose, _conv1d_t_samples),
    _entry("conv3d_transpose", F.conv3d_transpose, ref_conv_transpose, _conv3d_t_samples),
    _entry("im2col", F.unfold, ref_unfold, _unfold_samples),
    _entry("fold", F.fold, ref_fold, _fold_samples),
    _entry("_conv_weight_corr", weight_corr, ref_weight_corr, _weight_corr_samples),
    _entry("_conv_input_grad", conv_input_grad, ref_conv_input_grad, _input_grad_samples,
           grad_args=(0, 1)),
    OpEntry("_relu_mask_mul", relu_mask_mul, ref_relu_mask_mul, _relu_mask_samples,
            grad_args=(0,)),
]
