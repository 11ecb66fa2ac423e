"""ASGD and Rprop (update rules `asgd` and `rprop` in ops/optim.py)."""
from __future__ import annotations

from .optimizer import Optimizer

__all__ = ["ASGD", "Rprop"]


class ASGD(Optimizer):
    """Averaged (SAG-style) SGD over the last `batch_num` gradients:
    d = d - y[i] + grad; y[i] = grad; param -= lr * d / min(m + 1, batch_num).

    Args:
        learning_rate (float|LRScheduler, optional): Default 0.001.
        batch_num (int, optional): number of stored gradients. Default 1.
        parameters, weight_decay, grad_clip, name: see Optimizer.
    """

    _op = "asgd"

    def __init__(self, learning_rate=0.001, batch_num: int = 1, parameters=None,
                 weight_decay=None, grad_clip=None, multi_precision: bool = False,
                 name: str | None = None) -> None:
        if not isinstance(batch_num, int) or isinstance(batch_num, bool) or batch_num <= 0:
            raise ValueError(f"ASGD: batch_num must be a positive int, got {batch_num!r}")
        self._n = batch_num
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)

    def _prepare(self, param, group):
        states = [self._add_accumulator("d", param),
                  self._add_accumulator("y", param, shape=[self._n, *param._data.shape]),
                  self._add_accumulator("m", param, 0, shape=[1], dtype="int64")]
        return states, {}


class Rprop(Optimizer):
    """Rprop (full-batch): per-element step sizes adapted by the sign of successive gradients.

    The step sizes start at `learning_rate`; later changes of the optimizer's learning rate
    do not affect them (as in Paddle).

    Args:
        learning_rate (float|LRScheduler, optional): initial step size. Default 0.001.
        learning_rate_range (tuple, optional): (min, max) step size. Default (1e-5, 50).
        parameters: see Optimizer.
        etas (tuple, optional): (decrease, increase) factors. Default (0.5, 1.2).
        grad_clip, name: see Optimizer.
    """

    _op = "rprop"

    def __init__(self, learning_rate=0.001, learning_rate_range=(1e-5, 50), parameters=None,
                 etas=(0.5, 1.2), grad_clip=None, multi_precision: bool = False,
                 name: str | None = None) -> None:
        lo, hi = (float(v) for v in learning_rate_range)
        lr0 = learning_rate() if callable(learning_rate) else float(learning_rate)
        if not 0.0 < lo <= lr0 <= hi:
            raise ValueError(f"Rprop: '0.0 < learning_rate_range[0] <= learning_rate <= "
                             f"learning_rate_range[1]' must be true, got range "
                             f"{list(learning_rate_range)} and learning_rate {lr0}")
        shrink, grow = (float(v) for v in etas)
        if not 0.0 < shrink < 1.0 < grow:
            raise ValueError(f"Rprop: '0.0 < etas[0] < 1.0 < etas[1]' must be true, got "
                             f"{list(etas)}")
        self._range, self._etas, self._initial = [lo, hi], [shrink, grow], lr0
        super().__init__(learning_rate, parameters, 0.0, grad_clip, name)

    def _prepare(self, param, group):
        states = [self._add_accumulator("learning_rates", param, self._initial),
                  self._add_accumulator("prevs", param)]
        return states, {"learning_rate_range": self._range, "etas": self._etas}

    def _update(self, param, grad, lr, states, attrs) -> None:
        rates, prevs = states  # the per-element step sizes replace the global lr
        data = param._data
        if not getattr(data.flags, "writeable", True):  # CuPy arrays have no such flag
            param._data = data = data.copy()
        self._opdef.update(_xp(), data, grad, rates._data, prevs._data, **attrs)
        param._version += 1


def _xp():
    from ..backend import numpy_
    return numpy_
