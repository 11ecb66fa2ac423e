"""Convolution operators (conv1d/2d/3d and transposed, and the convolution gradients).

The kernels live in sampan/backend/conv.py and backend/window.py (shared with pooling); this
module holds the OpDefs: attrs, infer, compute over those kernels, and vjp rules in sampan
ops. Attrs are canonical: stride and dilation have one int per spatial dim, padding two
(before, after) per spatial dim; negative padding crops (used by the vjp rules only).
`padding_algorithm` ("EXPLICIT", "SAME" or "VALID", Paddle's attr) is resolved against the
actual input size inside infer/compute, so a 'SAME' convolution over an unknown (-1) static
dim computes the same numbers as eagerly. The input gradient of a convolution is its own op
(`_conv_input_grad`, which reads x's run-time shape); the weight gradient too
(`_conv_weight_corr`). Imports `framework`, `backend` and sibling op modules.
"""
from __future__ import annotations

import math

from ..backend.conv import add_bias, conv_array, conv_transpose_array, weight_corr_array
from ..backend.window import (PADDING_ALGORITHMS, conv_out_len, fit_pads, from_channels_first,
                              is_channel_last, join_channels, resolve_pads, split_channels,
                              to_channels_first, transpose_out_len)
from .dispatch import call
from .opdef import OpDef, TensorSpec, register


def _check_rank(api: str, arg: str, spec, rank: int, what: str) -> None:
    if spec.ndim != rank:
        raise ValueError(f"{api}: {arg} must be a {rank}-D tensor ({what}), got shape "
                         f"{list(spec.shape)}")


def _check_float(api: str, *named) -> None:
    dtype = named[0][1].dtype
    for arg, spec in named:
        if spec.dtype.kind != "f":
            raise TypeError(f"{api}: {arg} must be a floating point tensor, got "
                            f"{spec.dtype.name}")
        if spec.dtype is not dtype:
            raise TypeError(f"{api}: {arg} has dtype {spec.dtype.name} but x has "
                            f"{dtype.name}; they must match")


# --- gradient helpers (sampan ops) -------------------------------------------------------------

def _cf(t, data_format: str):
    """A Tensor moved to channels-first (a transpose op) when data_format is channel-last."""
    if not is_channel_last(data_format):
        return t
    nd = t.ndim
    return call("transpose", t, perm=[0, nd - 1] + list(range(1, nd - 1)))


def _bias_grad(g, data_format: str):
    axes = list(range(g.ndim - 1)) if is_channel_last(data_format) else [0] + list(
        range(2, g.ndim))
    return call("sum", g, axis=axes, keepdim=False, dtype=None)


