"""Pointwise losses (paddle.nn.functional): the regression losses (mse, l1, smooth_l1,
poisson/gaussian NLL, square_error_cost) and the binary/probabilistic ones (binary cross
entropy with and without logits, sigmoid focal loss, log_loss, kl_div), as composites of public
tensor ops. The argument checks are shared with loss.py.
"""
from __future__ import annotations

import math

from ... import tensor as T
from ...framework.tensor import Tensor
from ...tensor._helpers import require_tensor
from .loss import (_as_float, _check_float, _check_reduction, _check_same_shape, _concrete,
                   _reduce, _softplus)

__all__ = ["mse_loss", "l1_loss", "smooth_l1_loss", "binary_cross_entropy",
           "binary_cross_entropy_with_logits", "kl_div", "poisson_nll_loss",
           "gaussian_nll_loss", "sigmoid_focal_loss", "square_error_cost", "log_loss"]


# --- regression losses ------------------------------------------------------------------

def mse_loss(input: Tensor, label: Tensor, reduction: str = "mean",
             name: str | None = None) -> Tensor:
    """Mean squared error (input - label) ** 2, reduced by `reduction`.

    Examples:
        >>> import sampan as paddle
        >>> import sampan.nn.functional as F
        >>> F.mse_loss(paddle.to_tensor([1.0, 2.0]), paddle.to_tensor([0.0, 0.0])).item()
        2.5
    """
    _check_reduction("mse_loss", reduction)
    return _reduce(T.square(input - label), reduction)


def square_error_cost(input: Tensor, label: Tensor) -> Tensor:
    """Elementwise (input - label) ** 2 (no reduction).

    Examples:
        >>> import sampan as paddle
        >>> import sampan.nn.functional as F
        >>> F.square_error_cost(paddle.to_tensor([1.0, 3.0]), paddle.to_tensor([0.0, 1.0])).numpy()
        array([1., 4.], dtype=float32)
    """
    require_tensor("square_error_cost", "input", input)
    require_tensor("square_error_cost", "label", label)
    return T.square(input - label)


def l1_loss(input: Tensor, label: Tensor, reduction: str = "mean",
            name: str | None = None) -> Tensor:
    """Mean absolute error |input - label|, reduced by `reduction`.

    Examples:
        >>> import sampan as paddle
        >>> import sampan.nn.functional as F
        >>> F.l1_loss(paddle.to_tensor([1.0, -2.0]), paddle.to_tensor([0.0, 0.0])).item()
        1.5
    """
    _check_reduction("l1_loss", reduction)
    return _reduce(T.abs(input - label), reduction)


def smooth_l1_loss(input: Tensor, label: Tensor, reduction: str = "mean", delta: float = 1.0,
                   is_huber: bool = True, name: str | None = None) -> Tensor:
    """Huber loss: 0.5 * r ** 2 where |r| <= delta, else delta * (|r| - 0.5 * delta), with
    r = input - label; divided by delta when is_huber=False (the smooth L1 form).

    Examples:
        >>> import sampan as paddle
        >>> import sampan.nn.functional as F
        >>> x, y = paddle.to_tensor([0.5, 3.0]), paddle.to_tensor([0.0, 0.0])
        >>> F.smooth_l1_loss(x, y, reduction='none').numpy()
        array([0.125, 2.5  ], dtype=float32)
    """
    _check_reduction("smooth_l1_loss", reduction)
    r = T.abs(input - label)
    small = T.less_equal(r, T.full_like(r, delta))
    out = T.where(small, 0.5 * T.square(r), delta * (r - 0.5 * delta))
    if not is_huber:
        out = out / delta
    return _reduce(out, reduction)


def poisson_nll_loss(input: Tensor, label: Tensor, log_input: bool = True, full: bool = False,
                     epsilon: float = 1e-8, reduction: str = "mean",
                     name: str | None = None) -> Tensor:
    """Poisson negative log likelihood: exp(input) - label * input (log_input) or
    input - label * log(input + epsilon), plus Stirling's term for label > 1 when full.

    Examples:
        >>> import sampan as paddle
        >>> import sampan.nn.functional as F
        >>> x, y = paddle.to_tensor([0.0, 1.0]), paddle.to_tensor([1.0, 2.0])
        >>> round(F.poisson_nll_loss(x, y).item(), 4)
        0.8591
    """
    api = "poisson_nll_loss"
    if epsilon <= 0:
        raise ValueError(f"{api}: epsilon must be positive, got {epsilon}")
    _check_reduction(api, reduction)
    _check_same_shape(api, input, label)
    if log_input:
        out = T.exp(input) - label * input
    else:
        out = input - label * T.log(input + epsilon)
    if full:
        safe = T.where(label > 1, label, T.ones_like(label))
        stirling = safe * T.log(safe) - safe + 0.5 * T.log(2 * math.pi * safe)
        out = out + T.where(label > 1, stirling, T.zeros_like(stirling))
    return _reduce(out, reduction)


