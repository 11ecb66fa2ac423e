"""The target assignment of yolo_loss (YOLOv3), as a kernel op without gradient.

yolo_loss itself is a composite in sampan/vision/_ops/yolo.py: this op turns the ground
truth (and the predictions, for the ignore mask) into per-element weights and targets, and
the loss is then written in differentiable sampan ops of x. Sigmoid cross-entropy is affine
in its target, so all its terms on one element merge into (sum of weights, sum of weight *
target); the L1 terms (box width/height) are returned as a sparse list instead.
Imports `framework` and `ops.opdef` only.
"""
from __future__ import annotations

import math

from ..framework import dtype as _dt
from .opdef import OpDef, TensorSpec, register


def _iou_center(a, b) -> float:
    """IoU of two (cx, cy, w, h) boxes."""
    ow = min(a[0] + a[2] / 2, b[0] + b[2] / 2) - max(a[0] - a[2] / 2, b[0] - b[2] / 2)
    oh = min(a[1] + a[3] / 2, b[1] + b[3] / 2) - max(a[1] - a[3] / 2, b[1] - b[3] / 2)
    inter = max(ow, 0.0) * max(oh, 0.0)
    union = a[2] * a[3] + b[2] * b[3] - inter
    return inter / union if union > 0 else 0.0


def _ignore_mask(xp, x, gt, anchors, mask, a: dict):
    """obj weight per [N, M, H, W]: -1 (ignored) where a predicted box overlaps a ground
    truth by more than ignore_thresh, else 0."""
    n, m, _, h, w = x.shape
    sig = 1.0 / (1.0 + xp.exp(-x[:, :, :4]))
    scale, bias = a["scale_x_y"], -0.5 * (a["scale_x_y"] - 1.0)
    size = a["downsample_ratio"] * h
    aw = xp.asarray([anchors[2 * i] for i in mask], dtype=xp.float64)[None, :, None, None]
    ah = xp.asarray([anchors[2 * i + 1] for i in mask], dtype=xp.float64)[None, :, None, None]
    px = (xp.arange(w)[None, None, None, :] + sig[:, :, 0] * scale + bias) / h
    py = (xp.arange(h)[None, None, :, None] + sig[:, :, 1] * scale + bias) / h
    pw = xp.exp(x[:, :, 2]) * aw / size
    ph = xp.exp(x[:, :, 3]) * ah / size
    best = xp.zeros((n, m, h, w))
    for b in range(gt.shape[1]):
        g = gt[:, b]  # [N, 4]
        ow = xp.minimum(px + pw / 2, (g[:, 0] + g[:, 2] / 2)[:, None, None, None]) - \
            xp.maximum(px - pw / 2, (g[:, 0] - g[:, 2] / 2)[:, None, None, None])
        oh = xp.minimum(py + ph / 2, (g[:, 1] + g[:, 3] / 2)[:, None, None, None]) - \
            xp.maximum(py - ph / 2, (g[:, 1] - g[:, 3] / 2)[:, None, None, None])
        inter = xp.clip(ow, 0, None) * xp.clip(oh, 0, None)
        union = pw * ph + (g[:, 2] * g[:, 3])[:, None, None, None] - inter
        iou = xp.where(union > 0, inter / xp.where(union > 0, union, 1), 0)
        valid = ((g[:, 2] > 0) & (g[:, 3] > 0))[:, None, None, None]
        best = xp.maximum(best, xp.where(valid, iou, 0))
    return xp.where(best > a["ignore_thresh"], -1.0, 0.0)


