"""Ranking, margin, embedding and sequence losses (margin_ranking_loss ... ctc_loss,
margin_cross_entropy); the classification/regression losses and shared helpers are in loss.py."""
from __future__ import annotations

from typing import Callable

from ... import tensor as T
from ...framework.tensor import Tensor
from ...ops.dispatch import call
from .loss import LossDtypeError
from .loss import (_as_float, _check_float, _check_label_range, _check_reduction,  # noqa
                   _check_same_shape, _class_dim_label, _concrete, _log_sigmoid, _onehot,
                   _reduce, _softplus)

__all__ = ["margin_ranking_loss", "hinge_embedding_loss", "cosine_embedding_loss",
           "triplet_margin_loss", "triplet_margin_with_distance_loss",
           "multi_label_soft_margin_loss", "multi_label_margin_loss", "multi_margin_loss",
           "soft_margin_loss", "ctc_loss", "rnnt_loss", "dice_loss", "margin_cross_entropy",
           "npair_loss"]


def margin_ranking_loss(input: Tensor, other: Tensor, label: Tensor, margin: float = 0.0,
                        reduction: str = "mean", name: str | None = None) -> Tensor:
    """max(0, -label * (input - other) + margin).

    Examples:
        >>> import sampan as paddle
        >>> import sampan.nn.functional as F
        >>> x, y = paddle.to_tensor([1.0, 2.0]), paddle.to_tensor([2.0, 1.0])
        >>> F.margin_ranking_loss(x, y, paddle.to_tensor([1.0, 1.0]), 0.5).item()
        0.75
    """
    _check_reduction("margin_ranking_loss", reduction)
    return _reduce(T.clip(label * (other - input) + margin, min=0.0), reduction)


def hinge_embedding_loss(input: Tensor, label: Tensor, margin: float = 1.0,
                         reduction: str = "mean", name: str | None = None) -> Tensor:
    """input where label == 1, max(0, margin - input) where label == -1 (0 elsewhere).

    Examples:
        >>> import sampan as paddle
        >>> import sampan.nn.functional as F
        >>> x, y = paddle.to_tensor([0.3, 0.4]), paddle.to_tensor([1.0, -1.0])
        >>> round(F.hinge_embedding_loss(x, y).item(), 4)
        0.45
    """
    _check_reduction("hinge_embedding_loss", reduction)
    zero = T.zeros_like(input)
    out = T.where(label == 1.0, input, zero) + \
        T.where(label == -1.0, T.clip(margin - input, min=0.0), zero)
    return _reduce(out, reduction)


def cosine_embedding_loss(input1: Tensor, input2: Tensor, label: Tensor, margin: float = 0,
                          reduction: str = "mean", name: str | None = None) -> Tensor:
    """1 - cos(input1, input2) where label == 1, max(0, cos - margin) where label == -1.

    Examples:
        >>> import sampan as paddle
        >>> import sampan.nn.functional as F
        >>> a = paddle.to_tensor([[1.0, 0.0], [1.0, 1.0]])
        >>> b = paddle.to_tensor([[0.0, 1.0], [1.0, 1.0]])
        >>> round(F.cosine_embedding_loss(a, b, paddle.to_tensor([1, -1])).item(), 4)
        1.0
    """
    api = "cosine_embedding_loss"
    _check_reduction(api, reduction)
    if label.ndim != 1:
        raise ValueError(f"{api}: label must be 1-D, got shape {list(label.shape)}")
    _check_same_shape(api, input1, input2, ("input1", "input2"))
    if input1.ndim > 2:
        raise ValueError(f"{api}: inputs must be 1-D or 2-D, got shape {list(input1.shape)}")
    _check_float(api, input1, "input1")
    if label.dtype.name not in ("int32", "int64", "float32", "float64"):
        raise LossDtypeError(f"{api}: label must be an int32, int64, float32 or float64 "
                             f"tensor, got {label.dtype.name}")
    dot = T.sum(input1 * input2, axis=-1)
    mag = T.sqrt((T.sum(T.square(input1), axis=-1) + 1e-11) *
                 (T.sum(T.square(input2), axis=-1) + 1e-11))
    cos = dot / mag
    zero = T.zeros_like(cos)
    label = _as_float(label, cos)
    out = T.where(label == 1.0, 1.0 - cos, zero) + \
        T.where(label == -1.0, T.clip(cos - margin, min=0.0), zero)
    return _reduce(out, reduction)


