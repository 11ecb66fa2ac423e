"""Random variables of distributions (paddle.distribution.variable): whether a variable is
discrete, its event rank and its constraint. Transforms name their domain and codomain with
these (`Transform._domain`, `Transform._codomain`).
"""
from __future__ import annotations

from collections.abc import Sequence

from .. import tensor as T
from . import constraint as _constraint

__all__ = ["Variable", "Real", "Positive", "Independent", "Stack", "real", "positive"]


class Variable:
    """A random variable.

    Args:
        is_discrete (bool): discrete or continuous. Default False.
        event_rank (int): the rank of its event dimensions. Default 0.
        constraint (Constraint, optional): the constraint its values satisfy. Default None.

    Examples:
        >>> import sampan as paddle
        >>> from sampan.distribution import variable
        >>> v = variable.Independent(variable.positive, 1)
        >>> v.event_rank, v.constraint(paddle.to_tensor([[1.0, 2.0], [1.0, -1.0]])).numpy().tolist()
        (1, [True, False])
    """

    def __init__(self, is_discrete: bool = False, event_rank: int = 0,
                 constraint: _constraint.Constraint | None = None) -> None:
        self._is_discrete = is_discrete
        self._event_rank = event_rank
        self._constraint = constraint

    @property
    def is_discrete(self) -> bool:
        return self._is_discrete

    @property
    def event_rank(self) -> int:
        return self._event_rank

    def constraint(self, value):
        """Whether `value` satisfies the variable's constraint (elementwise)."""
        if self._constraint is None:
            raise ValueError(f"{type(self).__name__}.constraint: the variable has no "
                             f"constraint")
        return self._constraint.check(value)

    def check(self, value):
        """The same as `constraint(value)`."""
        return self.constraint(value)


class Real(Variable):
    """A continuous variable with real values."""

    def __init__(self, event_rank: int = 0) -> None:
        super().__init__(False, event_rank, _constraint.real)


class Positive(Variable):
    """A continuous variable with non-negative values."""

    def __init__(self, event_rank: int = 0) -> None:
        super().__init__(False, event_rank, _constraint.positive)


class Independent(Variable):
    """`base` with its rightmost `reinterpreted_batch_rank` batch axes read as event axes."""

    def __init__(self, base: Variable, reinterpreted_batch_rank: int) -> None:
        self._base = base
        self._reinterpreted_batch_rank = reinterpreted_batch_rank
        super().__init__(base.is_discrete, base.event_rank + reinterpreted_batch_rank)

    def constraint(self, value):
        ok = self._base.constraint(value)
        rank = self._reinterpreted_batch_rank
        if ok.ndim < rank:
            raise ValueError(f"Independent.constraint: value must have at least {rank} "
                             f"dimensions, got shape {list(ok.shape)}")
        if rank == 0:
            return ok
        return T.all(ok.reshape([*ok.shape[:ok.ndim - rank], -1]), axis=-1)


class Stack(Variable):
    """Variables stacked along `axis`: value's slice i along axis is checked by vars[i]."""

    def __init__(self, vars: Sequence[Variable], axis: int = 0) -> None:
        self._vars = list(vars)
        self._axis = axis
        super().__init__(self.is_discrete, self.event_rank)

    @property
    def is_discrete(self) -> bool:
        return any(v.is_discrete for v in self._vars)

    @property
    def event_rank(self) -> int:
        rank = max(v.event_rank for v in self._vars)
        return rank + 1 if self._axis + rank < 0 else rank

    def constraint(self, value):
        if not -value.ndim <= self._axis < value.ndim:
            raise ValueError(f"Stack.constraint: axis {self._axis} is out of range for a "
                             f"value with {value.ndim} dimensions")
        parts = T.unstack(value, self._axis)
        if len(parts) != len(self._vars):
            raise ValueError(f"Stack.constraint: value has {len(parts)} slices along axis "
                             f"{self._axis} but there are {len(self._vars)} variables")
        return T.stack([v.check(p) for v, p in zip(self._vars, parts)], self._axis)


real = Real()
positive = Positive()
