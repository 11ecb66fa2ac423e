"""paddle.incubate.LookAhead and ModelAverage: wrappers that keep extra copies of the
parameters (slow weights; windowed sums) next to an inner optimizer. Eager mode.
"""
from __future__ import annotations

import numpy as np

from ..autograd import no_grad
from ..framework.tensor import Tensor

_MAX_ACCUMULATES = 16384   # as Paddle's average_accumulates kernel: fold sum_1 into sum_2


def _params(api: str, parameters) -> list:
    if parameters is None:
        raise ValueError(f"{api}: parameters must be given in dynamic mode")
    params = list(parameters)
    if params and isinstance(params[0], dict):
        params = [p for g in params for p in g["params"]]
    for p in params:
        if not isinstance(p, Tensor):
            raise TypeError(f"{api}: parameters must be Tensors, got {type(p).__name__}")
    return params


class LookAhead:
    """Lookahead (Zhang et al. 2019): the inner optimizer moves the fast weights every step;
    every k steps slow += alpha * (fast - slow) and fast = slow.

    Args:
        inner_optimizer (Optimizer): the optimizer of the fast weights.
        alpha (float): slow-weight step size in [0, 1], default 0.5.
        k (int): period in steps (> 0), default 5.

    Examples:
        >>> import sampan as paddle
        >>> linear = paddle.nn.Linear(10, 1)
        >>> sgd = paddle.optimizer.SGD(learning_rate=0.1, parameters=linear.parameters())
        >>> lookahead = paddle.incubate.LookAhead(sgd, alpha=0.2, k=5)
        >>> loss = linear(paddle.rand([1, 10])).mean()
        >>> loss.backward()
        >>> lookahead.step()
        >>> lookahead.clear_grad()
    """

    def __init__(self, inner_optimizer, alpha: float = 0.5, k: int = 5, name=None) -> None:
        if inner_optimizer is None:
            raise ValueError("LookAhead: inner_optimizer can not be None")
        if not 0.0 <= alpha <= 1.0:
            raise ValueError(f"LookAhead: alpha must be in [0, 1], got {alpha}")
        if not isinstance(k, int) or k <= 0:
            raise ValueError(f"LookAhead: k must be a positive int, got {k!r}")
        self.inner_optimizer = inner_optimizer
        self.alpha, self.k, self._step_count = float(alpha), k, 0
        self._parameter_list = _params("LookAhead", inner_optimizer._parameter_list)
        self._slow: dict = {}

    def step(self) -> None:
        """Run the inner optimizer, then the lookahead update when the step count is due."""
        self.inner_optimizer.step()
        self._step_count += 1
        with no_grad():
            for p in self._parameter_list:
                if p.stop_gradient or p.grad is None:
                    continue
                fast = p.numpy()
                if self._step_count == 1:
                    self._slow[id(p)] = fast.copy()
                if self._step_count % self.k == 0:
                    slow = self.alpha * fast + (1.0 - self.alpha) * self._slow[id(p)]
                    self._slow[id(p)] = slow.astype(fast.dtype)
                    p.set_value(slow.astype(fast.dtype))

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        """loss.backward() then step() (dynamic mode)."""
        loss.backward()
        self.step()
        return None, None

    def clear_grad(self, set_to_zero: bool = True) -> None:
        self.inner_optimizer.clear_grad(set_to_zero)

    clear_gradients = clear_grad

    def get_lr(self) -> float:
        return self.inner_optimizer.get_lr()

    def set_lr(self, value: float) -> None:
        self.inner_optimizer.set_lr(value)

    def state_dict(self) -> dict:
        return self.inner_optimizer.state_dict()

    def set_state_dict(self, state_dict: dict) -> None:
        self.inner_optimizer.set_state_dict(state_dict)


class ModelAverage:
    """Average each parameter over a sliding window of recent steps; `apply()` swaps the
    averages in (e.g. for evaluation) and `restore()` puts the trained values back.

    The window restarts once num_accumulates >= min_average_window and >=
    min(max_average_window, num_updates * average_window_rate).

    Examples:
        >>> import sampan as paddle
        >>> linear = paddle.nn.Linear(2, 1)
        >>> sgd = paddle.optimizer.SGD(0.1, parameters=linear.parameters())
        >>> avg = paddle.incubate.ModelAverage(0.15, parameters=linear.parameters(),
        ...                                    min_average_window=2, max_average_window=4)
        >>> loss = linear(paddle.ones([1, 2])).mean()
        >>> loss.backward()
        >>> sgd.step()
        >>> avg.step()
        >>> with avg.apply():
        ...     pass
    """

    def __init__(self, average_window_rate: float, parameters=None,
                 min_average_window: int = 10000, max_average_window: int = 10000,
                 name=None) -> None:
        if min_average_window > max_average_window:
            raise ValueError("ModelAverage: min_average_window "
                             f"({min_average_window}) must be <= max_average_window "
                             f"({max_average_window})")
        self.average_window = float(average_window_rate)
        self.min_average_window, self.max_average_window = min_average_window, max_average_window
        self._parameter_list = _params("ModelAverage", parameters)
        self._state: dict = {}
        self._backup: dict = {}

    def _acc(self, p) -> dict:
        st = self._state.get(id(p))
        if st is None:
            zero = np.zeros(p.shape, dtype=p.numpy().dtype)
            st = self._state[id(p)] = {"sum_1": zero, "sum_2": zero.copy(), "sum_3": zero.copy(),
                                       "num_accumulates": 0, "old_num_accumulates": 0,
                                       "num_updates": 0}
        return st

    def step(self) -> None:
        """Accumulate the current parameter values into the window sums."""
        for p in self._parameter_list:
            if p.stop_gradient:
                continue
            st = self._acc(p)
            st["num_updates"] += 1
            st["num_accumulates"] += 1
            st["sum_1"] = st["sum_1"] + p.numpy()
            if st["num_updates"] % _MAX_ACCUMULATES == 0:
                st["sum_2"], st["sum_1"] = st["sum_2"] + st["sum_1"], st["sum_1"] * 0
            limit = min(self.max_average_window, st["num_updates"] * self.average_window)
            if st["num_accumulates"] >= self.min_average_window and \
                    st["num_accumulates"] >= limit:
                st["sum_3"] = st["sum_1"] + st["sum_2"]
                st["sum_1"], st["sum_2"] = st["sum_1"] * 0, st["sum_2"] * 0
                st["old_num_accumulates"] = st["num_accumulates"]
                st["num_accumulates"] = 0

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        """Accumulate (dynamic mode): same as step()."""
        self.step()

    def apply(self, executor=None, need_restore: bool = True):
        """Set each parameter to its window average; a context manager that restores the
        trained values on exit when need_restore is True."""
        for p in self._parameter_list:
            st = self._state.get(id(p))
            if st is None:
                continue
            total = st["num_accumulates"] + st["old_num_accumulates"]
            self._backup[id(p)] = p.numpy().copy()
            avg = (st["sum_1"] + st["sum_2"] + st["sum_3"]) / max(total, 1)
            p.set_value(avg.astype(p.numpy().dtype))
        return _Restorer(self if need_restore else None)

    def restore(self, executor=None) -> None:
        """Put back the parameter values saved by apply()."""
        for p in self._parameter_list:
            if id(p) in self._backup:
                p.set_value(self._backup.pop(id(p)))


class _Restorer:
    def __init__(self, owner) -> None:
        self._owner = owner

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        if self._owner is not None:
            self._owner.restore()