def _pairwise_distance(x: Tensor, y: Tensor, p: float, epsilon: float) -> Tensor:
    """||x - y + epsilon||_p over the last axis (paddle.nn.PairwiseDistance)."""
    diff = x - y + epsilon
    if p == float("inf"):
        return T.max(T.abs(diff), axis=-1)
    if p == 0:
        return T.sum(T.cast(T.not_equal(diff, T.zeros_like(diff)), diff.dtype), axis=-1)
    return T.pow(T.sum(T.pow(T.abs(diff), float(p)), axis=-1), 1.0 / p)


def _triplet(api, input, positive, negative, dist, margin, swap, reduction):
    _check_reduction(api, reduction)
    if margin < 0:
        raise ValueError(f"{api}: margin must be >= 0, got {margin}")
    if not list(input.shape) == list(positive.shape) == list(negative.shape):
        raise ValueError(f"{api}: input, positive and negative must have the same shape, got "
                         f"{list(input.shape)}, {list(positive.shape)} and "
                         f"{list(negative.shape)}")
    d_pos = dist(input, positive)
    d_neg = dist(input, negative)
    if swap:
        d_neg = T.minimum(d_neg, dist(positive, negative))
    return d_pos, d_neg


def triplet_margin_loss(input: Tensor, positive: Tensor, negative: Tensor,
                        margin: float = 1.0, p: float = 2, epsilon: float = 1e-6,
                        swap: bool = False, reduction: str = "mean",
                        name: str | None = None) -> Tensor:
    """max(0, d(input, positive) - d(input, negative) + margin) with the p-norm distance
    d(a, b) = ||a - b + epsilon||_p; swap uses min(d(a, n), d(p, n)) as the negative distance.

    Examples:
        >>> import sampan as paddle
        >>> import sampan.nn.functional as F
        >>> a = paddle.to_tensor([[0.0, 0.0]])
        >>> pos, neg = paddle.to_tensor([[0.0, 1.0]]), paddle.to_tensor([[1.0, 1.0]])
        >>> round(F.triplet_margin_loss(a, pos, neg).item(), 4)
        0.5858
    """
    api = "triplet_margin_loss"

    def dist(a, b):
        return _pairwise_distance(a, b, p, epsilon)
    d_pos, d_neg = _triplet(api, input, positive, negative, dist, margin, swap, reduction)
    return _reduce(T.clip(d_pos - d_neg + margin, min=0.0), reduction)


def triplet_margin_with_distance_loss(input: Tensor, positive: Tensor, negative: Tensor,
                                      distance_function: Callable | None = None,
                                      margin: float = 1.0, swap: bool = False,
                                      reduction: str = "mean",
                                      name: str | None = None) -> Tensor:
    """Triplet margin loss with a custom distance_function(a, b) -> non-negative Tensor
    (default: Euclidean pairwise distance with epsilon 1e-6).

    Examples:
        >>> import sampan as paddle
        >>> import sampan.nn.functional as F
        >>> a = paddle.to_tensor([[0.0, 0.0]])
        >>> pos, neg = paddle.to_tensor([[0.0, 1.0]]), paddle.to_tensor([[1.0, 1.0]])
        >>> l1 = lambda x, y: paddle.abs(x - y).sum(-1)
        >>> F.triplet_margin_with_distance_loss(a, pos, neg, distance_function=l1).item()
        0.0
    """
    api = "triplet_margin_with_distance_loss"
    dist = distance_function or (lambda a, b: _pairwise_distance(a, b, 2.0, 1e-6))
    d_pos, d_neg = _triplet(api, input, positive, negative, dist, margin, swap, reduction)
    for d in (d_pos, d_neg):
        if _concrete(d) and bool((d.numpy() < 0).any()):
            raise ValueError(f"{api}: distance_function returned negative distances; it "
                             f"must return values >= 0")
    return _reduce(T.clip(d_pos - d_neg + margin, min=0.0), reduction)


