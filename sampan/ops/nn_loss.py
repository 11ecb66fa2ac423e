"""Loss operators with dedicated kernels: softmax cross entropy (the hot path of
classification training) and CTC (forward-backward over label alignments in log space).

Imports only `framework`, `backend` and sibling op modules; vjp rules use sampan ops.
"""
from __future__ import annotations

from .dispatch import call
from .opdef import OpDef, TensorSpec, norm_axis, register, require_float
from .vjp_context import grad_call


def _ce_label_error(api: str, logits: tuple, label: tuple, axis: int, soft: bool) -> str:
    if soft:
        return (f"{api}: with soft_label=True, label must have the shape of logits "
                f"{list(logits)}; got label shape {list(label)}")
    want = list(logits)
    want[axis] = 1
    return (f"{api}: with hard labels, label must have shape {want} (logits shape "
            f"{list(logits)} with dim {axis} set to 1); got label shape {list(label)}")


def _same_dims(a: tuple, b: tuple) -> bool:
    return len(a) == len(b) and all(x == y or -1 in (x, y) for x, y in zip(a, b))


def _ce_infer(api: str, logits, label, soft_label: bool, axis: int):
    """Specs of (loss, softmax) of softmax_with_cross_entropy; validates the label."""
    require_float(api, logits, "logits")
    if logits.ndim == 0:
        raise ValueError(f"{api}: logits must have at least 1 dim, got a 0-D tensor")
    ax = norm_axis(api, axis, logits.ndim)
    want = list(logits.shape)
    if soft_label:
        if label.dtype.kind != "f":
            raise TypeError(f"{api}: soft labels must be a floating point tensor, got "
                            f"{label.dtype.name}")
    else:
        if label.dtype.kind not in "iu":
            raise TypeError(f"{api}: hard labels must be an int32 or int64 tensor, got "
                            f"{label.dtype.name}")
        want[ax] = 1
    if not _same_dims(tuple(want), label.shape):
        raise ValueError(_ce_label_error(api, logits.shape, label.shape, ax, soft_label))
    loss = list(logits.shape)
    loss[ax] = 1
    return TensorSpec(loss, logits.dtype), logits


@register
class SoftmaxWithCrossEntropy(OpDef):
    """loss = logsumexp(logits) - logits[label] along `axis` (hard labels) or
    -sum(label * log_softmax(logits)) (soft labels); also returns softmax(logits).

    loss keeps `axis` as a dim of size 1. Hard labels are integers of the logits' shape with
    `axis` of size 1; entries equal to `ignore_index` give loss 0 and no gradient. The kernel
    shifts by the max before exponentiating (stable for any logits). Gradient w.r.t. logits:
    g * (softmax - onehot(label)) (soft: g * (softmax * sum(label) - label)), computed by the
    fused `_softmax_minus_label`; soft labels also get -g * log_softmax. As in Paddle, the
    softmax output carries no gradient of its own.
    """

    amp = "float32"
    name = "softmax_with_cross_entropy"
    inputs = ("logits", "label")
    outputs = ("loss", "softmax")
    attrs = {"soft_label": False, "ignore_index": -100, "axis": -1}
    saves = ("logits", "label", "softmax")
    nondiff_outputs = (1,)

    def infer(self, logits, label, soft_label=False, ignore_index=-100, axis=-1):
        return _ce_infer(self.name, logits, label, soft_label, axis)

    def compute(self, xp, logits, label, soft_label=False, ignore_index=-100, axis=-1):
        ax = axis % logits.ndim if logits.ndim else axis
        top = xp.max(logits, axis=ax, keepdims=True) if logits.size else \
            xp.zeros(label.shape[:ax] + (1,) + label.shape[ax + 1:], logits.dtype)
        shifted = logits - top
        if soft_label:
            if label.shape != logits.shape:
                raise ValueError("label shape")
            picked = xp.sum(label * shifted, axis=ax, keepdims=True)
            mass = xp.sum(label, axis=ax, keepdims=True)
        else:
            safe, ignored = _hard_label(self.name, xp, label, logits.shape, ax, ignore_index)
            picked = _take(xp, shifted, safe, ax)
        xp.exp(shifted, out=shifted)
        total = xp.sum(shifted, axis=ax, keepdims=True)
        shifted /= total
        log_total = xp.log(total)
        if soft_label:
            loss = log_total * mass - picked
        else:
            loss = log_total - picked
            if ignored is not None:
                loss[ignored] = 0
        return loss.astype(logits.dtype, copy=False), shifted

    def vjp(self, ctx, g_loss, g_softmax):
        attrs = {"soft_label": ctx.soft_label, "ignore_index": ctx.ignore_index,
                 "axis": ctx.axis}
        g_logits = grad_call(ctx, "_softmax_minus_label", ctx.logits, ctx.softmax, ctx.label,
                             g_loss, **attrs) if ctx.needs[0] else None
        g_label = None
        if ctx.soft_label and ctx.needs[1]:
            logits = ctx.logits
            ax = norm_axis(self.name, ctx.axis, logits.ndim)
            log_sm = logits - call("logsumexp", logits, axis=[ax], keepdim=True)
            g_label = -(log_sm * g_loss)
        return g_logits, g_label

    @staticmethod
    def decompose(logits, label, soft_label=False, ignore_index=-100, axis=-1):
        ax = axis % logits.ndim
        log_sm = logits - call("logsumexp", logits, axis=[ax], keepdim=True)
        softmax = call("exp", log_sm)
        if soft_label:
            return -call("sum", label * log_sm, axis=[ax], keepdim=True), softmax
        keep = call("not_equal", label, _full_like(label, ignore_index))
        safe = call("where", keep, label, _full_like(label, 0))
        picked = call("take_along_axis", log_sm, safe, axis=ax, broadcast=False)
        return -picked * call("cast", keep, dtype=logits.dtype.name), softmax


