"""paddle.optimizer.lr: learning-rate schedulers.

A scheduler holds `last_epoch` and `last_lr`; `step()` advances it (the user calls it) and the
optimizer reads `scheduler()` every step. Plain Python floats; imports nothing from sampan.
This module owns the LRScheduler base; the decay schedulers (lr_decay.py) and the cyclic and
plateau ones (lr_cyclic.py) are re-exported at the bottom.
"""
from __future__ import annotations

import warnings

__all__ = ["LRScheduler", "NoamDecay", "PiecewiseDecay", "NaturalExpDecay", "InverseTimeDecay",
           "PolynomialDecay", "LinearWarmup", "ExponentialDecay", "MultiStepDecay",
           "StepDecay", "LambdaDecay", "ReduceOnPlateau", "CosineAnnealingDecay",
           "MultiplicativeDecay", "OneCycleLR", "CyclicLR", "CosineAnnealingWarmRestarts",
           "LinearLR"]


def _number(api: str, arg: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{api}: {arg} must be a float or int, got {type(value).__name__}")
    return float(value)


def _positive_int(api: str, arg: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError(f"{api}: {arg} must be a positive integer, got {value!r}")
    return value


class LRScheduler:
    """Base class of the schedulers: subclasses define `get_lr()` from `last_epoch`.

    Args:
        learning_rate (float): the initial learning rate. Default 0.1.
        last_epoch (int): the epoch to resume from; -1 starts fresh. Default -1.
        verbose (bool): print the learning rate at every step. Default False.
    """

    def __init__(self, learning_rate: float = 0.1, last_epoch: int = -1,
                 verbose: bool = False) -> None:
        lr = _number(type(self).__name__, "learning_rate", learning_rate)
        if lr < 0:
            raise ValueError(f"{type(self).__name__}: learning_rate must be >= 0, got {lr}")
        self.base_lr = lr
        self.last_lr = lr
        self.last_epoch = last_epoch
        self.verbose = verbose
        self.step()

    def __call__(self) -> float:
        return self.last_lr

    def step(self, epoch: int | None = None) -> None:
        """Advance one epoch (or jump to `epoch`) and recompute last_lr."""
        if epoch is None:
            self.last_epoch += 1
            self.last_lr = self.get_lr()
        else:
            self.last_epoch = epoch
            closed = getattr(self, "_get_closed_form_lr", None)
            self.last_lr = closed() if closed is not None else self.get_lr()
        self._report()

    def _report(self) -> None:
        if self.verbose:
            print(f"Epoch {self.last_epoch}: {type(self).__name__} set learning rate to "
                  f"{self.last_lr}.")

    def get_lr(self) -> float:
        raise NotImplementedError(f"{type(self).__name__} defines no get_lr")

    def state_keys(self) -> None:
        self.keys = ["last_epoch", "last_lr"]

    def state_dict(self) -> dict:
        """{"last_epoch": ..., "last_lr": ...} plus the subclass's own keys."""
        self.state_keys()
        state = {}
        for key in self.keys:
            if key in self.__dict__:
                value = self.__dict__[key]
                if hasattr(value, "item") and not isinstance(value, (int, float)):
                    value = float(value.item())
                state[key] = value
        return state

    def set_state_dict(self, state_dict: dict) -> None:
        self.state_keys()
        for key in self.keys:
            if key not in state_dict:
                raise RuntimeError(f"{type(self).__name__}.set_state_dict: can't find "
                                   f"[ {key} ] in state_dict")
            self.__dict__[key] = state_dict[key]
        if len(state_dict) > len(self.keys):
            warnings.warn("There are some unused values in state_dict. Maybe the optimizer "
                          "have different 'LearningRateDecay' when invoking state_dict and "
                          "set_dict")

    set_dict = set_state_dict


# the schedulers, listed in __all__ above
from .lr_decay import (ExponentialDecay, InverseTimeDecay, LambdaDecay, LinearLR,  # noqa: E402
                       LinearWarmup, MultiplicativeDecay, MultiStepDecay, NaturalExpDecay,
                       NoamDecay, PiecewiseDecay, PolynomialDecay, StepDecay)
from .lr_cyclic import (CosineAnnealingDecay, CosineAnnealingWarmRestarts,  # noqa: E402
                        CyclicLR, OneCycleLR, ReduceOnPlateau)
from .lr_legacy import (cosine_decay, exponential_decay, inverse_time_decay,  # noqa: E402,F401
                        linear_lr_warmup, natural_exp_decay, noam_decay, piecewise_decay,
                        polynomial_decay)
