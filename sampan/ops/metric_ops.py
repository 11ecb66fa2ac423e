"""Metric ops of static graphs: `auc` (paddle.static.auc), which accumulates into persistable
stat buffers that its outputs overwrite (static.auc retargets the outputs onto the
buffers). Imports only `ops.opdef`.
"""
from __future__ import annotations

from .opdef import OpDef, TensorSpec, register


def _auc_from_stats(xp, pos, neg):
    """ROC AUC from per-bucket positive/negative counts (trapezoids from the highest
    threshold down, as Paddle's auc kernel)."""
    tp = xp.cumsum(pos[::-1].astype(xp.float64))
    fp = xp.cumsum(neg[::-1].astype(xp.float64))
    tp0 = xp.concatenate([xp.zeros(1), tp[:-1]])
    fp0 = xp.concatenate([xp.zeros(1), fp[:-1]])
    area = float(((fp - fp0) * (tp + tp0) / 2.0).sum())
    tot_pos, tot_neg = float(tp[-1]) if tp.size else 0.0, float(fp[-1]) if fp.size else 0.0
    if tot_pos > 0 and tot_neg > 0:
        return xp.asarray(area / tot_pos / tot_neg, xp.float64)
    return xp.asarray(0.0, xp.float64)


def auc_stat_shape(num_thresholds: int, slide_steps: int) -> list:
    """Shape of Paddle's auc stat buffers: [1, T+1] (global) or a sliding window of
    slide_steps buckets, their sum and a step counter."""
    length = num_thresholds + 1
    return [1, length] if slide_steps == 0 else [(slide_steps + 1) * length + 1]


@register
class Auc(OpDef):
    """auc, stat_pos_out, stat_neg_out = auc(predict, label, stat_pos, stat_neg): bucket the
    positive-class probabilities (last column of predict) into num_thresholds + 1 bins,
    add them to the stats (a sliding window over slide_steps batches, or everything when
    slide_steps is 0) and compute the ROC AUC of the accumulated counts."""
    name = "auc"
    inputs = ("predict", "label", "stat_pos", "stat_neg")
    outputs = ("auc", "stat_pos_out", "stat_neg_out")
    attrs = {"curve": "ROC", "num_thresholds": 4095, "slide_steps": 1}
    check = True

    def infer(self, predict, label, stat_pos, stat_neg, **attrs):
        attrs = {**self.attrs, **attrs}
        t, slide = attrs["num_thresholds"], attrs["slide_steps"]
        if attrs["curve"] not in ("ROC", "PR"):
            raise ValueError(f"auc: curve must be 'ROC' or 'PR', got {attrs['curve']!r}")
        if type(t) is not int or t < 1:
            raise ValueError(f"auc: num_thresholds must be a positive int, got {t!r}")
        if type(slide) is not int or slide < 0:
            raise ValueError(f"auc: slide_steps must be a non-negative int, got {slide!r}")
        if len(predict.shape) != 2:
            raise ValueError(f"auc: input must be 2-D [batch, classes], got shape "
                             f"{list(predict.shape)}")
        if predict.dtype.kind != "f":
            raise TypeError(f"auc: input must be a float tensor, got {predict.dtype.name}")
        if label.dtype.kind not in "iub":
            raise TypeError(f"auc: label must be an integer tensor, got {label.dtype.name}")
        n, m = predict.shape[0], 1
        for d in label.shape:
            m = -1 if d < 0 or m < 0 else m * d
        if n >= 0 and m >= 0 and n != m:
            raise ValueError(f"auc: label (shape {list(label.shape)}) must have one value per "
                             f"row of input (shape {list(predict.shape)})")
        size = 1
        for d in auc_stat_shape(t, slide):
            size *= d
        for arg, spec in (("stat_pos", stat_pos), ("stat_neg", stat_neg)):
            k = 1
            for d in spec.shape:
                k *= d
            if k != size:
                raise ValueError(f"auc: {arg} (shape {list(spec.shape)}) must have "
                                 f"{size} elements for num_thresholds={t}, "
                                 f"slide_steps={slide}")
        return (TensorSpec((), "float64"), TensorSpec(stat_pos.shape, "int64"),
                TensorSpec(stat_neg.shape, "int64"))

    def compute(self, xp, predict, label, stat_pos, stat_neg, **attrs):
        attrs = {**self.attrs, **attrs}
        t, slide = attrs["num_thresholds"], attrs["slide_steps"]
        p = predict[:, -1].astype(xp.float64)
        if p.size and (not (p >= 0).all() or not (p <= 1).all()):
            raise ValueError(f"auc: input probabilities must lie in [0, 1], got values in "
                             f"[{p.min()}, {p.max()}]")
        bins = xp.minimum((p * t).astype(xp.int64), t)
        lab = label.reshape(-1) != 0
        length = t + 1
        pos = xp.bincount(bins[lab], minlength=length).astype(xp.int64)
        neg = xp.bincount(bins[~lab], minlength=length).astype(xp.int64)
        outs = []
        for stat, new in ((stat_pos, pos), (stat_neg, neg)):
            buf = stat.reshape(-1).astype(xp.int64)   # a copy: the inputs stay untouched
            if slide == 0:
                buf[:length] += new
                outs.append(buf)
                continue
            cur = int(buf[-1]) % slide
            total = slice(slide * length, (slide + 1) * length)
            step = slice(cur * length, (cur + 1) * length)
            buf[total] -= buf[step]
            buf[step] = new
            buf[total] += new
            buf[-1] += 1
            outs.append(buf)
        region = slice(0, length) if slide == 0 else slice(slide * length, (slide + 1) * length)
        auc = _auc_from_stats(xp, outs[0][region], outs[1][region])
        return auc, outs[0].reshape(stat_pos.shape), outs[1].reshape(stat_neg.shape)
