"""Region-of-interest operators: roi_align, roi_pool and psroi_pool (Paddle's
paddle.vision.ops kernels) with their input gradients as ops of their own.

Each forward is a per-ROI map from the feature map x [N, C, H, W] to [R, C', ph, pw] fixed
by the boxes (and, for roi_pool, by the argmax it records): `_roi_*_grad` applies the
transposed map to the output gradient. roi_align and psroi_pool are linear in x, so the
gradient op's own vjp is the forward again. Boxes get no gradient (as in Paddle).
Imports `framework`, `ops.opdef` and `ops.dispatch` only.
"""
from __future__ import annotations

import math

from ..framework import dtype as _dt
from .dispatch import call
from .opdef import OpDef, TensorSpec, register

_ROI_ATTRS = {"pooled_height": 1, "pooled_width": 1, "spatial_scale": 1.0}


def _check(api: str, x, boxes, boxes_num) -> None:
    if x.ndim != 4:
        raise ValueError(f"{api}: x must be a 4-D NCHW tensor, got shape {list(x.shape)}")
    if boxes.ndim != 2 or boxes.shape[1] not in (4, -1):
        raise ValueError(f"{api}: boxes must be [num_boxes, 4], got shape {list(boxes.shape)}")
    if boxes_num.ndim != 1 or boxes_num.dtype.kind not in "iu":
        raise ValueError(f"{api}: boxes_num must be a 1-D int tensor (boxes per image), got "
                         f"shape {list(boxes_num.shape)} and dtype {boxes_num.dtype.name}")
    if x.dtype.kind != "f" or boxes.dtype is not x.dtype:
        raise TypeError(f"{api}: x and boxes must share a floating point dtype, got "
                        f"{x.dtype.name} and {boxes.dtype.name}")


def _batch_of(xp, boxes_num, n_boxes: int, n_images: int, api: str):
    counts = [int(c) for c in boxes_num]
    if len(counts) != n_images or sum(counts) != n_boxes:
        raise ValueError(f"{api}: boxes_num {counts} must have one count per image "
                         f"({n_images}) summing to the number of boxes ({n_boxes})")
    return xp.repeat(xp.arange(n_images), counts)


def _bilinear_taps(xp, y, x, h: int, w: int):
    """Flat indices [..., 4] and weights [..., 4] of Paddle's roi_align bilinear sample."""
    outside = (y < -1.0) | (y > h) | (x < -1.0) | (x > w)
    y = xp.maximum(y, 0.0)
    x = xp.maximum(x, 0.0)
    y0 = xp.floor(y).astype(xp.int64)
    x0 = xp.floor(x).astype(xp.int64)
    ytop, xtop = y0 >= h - 1, x0 >= w - 1
    y0 = xp.where(ytop, h - 1, y0)
    x0 = xp.where(xtop, w - 1, x0)
    y1 = xp.where(ytop, h - 1, y0 + 1)
    x1 = xp.where(xtop, w - 1, x0 + 1)
    ly = xp.where(ytop, 0.0, y - y0)
    lx = xp.where(xtop, 0.0, x - x0)
    hy, hx = 1.0 - ly, 1.0 - lx
    idx = xp.stack([y0 * w + x0, y0 * w + x1, y1 * w + x0, y1 * w + x1], axis=-1)
    wt = xp.stack([hy * hx, hy * lx, ly * hx, ly * lx], axis=-1) * (~outside)[..., None]
    return idx, wt