def _hard_label(api: str, xp, label, shape: tuple, ax: int, ignore_index: int):
    """Hard labels as safe take/put indices (ignored entries -> 0) and the ignored mask
    (None when nothing is ignored); IndexError for labels outside [0, classes)."""
    want = shape[:ax] + (1,) + shape[ax + 1:]
    if label.shape != want:
        raise ValueError("label shape")
    classes = shape[ax]
    if label.size == 0:
        return label.astype(xp.intp, copy=False), None
    lo, hi = label.min(), label.max()
    if (lo >= 0 and hi < classes) and not 0 <= ignore_index < classes:
        return label.astype(xp.intp, copy=False), None  # the common case: nothing ignored
    ignored = label == ignore_index
    safe = xp.where(ignored, 0, label)
    _check_classes(api, xp, safe, classes, ignore_index)
    return safe.astype(xp.intp, copy=False), (ignored if ignored.any() else None)


def _take(xp, arr, idx, ax: int):
    """take_along_axis for an index of size 1 along `ax` (fast path when `ax` is last)."""
    if ax == arr.ndim - 1 and arr.ndim > 1:
        rows = arr.reshape(-1, arr.shape[-1])
        return rows[xp.arange(rows.shape[0]), idx.reshape(-1)].reshape(idx.shape)
    return xp.take_along_axis(arr, idx, ax)


