"""Op database entries for sampan/ops/nn_loss.py (softmax cross entropy, CTC, RNN-T)."""
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


# --- RNN-T: brute force over every alignment (choose which of the T + U - 1 first steps
# emit labels; the last step is always the final blank) -------------------------------

def _rnnt_brute(x, labels, input_lengths, label_lengths, blank=0, fastemit_lambda=0.0):
    x64 = x.astype(np.float64)
    loss = np.zeros(x.shape[0])
    post = np.zeros(x.shape)
    for b in range(x.shape[0]):
        steps, count = int(input_lengths[b]), int(label_lengths[b])
        target = labels[b, :count]
        terms, paths = [], []
        for emits in itertools.combinations(range(steps + count - 1), count):
            t = u = 0
            edges = []
            for k in range(steps + count):
                if k in emits:
                    edges.append((t, u, target[u], 1.0 + fastemit_lambda))
                    u += 1
                else:
                    edges.append((t, u, blank, 1.0))
                    t += 1
            terms.append(sum(x64[b, t, u, k] for t, u, k, _ in edges))
            paths.append(edges)
        total = np.logaddexp.reduce(terms)
        loss[b] = -total
        for term, edges in zip(terms, paths):
            for t, u, k, w in edges:
                post[b, t, u, k] += w * np.exp(term - total)
    return loss.astype(x.dtype), post.astype(x.dtype)


def _rnnt_samples(rng, dtype):
    x = np.log(rng.uniform(0.05, 1.0, (3, 4, 3, 4))).astype(dtype)
    labels = np.array([[1, 2], [3, 3], [2, 0]], "int32")
    lengths = np.array([4, 3, 2], "int32"), np.array([2, 2, 1], "int32")
    return [Sample((x, labels) + lengths, {"blank": 0}),
            Sample((x, labels, np.array([1, 4, 3]), np.array([2, 0, 1])), {"blank": 0},
                   name="one-frame-and-no-labels"),
            Sample((x[:2], np.array([[1, 2], [0, 3]]), np.array([3, 4]), np.array([2, 2])),
                   {"blank": 2}, name="blank2-int64"),
            Sample((x.transpose(0, 2, 1, 3)[:, :3, :2], np.array([[1], [2], [3]]),
                    np.array([3, 2, 1]), np.array([1, 1, 0])), name="non-contiguous"),
            Sample((x[:0], labels[:0]) + (lengths[0][:0], lengths[1][:0]), name="empty")]


def _rnnt_fastemit_samples(rng, dtype):
    return [Sample(s.args, {**s.kwargs, "fastemit_lambda": 0.5}, s.name + "-fastemit")
            for s in _rnnt_samples(rng, dtype)]


def _rnnt(input, label, input_lengths, label_lengths, blank=0, fastemit_lambda=0.0):
    return F.rnnt_loss(input, label, input_lengths, label_lengths, blank=blank,
                       fastemit_lambda=fastemit_lambda, reduction="none")


def _rnnt_ref(*args, **kw):
    return _rnnt_brute(*args, **kw)[0]


def _rnnt_posterior(input, label, input_lengths, label_lengths, blank=0,
                    fastemit_lambda=0.0):
    return call("_rnnt_posterior", input, label, input_lengths, label_lengths, blank=blank,
                fastemit_lambda=fastemit_lambda)


def _rnnt_posterior_ref(*args, **kw):
    return _rnnt_brute(*args, **kw)[1]


ENTRIES = [
    OpEntry("softmax_with_cross_entropy", _swce, _swce_loss_ref, _swce_samples),
    OpEntry("softmax_with_cross_entropy", _swce_both, _swce_ref, _swce_samples, grad=False,
            name="softmax_with_cross_entropy-softmax"),
    OpEntry("_softmax_minus_label", _sml, _sml_ref, _sml_samples),
    # NOTE: the CTC posterior is treated as constant in the vjp, so second-order gradients
    # are not exact; only the first-order gradient is checked.
    OpEntry("ctc_loss", _ctc, _ctc_ref, _ctc_samples, double_grad=False, grad_args=(0,)),
    OpEntry("_ctc_posterior", _posterior, _posterior_ref, _ctc_samples, grad=False),
    # fastemit_lambda = 0: the vjp is the exact gradient (the edge posterior), constant in
    # second order as for CTC; with fastemit the emission terms are scaled (forward only).
    OpEntry("rnnt_loss", _rnnt, _rnnt_ref, _rnnt_samples, double_grad=False, grad_args=(0,)),
    OpEntry("rnnt_loss", _rnnt, _rnnt_ref, _rnnt_fastemit_samples, grad=False,
            name="rnnt_loss-fastemit"),
    OpEntry("_rnnt_posterior", _rnnt_posterior, _rnnt_posterior_ref, _rnnt_fastemit_samples,
            grad=False),
]