def _align_map(xp, box, h: int, w: int, a: dict):
    """(flat indices [ph, pw, K], weights [ph, pw, K]) of one ROI for roi_align."""
    ph, pw, scale = a["pooled_height"], a["pooled_width"], a["spatial_scale"]
    t = box.dtype.type  # NOTE: Paddle's kernel works in the boxes' dtype (float32 ceil)
    x1, y1, x2, y2 = box * t(scale) - t(0.5 if a["aligned"] else 0.0)
    rw, rh = x2 - x1, y2 - y1
    if not a["aligned"]:
        rw, rh = max(rw, t(1.0)), max(rh, t(1.0))
    bh, bw = rh / t(ph), rw / t(pw)
    sr = a["sampling_ratio"]
    gh = sr if sr > 0 else max(int(math.ceil(rh / t(ph))), 1)
    gw = sr if sr > 0 else max(int(math.ceil(rw / t(pw))), 1)
    ys = y1 + xp.arange(ph, dtype=box.dtype)[:, None] * bh + \
        (xp.arange(gh, dtype=box.dtype)[None, :] + t(0.5)) * bh / t(gh)
    xs = x1 + xp.arange(pw, dtype=box.dtype)[:, None] * bw + \
        (xp.arange(gw, dtype=box.dtype)[None, :] + t(0.5)) * bw / t(gw)
    yy = xp.broadcast_to(ys[:, None, :, None], (ph, pw, gh, gw))
    xx = xp.broadcast_to(xs[None, :, None, :], (ph, pw, gh, gw))
    idx, wt = _bilinear_taps(xp, yy, xx, h, w)
    return idx.reshape(ph, pw, -1), wt.reshape(ph, pw, -1) / max(gh * gw, 1)


def _psroi_map(xp, box, h: int, w: int, a: dict):
    """(flat indices, weights) [ph, pw, K] of one ROI for psroi_pool (bin average)."""
    ph, pw, scale = a["pooled_height"], a["pooled_width"], a["spatial_scale"]
    rnd = [math.floor(float(v) + 0.5) if v >= 0 else -math.floor(-float(v) + 0.5) for v in box]
    x1, y1 = rnd[0] * scale, rnd[1] * scale
    x2, y2 = (rnd[2] + 1.0) * scale, (rnd[3] + 1.0) * scale
    bh, bw = max(y2 - y1, 0.1) / ph, max(x2 - x1, 0.1) / pw
    idx = [[None] * pw for _ in range(ph)]
    k = 1
    for i in range(ph):
        hs = min(max(int(math.floor(bh * i + y1)), 0), h)
        he = min(max(int(math.ceil(bh * (i + 1) + y1)), 0), h)
        for j in range(pw):
            ws = min(max(int(math.floor(bw * j + x1)), 0), w)
            we = min(max(int(math.ceil(bw * (j + 1) + x1)), 0), w)
            cells = (xp.arange(hs, he)[:, None] * w + xp.arange(ws, we)[None, :]).ravel()
            idx[i][j] = cells
            k = max(k, cells.size)
    flat = xp.zeros((ph, pw, k), dtype=xp.int64)
    wt = xp.zeros((ph, pw, k))
    for i in range(ph):
        for j in range(pw):
            cells = idx[i][j]
            flat[i, j, :cells.size] = cells
            wt[i, j, :cells.size] = 1.0 / cells.size if cells.size else 0.0
    return flat, wt


def _maps(xp, kind: str, boxes, h: int, w: int, a: dict) -> list:
    build = _align_map if kind == "align" else _psroi_map
    return [build(xp, box, h, w, a) for box in boxes]


def _apply(xp, x, boxes, boxes_num, kind: str, a: dict):
    n, c, h, w = x.shape
    batch = _batch_of(xp, boxes_num, boxes.shape[0], n, kind)
    ph, pw = a["pooled_height"], a["pooled_width"]
    oc = c // (ph * pw) if kind == "psroi" else c
    out = xp.zeros((boxes.shape[0], oc, ph, pw), dtype=x.dtype)
    flat = x.reshape(n, c, h * w)
    for r, (idx, wt) in enumerate(_maps(xp, kind, boxes, h, w, a)):
        vals = (flat[batch[r]][:, idx] * wt).sum(-1)  # [c, ph, pw]
        if kind == "psroi":  # output channel o, bin (i, j) reads channel (o*ph + i)*pw + j
            vals = vals.reshape(oc, ph, pw, ph, pw)
            vals = vals[:, xp.arange(ph)[:, None], xp.arange(pw)[None, :],
                        xp.arange(ph)[:, None], xp.arange(pw)[None, :]]
        out[r] = vals
    return out