@register
class SoftmaxMinusLabel(OpDef):
    """out = (softmax - onehot(label)) * g along `axis` for hard labels (rows whose label is
    ignore_index get 0), or (softmax * sum(label) - label) * g for soft labels: the logits
    gradient of softmax_with_cross_entropy in one pass.

    `softmax` must equal softmax(logits); it is passed only to avoid recomputing it. The
    gradient treats it as that function of `logits` (so higher orders are exact); `g` has
    the shape of the loss (1 along `axis`).
    """

    name = "_softmax_minus_label"
    inputs = ("logits", "softmax", "label", "g")
    attrs = {"soft_label": False, "ignore_index": -100, "axis": -1}
    saves = ("logits", "label", "g")

    def infer(self, logits, softmax, label, g, soft_label=False, ignore_index=-100, axis=-1):
        _ce_infer(self.name, logits, label, soft_label, axis)
        return softmax

    def compute(self, xp, logits, softmax, label, g, soft_label=False, ignore_index=-100,
                axis=-1):
        ax = axis % logits.ndim
        if soft_label:
            return softmax * (g * xp.sum(label, axis=ax, keepdims=True)) - label * g
        safe, ignored = _hard_label(self.name, xp, label, logits.shape, ax, ignore_index)
        if ignored is not None:
            g = xp.where(ignored, g.dtype.type(0), g)
        out = softmax * g
        if ax == out.ndim - 1 and out.ndim > 1:
            rows = out.reshape(-1, out.shape[-1])  # a view: out is freshly allocated
            rows[xp.arange(rows.shape[0]), safe.reshape(-1)] -= g.reshape(-1)
        else:
            xp.put_along_axis(out, safe, xp.take_along_axis(out, safe, ax) - g, ax)
        return out.astype(softmax.dtype, copy=False)

    def vjp(self, ctx, v):
        logits, label, g = ctx.logits, ctx.label, ctx.g
        ax = norm_axis(self.name, ctx.axis, logits.ndim)
        softmax = call("exp", logits - call("logsumexp", logits, axis=[ax], keepdim=True))
        g_label = None
        if ctx.soft_label:
            mass = call("sum", label, axis=[ax], keepdim=True)
            w = v * g * mass
            g_g = call("sum", v * (softmax * mass - label), axis=[ax], keepdim=True)
            if ctx.needs[2]:
                g_label = g * (call("sum", v * softmax, axis=[ax], keepdim=True) - v)
        else:
            keep = call("cast", call("not_equal", label, _full_like(label, ctx.ignore_index)),
                        dtype=logits.dtype.name)
            w = v * (g * keep)
            iota = _class_iota(label, logits.shape[ax], ax, logits.ndim)
            onehot = call("cast", call("equal", label, iota), dtype=logits.dtype.name)
            g_g = call("sum", v * (softmax - onehot), axis=[ax], keepdim=True) * keep
        g_logits = softmax * (w - call("sum", w * softmax, axis=[ax], keepdim=True))
        return g_logits, None, g_label, g_g


def _class_iota(label, classes: int, ax: int, ndim: int):
    shape = [1] * ndim
    shape[ax] = classes
    return call("reshape", call("arange", start=0, end=classes, step=1,
                                dtype=label.dtype.name), shape=shape)


def _full_like(t, value):
    return call("full_like", t, fill_value=value, dtype=t.dtype.name)


def _check_classes(api: str, xp, safe, classes: int, ignore_index: int) -> None:
    """IndexError when a label (other than ignore_index) is outside [0, classes)."""
    if safe.size == 0:
        return
    lo, hi = safe.min(), safe.max()
    if lo < 0 or hi >= classes:
        bad = safe[(safe < 0) | (safe >= classes)]
        raise IndexError(f"{api}: label value {int(bad.flat[0])} is out of range for "
                         f"{classes} classes (expected 0 <= label < {classes} or label == "
                         f"ignore_index {ignore_index})")


# --- CTC -------------------------------------------------------------------------------

def _ctc_check(api: str, logits, labels, input_lengths, label_lengths) -> None:
    require_float(api, logits, "log_probs")
    if logits.ndim != 3:
        raise ValueError(f"{api}: log_probs must be 3-D [max_logit_length, batch_size, "
                         f"num_classes + 1], got shape {list(logits.shape)}")
    if labels.ndim != 2 or labels.dtype.kind not in "iu":
        raise ValueError(f"{api}: labels must be a 2-D int tensor [batch_size, "
                         f"max_label_length], got shape {list(labels.shape)} dtype "
                         f"{labels.dtype.name}")
    batch = logits.shape[1]
    for arg, spec in (("input_lengths", input_lengths), ("label_lengths", label_lengths)):
        if spec.dtype.kind not in "iu" or spec.ndim != 1:
            raise ValueError(f"{api}: {arg} must be a 1-D int tensor [batch_size], got shape "
                             f"{list(spec.shape)} dtype {spec.dtype.name}")
        if -1 not in (spec.shape[0], batch) and spec.shape[0] != batch:
            raise ValueError(f"{api}: {arg} has {spec.shape[0]} entries but log_probs has "
                             f"batch_size {batch}")
    if -1 not in (labels.shape[0], batch) and labels.shape[0] != batch:
        raise ValueError(f"{api}: labels has batch_size {labels.shape[0]} but log_probs has "
                         f"batch_size {batch}")