def soft_margin_loss(input: Tensor, label: Tensor, reduction: str = "mean",
                     name: str | None = None) -> Tensor:
    """log(1 + exp(-label * input)) for labels in {1, -1}.

    Examples:
        >>> import sampan as paddle
        >>> import sampan.nn.functional as F
        >>> x, y = paddle.to_tensor([0.5, -2.0]), paddle.to_tensor([1.0, -1.0])
        >>> round(F.soft_margin_loss(x, y).item(), 4)
        0.3005
    """
    api = "soft_margin_loss"
    _check_reduction(api, reduction)
    _check_same_shape(api, input, label)
    return _reduce(_softplus(-_as_float(label, input) * input), reduction)


def multi_label_soft_margin_loss(input: Tensor, label: Tensor, weight: Tensor | None = None,
                                 reduction: str = "mean", name: str | None = None) -> Tensor:
    """Per sample: mean over classes of -(y log sigmoid(x) + (1 - y) log sigmoid(-x)),
    times the class weights when given.

    Examples:
        >>> import sampan as paddle
        >>> import sampan.nn.functional as F
        >>> x = paddle.to_tensor([[1.0, -1.0]])
        >>> round(F.multi_label_soft_margin_loss(x, paddle.to_tensor([[1.0, 0.0]])).item(), 4)
        0.3133
    """
    api = "multi_label_soft_margin_loss"
    _check_reduction(api, reduction)
    _check_same_shape(api, input, label)
    label = _as_float(label, input)
    out = -(label * _log_sigmoid(input) + (1.0 - label) * _log_sigmoid(-input))
    if weight is not None:
        out = out * weight
    return _reduce(T.mean(out, axis=-1), reduction)


def multi_margin_loss(input: Tensor, label: Tensor, p: int = 1, margin: float = 1.0,
                      weight: Tensor | None = None, reduction: str = "mean",
                      name: str | None = None) -> Tensor:
    """Multi-class hinge loss: per sample n, sum over classes i != y of
    w[y] * max(0, margin - x[y] + x[i]) ** p, divided by the number of classes.

    Examples:
        >>> import sampan as paddle
        >>> import sampan.nn.functional as F
        >>> x = paddle.to_tensor([[0.1, 0.2, 0.4, 0.8]])
        >>> round(F.multi_margin_loss(x, paddle.to_tensor([3])).item(), 4)
        0.325
    """
    api = "multi_margin_loss"
    _check_reduction(api, reduction)
    if input.ndim != 2 or input.shape[0] != label.shape[0]:
        raise ValueError(f"{api}: input must be [N, C] and label [N]; got input shape "
                         f"{list(input.shape)} and label shape {list(label.shape)}")
    classes = input.shape[1]
    label = T.reshape(label, [-1, 1])
    _check_label_range(api, label, classes, -1 if classes else 0)
    target = T.take_along_axis(input, label, 1)
    per_class = T.pow(T.clip(margin - target + input, min=0.0), p)
    # the i == y term is margin ** p for every sample; Paddle subtracts it afterwards
    if weight is not None:
        if list(weight.shape) != [classes]:
            raise ValueError(f"{api}: weight must have shape [{classes}], got "
                             f"{list(weight.shape)}")
        w = T.reshape(T.gather(_as_float(weight, input), T.reshape(label, [-1])), [-1, 1])
        loss = T.mean(w * per_class, axis=1) - T.reshape(w, [-1]) * (margin ** p / classes)
    else:
        loss = T.mean(per_class, axis=1) - margin ** p / classes
    return _reduce(loss, reduction)


