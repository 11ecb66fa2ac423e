"""Lamb, NAdam and RAdam (update rules `lamb`, `nadam`, `radam` in ops/optim.py)."""
from __future__ import annotations

from .adam import _beta
from .optimizer import Optimizer

__all__ = ["Lamb", "NAdam", "RAdam"]


class Lamb(Optimizer):
    """LAMB: the Adam direction plus lamb_weight_decay * param, scaled by the trust ratio
    ||param|| / ||direction||.

    Args:
        learning_rate (float|LRScheduler, optional): Default 0.001.
        lamb_weight_decay (float, optional): Default 0.01.
        beta1, beta2 (float|Tensor, optional): Defaults 0.9, 0.999.
        epsilon (float, optional): Default 1e-6.
        parameters, grad_clip, name: see Optimizer.
        exclude_from_weight_decay_fn (callable, optional): fn(param) -> True to skip decay.
        always_adapt (bool, optional): use the trust ratio even without weight decay.
    """

    _op = "lamb"
    _group_keys = {"beta1": "_beta1", "beta2": "_beta2", "epsilon": "_epsilon",
                   "lamb_weight_decay": "_lamb_weight_decay"}

    def __init__(self, learning_rate=0.001, lamb_weight_decay: float = 0.01, beta1=0.9,
                 beta2=0.999, epsilon: float = 1e-6, parameters=None, grad_clip=None,
                 exclude_from_weight_decay_fn=None, multi_precision: bool = False,
                 always_adapt: bool = False, name: str | None = None) -> None:
        self._beta1 = _beta("Lamb", "beta1", beta1)
        self._beta2 = _beta("Lamb", "beta2", beta2)
        self._epsilon = float(epsilon)
        self._lamb_weight_decay = float(lamb_weight_decay)
        self._exclude_fn = exclude_from_weight_decay_fn
        self._always_adapt = bool(always_adapt)
        super().__init__(learning_rate, parameters, None, grad_clip, name)

    def _prepare(self, param, group):
        beta1, beta2 = float(self._hyper(group, "beta1")), float(self._hyper(group, "beta2"))
        decay = float(self._hyper(group, "lamb_weight_decay"))
        if self._exclude_fn is not None and self._exclude_fn(param):
            decay = 0.0
        states = [self._add_accumulator("moment1", param),
                  self._add_accumulator("moment2", param),
                  self._add_accumulator("beta1_pow_acc", param, beta1, shape=[1]),
                  self._add_accumulator("beta2_pow_acc", param, beta2, shape=[1])]
        return states, {"weight_decay": decay, "beta1": beta1, "beta2": beta2,
                        "epsilon": float(self._hyper(group, "epsilon")),
                        "always_adapt": self._always_adapt}


class NAdam(Optimizer):
    """NAdam: Adam with Nesterov momentum and the momentum schedule
    mu_t = beta1 * (1 - 0.5 * 0.96^(t * momentum_decay)).

    Args:
        learning_rate (float|LRScheduler, optional): Default 0.002.
        beta1, beta2 (float|Tensor, optional): Defaults 0.9, 0.999.
        epsilon (float, optional): Default 1e-8.
        momentum_decay (float, optional): Default 0.004.
        parameters, weight_decay, grad_clip, name: see Optimizer.
    """

    _op = "nadam"
    _group_keys = {"beta1": "_beta1", "beta2": "_beta2", "epsilon": "_epsilon",
                   "momentum_decay": "_momentum_decay"}

    def __init__(self, learning_rate=0.002, beta1=0.9, beta2=0.999, epsilon: float = 1.0e-8,
                 momentum_decay: float = 0.004, parameters=None, weight_decay=None,
                 grad_clip=None, name: str | None = None) -> None:
        if isinstance(learning_rate, (int, float)) and learning_rate < 0:
            raise ValueError(f"NAdam: invalid learning rate {learning_rate}, expected >= 0")
        if epsilon < 0:
            raise ValueError(f"NAdam: invalid epsilon {epsilon}, expected >= 0")
        if momentum_decay < 0:
            raise ValueError(f"NAdam: invalid momentum_decay {momentum_decay}, expected >= 0")
        self._beta1 = _beta("NAdam", "beta1", beta1)
        self._beta2 = _beta("NAdam", "beta2", beta2)
        self._epsilon, self._momentum_decay = float(epsilon), float(momentum_decay)
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)

    def _prepare(self, param, group):
        states = [self._add_accumulator("momentum_decay_pow", param, 1.0),
                  self._add_accumulator("beta2_pow", param, 1.0),
                  self._add_accumulator("mu_product", param, 1.0),
                  self._add_accumulator("moment1", param),
                  self._add_accumulator("moment2", param)]
        return states, {"beta1": float(self._hyper(group, "beta1")),
                        "beta2": float(self._hyper(group, "beta2")),
                        "epsilon": float(self._hyper(group, "epsilon")),
                        "momentum_decay": float(self._hyper(group, "momentum_decay"))}


class RAdam(Optimizer):
    """RAdam: Adam with a rectified adaptive term (momentum SGD while rho_t <= 5).

    Args:
        learning_rate (float|LRScheduler, optional): Default 0.001.
        beta1, beta2 (float|Tensor, optional): Defaults 0.9, 0.999.
        epsilon (float, optional): Default 1e-8.
        parameters, weight_decay, grad_clip, name: see Optimizer.
    """

    _op = "radam"
    _group_keys = {"beta1": "_beta1", "beta2": "_beta2", "epsilon": "_epsilon"}

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon: float = 1.0e-8,
                 parameters=None, weight_decay=None, grad_clip=None,
                 name: str | None = None) -> None:
        if isinstance(learning_rate, (int, float)) and learning_rate < 0:
            raise ValueError(f"RAdam: invalid learning rate {learning_rate}, expected >= 0")
        if epsilon < 0:
            raise ValueError(f"RAdam: invalid epsilon {epsilon}, expected >= 0")
        self._beta1 = _beta("RAdam", "beta1", beta1)
        self._beta2 = _beta("RAdam", "beta2", beta2)
        self._epsilon = float(epsilon)
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)

    def _prepare(self, param, group):
        states = [self._add_accumulator("beta1_pow", param, 1.0),
                  self._add_accumulator("beta2_pow", param, 1.0),
                  self._add_accumulator("rho", param, 1.0),
                  self._add_accumulator("moment1", param),
                  self._add_accumulator("moment2", param)]
        return states, {"beta1": float(self._hyper(group, "beta1")),
                        "beta2": float(self._hyper(group, "beta2")),
                        "epsilon": float(self._hyper(group, "epsilon"))}