def _logsumexp3(xp, a, b, c):
    top = xp.maximum(xp.maximum(a, b), c)
    safe = xp.where(xp.isfinite(top), top, 0)
    with xp.errstate(all="ignore"):
        return xp.log(xp.exp(a - safe) + xp.exp(b - safe) + xp.exp(c - safe)) + safe


class _CtcLattice:
    """Log-softmax of the logits gathered on the blank-extended labels of each sequence."""

    def __init__(self, api, xp, logits, labels, input_lengths, label_lengths, blank):
        steps, batch, classes = logits.shape
        if not 0 <= blank < classes:
            raise ValueError(f"{api}: blank {blank} is out of range for {classes} classes")
        self.tl = input_lengths.astype(xp.int64)
        self.ll = label_lengths.astype(xp.int64)
        if batch and (self.tl.min() < 0 or self.tl.max() > steps):
            raise ValueError(f"{api}: input_lengths must lie in [0, {steps}], got "
                             f"{self.tl.tolist()}")
        if batch and (self.ll.min() < 0 or self.ll.max() > labels.shape[1]):
            raise ValueError(f"{api}: label_lengths must lie in [0, {labels.shape[1]}], got "
                             f"{self.ll.tolist()}")
        top = xp.max(logits, axis=2, keepdims=True) if logits.size else 0
        shifted = logits - top
        self.logp = shifted - xp.log(xp.sum(xp.exp(shifted), axis=2, keepdims=True))
        width = 2 * labels.shape[1] + 1
        ext = xp.full((batch, width), blank, xp.int64)
        ext[:, 1::2] = labels
        pos = xp.arange(width)
        ext = xp.where(pos[None, :] < 2 * self.ll[:, None] + 1, ext, blank)
        if ext.size and (ext.min() < 0 or ext.max() >= classes):
            raise ValueError(f"{api}: labels must lie in [0, {classes}), got values in "
                             f"[{int(ext.min())}, {int(ext.max())}]")
        self.ext = ext
        self.emit = xp.take_along_axis(self.logp, xp.broadcast_to(ext, (steps,) + ext.shape), 2)
        skip = xp.zeros((batch, width), bool)
        skip[:, 2:] = (ext[:, 2:] != blank) & (ext[:, 2:] != ext[:, :-2])
        self.skip = skip
        self.shape = (steps, batch, width)

    def alpha(self, xp):
        steps, batch, width = self.shape
        neg = self.emit.dtype.type(-xp.inf)
        alpha = xp.full(self.shape, neg, self.emit.dtype)
        if steps == 0:
            return alpha
        alpha[0, :, :2] = self.emit[0, :, :2]
        if width > 1:
            alpha[0, :, 1] = xp.where(self.ll > 0, alpha[0, :, 1], neg)
        for t in range(1, steps):
            prev = alpha[t - 1]
            one = xp.concatenate([xp.full((batch, 1), neg), prev[:, :-1]], 1)
            two = xp.concatenate([xp.full((batch, 2), neg), prev[:, :-2]], 1)
            two = xp.where(self.skip, two, neg)
            alpha[t] = _logsumexp3(xp, prev, one, two) + self.emit[t]
        return alpha

    def beta(self, xp):
        steps, batch, width = self.shape
        neg = self.emit.dtype.type(-xp.inf)
        beta = xp.full(self.shape, neg, self.emit.dtype)
        rows = xp.arange(batch)
        last = 2 * self.ll
        skip_next = xp.concatenate([self.skip[:, 2:], xp.zeros((batch, 2), bool)], 1)
        for t in range(steps - 1, -1, -1):
            if t + 1 < steps:
                nxt = beta[t + 1]
                one = xp.concatenate([nxt[:, 1:], xp.full((batch, 1), neg)], 1)
                two = xp.concatenate([nxt[:, 2:], xp.full((batch, 2), neg)], 1)
                two = xp.where(skip_next, two, neg)
                beta[t] = _logsumexp3(xp, nxt, one, two) + self.emit[t]
            final = self.tl - 1 == t
            if final.any():
                init = xp.full((batch, width), neg, self.emit.dtype)
                init[rows, last] = self.emit[t, rows, last]
                has = self.ll > 0
                init[rows[has], last[has] - 1] = self.emit[t, rows[has], last[has] - 1]
                beta[t] = xp.where(final[:, None], init, beta[t])
        return beta

    def feasible(self, xp, labels):
        """Whether each sequence has enough frames for its labels (repeats need a blank
        between them); warpctc gives infeasible sequences loss 0 and no gradient."""
        width = labels.shape[1]
        repeats = xp.zeros(self.ll.shape, xp.int64)
        if width > 1:
            same = labels[:, 1:] == labels[:, :-1]
            inside = xp.arange(1, width)[None, :] < self.ll[:, None]
            repeats = xp.sum(same & inside, axis=1)
        return self.tl >= self.ll + repeats

    def loss(self, xp, alpha, feasible):
        steps, batch, width = self.shape
        rows = xp.arange(batch)
        t_end = xp.maximum(self.tl - 1, 0)
        end = alpha[t_end, rows] if steps else xp.full((batch, width), -xp.inf)
        last = 2 * self.ll
        a = end[rows, last]
        b = xp.where(self.ll > 0, end[rows, xp.maximum(last - 1, 0)], -xp.inf)
        total = _logsumexp3(xp, a, b, xp.full_like(a, -xp.inf))
        total = xp.where(self.tl == 0, 0.0, total)
        return xp.where(feasible, -total, 0.0)