def gaussian_nll_loss(input: Tensor, label: Tensor, variance: Tensor, full: bool = False,
                      epsilon: float = 1e-6, reduction: str = "mean",
                      name: str | None = None) -> Tensor:
    """Gaussian negative log likelihood 0.5 * (log(var) + (input - label) ** 2 / var)
    (+ 0.5 * log(2 pi) when full), with var clamped below at `epsilon`.

    `variance` may have input's shape, input's shape without the last dim, or a last dim of
    1 (one variance per sample).

    Examples:
        >>> import sampan as paddle
        >>> import sampan.nn.functional as F
        >>> x, y = paddle.to_tensor([1.0, 2.0]), paddle.to_tensor([1.5, 1.0])
        >>> round(F.gaussian_nll_loss(x, y, paddle.to_tensor([0.5, 2.0])).item(), 4)
        0.25
    """
    api = "gaussian_nll_loss"
    _check_reduction(api, reduction)
    for arg, t in (("input", input), ("label", label), ("variance", variance)):
        _check_float(api, t, arg)
    if list(variance.shape) != list(input.shape):
        if list(input.shape[:-1]) == list(variance.shape):
            variance = T.unsqueeze(variance, -1)
        elif not (list(input.shape[:-1]) == list(variance.shape[:-1])
                  and variance.shape[-1] == 1):
            raise ValueError(f"{api}: variance of shape {list(variance.shape)} does not fit "
                             f"input of shape {list(input.shape)} (expected the same shape, "
                             f"the shape without the last dim, or a last dim of 1)")
    if _concrete(variance) and bool((variance.numpy() < 0).any()):
        raise ValueError(f"{api}: variance has negative entries")
    # NOTE: the clamp passes the gradient to variance where variance >= epsilon (Paddle
    # 3.3 clamps under no_grad and so sends variance no gradient at all).
    var = T.clip(variance, min=epsilon)
    out = 0.5 * (T.log(var) + T.square(input - label) / var)
    if full:
        out = out + 0.5 * math.log(2 * math.pi)
    return _reduce(out, reduction)


# --- binary and probabilistic losses --------------------------------------------------

def binary_cross_entropy(input: Tensor, label: Tensor, weight: Tensor | None = None,
                         reduction: str = "mean", name: str | None = None) -> Tensor:
    """-(label * log(input) + (1 - label) * log(1 - input)), logs clamped at -100.

    Examples:
        >>> import sampan as paddle
        >>> import sampan.nn.functional as F
        >>> p, y = paddle.to_tensor([0.8, 0.1]), paddle.to_tensor([1.0, 0.0])
        >>> round(F.binary_cross_entropy(p, y).item(), 4)
        0.1643
    """
    api = "binary_cross_entropy"
    _check_reduction(api, reduction)
    _check_float(api, input, "input")
    _check_same_shape(api, input, label)
    label = _as_float(label, input)
    log_p = T.clip(T.log(input), min=-100.0)
    log_q = T.clip(T.log(1.0 - input), min=-100.0)
    out = -(label * log_p + (1.0 - label) * log_q)
    if weight is not None:
        out = out * weight
    return _reduce(out, reduction)