def multi_label_margin_loss(input: Tensor, label: Tensor, reduction: str = "mean",
                            name: str | None = None) -> Tensor:
    """Multi-label hinge loss: label rows list target classes, ended by the first -1; per
    sample, sum over targets j and non-targets i of max(0, 1 - (x[j] - x[i])) / C.

    Examples:
        >>> import sampan as paddle
        >>> import sampan.nn.functional as F
        >>> x = paddle.to_tensor([[0.1, 0.2, 0.4, 0.8]])
        >>> round(F.multi_label_margin_loss(x, paddle.to_tensor([[3, 0, -1, 1]])).item(), 4)
        0.85
    """
    api = "multi_label_margin_loss"
    _check_reduction(api, reduction)
    if input.ndim != 2 or label.ndim != 2:
        raise ValueError(f"{api}: input and label must be 2-D, got shapes "
                         f"{list(input.shape)} and {list(label.shape)}")
    n, classes = input.shape
    if _concrete(label) and label.size:
        lo, hi = int(label.numpy().min()), int(label.numpy().max())
        if lo < -1 or hi >= classes:
            raise ValueError(f"{api}: label values must lie in [-1, {classes}), got values "
                             f"in [{lo}, {hi}]")
    valid = T.cast(T.not_equal(label, T.full_like(label, -1)), "int64")
    valid = T.cast(T.cumprod(valid, dim=1), input.dtype)  # slots before the first -1
    safe = T.where(valid > 0, label, T.zeros_like(label))
    target = T.take_along_axis(input, safe, 1)                        # [N, L]
    onehot = _onehot(T.unsqueeze(safe, -1), classes, 2, 3, input.dtype)  # [N, L, C]
    is_target = T.clip(T.sum(onehot * T.unsqueeze(valid, -1), axis=1), max=1.0)  # [N, C]
    hinge = T.clip(1.0 - T.unsqueeze(target, -1) + T.unsqueeze(input, 1), min=0.0)
    mask = T.unsqueeze(valid, -1) * T.unsqueeze(1.0 - is_target, 1)
    loss = T.sum(hinge * mask, axis=[1, 2]) / classes
    return _reduce(loss, reduction)


# --- sequence and segmentation losses -------------------------------------------------

def ctc_loss(log_probs: Tensor, labels: Tensor, input_lengths: Tensor, label_lengths: Tensor,
             blank: int = 0, reduction: str = "mean", norm_by_times: bool = False,
             zero_infinity: bool = False) -> Tensor:
    """Connectionist Temporal Classification loss (softmax over classes applied inside, as
    Paddle's warpctc does).

    Args:
        log_probs (Tensor): unscaled logits [max_logit_length, batch_size, num_classes + 1].
        labels (Tensor): int [batch_size, max_label_length] (padded).
        input_lengths (Tensor): int [batch_size], frames used per sequence.
        label_lengths (Tensor): int [batch_size], labels used per sequence.
        blank (int): blank class id. Default 0.
        reduction (str): 'mean' (mean of loss / label_lengths), 'sum' or 'none'.
        norm_by_times (bool): divide the gradient by the number of frames. Default False.
        zero_infinity (bool): replace infinite losses by 0. Default False.

    Returns:
        Tensor: [batch_size] for 'none', else 0-D. Sequences too short for their labels get
        loss 0 (as warpctc).

    Examples:
        >>> import sampan as paddle
        >>> import sampan.nn.functional as F
        >>> x = paddle.zeros([3, 1, 3])
        >>> y = paddle.to_tensor([[1, 2]], dtype='int32')
        >>> n = paddle.to_tensor([3]), paddle.to_tensor([2])
        >>> round(F.ctc_loss(x, y, n[0], n[1], reduction='sum').item(), 4)
        1.6864
    """
    api = "ctc_loss"
    _check_reduction(api, reduction)
    loss = call(api, log_probs, labels, input_lengths, label_lengths, blank=int(blank),
                norm_by_times=bool(norm_by_times))
    if zero_infinity:
        loss = T.where(T.isinf(loss), T.zeros_like(loss), loss)
    if reduction == "mean":
        return T.mean(loss / T.cast(label_lengths, loss.dtype))
    return _reduce(loss, reduction)


