"""AdaptiveLogSoftmaxWithLoss (Paddle 3.x) over nn.functional.adaptive_log_softmax_with_loss,
with log_prob and predict. Imports `tensor`, `nn.functional`, `nn.layer.layers`.
"""
from __future__ import annotations

from collections.abc import Sequence

from ... import tensor as T
from ...framework.tensor import Tensor
from ..functional import activation as _act
from ..functional import common as _common
from ..functional import loss3 as _loss3
from .container import LayerList, ParameterList
from .layers import Layer

__all__ = ["AdaptiveLogSoftmaxWithLoss"]


class AdaptiveLogSoftmaxWithLoss(Layer):
    """Adaptive softmax (Grave et al., 2017): a head over the `cutoffs[0]` frequent classes
    plus one logit per cluster, and per cluster a projection [in_features, in_features //
    div_value ** (i + 1)] then [that, cluster size].

    Args:
        in_features (int): input features.
        n_classes (int): number of classes.
        cutoffs (list): increasing ints in [1, n_classes - 1] splitting the classes.
        weight_attr, bias_attr (ParamAttr, optional): of the weights and head bias.
        div_value (float): the projection shrink factor. Default 4.0.
        head_bias (bool): give the head a bias. Default False.

    NOTE: the tail projections are registered parameters (`tail_weights.{i}.{j}`), so
    optimizers train them and state_dict saves them; Paddle 3.3.1 leaves them out.

    Examples:
        >>> import sampan as paddle
        >>> _ = paddle.seed(0)
        >>> asm = paddle.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 6], div_value=2.0)
        >>> out, loss = asm(paddle.rand([4, 8]), paddle.to_tensor([0, 4, 9, 2]))
        >>> out.shape, loss.shape
        (paddle.Size([4]), paddle.Size([]))
        >>> float(asm.log_prob(paddle.rand([2, 8])).exp().sum(1).mean())  # doctest: +ELLIPSIS
        1.0...
    """

    def __init__(self, in_features: int, n_classes: int, cutoffs: Sequence[int],
                 weight_attr=None, bias_attr=None, div_value: float = 4.0,
                 head_bias: bool = False, name=None) -> None:
        super().__init__()
        cutoffs = list(cutoffs)
        if (not cutoffs or cutoffs != sorted(cutoffs) or min(cutoffs) <= 0
                or max(cutoffs) > n_classes - 1 or len(set(cutoffs)) != len(cutoffs)
                or any(int(c) != c for c in cutoffs)):
            raise ValueError(f"paddle.nn.AdaptiveLogSoftmaxWithLoss: cutoffs should be a "
                             f"sequence of unique, positive integers sorted in an increasing "
                             f"order, where each value is between 1 and n_classes-1 "
                             f"({n_classes - 1}), got {cutoffs}")
        self.in_features, self.n_classes, self.div_value = in_features, n_classes, div_value
        self.cutoffs = [int(c) for c in cutoffs] + [n_classes]
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.is_head_bias = head_bias
        self.head_weight = self.create_parameter([in_features, self.head_size], weight_attr)
        self.head_bias = self.create_parameter([self.head_size], bias_attr, is_bias=True) \
            if head_bias else None
        tails = []
        for i in range(self.n_clusters):
            hidden = int(in_features // (div_value ** (i + 1)))
            size = self.cutoffs[i + 1] - self.cutoffs[i]
            tails.append(ParameterList([
                self.create_parameter([in_features, hidden], weight_attr),
                self.create_parameter([hidden, size], weight_attr)]))
        self.tail_weights = LayerList(tails)

    def forward(self, input: Tensor, label: Tensor) -> tuple[Tensor, Tensor]:
        return _loss3.adaptive_log_softmax_with_loss(input, label, self.head_weight,
                                                     self.tail_weights, self.cutoffs,
                                                     self.head_bias)

    def log_prob(self, input: Tensor) -> Tensor:
        """The log-probability of every class: [N, n_classes]."""
        head_lp = _act.log_softmax(_common.linear(input, self.head_weight, self.head_bias),
                                   axis=1)
        parts = [head_lp[:, :self.shortlist_size]]
        for i in range(self.n_clusters):
            w0, w1 = self.tail_weights[i]
            local = _act.log_softmax(_common.linear(_common.linear(input, w0), w1), axis=1)
            parts.append(local + head_lp[:, self.shortlist_size + i:self.shortlist_size + i + 1])
        return T.concat(parts, axis=1)

    def predict(self, input: Tensor) -> Tensor:
        """The most likely class of each row (float32 as Paddle's, int64 when no row's
        head argmax falls in the shortlist)."""
        head = _common.linear(input, self.head_weight, self.head_bias)
        first = T.argmax(head, axis=1)
        outside = first >= self.shortlist_size
        if not bool(outside.any()):
            return first.astype("float32")
        full = T.argmax(self.log_prob(input), axis=1)
        if bool(outside.all()):
            return full
        return T.where(outside, full, first).astype("float32")
