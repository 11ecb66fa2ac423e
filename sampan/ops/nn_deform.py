"""deform_conv2d (deformable convolution v1, and v2 with a mask) as a composite of primitive
ops (bilinear gathers + matmul): gradients for x, offset, mask, weight and bias, static
Programs and to_static come from the primitives. Shared by paddle.vision.ops.deform_conv2d
and paddle.static.nn.deform_conv2d. Imports `ops.dispatch` and NumPy (index constants) only.

The batch dimension may be unknown (-1) while building a Program: every reshape copies it
with 0 instead of naming it. Unknown spatial sizes are read when the Program runs: H and W
from a `shape` op, the undeformed sampling grid from cumulative sums over offset's positions.
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
    if -1 not in out_hw and min(out_hw) < 1:
        raise ValueError(f"{api}: the output would be empty ({list(out_hw)}) for x "
                         f"{list(x.shape)} and kernel {list(weight.shape[2:])}")
    want = [x.shape[0], 2 * dg * k, *out_hw]
    if not _fits(offset.shape, want):
        raise ValueError(f"{api}: offset must have shape {want}, got {list(offset.shape)}")
    if mask is not None and not _fits(mask.shape, [want[0], dg * k, *out_hw]):
        raise ValueError(f"{api}: mask must have shape {[want[0], dg * k, *out_hw]}, got "
                         f"{list(mask.shape)}")


def _fits(shape, want) -> bool:
    """Shapes agree, an unknown (-1) dim matching anything."""
    return len(shape) == len(want) and all(a == b or -1 in (a, b) for a, b in zip(shape, want))


def _extent(x) -> tuple:
    """H and W of x [N, C, H, W]: Python floats, or 1-element tensors read at run time when a
    Program being built does not know them."""
    h, w = x.shape[2:]
    if -1 not in (h, w):
        return float(h), float(w)
    dims = call("cast", call("shape", x), dtype=x.dtype.name)
    parts = call("split", dims, num_or_sections=4, axis=0)
    return parts[2], parts[3]


def _base_grid(kh, kw, oh, ow, stride, padding, dilation) -> tuple:
    """Undeformed sampling rows/cols [K, oh*ow] of every kernel tap (known output size)."""
    i, j = np.meshgrid(np.arange(kh), np.arange(kw), indexing="ij")
    oy, ox = np.meshgrid(np.arange(oh), np.arange(ow), indexing="ij")
    rows = oy.ravel()[None, :] * stride[0] - padding[0] + i.ravel()[:, None] * dilation[0]
    cols = ox.ravel()[None, :] * stride[1] - padding[1] + j.ravel()[:, None] * dilation[1]
    return rows, cols


def _run_grid(offset, kh, kw, stride, padding, dilation) -> tuple:
    """Undeformed sampling rows/cols [N, 1, K, OH*OW] from offset [N, 2*dg*K, OH, OW], whose
    output size is known only when the Program runs."""
    one = call("full_like", call("sum", offset, axis=[1], keepdim=True, dtype=None),
               fill_value=1.0, dtype=None)
    i, j = np.meshgrid(np.arange(kh), np.arange(kw), indexing="ij")
    grids = []
    for ax, tap, s, p, d in ((2, i, stride[0], padding[0], dilation[0]),
                             (3, j, stride[1], padding[1], dilation[1])):
        pos = call("cumsum", one, axis=ax, dtype=None, exclusive=True, reverse=False)
        shift = (tap.reshape(1, 1, -1, 1) * d - p).astype(offset.dtype.np)
        grids.append(call("reshape", pos, shape=[0, 1, 1, -1]) * float(s) + shift)
    return tuple(grids)


def _and(*conds):
    out = conds[0]
    for c in conds[1:]:
        out = call("logical_and", out, c)
    return out


def _sample(x, py, px, dg: int):
    """Bilinear samples of x [N, C, H, W] at py/px [N, dg, L] (zero outside), [N, C, L]."""
    c = x.shape[1]
    h, w = _extent(x)
    dtype = x.dtype.name
    xg = call("reshape", x, shape=[0, dg, c // dg, -1])
    valid = call("cast", _and(py > -1.0, py < h, px > -1.0, px < w), dtype=dtype)
    y0, x0 = call("floor", py), call("floor", px)
    ly, lx = py - y0, px - x0
    hmax, wmax = h - 1.0, w - 1.0
    zero, hclip, wclip = (np.asarray(v, dtype=x.dtype.np) if isinstance(v, float) else v
                          for v in (0.0, hmax, wmax))
    out = None
    for dy, wy in ((0, 1.0 - ly), (1, ly)):
        for dx, wx in ((0, 1.0 - lx), (1, lx)):
            yy, xx = y0 + float(dy), x0 + float(dx)
            inside = _and(yy >= 0.0, yy <= hmax, xx >= 0.0, xx <= wmax)
            flat = call("clip", yy, zero, hclip) * w + call("clip", xx, zero, wclip)
            idx = call("unsqueeze", call("cast", flat, dtype="int64"), axis=[2])
            idx = call("expand", idx, shape=[-1, dg, c // dg, -1])
            vals = call("take_along_axis", xg, idx, axis=3)  # [N, dg, C/dg, L]
            tap = wy * wx * call("cast", inside, dtype=dtype) * valid
            term = vals * call("unsqueeze", tap, axis=[2])
            out = term if out is None else out + term
    return call("reshape", out, shape=[0, c, -1])


def _out_size(x, offset, kernel, stride, padding, dilation) -> tuple:
    """(OH, OW) from x's size, else offset's (-1 where neither is known while building)."""
    out = []
    for d in range(2):
        size = x.shape[2 + d]
        out.append(offset.shape[2 + d] if size == -1 else
                   (size + 2 * padding[d] - dilation[d] * (kernel[d] - 1) - 1) // stride[d] + 1)
    return tuple(out)


def deform_conv2d(x, offset, weight, bias=None, stride=1, padding=0, dilation=1,
                  deformable_groups: int = 1, groups: int = 1, mask=None, api: str = API):
    """out [N, Cout, OH, OW]: each kernel tap samples x at its position plus a learned offset
    (bilinear, zero outside), optionally scaled by `mask` (DCN v2), then a grouped matmul
    with `weight` plus `bias`. See paddle.vision.ops.deform_conv2d for the arguments."""
    stride, padding = pair(api, "stride", stride), pair(api, "padding", padding)
    dilation = pair(api, "dilation", dilation)
    c, cout, (kh, kw) = x.shape[1], weight.shape[0], weight.shape[2:]
    oh, ow = _out_size(x, offset, (kh, kw), stride, padding, dilation)
    _check(api, x, offset, weight, mask, deformable_groups, groups, (oh, ow))
    k, dg = kh * kw, deformable_groups
    if -1 in (oh, ow):
        rows, cols = _run_grid(offset, kh, kw, stride, padding, dilation)
    else:
        rows, cols = (g.astype(x.dtype.np)
                      for g in _base_grid(kh, kw, oh, ow, stride, padding, dilation))
    off = call("reshape", offset, shape=[0, dg, k, 2, -1])
    dy, dx = call("split", off, num_or_sections=2, axis=3)
    py = call("reshape", dy, shape=[0, dg, k, -1]) + rows
    px = call("reshape", dx, shape=[0, dg, k, -1]) + cols
    sampled = _sample(x, call("reshape", py, shape=[0, dg, -1]),
                      call("reshape", px, shape=[0, dg, -1]), dg)
    sampled = call("reshape", sampled, shape=[0, dg, c // dg, k, -1])
    if mask is not None:
        m = call("reshape", mask, shape=[0, dg, k, -1])
        sampled = sampled * call("unsqueeze", m, axis=[2])
    sampled = call("reshape", sampled, shape=[0, groups, c // groups * k, -1])
    wmat = call("reshape", weight, shape=[groups, cout // groups, c // groups * k])
    out = call("matmul", wmat, sampled)
    if -1 in (oh, ow):  # [N, Cout, OH*OW] -> offset's OH, OW when the Program runs
        hw = call("split", call("shape", offset), num_or_sections=2, axis=0)[1]
        out = call("_reshape_dims", out, [hw], shape=[0, cout, -1, -1], slots=[2, 3])
    else:
        out = call("reshape", out, shape=[0, cout, oh, ow])
    if bias is not None:
        out = out + call("reshape", bias, shape=[1, cout, 1, 1])
    return out