def binary_cross_entropy_with_logits(logit: Tensor, label: Tensor,
                                     weight: Tensor | None = None, reduction: str = "mean",
                                     pos_weight: Tensor | None = None,
                                     name: str | None = None) -> Tensor:
    """Sigmoid + binary cross entropy, computed stably from the logits:
    (1 - label) * logit + (1 + (pos_weight - 1) * label) * softplus(-logit).

    Examples:
        >>> import sampan as paddle
        >>> import sampan.nn.functional as F
        >>> x, y = paddle.to_tensor([2.0, -1.0]), paddle.to_tensor([1.0, 0.0])
        >>> round(F.binary_cross_entropy_with_logits(x, y).item(), 4)
        0.2201
    """
    api = "binary_cross_entropy_with_logits"
    _check_reduction(api, reduction)
    _check_float(api, logit, "logit")
    _check_same_shape(api, logit, label, ("logit", "label"))
    label = _as_float(label, logit)
    sp = _softplus(-logit)
    if pos_weight is not None:
        sp = sp * (1.0 + (pos_weight - 1.0) * label)
    out = (1.0 - label) * logit + sp
    if weight is not None:
        out = out * weight
    return _reduce(out, reduction)


def sigmoid_focal_loss(logit: Tensor, label: Tensor, normalizer: Tensor | None = None,
                       alpha: float = 0.25, gamma: float = 2.0, reduction: str = "sum",
                       name: str | None = None) -> Tensor:
    """Focal loss alpha_t * (1 - p_t) ** gamma * bce_with_logits(logit, label), divided by
    `normalizer` when given. Default reduction 'sum'.

    Examples:
        >>> import sampan as paddle
        >>> import sampan.nn.functional as F
        >>> x, y = paddle.to_tensor([2.0, -1.0]), paddle.to_tensor([1.0, 0.0])
        >>> round(F.sigmoid_focal_loss(x, y).item(), 4)
        0.0174
    """
    api = "sigmoid_focal_loss"
    _check_reduction(api, reduction)
    if normalizer is not None and normalizer.ndim > 1:
        raise ValueError(f"{api}: normalizer must have 0 or 1 dims, got shape "
                         f"{list(normalizer.shape)}")
    label = _as_float(label, logit)
    loss = binary_cross_entropy_with_logits(logit, label, reduction="none")
    pred = T.sigmoid(logit)
    p_t = pred * label + (1.0 - pred) * (1.0 - label)
    alpha_t = alpha * label + (1.0 - alpha) * (1.0 - label)
    loss = alpha_t * T.pow(1.0 - p_t, gamma) * loss
    if normalizer is not None:
        loss = loss / normalizer
    return _reduce(loss, reduction)


def log_loss(input: Tensor, label: Tensor, epsilon: float = 1e-4,
             name: str | None = None) -> Tensor:
    """Elementwise -label * log(input + eps) - (1 - label) * log(1 - input + eps).

    Examples:
        >>> import sampan as paddle
        >>> import sampan.nn.functional as F
        >>> F.log_loss(paddle.to_tensor([[0.5]]), paddle.to_tensor([[1.0]])).numpy().round(4)
        array([[0.6929]], dtype=float32)
    """
    _check_float("log_loss", input, "input")
    if input.ndim != 2 or input.shape[1] != 1:
        raise ValueError(f"log_loss: input must have shape [N, 1] (one probability per row), "
                         f"got {list(input.shape)}")
    return -label * T.log(input + epsilon) - (1.0 - label) * T.log(1.0 - input + epsilon)


def kl_div(input: Tensor, label: Tensor, reduction: str = "mean", log_target: bool = False,
           name: str | None = None) -> Tensor:
    """Kullback-Leibler divergence with `input` as log probabilities:
    label * (log(label) - input) (0 where label <= 0), or exp(label) * (label - input) when
    log_target. reduction also accepts 'batchmean' (sum / batch size).

    Examples:
        >>> import sampan as paddle
        >>> import sampan.nn.functional as F
        >>> x = paddle.log(paddle.to_tensor([0.5, 0.5]))
        >>> round(F.kl_div(x, paddle.to_tensor([0.9, 0.1]), reduction='sum').item(), 4)
        0.3681
    """
    api = "kl_div"
    _check_reduction(api, reduction, ("batchmean",))
    if input.dtype is not label.dtype and {input.dtype.name, label.dtype.name} == {
            "float32", "float64"}:
        input, label = T.cast(input, "float64"), T.cast(label, "float64")
    if log_target:
        out = T.exp(label) * (label - input)
    else:
        pos = label > 0
        safe = T.where(pos, label, T.ones_like(label))
        out = T.where(pos, label * (T.log(safe) - input), T.zeros_like(input))
    if reduction == "batchmean":
        return T.sum(out) / input.shape[0] if input.ndim else out
    return _reduce(out, reduction)