def _apply_t(xp, x_shape, boxes, boxes_num, g, kind: str, a: dict):
    n, c, h, w = x_shape
    batch = _batch_of(xp, boxes_num, boxes.shape[0], n, kind)
    ph, pw = a["pooled_height"], a["pooled_width"]
    dx = xp.zeros((n, c, h * w), dtype=g.dtype)
    for r, (idx, wt) in enumerate(_maps(xp, kind, boxes, h, w, a)):
        if kind == "psroi":
            chans = xp.arange(c).reshape(-1, ph, pw)  # [oc, ph, pw] input channel per bin
            contrib = g[r][..., None] * wt  # [oc, ph, pw, K]
            xp.add.at(dx[batch[r]], (chans[..., None], xp.broadcast_to(idx, contrib.shape)),
                      contrib)
        else:
            contrib = g[r][..., None] * wt  # [c, ph, pw, K]
            xp.add.at(dx[batch[r]], (xp.arange(c)[:, None, None, None],
                                     xp.broadcast_to(idx, contrib.shape)), contrib)
    return dx.reshape(n, c, h, w)


def _out_spec(api: str, x, boxes, a: dict, channels=None) -> TensorSpec:
    ph, pw = a["pooled_height"], a["pooled_width"]
    if ph < 1 or pw < 1:
        raise ValueError(f"{api}: output_size must be positive, got {[ph, pw]}")
    return TensorSpec((boxes.shape[0], x.shape[1] if channels is None else channels, ph, pw),
                      x.dtype)


class _LinearRoi(OpDef):
    """Shared forward of roi_align / psroi_pool: linear in x for fixed boxes."""

    inputs = ("x", "boxes", "boxes_num")
    saves = ("x", "boxes", "boxes_num")
    check = True
    kind = ""

    def compute(self, xp, x, boxes, boxes_num, **a):
        return _apply(xp, x, boxes, boxes_num, self.kind, a)

    def vjp(self, ctx, g):
        dx = call(f"_{self.name}_grad", ctx.x, ctx.boxes, ctx.boxes_num, g, **ctx.attrs)
        return dx, None, None


class _LinearRoiGrad(OpDef):
    """The transposed map of a _LinearRoi op, applied to its output gradient g; x gives
    only the shape. Its own vjp (with respect to g) is the forward op."""

    inputs = ("x", "boxes", "boxes_num", "g")
    saves = ("x", "boxes", "boxes_num")
    kind = ""
    forward = ""

    def infer(self, x, boxes, boxes_num, g, **a):
        return x

    def compute(self, xp, x, boxes, boxes_num, g, **a):
        return _apply_t(xp, x.shape, boxes, boxes_num, g, self.kind, a).astype(x.dtype)

    def vjp(self, ctx, gg):
        out = call(self.forward, gg, ctx.boxes, ctx.boxes_num, **ctx.attrs)
        return None, None, None, out


@register
class RoiAlign(_LinearRoi):
    """RoIAlign (Mask R-CNN): the mean of bilinear samples on a sampling_ratio grid
    (adaptive ceil(roi_size / output_size) when <= 0) in each of pooled_height x
    pooled_width bins; aligned shifts boxes by -0.5 pixel. Gradient for x only."""

    name = "roi_align"
    kind = "align"
    attrs = dict(_ROI_ATTRS, sampling_ratio=-1, aligned=True)

    def infer(self, x, boxes, boxes_num, **a):
        _check(self.name, x, boxes, boxes_num)
        return _out_spec(self.name, x, boxes, a)


@register
class RoiAlignGrad(_LinearRoiGrad):
    """Input gradient of roi_align."""

    name = "_roi_align_grad"
    kind = "align"
    forward = "roi_align"
    attrs = RoiAlign.attrs