def weight_grad(x_cf, g_cf, kernel, stride, pads, dilation, groups):
    """sum over batch and positions of g (N, A, P) times im2col(x) (N, B*K, P) as ops:
    (A, B/G, *kernel); x_cf/g_cf channels-first Tensors whose im2col positions match g's."""
    a = g_cf.shape[1]
    cols = call("im2col", x_cf, kernel_sizes=list(kernel), strides=list(stride),
                paddings=list(pads), dilations=list(dilation))
    p = math.prod(g_cf.shape[2:])
    g3 = call("reshape", g_cf, shape=[-1, groups, a // groups, p])
    c3 = call("reshape", cols, shape=[-1, groups, cols.shape[1] // groups, p])
    prod = call("matmul", g3, c3, transpose_x=False, transpose_y=True)
    gw = call("sum", prod, axis=[0], keepdim=False, dtype=None)
    return call("reshape", gw, shape=[a, x_cf.shape[1] // groups] + list(kernel))


# --- convolution ops ---------------------------------------------------------------------------

_CF_FORMATS = {1: "NCL", 2: "NCHW", 3: "NCDHW"}
_CF_NAMES = frozenset(_CF_FORMATS.values())
_CONV_ATTRS = ("stride", "padding", "padding_algorithm", "dilation", "groups", "data_format")


def _check_algorithm(api: str, algorithm) -> None:
    if algorithm not in PADDING_ALGORITHMS:
        raise ValueError(f"{api}: padding_algorithm must be one of {list(PADDING_ALGORITHMS)}, "
                         f"got {algorithm!r}")


def _resolved(a, spatial, kernel) -> tuple:
    """(pads, dilation) of the conv attrs `a` (a dict) for an input of size `spatial`."""
    return resolve_pads(a["padding_algorithm"], a["padding"], spatial, kernel, a["stride"],
                        a["dilation"])


def _conv_attrs(ctx) -> dict:
    """The forward convolution attrs of a vjp context (older programs lack the algorithm)."""
    attrs = {k: getattr(ctx, k) for k in _CONV_ATTRS if k != "padding_algorithm"}
    attrs["padding_algorithm"] = getattr(ctx, "padding_algorithm", "EXPLICIT")
    return attrs


class _ConvBase(OpDef):
    """Shared infer/attr handling of conv{1,2,3}d and their transposes."""

    inputs = ("x", "weight", "bias?")
    check = True
    nd = 2
    formats = ("NCHW", "NHWC")

    def _attrs(self, given):
        return {**self.attrs, **{k: v for k, v in given.items() if v is not None}}

    def _common(self, x, w, bias, data_format, groups, transposed):
        api = self.name
        if data_format not in self.formats:
            raise ValueError(f"{api}: data_format must be one of {list(self.formats)}, got "
                             f"{data_format!r}")
        _check_rank(api, "x", x, self.nd + 2, f"batch, channels and {self.nd} spatial dims")
        _check_rank(api, "weight", w, self.nd + 2, "out/in channels and the kernel dims")
        named = [("x", x), ("weight", w)] + ([("bias", bias)] if bias is not None else [])
        _check_float(api, *named)
        if not isinstance(groups, int) or groups < 1:
            raise ValueError(f"{api}: groups must be a positive int, got {groups!r}")
        n, c, spatial = split_channels(x.shape, data_format)
        kernel = w.shape[2:]
        if transposed:
            out_c = -1 if w.shape[1] == -1 else w.shape[1] * groups
            if -1 not in (c, w.shape[0]) and c != w.shape[0]:
                raise ValueError(f"{api}: x has {c} channels (shape {list(x.shape)}, "
                                 f"data_format {data_format}) but weight (shape "
                                 f"{list(w.shape)}) expects {w.shape[0]} input channels")
        else:
            out_c = w.shape[0]
            if -1 not in (c, w.shape[1]) and c != w.shape[1] * groups:
                raise ValueError(f"{api}: x has {c} channels (shape {list(x.shape)}, "
                                 f"data_format {data_format}) but weight (shape "
                                 f"{list(w.shape)}) with groups={groups} expects "
                                 f"{w.shape[1] * groups}")
            if out_c != -1 and out_c % groups:
                raise ValueError(f"{api}: the number of filters (weight.shape[0] = {out_c}) "
                                 f"must be divisible by groups ({groups})")
        if c != -1 and c % groups:
            raise ValueError(f"{api}: the channels of x ({c}) must be divisible by groups "
                             f"({groups})")
        if bias is not None and (bias.ndim != 1 or -1 not in (bias.shape[0], out_c)
                                 and bias.shape[0] != out_c):
            raise ValueError(f"{api}: bias must be 1-D with {out_c} elements (the output "
                             f"channels), got shape {list(bias.shape)}")
        return n, out_c, spatial, kernel


class _Conv(_ConvBase):
    """N-d cross-correlation of x with weight [out_c, in_c / groups, *kernel] plus bias.

    padding is [before, after] per spatial dim, used when padding_algorithm is "EXPLICIT";
    "SAME" pads to ceil(in / stride) outputs (dilation 1) and "VALID" pads nothing, both
    resolved against the input's actual size. stride/dilation: one int per spatial dim.
    Gradients: x via _conv_input_grad (a transposed convolution sized like x), weight via
    _conv_weight_corr.
    """
    amp = "low"

    def onnx(self, b, node):
        return b.conv(node)

    def infer(self, x, weight, bias=None, **given):
        a = self._attrs(given)
        _check_algorithm(self.name, a["padding_algorithm"])
        n, out_c, spatial, kernel = self._common(x, weight, bias, a["data_format"],
                                                 a["groups"], False)
        pads, dilation = _resolved(a, spatial, kernel)
        out = []
        for i, (m, k) in enumerate(zip(spatial, kernel)):
            o = conv_out_len(m, k, a["stride"][i], pads[2 * i], pads[2 * i + 1], dilation[i])
            if m != -1 and k != -1 and o <= 0:
                raise ValueError(f"{self.name}: the (padded) input of spatial size "
                                 f"{list(spatial)} is smaller than the dilated kernel "
                                 f"{list(kernel)} (dilation {dilation}, padding {pads}); "
                                 f"the output would be empty")
            out.append(o)
        return TensorSpec(join_channels(n, out_c, out, a["data_format"]), x.dtype)

    def compute(self, xp, x, weight, bias=None, **given):
        if len(given) == 6 and given["padding_algorithm"] == "EXPLICIT" and \
                given["data_format"] in _CF_NAMES and None not in given.values():
            # the layers' and functional forms' canonical attrs (the batch-1 hot path)
            out = conv_array(xp, x, weight, given["stride"], given["padding"],
                             given["dilation"], given["groups"])
            return out if bias is None else add_bias(xp, out, bias)
        a = self._attrs(given)
        x = to_channels_first(xp, x, a["data_format"])
        pads, dilation = _resolved(a, x.shape[2:], weight.shape[2:])
        out = conv_array(xp, x, weight, a["stride"], pads, dilation, a["groups"])
        return from_channels_first(xp, add_bias(xp, out, bias), a["data_format"])

    def vjp(self, ctx, g):
        a = _conv_attrs(ctx)
        x, w = ctx.x, ctx.weight
        gx = gw = gb = None
        if ctx.needs[0]:
            gx = call("_conv_input_grad", g, w, x, **a)
        if ctx.needs[1]:
            fmt = a["data_format"]
            gw = call("_conv_weight_corr", _cf(x, fmt), _cf(g, fmt),
                      kernel_size=list(w.shape[2:]), stride=a["stride"], padding=a["padding"],
                      padding_algorithm=a["padding_algorithm"], dilation=a["dilation"],
                      groups=a["groups"])
        if len(ctx.needs) > 2 and ctx.needs[2]:
            gb = _bias_grad(g, a["data_format"])
        return gx, gw, gb


@register
class Conv2D(_Conv):
    name = "conv2d"
    attrs = {"stride": [1, 1], "padding": [0, 0, 0, 0], "padding_algorithm": "EXPLICIT",
             "dilation": [1, 1], "groups": 1, "data_format": "NCHW"}


@register
class Conv1D(_Conv):
    name = "conv1d"
    nd = 1
    formats = ("NCL", "NLC")
    attrs = {"stride": [1], "padding": [0, 0], "padding_algorithm": "EXPLICIT",
             "dilation": [1], "groups": 1, "data_format": "NCL"}


@register
class Conv3D(_Conv):
    name = "conv3d"
    nd = 3
    formats = ("NCDHW", "NDHWC")
    attrs = {"stride": [1, 1, 1], "padding": [0] * 6, "padding_algorithm": "EXPLICIT",
             "dilation": [1, 1, 1], "groups": 1, "data_format": "NCDHW"}


@register
class ConvInputGrad(OpDef):
    """The gradient of conv{1,2,3}d with respect to its input: the transposed convolution of
    dout [N, O, *out] (in `data_format`) with the convolution's weight [O, C / groups, *K],
    sized like x. The attrs are the convolution's; its padding_algorithm is resolved against
    x's actual spatial size, which is why x (read for its shape only) is an input: in a static
    Program x's spatial dims may be unknown (-1) until run time.

    Gradients (it is bilinear in dout and weight): dout via the convolution of the
    cotangent, weight via _conv_weight_corr of the cotangent and dout; none for x.
    """

    name = "_conv_input_grad"
    inputs = ("dout", "weight", "x")
    attrs = {"stride": None, "padding": None, "padding_algorithm": "EXPLICIT",
             "dilation": None, "groups": 1, "data_format": "NCHW"}
    check = True

    def infer(self, dout, weight, x, **a):
        api = self.name
        nd = x.ndim - 2
        if nd not in (1, 2, 3) or dout.ndim != x.ndim or weight.ndim != x.ndim:
            raise ValueError(f"{api}: dout, weight and x must have the same rank 3, 4 or 5, "
                             f"got shapes {list(dout.shape)}, {list(weight.shape)} and "
                             f"{list(x.shape)}")
        _check_float(api, ("dout", dout), ("weight", weight))
        _check_algorithm(api, a.get("padding_algorithm", "EXPLICIT"))
        fmt = a.get("data_format") or "NCHW"
        c, o = split_channels(x.shape, fmt)[1], split_channels(dout.shape, fmt)[1]
        if -1 not in (o, weight.shape[0]) and o != weight.shape[0]:
            raise ValueError(f"{api}: dout has {o} channels but weight (shape "
                             f"{list(weight.shape)}) has {weight.shape[0]} filters")
        if -1 not in (c, weight.shape[1]) and c != weight.shape[1] * a.get("groups", 1):
            raise ValueError(f"{api}: x has {c} channels but weight (shape "
                             f"{list(weight.shape)}) with groups={a.get('groups', 1)} expects "
                             f"{weight.shape[1] * a.get('groups', 1)}")
        a = {**self.attrs, **a}
        spatial, out = split_channels(x.shape, fmt)[2], split_channels(dout.shape, fmt)[2]
        pads, dilation = _resolved(a, spatial, weight.shape[2:])
        want = [conv_out_len(m, k, s, pads[2 * i], pads[2 * i + 1], d) for i, (m, k, s, d)
                in enumerate(zip(spatial, weight.shape[2:], a["stride"], dilation))]
        if any(-1 not in (w, o) and w != o for w, o in zip(want, out)):
            raise ValueError(f"{api}: dout spatial shape {list(out)} is not the convolution "
                             f"output size {want} of x {list(x.shape)}")
        return TensorSpec(x.shape, dout.dtype)

    def compute(self, xp, dout, weight, x, **given):
        a = {**self.attrs, **given}
        fmt = a["data_format"]
        size = list(split_channels(x.shape, fmt)[2])
        pads, dilation = _resolved(a, size, weight.shape[2:])
        out = conv_transpose_array(xp, to_channels_first(xp, dout, fmt), weight, size,
                                   a["stride"], pads, dilation, a["groups"])
        return from_channels_first(xp, out, fmt)

    def vjp(self, ctx, h):
        a = _conv_attrs(ctx)
        w, fmt = ctx.weight, a["data_format"]
        gd = gw = None
        if ctx.needs[0]:
            gd = call(f"conv{w.ndim - 2}d", h, w, None, **a)
        if ctx.needs[1]:
            gw = call("_conv_weight_corr", _cf(h, fmt), _cf(ctx.dout, fmt),
                      kernel_size=list(w.shape[2:]), stride=a["stride"], padding=a["padding"],
                      padding_algorithm=a["padding_algorithm"], dilation=a["dilation"],
                      groups=a["groups"])
        return gd, gw, None


class _ConvTranspose(_ConvBase):
    """Transposed convolution (the adjoint of conv2d in x) with weight [in_c, out_c / groups,
    *kernel] plus bias. output_size (one int per spatial dim) overrides the natural size
    (in - 1) * stride - pad_before - pad_after + dilation * (k - 1) + 1 + output_padding.
    padding_algorithm "SAME" / "VALID" is resolved against the input's actual size (Paddle's
    rule: SAME pads as a stride-`stride` convolution of the input would, dilation 1).

    Gradients: x via a convolution of the cotangent, weight via _conv_weight_corr.
    """
    amp = "low"

    def onnx(self, b, node):
        return b.conv(node, transposed=True)

    def _size(self, spatial, kernel, a):
        if a["output_size"] is not None:
            return list(a["output_size"])
        pads, dilation = _resolved(a, spatial, kernel)
        return [transpose_out_len(m, k, a["stride"][i], pads[2 * i], pads[2 * i + 1],
                                  dilation[i], a["output_padding"][i])
                for i, (m, k) in enumerate(zip(spatial, kernel))]

    def infer(self, x, weight, bias=None, **given):
        a = self._attrs(given)
        _check_algorithm(self.name, a["padding_algorithm"])
        n, out_c, spatial, kernel = self._common(x, weight, bias, a["data_format"],
                                                 a["groups"], True)
        size = self._size(spatial, kernel, a)
        if any(s != -1 and s <= 0 for s in size):
            raise ValueError(f"{self.name}: the output size {size} must be positive (input "
                             f"spatial size {list(spatial)}, kernel {list(kernel)})")
        return TensorSpec(join_channels(n, out_c, size, a["data_format"]), x.dtype)

    def compute(self, xp, x, weight, bias=None, **given):
        if len(given) == 6 and given["padding_algorithm"] == "EXPLICIT" and \
                given["data_format"] in _CF_NAMES and None not in given.values():
            # the layers' and functional forms' canonical attrs (the batch-1 hot path)
            out = conv_array(xp, x, weight, given["stride"], given["padding"],
                             given["dilation"], given["groups"])
            return out if bias is None else add_bias(xp, out, bias)
        a = self._attrs(given)
        x = to_channels_first(xp, x, a["data_format"])
        size = self._size(x.shape[2:], weight.shape[2:], a)
        pads, dilation = _resolved(a, x.shape[2:], weight.shape[2:])
        out = conv_transpose_array(xp, x, weight, size, a["stride"], pads, dilation,
                                   a["groups"])
        return from_channels_first(xp, add_bias(xp, out, bias), a["data_format"])

    def vjp(self, ctx, g):
        a = self._attrs({k: v for k, v in ctx.attrs.items() if k in self.attrs})
        x, w = ctx.x, ctx.weight
        gx = gw = gb = None
        g_cf = _cf(g, a["data_format"])
        inp = split_channels(x.shape, a["data_format"])[2]
        if a["padding_algorithm"] == "SAME" and -1 in inp:
            raise ValueError(f"{self.name}: the gradient of padding='SAME' needs the input's "
                             f"spatial size when the program is built, got shape "
                             f"{list(x.shape)}")
        pads, dilation = _resolved(a, inp, w.shape[2:])
        pads = fit_pads(g_cf.shape[2:], inp, w.shape[2:], a["stride"], pads, dilation)
        if ctx.needs[0]:
            gx = call(self.name[:-len("_transpose")], g, w, None, stride=a["stride"],
                      padding=pads, padding_algorithm="EXPLICIT", dilation=dilation,
                      groups=a["groups"], data_format=a["data_format"])
        if ctx.needs[1]:
            gw = call("_conv_weight_corr", g_cf, _cf(x, a["data_format"]),
                      kernel_size=list(w.shape[2:]), stride=a["stride"], padding=pads,
                      padding_algorithm="EXPLICIT", dilation=dilation, groups=a["groups"])
        if len(ctx.needs) > 2 and ctx.needs[2]:
            gb = _bias_grad(g, a["data_format"])
        return gx, gw, gb


@register
class Conv2DTranspose(_ConvTranspose):
    name = "conv2d_transpose"
    attrs = {"stride": [1, 1], "padding": [0, 0, 0, 0], "padding_algorithm": "EXPLICIT",
             "output_padding": [0, 0], "dilation": [1, 1], "groups": 1,
             "data_format": "NCHW", "output_size": None}


@register
class Conv1DTranspose(_ConvTranspose):
    name = "conv1d_transpose"
    nd = 1
    formats = ("NCL", "NLC")
    attrs = {"stride": [1], "padding": [0, 0], "padding_algorithm": "EXPLICIT",
             "output_padding": [0], "dilation": [1], "groups": 1, "data_format": "NCL",
             "output_size": None}


@register
class Conv3DTranspose(_ConvTranspose):
    name = "conv3d_transpose"
    nd = 3
    formats = ("NCDHW", "NDHWC")
    attrs = {"stride": [1, 1, 1], "padding": [0] * 6, "padding_algorithm": "EXPLICIT",
             "output_padding": [0, 0, 0], "dilation": [1, 1, 1], "groups": 1,
             "data_format": "NCDHW", "output_size": None}


@register
class ConvWeightCorr(OpDef):
    """Weight-shaped correlation of a channels-first input x [N, C, *S] with a cotangent
    dout [N, A, *out] of conv(x, w): out[a, c, k] = sum over n and output positions q of
    dout[n, g*A/G + a', q] * x_padded[n, g*C/G + c, q * stride + k * dilation] (grouped like
    the convolution); i.e. the gradient of conv(x, w) with respect to w. padding_algorithm
    is resolved against x's actual size; trailing rows of x that no position of dout reads
    are cropped (so dout may be shorter than the convolution's output by less than a
    stride; padding may be negative). Stride-1 ungrouped cases run as shifted GEMMs, the
    others as im2col + matmul.

    Gradients (it is bilinear): x via _conv_input_grad(dout, cotangent), dout via
    conv(x, cotangent).
    """

    name = "_conv_weight_corr"
    inputs = ("x", "dout")
    attrs = {"kernel_size": None, "stride": None, "padding": None,
             "padding_algorithm": "EXPLICIT", "dilation": None, "groups": 1}
    check = True

    def _pads(self, x_spatial, d_spatial, a) -> tuple:
        pads, dilation = resolve_pads(a["padding_algorithm"], a["padding"], x_spatial,
                                      a["kernel_size"], a["stride"], a["dilation"])
        return fit_pads(x_spatial, d_spatial, a["kernel_size"], a["stride"], pads,
                        dilation), dilation

    def infer(self, x, dout, **given):
        a = {**self.attrs, **given}
        api = self.name
        nd = x.ndim - 2
        if nd not in (1, 2, 3) or dout.ndim != x.ndim:
            raise ValueError(f"{api}: x and dout must both be 3-D, 4-D or 5-D, got shapes "
                             f"{list(x.shape)} and {list(dout.shape)}")
        _check_float(api, ("x", x), ("dout", dout))
        _check_algorithm(api, a["padding_algorithm"])
        for arg, n in (("kernel_size", nd), ("stride", nd), ("padding", 2 * nd),
                       ("dilation", nd)):
            if a[arg] is None or len(a[arg]) != n:
                raise ValueError(f"{api}: {arg} must have {n} entries, got {a[arg]}")
        c, ch = x.shape[1], dout.shape[1]
        for arg, v in (("x channels", c), ("dout channels", ch)):
            if v != -1 and v % a["groups"]:
                raise ValueError(f"{api}: {arg} ({v}) must be divisible by groups "
                                 f"({a['groups']})")
        pads, dilation = self._pads(x.shape[2:], dout.shape[2:], a)
        for i, (m, o) in enumerate(zip(x.shape[2:], dout.shape[2:])):
            want = conv_out_len(m, a["kernel_size"][i], a["stride"][i], pads[2 * i],
                                pads[2 * i + 1], dilation[i])
            if -1 not in (m, o) and want != o:
                raise ValueError(f"{api}: dout spatial shape {list(dout.shape[2:])} does not "
                                 f"match the convolution output size of x {list(x.shape)} "
                                 f"(dim {i}: {want})")
        shape = (ch, -1 if c == -1 else c // a["groups"]) + tuple(a["kernel_size"])
        return TensorSpec(shape, x.dtype)

    def compute(self, xp, x, dout, **given):
        a = {**self.attrs, **given}
        pads, dilation = self._pads(x.shape[2:], dout.shape[2:], a)
        return weight_corr_array(xp, x, dout, a["kernel_size"], a["stride"], pads, dilation,
                                 a["groups"])

    def vjp(self, ctx, h):
        a = {k: getattr(ctx, k, v) for k, v in self.attrs.items()}
        fmt = _CF_FORMATS[len(a["kernel_size"])]
        x, dout = ctx.x, ctx.dout
        conv = {"stride": a["stride"], "padding": a["padding"],
                "padding_algorithm": a["padding_algorithm"], "dilation": a["dilation"],
                "groups": a["groups"], "data_format": fmt}
        if -1 not in tuple(x.shape[2:]) + tuple(dout.shape[2:]):  # crop rows dout skips
            pads, dilation = self._pads(x.shape[2:], dout.shape[2:], a)
            conv.update(padding=pads, padding_algorithm="EXPLICIT", dilation=dilation)
        gx = gd = None
        if ctx.needs[0]:
            gx = call("_conv_input_grad", dout, h, x, **conv)
        if ctx.needs[1]:
            gd = call(f"conv{len(a['kernel_size'])}d", x, h, None, **conv)
        return gx, gd

    @staticmethod
    def decompose(x, dout, kernel_size=None, stride=None, padding=None,
                  padding_algorithm="EXPLICIT", dilation=None, groups=1):
        pads, dilation = resolve_pads(padding_algorithm, padding, x.shape[2:], kernel_size,
                                      stride, dilation)
        pads = fit_pads(x.shape[2:], dout.shape[2:], kernel_size, stride, pads, dilation)
        return weight_grad(x, dout, kernel_size, stride, pads, dilation, groups)


from . import nn_fold  # noqa: E402,F401  (registers im2col and fold)