@register
class CtcLoss(OpDef):
    """Per-sequence CTC loss -log p(labels | logits) with softmax over the classes.

    log_probs [T, B, K] are unnormalised logits (Paddle's warpctc applies softmax itself);
    labels [B, L] int; input_lengths and label_lengths [B] int. Returns [B] in the logits'
    dtype; impossible alignments give inf. Gradient: softmax - per-frame class posterior
    (frames past a sequence's length get none), divided by the sequence length when
    norm_by_times. The posterior is treated as constant in second-order gradients.
    """

    name = "ctc_loss"
    inputs = ("log_probs", "labels", "input_lengths", "label_lengths")
    attrs = {"blank": 0, "norm_by_times": False}

    def infer(self, log_probs, labels, input_lengths, label_lengths, blank=0,
              norm_by_times=False):
        _ctc_check(self.name, log_probs, labels, input_lengths, label_lengths)
        return TensorSpec((log_probs.shape[1],), log_probs.dtype)

    def compute(self, xp, log_probs, labels, input_lengths, label_lengths, blank=0,
                norm_by_times=False):
        lat = _CtcLattice(self.name, xp, log_probs, labels, input_lengths, label_lengths, blank)
        loss = lat.loss(xp, lat.alpha(xp), lat.feasible(xp, labels))
        return loss.astype(log_probs.dtype, copy=False)

    def vjp(self, ctx, g):
        if not ctx.needs[0]:
            return None, None, None, None
        x = ctx.log_probs
        dtype = x.dtype.name
        lengths = ctx.input_lengths
        softmax = call("exp", x - call("logsumexp", x, axis=[2], keepdim=True))
        post, frames = call("_ctc_posterior", x, ctx.labels, lengths, ctx.label_lengths,
                            blank=ctx.blank)
        scale = g
        if ctx.norm_by_times:
            scale = scale / call("cast", call("maximum", lengths, _full_like(lengths, 1)),
                                 dtype=dtype)
        grad = (softmax * frames - post) * \
            call("reshape", scale, shape=[1, -1, 1])
        return grad, None, None, None