def _match(gt_wh, anchors) -> int:
    """The anchor (over all anchors) whose shape best overlaps a ground truth shape."""
    ious = [_iou_center((0, 0, gt_wh[0], gt_wh[1]), (0, 0, anchors[2 * i], anchors[2 * i + 1]))
            for i in range(len(anchors) // 2)]
    return max(range(len(ious)), key=lambda i: (ious[i], -i))


@register
class YoloLossTargets(OpDef):
    """Weights and targets of yolo_loss for x viewed as [N, M, 5 + class_num, H, W]:
    sce_w, sce_wt (dense, like x): sum of weights and of weight * target of the sigmoid
    cross-entropy terms; l1_idx (flat index into x), l1_t, l1_w, l1_n (image): the L1
    terms. No gradient."""

    name = "_yolo_loss_targets"
    inputs = ("x", "gt_box", "gt_label", "gt_score?")
    outputs = ("sce_w", "sce_wt", "l1_idx", "l1_t", "l1_w", "l1_n")
    attrs = {"anchors": (), "anchor_mask": (), "class_num": 1, "ignore_thresh": 0.7,
             "downsample_ratio": 32, "use_label_smooth": True, "scale_x_y": 1.0}

    def infer(self, x, gt_box, gt_label, gt_score=None, **a):
        k = TensorSpec((-1,), x.dtype)
        return (x, x, TensorSpec((-1,), _dt.int64), k, k, TensorSpec((-1,), _dt.int64))

    def compute(self, xp, x, gt_box, gt_label, gt_score=None, **a):
        n, _, h, w = x.shape
        mask, anchors, cn = list(a["anchor_mask"]), list(a["anchors"]), a["class_num"]
        x5 = x.reshape(n, len(mask), 5 + cn, h, w).astype(xp.float64)
        gt = gt_box.astype(xp.float64)
        score = xp.ones(gt_label.shape) if gt_score is None else gt_score.astype(xp.float64)
        pos, neg = 1.0, 0.0
        if a["use_label_smooth"]:
            smooth = min(1.0 / cn, 1.0 / 40)
            pos, neg = 1.0 - smooth, smooth
        sw, swt = xp.zeros(x5.shape), xp.zeros(x5.shape)
        obj = _ignore_mask(xp, x5, gt, anchors, mask, a)
        size = a["downsample_ratio"] * h
        l1 = []
        for i in range(n):
            for b in range(gt.shape[1]):
                cx, cy, gw, gh = gt[i, b]
                if gw <= 0 or gh <= 0:
                    continue
                best = _match((gw * size, gh * size), anchors)
                if best not in mask:
                    continue
                j, s = mask.index(best), float(score[i, b])
                gi, gj = int(cx * w), int(cy * h)
                wt = (2.0 - gw * gh) * s
                for c, t in ((0, cx * h - gi), (1, cy * h - gj)):  # NOTE: Paddle scales by h
                    sw[i, j, c, gj, gi] += wt
                    swt[i, j, c, gj, gi] += wt * t
                for c, t in ((2, math.log(gw * size / anchors[2 * best])),
                             (3, math.log(gh * size / anchors[2 * best + 1]))):
                    flat = (((i * len(mask) + j) * (5 + cn) + c) * h + gj) * w + gi
                    l1.append((flat, t, wt, i))
                obj[i, j, gj, gi] = s
                label = int(gt_label[i, b])
                targets = xp.where(xp.arange(cn) == label, pos, neg)
                sw[i, j, 5:, gj, gi] += s
                swt[i, j, 5:, gj, gi] += s * targets
        # objectness: positive cells weigh their score toward 1, others (not ignored) toward 0
        sw[:, :, 4] = xp.where(obj > 1e-5, obj, xp.where(obj > -0.5, 1.0, 0.0))
        swt[:, :, 4] = xp.where(obj > 1e-5, obj, 0.0)
        cols = list(zip(*l1)) if l1 else [(), (), (), ()]
        return (sw.reshape(x.shape).astype(x.dtype), swt.reshape(x.shape).astype(x.dtype),
                xp.asarray(cols[0], dtype=xp.int64), xp.asarray(cols[1], dtype=x.dtype),
                xp.asarray(cols[2], dtype=x.dtype), xp.asarray(cols[3], dtype=xp.int64))
