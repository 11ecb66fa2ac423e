"""Op database entries for sampan/ops/nn_loss.py (softmax cross entropy, CTC)."""
import itertools

import numpy as np

import sampan as paddle
import sampan.nn.functional as F
from sampan.ops.dispatch import call
from tests.ops.op_db import OpEntry, Sample


def _log_softmax(x, axis):
    x = x.astype(np.float64)
    top = x.max(axis=axis, keepdims=True) if x.size else 0
    return x - top - np.log(np.exp(x - top).sum(axis=axis, keepdims=True))


def _swce_ref(logits, label, soft_label=False, ignore_index=-100, axis=-1,
              return_softmax=False):
    logp = _log_softmax(logits, axis)
    if soft_label:
        loss = -(label * logp).sum(axis=axis, keepdims=True)
    else:
        keep = label != ignore_index
        picked = np.take_along_axis(logp, np.where(keep, label, 0), axis)
        loss = np.where(keep, -picked, 0.0)
    dtype = logits.dtype
    return loss.astype(dtype), np.exp(logp).astype(dtype)


def _swce(logits, label, **kw):
    return F.softmax_with_cross_entropy(logits, label, **kw)


def _swce_both(logits, label, **kw):
    return F.softmax_with_cross_entropy(logits, label, return_softmax=True, **kw)


def _swce_loss_ref(logits, label, **kw):
    return _swce_ref(logits, label, **kw)[0]


def _sml(logits, label, g, **kw):
    """_softmax_minus_label with the softmax computed from logits by sampan ops."""
    axis = kw.get("axis", -1)
    softmax = paddle.exp(logits - paddle.logsumexp(logits, axis=axis, keepdim=True))
    return call("_softmax_minus_label", logits, softmax, label, g, **kw)


def _sml_ref(logits, label, g, soft_label=False, ignore_index=-100, axis=-1):
    softmax = np.exp(_log_softmax(logits, axis))
    if soft_label:
        return (softmax * label.sum(axis=axis, keepdims=True) - label) * g
    classes = np.arange(logits.shape[axis]).reshape(
        [-1 if i == axis % logits.ndim else 1 for i in range(logits.ndim)])
    keep = label != ignore_index
    return ((softmax - (label == classes)) * np.where(keep, g, 0)).astype(logits.dtype)


def _sml_samples(rng, dtype):
    out = []
    for s in _swce_samples(rng, dtype):
        logits, label = s.args
        shape = list(logits.shape)
        shape[s.kwargs.get("axis", -1)] = 1
        g = rng.uniform(0.5, 1.5, shape).astype(dtype)
        out.append(Sample((logits, label, g), s.kwargs, s.name))
    return out


def _swce_samples(rng, dtype):
    def r(*shape):
        return rng.standard_normal(shape).astype(dtype)

    def soft(*shape):
        p = rng.uniform(0.1, 1.0, shape)
        return (p / p.sum(-1, keepdims=True)).astype(dtype)
    lab = np.array([[0], [2], [1], [2]])
    return [Sample((r(4, 3), lab)),
            Sample((r(4, 3), lab), {"ignore_index": 2}, name="ignore"),
            Sample((r(3, 4), np.array([[0, 2, 1, 1]])), {"axis": 0}, name="axis0"),
            Sample((r(2, 3, 2), np.array([[[0, 2]], [[1, 1]]])), {"axis": 1}, name="3-d"),
            Sample((r(4, 3), soft(4, 3)), {"soft_label": True}, name="soft"),
            Sample((r(3, 4).T, lab.astype("int32")), name="non-contiguous-int32"),
            Sample((r(3), np.array([1])), name="1-d"),
            Sample((r(0, 3), np.zeros((0, 1), "int64")), name="empty")]


# --- CTC: brute force over every alignment path (independent of the lattice kernel) ----

def _paths(steps, classes, target, blank):
    for path in itertools.product(range(classes), repeat=steps):
        collapsed = [k for i, k in enumerate(path) if k != blank and
                     (i == 0 or path[i - 1] != k)]
        if collapsed == list(target):
            yield path


def _feasible(target, steps):
    repeats = sum(1 for a, b in zip(target, target[1:]) if a == b)
    return steps >= len(target) + repeats


def _ctc_ref(logits, labels, input_lengths, label_lengths, blank=0, reduction="none"):
    logp = _log_softmax(logits, 2)
    out = []
    for b in range(logits.shape[1]):
        steps, target = int(input_lengths[b]), labels[b, :label_lengths[b]].tolist()
        if not _feasible(target, steps):
            out.append(0.0)
            continue
        terms = [sum(logp[t, b, k] for t, k in enumerate(p))
                 for p in _paths(steps, logits.shape[2], target, blank)]
        out.append(-np.logaddexp.reduce(terms) if terms else 0.0)
    return np.array(out, logits.dtype)


def _posterior_ref(logits, labels, input_lengths, label_lengths, blank=0):
    logp = _log_softmax(logits, 2)
    post = np.zeros(logits.shape)
    frames = np.zeros(logits.shape[:2] + (1,))
    for b in range(logits.shape[1]):
        steps, target = int(input_lengths[b]), labels[b, :label_lengths[b]].tolist()
        if not _feasible(target, steps):
            continue
        frames[:steps, b] = 1.0
        paths = list(_paths(steps, logits.shape[2], target, blank))
        probs = np.exp([sum(logp[t, b, k] for t, k in enumerate(p)) for p in paths])
        for p, w in zip(paths, probs / probs.sum()):
            for t, k in enumerate(p):
                post[t, b, k] += w
    return post.astype(logits.dtype), frames.astype(logits.dtype)


def _ctc_samples(rng, dtype):
    x = rng.standard_normal((4, 3, 3)).astype(dtype)
    labels = np.array([[1, 2, 0], [1, 1, 0], [2, 0, 0]], "int32")
    return [Sample((x, labels, np.array([4, 4, 3]), np.array([2, 2, 1])), {"blank": 0}),
            Sample((x, labels, np.array([4, 2, 4]), np.array([2, 2, 0])), {"blank": 0},
                   name="short-and-empty"),
            Sample((x[:, :2], np.array([[0, 2], [2, 2]], "int32"), np.array([3, 4]),
                    np.array([2, 2])), {"blank": 1}, name="blank1"),
            Sample((x.transpose(1, 0, 2)[:, :2], np.array([[1], [2]]), np.array([3, 2]),
                    np.array([1, 1])), name="non-contiguous")]


def _ctc(log_probs, labels, input_lengths, label_lengths, blank=0):
    return F.ctc_loss(log_probs, labels, input_lengths, label_lengths, blank=blank,
                      reduction="none")


def _posterior(log_probs, labels, input_lengths, label_lengths, blank=0):
    return call("_ctc_posterior", log_probs, labels, input_lengths, label_lengths,
                blank=blank)


ENTRIES = [
    OpEntry("softmax_with_cross_entropy", _swce, _swce_loss_ref, _swce_samples),
    OpEntry("softmax_with_cross_entropy", _swce_both, _swce_ref, _swce_samples, grad=False,
            name="softmax_with_cross_entropy-softmax"),
    OpEntry("_softmax_minus_label", _sml, _sml_ref, _sml_samples),
    # NOTE: the CTC posterior is treated as constant in the vjp, so second-order gradients
    # are not exact; only the first-order gradient is checked.
    OpEntry("ctc_loss", _ctc, _ctc_ref, _ctc_samples, double_grad=False, grad_args=(0,)),
    OpEntry("_ctc_posterior", _posterior, _posterior_ref, _ctc_samples, grad=False),
]