@register
class CtcPosterior(OpDef):
    """Per-frame class posterior of the CTC alignment: posterior[t, b, k] = sum over lattice
    positions s labelled k of alpha_t(s) * beta_t(s) / (y_t(k) * p(labels)), and
    frames[t, b, 0] = 1.0 where frame t takes part in sequence b's loss, else 0.0.

    Frames past input_lengths and sequences too short for their labels (loss 0, as warpctc)
    get zeros in both. Private helper of ctc_loss's gradient; not differentiable.
    """

    name = "_ctc_posterior"
    inputs = ("log_probs", "labels", "input_lengths", "label_lengths")
    outputs = ("posterior", "frames")
    attrs = {"blank": 0}

    def infer(self, log_probs, labels, input_lengths, label_lengths, blank=0):
        _ctc_check(self.name, log_probs, labels, input_lengths, label_lengths)
        steps, batch = log_probs.shape[:2]
        return log_probs, TensorSpec((steps, batch, 1), log_probs.dtype)

    def compute(self, xp, log_probs, labels, input_lengths, label_lengths, blank=0):
        lat = _CtcLattice(self.name, xp, log_probs, labels, input_lengths, label_lengths, blank)
        alpha = lat.alpha(xp)
        feasible = lat.feasible(xp, labels)
        loss = lat.loss(xp, alpha, feasible)
        occ = alpha + lat.beta(xp) - lat.emit + loss[None, :, None]
        with xp.errstate(all="ignore"):
            occ = xp.exp(occ)
        keep = feasible & xp.isfinite(loss)
        occ = xp.where(keep[None, :, None] & xp.isfinite(occ), occ, 0)
        steps, batch, classes = log_probs.shape
        onehot = (lat.ext[:, :, None] == xp.arange(classes)).astype(occ.dtype)
        post = xp.matmul(occ.transpose(1, 0, 2), onehot).transpose(1, 0, 2)
        frames = (xp.arange(steps)[:, None] < lat.tl[None, :]) & keep[None, :]
        dtype = log_probs.dtype
        return (xp.ascontiguousarray(post).astype(dtype, copy=False),
                frames[:, :, None].astype(dtype))


# --- RNN-T -----------------------------------------------------------------------------

def _rnnt_check(api: str, logits, labels, input_lengths, label_lengths) -> None:
    require_float(api, logits, "input")
    if logits.ndim != 4:
        raise ValueError(f"{api}: input must be 4-D [batch_size, max_logit_length, "
                         f"max_label_length + 1, num_classes], got shape "
                         f"{list(logits.shape)}")
    if labels.ndim != 2 or labels.dtype.kind not in "iu":
        raise ValueError(f"{api}: label must be a 2-D int tensor [batch_size, "
                         f"max_label_length], got shape {list(labels.shape)} dtype "
                         f"{labels.dtype.name}")
    batch = logits.shape[0]
    for arg, spec in (("label", labels), ("input_lengths", input_lengths),
                      ("label_lengths", label_lengths)):
        if arg != "label" and (spec.dtype.kind not in "iu" or spec.ndim != 1):
            raise ValueError(f"{api}: {arg} must be a 1-D int tensor [batch_size], got shape "
                             f"{list(spec.shape)} dtype {spec.dtype.name}")
        if -1 not in (spec.shape[0], batch) and spec.shape[0] != batch:
            raise ValueError(f"{api}: {arg} has batch_size {spec.shape[0]} but input has "
                             f"batch_size {batch}")


