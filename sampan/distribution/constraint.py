"""Constraints on the values of a random variable (paddle.distribution.constraint).

A constraint is called on a value and says, elementwise, whether the value satisfies it: a
bool Tensor for a Tensor, a bool for a Python number. Used by `variable.Variable`, which the
transforms name as their domain and codomain.
"""
from __future__ import annotations

from .. import tensor as T
from .distribution import is_tensor

__all__ = ["Constraint", "Real", "Range", "Positive", "Simplex", "real", "positive", "simplex"]


class Constraint:
    """Base class: calling it checks a value (subclasses implement `__call__`).

    Examples:
        >>> import sampan as paddle
        >>> from sampan.distribution import constraint
        >>> constraint.Range(0.0, 1.0)(paddle.to_tensor([0.5, 2.0])).numpy().tolist()
        [True, False]
    """

    def __call__(self, value):
        raise NotImplementedError(f"{type(self).__name__}: __call__ is not implemented")

    def check(self, value):
        """The same as calling the constraint."""
        return self(value)


class Real(Constraint):
    """Any real number (NaN fails: the check is value == value)."""

    def __call__(self, value):
        return value == value


class Range(Constraint):
    """lower <= value <= upper."""

    def __init__(self, lower, upper) -> None:
        self._lower = lower
        self._upper = upper
        super().__init__()

    def __call__(self, value):
        if is_tensor(value):
            return T.logical_and(value >= self._lower, value <= self._upper)
        return self._lower <= value <= self._upper


class Positive(Constraint):
    """value >= 0."""

    def __call__(self, value):
        return value >= 0.0


class Simplex(Constraint):
    """Along the last axis: every entry >= 0 and the entries sum to 1 (within 1e-6)."""

    def __call__(self, value):
        if not is_tensor(value):
            raise TypeError(f"Simplex: value must be a Tensor, got {type(value).__name__}")
        nonneg = T.all(value >= 0, axis=-1)
        return T.logical_and(nonneg, (value.sum(-1) - 1).abs() < 1e-6)


real = Real()
positive = Positive()
simplex = Simplex()