def rnnt_loss(input: Tensor, label: Tensor, input_lengths: Tensor, label_lengths: Tensor,
              blank: int = 0, fastemit_lambda: float = 0.001, reduction: str = "mean",
              name: str | None = None) -> Tensor:
    """RNN Transducer loss (Paddle's CPU warprnnt): -log of the summed probability of every
    monotonic alignment of the labels to the frames.

    Args:
        input (Tensor): log probabilities [batch_size, max_logit_length,
            max_label_length + 1, num_classes], used as they are (apply log_softmax first).
        label (Tensor): int [batch_size, max_label_length] (padded).
        input_lengths (Tensor): int [batch_size], frames per sequence (>= 1).
        label_lengths (Tensor): int [batch_size], labels per sequence.
        blank (int): blank class id. Default 0.
        fastemit_lambda (float): FastEmit regularisation: label-emission gradients are scaled
            by 1 + fastemit_lambda (the loss value is unchanged). Default 0.001.
        reduction (str): 'mean' (sum / batch_size), 'sum' or 'none'.

    Returns:
        Tensor: [batch_size] for 'none', else 0-D; the input's dtype.

    Examples:
        >>> import sampan as paddle
        >>> import sampan.nn.functional as F
        >>> x = paddle.zeros([1, 2, 2, 3])
        >>> y = paddle.to_tensor([[1]], dtype='int32')
        >>> n = paddle.to_tensor([2], dtype='int32'), paddle.to_tensor([1], dtype='int32')
        >>> round(F.rnnt_loss(x, y, n[0], n[1], reduction='sum').item(), 4)
        -0.6931
    """
    api = "rnnt_loss"
    _check_reduction(api, reduction)
    loss = call(api, input, label, input_lengths, label_lengths, blank=int(blank),
                fastemit_lambda=float(fastemit_lambda))
    if reduction == "mean":
        return T.sum(loss) / float(max(loss.shape[0], 1))
    return _reduce(loss, reduction)


def dice_loss(input: Tensor, label: Tensor, epsilon: float = 1e-5,
              name: str | None = None) -> Tensor:
    """1 - 2 |X ∩ Y| / (|X| + |Y| + epsilon) per sample, averaged over the batch.

    input holds class probabilities [N, ..., C]; label class ids [N, ..., 1].

    Examples:
        >>> import sampan as paddle
        >>> import sampan.nn.functional as F
        >>> p = paddle.to_tensor([[0.3, 0.7], [0.6, 0.4]])
        >>> round(F.dice_loss(p, paddle.to_tensor([[1], [0]])).item(), 4)
        0.35
    """
    api = "dice_loss"
    _check_float(api, input, "input")
    if input.ndim < 2 or label.ndim != input.ndim or label.shape[-1] != 1 or \
            list(input.shape[:-1]) != list(label.shape[:-1]):
        raise ValueError(f"{api}: label must have input's shape with a last dim of 1 "
                         f"(input shape {list(input.shape)}), got label shape "
                         f"{list(label.shape)}")
    onehot = _onehot(label, input.shape[-1], input.ndim - 1, input.ndim, input.dtype)
    axes = list(range(1, input.ndim))
    inter = T.sum(input * onehot, axis=axes)
    denom = T.sum(input, axis=axes) + T.sum(onehot, axis=axes)
    return T.mean(1.0 - inter * 2.0 / (denom + epsilon))