class _RnntLattice:
    """The RNN-T lattice of each sequence: node (t, u) = u labels emitted after t frames;
    blank(t, u) = input[b, t, u, blank] moves to (t + 1, u), emit(t, u) =
    input[b, t, u, label[u]] to (t, u + 1); every alignment ends with the blank leaving
    (T_b - 1, U_b). Forward/backward variables are computed one anti-diagonal t + u at a
    time, vectorised over the batch and the diagonal."""

    def __init__(self, api, xp, logits, labels, input_lengths, label_lengths, blank):
        batch, steps, width, classes = logits.shape
        if not 0 <= blank < classes:
            raise ValueError(f"{api}: blank {blank} is out of range for {classes} classes")
        self.tl = input_lengths.astype(xp.int64)
        self.ll = label_lengths.astype(xp.int64)
        max_label = min(width - 1, labels.shape[1])
        if batch and (self.tl.min() < 1 or self.tl.max() > steps):
            raise ValueError(f"{api}: input_lengths must lie in [1, {steps}] (the input's "
                             f"max_logit_length), got {self.tl.tolist()}")
        if batch and (self.ll.min() < 0 or self.ll.max() > max_label):
            raise ValueError(f"{api}: label_lengths must lie in [0, {max_label}] (input has "
                             f"max_label_length + 1 = {width}, label has {labels.shape[1]} "
                             f"columns), got {self.ll.tolist()}")
        lab = xp.full((batch, max(width - 1, 0)), blank, xp.int64)
        lab[:, :max_label] = labels[:, :max_label]
        used = xp.arange(lab.shape[1])[None, :] < self.ll[:, None]
        lab = xp.where(used, lab, blank)
        if lab.size and (lab.min() < 0 or lab.max() >= classes):
            bad = lab[(lab < 0) | (lab >= classes)]
            raise ValueError(f"{api}: label values must lie in [0, {classes}), got "
                             f"{int(bad.flat[0])}")
        self.lab = lab
        self.blank = blank
        dtype = logits.dtype
        self.neg = dtype.type(-xp.inf)
        self.blank_lp = logits[..., blank]                                   # [B, T, W]
        emit = xp.full((batch, steps, width), self.neg, dtype)
        if width > 1:
            idx = xp.broadcast_to(lab[:, None, :, None], (batch, steps, width - 1, 1))
            emit[:, :, :-1] = xp.take_along_axis(logits[:, :, :-1], idx, 3)[..., 0]
        self.emit_lp = emit
        self.shape = (batch, steps, width)

    def _diagonals(self, xp):
        _, steps, width = self.shape
        for d in range(steps + width - 1):
            t = xp.arange(max(0, d - width + 1), min(d, steps - 1) + 1)
            yield t, d - t

    def alpha(self, xp):
        """alpha[b, t, u] = log of the summed probability of the paths reaching (t, u)."""
        batch, steps, width = self.shape
        pad = xp.full((batch, steps + 1, width + 1), self.neg, self.blank_lp.dtype)
        blank = xp.full_like(pad, self.neg)
        emit = xp.full_like(pad, self.neg)
        blank[:, 1:, 1:] = self.blank_lp
        emit[:, 1:, 1:] = self.emit_lp
        with xp.errstate(invalid="ignore"):
            for t, u in self._diagonals(xp):
                if t[0] == 0 and u[0] == 0:
                    pad[:, 1, 1] = 0
                    continue
                pad[:, t + 1, u + 1] = xp.logaddexp(pad[:, t, u + 1] + blank[:, t, u + 1],
                                                    pad[:, t + 1, u] + emit[:, t + 1, u])
        return pad[:, 1:, 1:]

    def beta(self, xp):
        """beta[b, t, u] = log of the summed probability of the path ends from (t, u)
        (including the final blank); -inf outside the sequence's lattice."""
        batch, steps, width = self.shape
        dtype = self.blank_lp.dtype
        pad = xp.full((batch, steps + 1, width + 1), self.neg, dtype)
        last_t, last_u = self.tl - 1, self.ll
        for t, u in reversed(list(self._diagonals(xp))):
            with xp.errstate(invalid="ignore"):
                rec = xp.logaddexp(pad[:, t + 1, u] + self.blank_lp[:, t, u],
                                   pad[:, t, u + 1] + self.emit_lp[:, t, u])
            inside = (t[None, :] <= last_t[:, None]) & (u[None, :] <= last_u[:, None])
            pad[:, t, u] = xp.where(inside, rec, self.neg)
            final = (t[None, :] == last_t[:, None]) & (u[None, :] == last_u[:, None])
            if final.any():
                b, k = xp.nonzero(final)
                pad[b, t[k], u[k]] = self.blank_lp[b, t[k], u[k]]
        return pad[:, :steps, :width]

    def loss(self, xp, alpha):
        rows = xp.arange(self.shape[0])
        t, u = self.tl - 1, self.ll
        return -(alpha[rows, t, u] + self.blank_lp[rows, t, u])

    def edge_posteriors(self, xp, alpha, beta, loglike):
        """(blank, emit) [B, T, W]: probability that an alignment takes each edge."""
        batch, steps, width = self.shape
        after_blank = xp.full_like(beta, self.neg)
        after_blank[:, :-1] = beta[:, 1:]
        rows = xp.arange(batch)
        after_blank[rows, self.tl - 1, self.ll] = 0
        after_emit = xp.full_like(beta, self.neg)
        after_emit[:, :, :-1] = beta[:, :, 1:]
        ll = loglike[:, None, None]
        with xp.errstate(all="ignore"):
            p_blank = xp.exp(alpha + self.blank_lp + after_blank - ll)
            p_emit = xp.exp(alpha + self.emit_lp + after_emit - ll)
        ok = xp.isfinite(loglike)[:, None, None]
        zero = alpha.dtype.type(0)
        p_blank = xp.where(ok & xp.isfinite(p_blank), p_blank, zero)
        p_emit = xp.where(ok & xp.isfinite(p_emit), p_emit, zero)
        return p_blank, p_emit


