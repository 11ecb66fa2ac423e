"""Loss layers: thin Layer wrappers that validate their arguments and call
sampan.nn.functional's loss functions. They hold no parameters (a class `weight` Tensor
becomes a non-persistable buffer, as in Paddle).
"""
from __future__ import annotations

from typing import Callable

from .. import functional as F
from .layers import Layer

__all__ = [
    "CrossEntropyLoss", "NLLLoss", "MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss",
    "BCELoss", "BCEWithLogitsLoss", "KLDivLoss", "MarginRankingLoss", "HingeEmbeddingLoss",
    "CosineEmbeddingLoss", "TripletMarginLoss", "TripletMarginWithDistanceLoss",
    "MultiLabelSoftMarginLoss", "MultiLabelMarginLoss", "MultiMarginLoss", "SoftMarginLoss",
    "PoissonNLLLoss", "GaussianNLLLoss", "CTCLoss", "RNNTLoss",
    "HSigmoidLoss",
]


class _Loss(Layer):
    """Base of the loss layers: stores and validates `reduction`."""

    _extra_reductions: tuple = ()

    def __init__(self, reduction: str = "mean", name: str | None = None) -> None:
        super().__init__()
        allowed = ("mean", "sum", "none") + self._extra_reductions
        if reduction not in allowed:
            raise ValueError(f"{type(self).__name__}: reduction must be one of "
                             f"{', '.join(repr(r) for r in allowed)}, got {reduction!r}")
        self.reduction = reduction
        self.name = name


class CrossEntropyLoss(_Loss):
    """Softmax cross entropy (see functional.cross_entropy).

    Examples:
        >>> import sampan as paddle
        >>> loss = paddle.nn.CrossEntropyLoss()
        >>> x = paddle.to_tensor([[1.0, 2.0, 3.0]])
        >>> round(loss(x, paddle.to_tensor([2])).item(), 4)
        0.4076
    """

    def __init__(self, weight=None, ignore_index: int = -100, reduction: str = "mean",
                 soft_label: bool = False, axis: int = -1, use_softmax: bool = True,
                 label_smoothing: float = 0.0, name: str | None = None) -> None:
        super().__init__(reduction, name)
        if not 0.0 <= label_smoothing <= 1.0:
            raise ValueError(f"CrossEntropyLoss: label_smoothing must lie in [0, 1], got "
                             f"{label_smoothing}")
        self.weight = weight
        self.ignore_index = ignore_index
        self.soft_label = soft_label
        self.axis = axis
        self.use_softmax = use_softmax
        self.label_smoothing = label_smoothing

    def forward(self, input, label):
        return F.cross_entropy(input, label, weight=self.weight,
                               ignore_index=self.ignore_index, reduction=self.reduction,
                               soft_label=self.soft_label, axis=self.axis,
                               use_softmax=self.use_softmax,
                               label_smoothing=self.label_smoothing)


class NLLLoss(_Loss):
    """Negative log likelihood on log probabilities (see functional.nll_loss)."""

    def __init__(self, weight=None, ignore_index: int = -100, reduction: str = "mean",
                 name: str | None = None) -> None:
        super().__init__(reduction, name)
        self.weight = weight
        self.ignore_index = ignore_index

    def forward(self, input, label):
        return F.nll_loss(input, label, weight=self.weight, ignore_index=self.ignore_index,
                          reduction=self.reduction)


class MSELoss(_Loss):
    """Mean squared error (see functional.mse_loss)."""

    def __init__(self, reduction: str = "mean") -> None:
        super().__init__(reduction)

    def forward(self, input, label):
        return F.mse_loss(input, label, self.reduction)


class L1Loss(_Loss):
    """Mean absolute error (see functional.l1_loss)."""

    def forward(self, input, label):
        return F.l1_loss(input, label, self.reduction)


class SmoothL1Loss(_Loss):
    """Huber / smooth L1 loss with threshold `delta` (see functional.smooth_l1_loss)."""

    def __init__(self, reduction: str = "mean", delta: float = 1.0, is_huber: bool = True,
                 name: str | None = None) -> None:
        super().__init__(reduction, name)
        self.delta = delta
        self.is_huber = is_huber

    def forward(self, input, label):
        return F.smooth_l1_loss(input, label, self.reduction, self.delta, self.is_huber)


HuberLoss = SmoothL1Loss  # Paddle 3 exposes the same class under both names


class BCELoss(_Loss):
    """Binary cross entropy on probabilities (see functional.binary_cross_entropy)."""

    def __init__(self, weight=None, reduction: str = "mean", name: str | None = None) -> None:
        super().__init__(reduction, name)
        self.weight = weight

    def forward(self, input, label):
        return F.binary_cross_entropy(input, label, self.weight, self.reduction)


