"""paddle.regularizer: L1Decay and L2Decay, the weight-decay terms optimizers add to gradients.

A regularizer is called as `reg(param, grad)` and returns the term added to `grad` (written in
sampan ops, so static `minimize` can reuse it). Imports only sampan's public tensor functions.
"""
from __future__ import annotations

__all__ = ["L1Decay", "L2Decay", "WeightDecayRegularizer"]


class WeightDecayRegularizer:
    """Base class of the weight-decay regularizers."""

    def __init__(self, coeff: float = 0.0) -> None:
        if isinstance(coeff, bool) or not isinstance(coeff, (int, float)):
            if isinstance(coeff, str) or not hasattr(coeff, "__float__"):
                raise TypeError(f"{type(self).__name__}: coeff must be a float, got "
                                f"{type(coeff).__name__}")
            coeff = float(coeff)  # a 1-element Tensor or NumPy scalar
        self._coeff = float(coeff)

    @property
    def coeff(self) -> float:
        return self._coeff

    def __call__(self, param, grad, block=None):
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}(coeff={self._coeff})"


class L2Decay(WeightDecayRegularizer):
    """L2 weight decay: adds `coeff * param` to the gradient (loss term coeff/2 * ||param||^2).

    Args:
        coeff (float): the regularization coefficient. Default 0.0.

    Examples:
        >>> import sampan as paddle
        >>> paddle.regularizer.L2Decay(0.01)
        L2Decay(coeff=0.01)
    """

    def __call__(self, param, grad, block=None):
        return param * self._coeff

    def __str__(self) -> str:
        return f"L2Decay, coeff={self._coeff:f}"


class L1Decay(WeightDecayRegularizer):
    """L1 weight decay: adds `coeff * sign(param)` to the gradient (loss term coeff * |param|).

    Args:
        coeff (float): the regularization coefficient. Default 0.0.

    Examples:
        >>> import sampan as paddle
        >>> paddle.regularizer.L1Decay(0.5)
        L1Decay(coeff=0.5)
    """

    def __call__(self, param, grad, block=None):
        return param.sign() * self._coeff

    def __str__(self) -> str:
        return f"L1Decay, coeff={self._coeff:f}"