@register
class RnntLoss(OpDef):
    """Per-sequence RNN-T loss -log p(label | input) over the monotonic lattice of frames
    and labels, as Paddle's CPU warprnnt kernel: `input` [B, T, U + 1, D] holds log
    probabilities used as they are (no softmax is applied); label [B, U], input_lengths and
    label_lengths [B] int. Returns [B] in the input's dtype.

    Gradient (as warprnnt's): -g * edge posterior, where label-emission edges are weighted by
    1 + fastemit_lambda (FastEmit regularisation; it changes only the gradient, not the
    loss). The posterior is treated as constant in second-order gradients.
    """

    name = "rnnt_loss"
    inputs = ("input", "label", "input_lengths", "label_lengths")
    attrs = {"blank": 0, "fastemit_lambda": 0.001}

    def infer(self, input, label, input_lengths, label_lengths, blank=0,
              fastemit_lambda=0.001):
        _rnnt_check(self.name, input, label, input_lengths, label_lengths)
        return TensorSpec((input.shape[0],), input.dtype)

    def compute(self, xp, input, label, input_lengths, label_lengths, blank=0,
                fastemit_lambda=0.001):
        lat = _RnntLattice(self.name, xp, input, label, input_lengths, label_lengths, blank)
        return lat.loss(xp, lat.alpha(xp)).astype(input.dtype, copy=False)

    def vjp(self, ctx, g):
        if not ctx.needs[0]:
            return None, None, None, None
        post = call("_rnnt_posterior", ctx.input, ctx.label, ctx.input_lengths,
                    ctx.label_lengths, blank=ctx.blank, fastemit_lambda=ctx.fastemit_lambda)
        return -post * call("reshape", g, shape=[-1, 1, 1, 1]), None, None, None


@register
class RnntPosterior(OpDef):
    """Edge posteriors of the RNN-T lattice scattered onto the input's classes:
    out[b, t, u, blank] = P(alignment leaves (t, u) by a blank), out[b, t, u, label[u]] +=
    (1 + fastemit_lambda) * P(alignment emits label u at frame t). Entries outside every
    alignment are 0. Private helper of rnnt_loss's gradient; not differentiable.
    """

    name = "_rnnt_posterior"
    inputs = ("input", "label", "input_lengths", "label_lengths")
    attrs = {"blank": 0, "fastemit_lambda": 0.001}

    def infer(self, input, label, input_lengths, label_lengths, blank=0,
              fastemit_lambda=0.001):
        _rnnt_check(self.name, input, label, input_lengths, label_lengths)
        return input

    def compute(self, xp, input, label, input_lengths, label_lengths, blank=0,
                fastemit_lambda=0.001):
        lat = _RnntLattice(self.name, xp, input, label, input_lengths, label_lengths, blank)
        alpha = lat.alpha(xp)
        p_blank, p_emit = lat.edge_posteriors(xp, alpha, lat.beta(xp), -lat.loss(xp, alpha))
        batch, steps, width, classes = input.shape
        out = xp.zeros(input.shape, input.dtype)
        out[..., blank] = p_blank
        if width > 1:
            idx = xp.broadcast_to(lat.lab[:, None, :, None], (batch, steps, width - 1, 1))
            scaled = p_emit[:, :, :-1, None] * input.dtype.type(1.0 + fastemit_lambda)
            view = out[:, :, :-1]
            xp.put_along_axis(view, idx, xp.take_along_axis(view, idx, 3) + scaled, 3)
        return out