class BCEWithLogitsLoss(_Loss):
    """Sigmoid + binary cross entropy (see functional.binary_cross_entropy_with_logits)."""

    def __init__(self, weight=None, reduction: str = "mean", pos_weight=None,
                 name: str | None = None) -> None:
        super().__init__(reduction, name)
        self.weight = weight
        self.pos_weight = pos_weight

    def forward(self, logit, label):
        return F.binary_cross_entropy_with_logits(logit, label, self.weight, self.reduction,
                                                  self.pos_weight)


class KLDivLoss(_Loss):
    """Kullback-Leibler divergence (see functional.kl_div); reduction may be 'batchmean'."""

    _extra_reductions = ("batchmean",)

    def __init__(self, reduction: str = "mean", log_target: bool = False) -> None:
        super().__init__(reduction)
        self.log_target = log_target

    def forward(self, input, label):
        return F.kl_div(input, label, self.reduction, self.log_target)


class MarginRankingLoss(_Loss):
    """max(0, -label * (input - other) + margin) (see functional.margin_ranking_loss)."""

    def __init__(self, margin: float = 0.0, reduction: str = "mean",
                 name: str | None = None) -> None:
        super().__init__(reduction, name)
        self.margin = margin

    def forward(self, input, other, label):
        return F.margin_ranking_loss(input, other, label, self.margin, self.reduction)


class HingeEmbeddingLoss(_Loss):
    """Hinge embedding loss (see functional.hinge_embedding_loss)."""

    def __init__(self, margin: float = 1.0, reduction: str = "mean",
                 name: str | None = None) -> None:
        super().__init__(reduction, name)
        self.margin = margin

    def forward(self, input, label):
        return F.hinge_embedding_loss(input, label, self.margin, self.reduction)


class CosineEmbeddingLoss(_Loss):
    """Cosine embedding loss (see functional.cosine_embedding_loss)."""

    def __init__(self, margin: float = 0, reduction: str = "mean",
                 name: str | None = None) -> None:
        super().__init__(reduction, name)
        if not -1 <= margin <= 1:
            raise ValueError(f"CosineEmbeddingLoss: margin must lie in [-1, 1], got {margin}")
        self.margin = margin

    def forward(self, input1, input2, label):
        return F.cosine_embedding_loss(input1, input2, label, self.margin, self.reduction)


class TripletMarginLoss(_Loss):
    """Triplet margin loss with the p-norm distance (see functional.triplet_margin_loss)."""

    def __init__(self, margin: float = 1.0, p: float = 2.0, epsilon: float = 1e-6,
                 swap: bool = False, reduction: str = "mean", name: str | None = None) -> None:
        super().__init__(reduction, name)
        if margin < 0:
            raise ValueError(f"TripletMarginLoss: margin must be >= 0, got {margin}")
        self.margin = margin
        self.p = p
        self.epsilon = epsilon
        self.swap = swap

    def forward(self, input, positive, negative):
        return F.triplet_margin_loss(input, positive, negative, self.margin, self.p,
                                     self.epsilon, self.swap, self.reduction)


class TripletMarginWithDistanceLoss(_Loss):
    """Triplet margin loss with a custom distance (see
    functional.triplet_margin_with_distance_loss)."""

    def __init__(self, distance_function: Callable | None = None, margin: float = 1.0,
                 swap: bool = False, reduction: str = "mean", name: str | None = None) -> None:
        super().__init__(reduction, name)
        if margin < 0:
            raise ValueError(f"TripletMarginWithDistanceLoss: margin must be >= 0, got "
                             f"{margin}")
        self.distance_function = distance_function
        self.margin = margin
        self.swap = swap

    def forward(self, input, positive, negative):
        return F.triplet_margin_with_distance_loss(input, positive, negative,
                                                   self.distance_function, self.margin,
                                                   self.swap, self.reduction)


class MultiLabelSoftMarginLoss(_Loss):
    """Multi-label one-vs-all logistic loss (see functional.multi_label_soft_margin_loss)."""

    def __init__(self, weight=None, reduction: str = "mean", name: str | None = None) -> None:
        super().__init__(reduction, name)
        self.weight = weight

    def forward(self, input, label):
        return F.multi_label_soft_margin_loss(input, label, self.weight, self.reduction)


class MultiLabelMarginLoss(_Loss):
    """Multi-label hinge loss (see functional.multi_label_margin_loss)."""

    def forward(self, input, label):
        return F.multi_label_margin_loss(input, label, self.reduction)


