"""adaptive_log_softmax_with_loss (Paddle 3.x): the adaptive softmax of Grave et al.
(2017), composed of linear, log_softmax and gathers over every row (no data-dependent
shapes, so it builds in static Programs too). No mode checks.
"""
from __future__ import annotations

from collections.abc import Sequence

from ...framework.tensor import Tensor
from ...tensor.indexing import take_along_axis
from ...tensor.logic import logical_and
from ...tensor.manipulation import squeeze, unsqueeze
from ...tensor.math import clip
from ...tensor.search import where
from ...tensor.creation import zeros_like
from .activation import log_softmax
from .common import linear

__all__ = ["adaptive_log_softmax_with_loss"]


def adaptive_log_softmax_with_loss(input: Tensor, label: Tensor, head_weight: Tensor,
                                   tail_weights: Sequence[Sequence[Tensor]],
                                   cutoffs: Sequence[int], head_bias: Tensor | None = None,
                                   name: str | None = None) -> tuple[Tensor, Tensor]:
    """Adaptive log-softmax: classes below cutoffs[0] are scored by the head; the classes
    of cluster i ([cutoffs[i], cutoffs[i + 1])) by the head's cluster logit plus the
    log-softmax of the two-matrix tail projection tail_weights[i].

    Args:
        input (Tensor): [N, in_features] (or [in_features] with a 0-D label).
        label (Tensor): int class per row, in [0, cutoffs[-1]).
        head_weight (Tensor): [in_features, cutoffs[0] + n_clusters].
        tail_weights (list): per cluster [w0 [in_features, h], w1 [h, cluster size]].
        cutoffs (list): increasing class boundaries ending with n_classes.
        head_bias (Tensor, optional): [cutoffs[0] + n_clusters]. Default None.
        name (str, optional): unused.

    Returns:
        (output, loss): each row's log-probability of its label, and mean(-output).

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.ones([2, 4])
        >>> head = paddle.zeros([4, 3])
        >>> tails = [[paddle.zeros([4, 2]), paddle.zeros([2, 2])]]
        >>> out, loss = paddle.nn.functional.adaptive_log_softmax_with_loss(
        ...     x, paddle.to_tensor([0, 3]), head, tails, [2, 4])
        >>> print(out.numpy().round(4))
        [-1.0986 -1.7918]
    """
    api = "paddle.nn.functional.adaptive_log_softmax_with_loss"
    batched = _check(api, input, label, cutoffs, len(tail_weights))
    if not batched:
        input, label = unsqueeze(input, 0), unsqueeze(label, 0)
    cutoffs = [int(c) for c in cutoffs]
    shortlist = cutoffs[0]
    head_lp = log_softmax(linear(input, head_weight, head_bias), axis=1)
    head_index = label
    output = None
    for i, (low, high) in enumerate(zip(cutoffs, cutoffs[1:])):
        inside = logical_and(label >= low, label < high)
        head_index = where(inside, zeros_like(label) + (shortlist + i), head_index)
        local = log_softmax(linear(linear(input, tail_weights[i][0]), tail_weights[i][1]),
                            axis=1)
        relative = clip(label - low, 0, high - low - 1)
        picked = squeeze(take_along_axis(local, unsqueeze(relative, 1), axis=1), 1)
        part = where(inside, picked, zeros_like(picked))
        output = part if output is None else output + part
    head_part = squeeze(take_along_axis(head_lp, unsqueeze(head_index, 1), axis=1), 1)
    output = head_part if output is None else output + head_part
    loss = (-output).mean()
    return (output if batched else squeeze(output, 0)), loss


def _check(api: str, input, label, cutoffs, n_tails: int) -> bool:
    """Paddle's argument checks; returns whether the call is batched (a 1-D label)."""
    if label.ndim == 1:
        if input.shape[0] != label.shape[0] and label.shape[0] != 0:
            raise ValueError(f"{api}: input and label should have the same size in the batch "
                             f"dimension, got input {list(input.shape)} and label "
                             f"{list(label.shape)}")
        if input.ndim != 2:
            raise ValueError(f"{api}: a 1-D label expects a 2-D input, got input shape "
                             f"{list(input.shape)}")
    elif label.ndim == 0:
        if input.ndim != 1:
            raise ValueError(f"{api}: a 0-D label expects a 1-D input, got input shape "
                             f"{list(input.shape)}")
    else:
        raise ValueError(f"{api}: a 0-D or 1-D label expected (multi-label is not "
                         f"supported), got label shape {list(label.shape)}")
    if len(cutoffs) != n_tails + 1:
        raise ValueError(f"{api}: cutoffs (ending with n_classes) must have one more entry "
                         f"than tail_weights ({n_tails}), got {list(cutoffs)}")
    if isinstance(label, Tensor) and label.size:  # values are known: check the range
        values = label.numpy()
        if values.min() < 0 or values.max() >= int(cutoffs[-1]):
            raise ValueError(f"{api}: label values should be in [0, n_classes - 1] "
                             f"(n_classes {int(cutoffs[-1])}), but values in range "
                             f"[{values.min()}, {values.max()}] were found")
    return label.ndim == 1