def npair_loss(anchor: Tensor, positive: Tensor, labels: Tensor,
               l2_reg: float = 0.002) -> Tensor:
    """N-pair loss: soft-label softmax cross entropy of anchor @ positive.T against the
    same-label matrix, plus l2_reg * 0.25 * the mean squared norms of the embeddings.

    Examples:
        >>> import sampan as paddle
        >>> import sampan.nn.functional as F
        >>> a = paddle.to_tensor([[0.3, 0.7], [0.6, 0.4]])
        >>> p = paddle.to_tensor([[0.1, 0.2], [0.5, 0.1]])
        >>> round(F.npair_loss(a, p, paddle.to_tensor([1.0, 2.0])).item(), 4)
        0.6587
    """
    api = "npair_loss"
    if 0 in anchor.shape or 0 in positive.shape:
        raise ValueError(f"{api}: anchor and positive must not be empty, got shapes "
                         f"{list(anchor.shape)} and {list(positive.shape)}")
    batch = labels.shape[0]
    labels = T.reshape(labels, [batch, 1])
    same = T.cast(T.equal(labels, T.transpose(labels, [1, 0])), anchor.dtype)
    target = same / T.sum(same, axis=1, keepdim=True)
    l2 = T.mean(T.sum(T.square(anchor), 1)) + T.mean(T.sum(T.square(positive), 1))
    sim = T.matmul(anchor, positive, transpose_y=True)
    ce = call("softmax_with_cross_entropy", sim, target, soft_label=True, axis=-1)[0]
    return l2 * (0.25 * l2_reg) + T.mean(T.sum(target * ce, 0))


def margin_cross_entropy(logits: Tensor, label: Tensor, margin1: float = 1.0,
                         margin2: float = 0.5, margin3: float = 0.0, scale: float = 64.0,
                         group=None, return_softmax: bool = False, reduction: str = "mean"):
    """ArcFace/CosFace-style margin softmax cross entropy (single process): the target
    logit cos(theta) becomes cos(margin1 * theta + margin2) - margin3, all logits are
    multiplied by `scale`, then softmax cross entropy.

    Args:
        logits (Tensor): cosine similarities [N, C] (normalised features and weights).
        label (Tensor): int [N] or [N, 1].
        margin1, margin2, margin3, scale (float): the margins and the scale.
        group: must be None or False (model parallelism is not supported).
        return_softmax (bool): also return the softmax of the adjusted logits.
        reduction (str): 'mean', 'sum', 'none' or None (= 'none'). Default 'mean'.

    Returns:
        Tensor: 0-D, or [N, 1] for 'none'; (loss, softmax) when return_softmax.

    Examples:
        >>> import sampan as paddle
        >>> import sampan.nn.functional as F
        >>> x = paddle.to_tensor([[0.3, 0.7, 0.1], [0.6, 0.4, 0.9]])
        >>> y = paddle.to_tensor([1, 2])
        >>> round(F.margin_cross_entropy(x, y, scale=2.0).item(), 4)
        1.012
    """
    api = "margin_cross_entropy"
    if reduction is None:
        reduction = "none"
    _check_reduction(api, reduction)
    if group not in (None, False):
        raise ValueError(f"{api}: only group=None or False (single process) is supported, "
                         f"got {group!r}")
    _check_float(api, logits, "logits")
    if logits.ndim < 1 or logits.shape[-1] == 0:
        raise ValueError(f"{api}: logits must have a non-empty last dim, got shape "
                         f"{list(logits.shape)}")
    label, _ = _class_dim_label(api, logits, label, logits.ndim - 1)
    classes = logits.shape[-1]
    _check_label_range(api, label, classes, -1 if classes else 0)
    target = T.take_along_axis(logits, label, -1)
    theta = T.acos(T.clip(target, min=-1.0, max=1.0))
    adjusted = T.cos(margin1 * theta + margin2) - margin3
    onehot = _onehot(label, classes, logits.ndim - 1, logits.ndim, logits.dtype)
    scaled = (logits + onehot * (adjusted - target)) * scale
    loss, softmax = call("softmax_with_cross_entropy", scaled, label, axis=-1)
    loss = _reduce(loss, reduction)
    return (loss, softmax) if return_softmax else loss
