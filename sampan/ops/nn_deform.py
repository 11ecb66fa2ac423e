"""deform_conv2d (deformable convolution v1, and v2 with a mask) as a composite of primitive
ops (bilinear gathers + matmul): gradients for x, offset, mask, weight and bias, static
Programs and to_static come from the primitives. Shared by paddle.vision.ops.deform_conv2d
and paddle.static.nn.deform_conv2d. Imports `ops.dispatch` and NumPy (index constants) only.

The batch dimension may be unknown (-1) while building a Program: every reshape copies it
with 0 instead of naming it.
"""
from __future__ import annotations

import numpy as np

from .dispatch import call

API = "deform_conv2d"


def pair(api: str, arg: str, value) -> tuple:
    """(a, b) from an int or a pair of ints; TypeError naming `api` and `arg` otherwise."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return int(value), int(value)
    if isinstance(value, (list, tuple)) and len(value) == 2:
        return int(value[0]), int(value[1])
    raise TypeError(f"{api}: {arg} must be an int or a pair of ints, got {value!r}")


def _check(api, x, offset, weight, mask, dg: int, groups: int, out_hw: tuple) -> None:
    for arg, t in (("x", x), ("offset", offset), ("weight", weight)):
        if t.ndim != 4:
            raise ValueError(f"{api}: {arg} must be 4-D, got shape {list(t.shape)}")
    c, k = x.shape[1], weight.shape[2] * weight.shape[3]
    if groups < 1 or c % groups or weight.shape[0] % groups or weight.shape[1] * groups != c:
        raise ValueError(f"{api}: weight {list(weight.shape)} does not fit x with {c} channels "
                         f"and groups={groups}")
    if dg < 1 or c % dg:
        raise ValueError(f"{api}: channels of x ({c}) must divide by deformable_groups ({dg})")
    if min(out_hw) < 1:
        raise ValueError(f"{api}: the output would be empty ({list(out_hw)}) for x "
                         f"{list(x.shape)} and kernel {list(weight.shape[2:])}")
    want = [x.shape[0], 2 * dg * k, *out_hw]
    if not _fits(offset.shape, want):
        raise ValueError(f"{api}: offset must have shape {want}, got {list(offset.shape)}")
    if mask is not None and not _fits(mask.shape, [want[0], dg * k, *out_hw]):
        raise ValueError(f"{api}: mask must have shape {[want[0], dg * k, *out_hw]}, got "
                         f"{list(mask.shape)}")


def _fits(shape, want) -> bool:
    """Shapes agree, an unknown (-1) batch dim matching anything."""
    return len(shape) == len(want) and all(
        a == b or (i == 0 and -1 in (a, b)) for i, (a, b) in enumerate(zip(shape, want)))


def _base_grid(kh, kw, oh, ow, stride, padding, dilation) -> tuple:
    """Undeformed sampling rows/cols [K, oh*ow] of every kernel tap."""
    i, j = np.meshgrid(np.arange(kh), np.arange(kw), indexing="ij")
    oy, ox = np.meshgrid(np.arange(oh), np.arange(ow), indexing="ij")
    rows = oy.ravel()[None, :] * stride[0] - padding[0] + i.ravel()[:, None] * dilation[0]
    cols = ox.ravel()[None, :] * stride[1] - padding[1] + j.ravel()[:, None] * dilation[1]
    return rows, cols


def _and(*conds):
    out = conds[0]
    for c in conds[1:]:
        out = call("logical_and", out, c)
    return out


def _sample(x, py, px, dg: int):
    """Bilinear samples of x [N, C, H, W] at py/px [N, dg, L] (zero outside), [N, C, L]."""
    _, c, h, w = x.shape
    dtype = x.dtype.name
    xg = call("reshape", x, shape=[0, dg, c // dg, h * w])
    valid = call("cast", _and(py > -1.0, py < float(h), px > -1.0, px < float(w)), dtype=dtype)
    y0, x0 = call("floor", py), call("floor", px)
    ly, lx = py - y0, px - x0
    zero, hmax, wmax = (np.asarray(v, dtype=x.dtype.np) for v in (0, h - 1, w - 1))
    out = None
    for dy, wy in ((0, 1.0 - ly), (1, ly)):
        for dx, wx in ((0, 1.0 - lx), (1, lx)):
            yy, xx = y0 + float(dy), x0 + float(dx)
            inside = _and(yy >= 0.0, yy <= float(h - 1), xx >= 0.0, xx <= float(w - 1))
            flat = call("clip", yy, zero, hmax) * float(w) + call("clip", xx, zero, wmax)
            idx = call("unsqueeze", call("cast", flat, dtype="int64"), axis=[2])
            idx = call("expand", idx, shape=[-1, dg, c // dg, -1])
            vals = call("take_along_axis", xg, idx, axis=3)  # [N, dg, C/dg, L]
            tap = wy * wx * call("cast", inside, dtype=dtype) * valid
            term = vals * call("unsqueeze", tap, axis=[2])
            out = term if out is None else out + term
    return call("reshape", out, shape=[0, c, -1])


def deform_conv2d(x, offset, weight, bias=None, stride=1, padding=0, dilation=1,
                  deformable_groups: int = 1, groups: int = 1, mask=None, api: str = API):
    """out [N, Cout, OH, OW]: each kernel tap samples x at its position plus a learned offset
    (bilinear, zero outside), optionally scaled by `mask` (DCN v2), then a grouped matmul
    with `weight` plus `bias`. See paddle.vision.ops.deform_conv2d for the arguments."""
    stride, padding = pair(api, "stride", stride), pair(api, "padding", padding)
    dilation = pair(api, "dilation", dilation)
    _, c, h, w = x.shape
    cout, _, kh, kw = weight.shape
    oh = (h + 2 * padding[0] - dilation[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (w + 2 * padding[1] - dilation[1] * (kw - 1) - 1) // stride[1] + 1
    _check(api, x, offset, weight, mask, deformable_groups, groups, (oh, ow))
    k, dg, length = kh * kw, deformable_groups, oh * ow
    rows, cols = _base_grid(kh, kw, oh, ow, stride, padding, dilation)
    off = call("reshape", offset, shape=[0, dg, k, 2, length])
    dy, dx = call("split", off, num_or_sections=2, axis=3)
    py = call("reshape", dy, shape=[0, dg, k, length]) + rows.astype(x.dtype.np)
    px = call("reshape", dx, shape=[0, dg, k, length]) + cols.astype(x.dtype.np)
    sampled = _sample(x, call("reshape", py, shape=[0, dg, k * length]),
                      call("reshape", px, shape=[0, dg, k * length]), dg)
    sampled = call("reshape", sampled, shape=[0, dg, c // dg, k, length])
    if mask is not None:
        m = call("reshape", mask, shape=[0, dg, k, length])
        sampled = sampled * call("unsqueeze", m, axis=[2])
    sampled = call("reshape", sampled, shape=[0, groups, c // groups * k, length])
    wmat = call("reshape", weight, shape=[groups, cout // groups, c // groups * k])
    out = call("reshape", call("matmul", wmat, sampled), shape=[0, cout, oh, ow])
    if bias is not None:
        out = out + call("reshape", bias, shape=[1, cout, 1, 1])
    return out