@register
class PsroiPool(_LinearRoi):
    """Position-sensitive RoI average pooling (R-FCN): output channel o of bin (i, j) averages
    input channel (o * ph + i) * pw + j over the bin; x has out_c * ph * pw channels."""

    name = "psroi_pool"
    kind = "psroi"
    attrs = dict(_ROI_ATTRS)

    def infer(self, x, boxes, boxes_num, **a):
        _check(self.name, x, boxes, boxes_num)
        ph, pw = a["pooled_height"], a["pooled_width"]
        if x.shape[1] != -1 and x.shape[1] % (ph * pw):
            raise ValueError(f"psroi_pool: the channels of x ({x.shape[1]}) must be a multiple "
                             f"of output_size[0] * output_size[1] = {ph * pw}")
        return _out_spec(self.name, x, boxes, a, -1 if x.shape[1] == -1
                         else x.shape[1] // (ph * pw))


@register
class PsroiPoolGrad(_LinearRoiGrad):
    """Input gradient of psroi_pool."""

    name = "_psroi_pool_grad"
    kind = "psroi"
    forward = "psroi_pool"
    attrs = PsroiPool.attrs


def _pool_bins(box, h: int, w: int, a: dict) -> list:
    """[(hs, he, ws, we)] per bin of one ROI for roi_pool (Paddle's rounding)."""
    ph, pw, scale = a["pooled_height"], a["pooled_width"], a["spatial_scale"]
    r = [math.floor(float(v) * scale + 0.5) if v >= 0 else -math.floor(-float(v) * scale + 0.5)
         for v in box]
    rh, rw = max(r[3] - r[1] + 1, 1), max(r[2] - r[0] + 1, 1)
    bh, bw = rh / ph, rw / pw
    bins = []
    for i in range(ph):
        hs = min(max(int(math.floor(i * bh)) + r[1], 0), h)
        he = min(max(int(math.ceil((i + 1) * bh)) + r[1], 0), h)
        for j in range(pw):
            ws = min(max(int(math.floor(j * bw)) + r[0], 0), w)
            we = min(max(int(math.ceil((j + 1) * bw)) + r[0], 0), w)
            bins.append((hs, he, ws, we))
    return bins


@register
class RoiPool(OpDef):
    """RoI max pooling (Fast R-CNN) over integer-rounded bins; empty bins give 0. Also
    returns the flat h*w argmax per output (-1 for empty bins), which the gradient uses."""

    name = "roi_pool"
    inputs = ("x", "boxes", "boxes_num")
    outputs = ("out", "argmax")
    attrs = dict(_ROI_ATTRS)
    saves = ("x", "boxes", "boxes_num", "argmax")
    nondiff_outputs = (1,)
    check = True

    def infer(self, x, boxes, boxes_num, **a):
        _check(self.name, x, boxes, boxes_num)
        out = _out_spec(self.name, x, boxes, a)
        return out, out.with_dtype(_dt.int64)

    def compute(self, xp, x, boxes, boxes_num, **a):
        n, c, h, w = x.shape
        batch = _batch_of(xp, boxes_num, boxes.shape[0], n, self.name)
        ph, pw = a["pooled_height"], a["pooled_width"]
        out = xp.zeros((boxes.shape[0], c, ph * pw), dtype=x.dtype)
        arg = xp.full((boxes.shape[0], c, ph * pw), -1, dtype=xp.int64)
        for r, box in enumerate(boxes):
            for k, (hs, he, ws, we) in enumerate(_pool_bins(box, h, w, a)):
                if he <= hs or we <= ws:
                    continue
                win = x[batch[r], :, hs:he, ws:we].reshape(c, -1)
                pos = win.argmax(axis=1)
                out[r, :, k] = win[xp.arange(c), pos]
                arg[r, :, k] = (hs + pos // (we - ws)) * w + ws + pos % (we - ws)
        return out.reshape(-1, c, ph, pw), arg.reshape(-1, c, ph, pw)

    def vjp(self, ctx, g, g_arg=None):
        dx = call("_roi_pool_grad", ctx.x, ctx.argmax, ctx.boxes_num, g)
        return dx, None, None


@register
class RoiPoolGrad(OpDef):
    """Input gradient of roi_pool: each output gradient goes to its argmax position."""

    name = "_roi_pool_grad"
    inputs = ("x", "argmax", "boxes_num", "g")
    saves = ("x", "argmax", "boxes_num")

    def infer(self, x, argmax, boxes_num, g):
        return x

    def compute(self, xp, x, argmax, boxes_num, g):
        n, c, h, w = x.shape
        batch = _batch_of(xp, boxes_num, argmax.shape[0], n, "roi_pool")
        dx = xp.zeros((n, c, h * w), dtype=x.dtype)
        r, ch, i, j = xp.nonzero(argmax >= 0)
        xp.add.at(dx, (batch[r], ch, argmax[r, ch, i, j]), g[r, ch, i, j])
        return dx.reshape(x.shape)