class MultiMarginLoss(_Loss):
    """Multi-class hinge loss (see functional.multi_margin_loss)."""

    def __init__(self, p: int = 1, margin: float = 1.0, weight=None, reduction: str = "mean",
                 name: str | None = None) -> None:
        super().__init__(reduction, name)
        self.p = p
        self.margin = margin
        self.weight = weight

    def forward(self, input, label):
        return F.multi_margin_loss(input, label, self.p, self.margin, self.weight,
                                   self.reduction)


class SoftMarginLoss(_Loss):
    """Two-class logistic loss (see functional.soft_margin_loss)."""

    def forward(self, input, label):
        return F.soft_margin_loss(input, label, self.reduction)


class PoissonNLLLoss(_Loss):
    """Poisson negative log likelihood (see functional.poisson_nll_loss)."""

    def __init__(self, log_input: bool = True, full: bool = False, epsilon: float = 1e-8,
                 reduction: str = "mean", name: str | None = None) -> None:
        super().__init__(reduction, name)
        if epsilon <= 0:
            raise ValueError(f"PoissonNLLLoss: epsilon must be positive, got {epsilon}")
        self.log_input = log_input
        self.full = full
        self.epsilon = epsilon

    def forward(self, input, label):
        return F.poisson_nll_loss(input, label, self.log_input, self.full, self.epsilon,
                                  self.reduction)


class GaussianNLLLoss(_Loss):
    """Gaussian negative log likelihood (see functional.gaussian_nll_loss)."""

    def __init__(self, full: bool = False, epsilon: float = 1e-6, reduction: str = "mean",
                 name: str | None = None) -> None:
        super().__init__(reduction, name)
        self.full = full
        self.epsilon = epsilon

    def forward(self, input, label, variance):
        return F.gaussian_nll_loss(input, label, variance, self.full, self.epsilon,
                                   self.reduction)


class CTCLoss(_Loss):
    """CTC loss over unnormalised logits (see functional.ctc_loss)."""

    def __init__(self, blank: int = 0, reduction: str = "mean",
                 zero_infinity: bool = False) -> None:
        super().__init__(reduction)
        self.blank = blank
        self.zero_infinity = zero_infinity

    def forward(self, log_probs, labels, input_lengths, label_lengths,
                norm_by_times: bool = False):
        return F.ctc_loss(log_probs, labels, input_lengths, label_lengths, self.blank,
                          self.reduction, norm_by_times, self.zero_infinity)


class RNNTLoss(_Loss):
    """RNN-T loss over log probabilities (see functional.rnnt_loss)."""

    def __init__(self, blank: int = 0, fastemit_lambda: float = 0.001,
                 reduction: str = "mean", name: str | None = None) -> None:
        super().__init__(reduction)
        self.blank = blank
        self.fastemit_lambda = fastemit_lambda

    def forward(self, input, label, input_lengths, label_lengths):
        return F.rnnt_loss(input, label, input_lengths, label_lengths, self.blank,
                           self.fastemit_lambda, self.reduction)


class HSigmoidLoss(Layer):
    """Hierarchical sigmoid loss with its own node weights (see functional.hsigmoid_loss).

    weight [C, feature_size] and bias [C, 1] with C = num_classes - 1 for the default tree,
    num_classes when is_custom (paths given to forward); Paddle's initializers (weight
    XavierUniform, bias 0). bias_attr=False gives no bias.
    """

    def __init__(self, feature_size: int, num_classes: int, weight_attr=None, bias_attr=None,
                 is_custom: bool = False, is_sparse: bool = False,
                 name: str | None = None) -> None:
        super().__init__()
        if num_classes < 2 and not is_custom:
            raise ValueError(f"HSigmoidLoss: num_classes must be >= 2 with the default tree, "
                             f"got {num_classes}")
        if feature_size <= 0:
            raise ValueError(f"HSigmoidLoss: feature_size must be positive, got "
                             f"{feature_size}")
        self._feature_size = feature_size
        self._num_classes = num_classes
        self._is_custom = is_custom
        if is_sparse and not is_custom:
            print("Sparse mode should not be used without custom tree")
        self._is_sparse = bool(is_sparse and is_custom)
        # NOTE: Paddle 3.3.1 prints this notice on every construction, sparse or not
        print("With sparse mode, if your models has only small parameter prefetch may cause "
              "speed down")
        self._name = name
        rows = num_classes if is_custom else num_classes - 1
        self.weight = self.create_parameter([rows, feature_size], attr=weight_attr)
        self.bias = None if bias_attr is False else \
            self.create_parameter([rows, 1], attr=bias_attr, is_bias=True)

    def forward(self, input, label, path_table=None, path_code=None):
        return F.hsigmoid_loss(input, label, self._num_classes, self.weight, self.bias,
                               path_table=path_table, path_code=path_code,
                               is_sparse=self._is_sparse)
