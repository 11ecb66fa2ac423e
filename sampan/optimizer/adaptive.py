"""Adagrad, Adadelta and RMSProp (update rules `adagrad`, `adadelta`, `rmsprop` in ops/optim.py)."""
from __future__ import annotations

from .optimizer import Optimizer

__all__ = ["Adagrad", "Adadelta", "RMSProp"]


class Adagrad(Optimizer):
    """Adagrad: moment += grad^2; param -= lr * grad / (sqrt(moment) + epsilon).

    Args:
        learning_rate (float|LRScheduler): the learning rate.
        epsilon (float, optional): Default 1e-6.
        parameters, weight_decay, grad_clip, name: see Optimizer.
        initial_accumulator_value (float, optional): start value of moment. Default 0.0.
    """

    _op = "adagrad"
    _group_keys = {"epsilon": "_epsilon", "initial_accumulator_value": "_initial"}

    def __init__(self, learning_rate, epsilon: float = 1.0e-6, parameters=None,
                 weight_decay=None, grad_clip=None, name: str | None = None,
                 initial_accumulator_value: float = 0.0, multi_precision: bool = False) -> None:
        if learning_rate is None or epsilon is None:
            raise ValueError("Adagrad: learning_rate and epsilon must be set")
        self._epsilon = float(epsilon)
        self._initial = float(initial_accumulator_value)
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)

    def _prepare(self, param, group):
        moment = self._add_accumulator("moment", param,
                                       float(self._hyper(group, "initial_accumulator_value")))
        return [moment], {"epsilon": float(self._hyper(group, "epsilon"))}


class Adadelta(Optimizer):
    """Adadelta: E[g^2] = rho E[g^2] + (1-rho) g^2; dx = -sqrt((E[dx^2]+eps)/(E[g^2]+eps)) g;
    E[dx^2] = rho E[dx^2] + (1-rho) dx^2; param += lr * dx.

    Args:
        learning_rate (float|LRScheduler, optional): Default 0.001.
        epsilon (float, optional): Default 1e-6.
        rho (float, optional): Default 0.95.
        parameters, weight_decay, grad_clip, name: see Optimizer.
    """

    _op = "adadelta"
    _group_keys = {"epsilon": "_epsilon", "rho": "_rho"}

    def __init__(self, learning_rate=0.001, epsilon: float = 1.0e-6, rho: float = 0.95,
                 parameters=None, weight_decay=None, grad_clip=None, name: str | None = None,
                 multi_precision: bool = False) -> None:
        if learning_rate is None or epsilon is None or rho is None:
            raise ValueError("Adadelta: learning_rate, epsilon and rho must be set")
        self._epsilon, self._rho = float(epsilon), float(rho)
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)

    def _prepare(self, param, group):
        states = [self._add_accumulator("_avg_squared_grad", param),
                  self._add_accumulator("_avg_squared_update", param)]
        return states, {"rho": float(self._hyper(group, "rho")),
                        "epsilon": float(self._hyper(group, "epsilon"))}


class RMSProp(Optimizer):
    """RMSProp: mean_square = rho ms + (1-rho) g^2 (centered: minus mean_grad^2);
    moment = momentum * moment + lr * g / sqrt(ms + epsilon); param -= moment.

    Args:
        learning_rate (float|LRScheduler): the learning rate.
        rho (float, optional): Default 0.95.
        epsilon (float, optional): Default 1e-6.
        momentum (float, optional): Default 0.0.
        centered (bool, optional): normalise by the variance estimate. Default False.
        parameters, weight_decay, grad_clip, name: see Optimizer.
    """

    _op = "rmsprop"
    _group_keys = {"rho": "_rho", "epsilon": "_epsilon", "momentum": "_momentum",
                   "centered": "_centered"}

    def __init__(self, learning_rate, rho: float = 0.95, epsilon: float = 1.0e-6,
                 momentum: float = 0.0, centered: bool = False, parameters=None,
                 weight_decay=None, grad_clip=None, name: str | None = None,
                 multi_precision: bool = False) -> None:
        if learning_rate is None:
            raise ValueError("RMSProp: learning_rate is not set")
        for arg, value in (("rho", rho), ("epsilon", epsilon), ("momentum", momentum)):
            if value is None:
                raise ValueError(f"RMSProp: {arg} is not set")
        if not 0.0 <= rho:
            raise ValueError(f"RMSProp: rho must be >= 0.0, got {rho}")
        if not 0.0 <= epsilon:
            raise ValueError(f"RMSProp: epsilon must be >= 0.0, got {epsilon}")
        if not 0.0 <= momentum:
            raise ValueError(f"RMSProp: momentum must be >= 0.0, got {momentum}")
        self._rho, self._epsilon = float(rho), float(epsilon)
        self._momentum, self._centered = float(momentum), bool(centered)
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)

    def _prepare(self, param, group):
        states = [self._add_accumulator("mean_square", param),
                  self._add_accumulator("mean_grad", param),
                  self._add_accumulator("momentum", param)]
        return states, {"rho": float(self._hyper(group, "rho")),
                        "epsilon": float(self._hyper(group, "epsilon")),
                        "momentum": float(self._hyper(group, "momentum")),
                        "centered": bool(self._hyper(group, "centered"))}
