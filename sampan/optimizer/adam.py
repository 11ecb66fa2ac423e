"""Adam, AdamW and Adamax (update rules `adam`, `adamw`, `adamax` in ops/optim.py)."""
from __future__ import annotations

import numpy as np

from ..framework.tensor import Tensor
from ..regularizer import WeightDecayRegularizer
from .optimizer import Optimizer

__all__ = ["Adam", "AdamW", "Adamax"]


def _beta(api: str, arg: str, value) -> float:
    value = float(value)  # Paddle accepts 1-element Tensors
    if not 0.0 <= value < 1.0:
        raise ValueError(f"{api}: {arg} must be in [0, 1), got {value}")
    return value


class Adam(Optimizer):
    """Adam: bias-corrected first and second moment estimates.

    param -= lr * sqrt(1 - beta2^t) / (1 - beta1^t) * m1 / (sqrt(m2) + epsilon * sqrt(1 - beta2^t))

    Args:
        learning_rate (float|LRScheduler, optional): Default 0.001.
        beta1 (float|Tensor, optional): decay of the first moment. Default 0.9.
        beta2 (float|Tensor, optional): decay of the second moment. Default 0.999.
        epsilon (float, optional): Default 1e-8.
        parameters, weight_decay, grad_clip, name: see Optimizer.
        lazy_mode (bool, optional): sparse-gradient mode; gradients are dense here, so it has
            no effect.
        multi_precision (bool, optional): accepted for compatibility.
        use_multi_tensor (bool, optional): accepted for compatibility.
        amsgrad (bool, optional): use the running maximum of the second moment. Default False.

    Examples:
        >>> import sampan as paddle
        >>> w = paddle.create_parameter([2], "float32")
        >>> w.set_value(paddle.to_tensor([1.0, -1.0]))
        >>> opt = paddle.optimizer.Adam(learning_rate=0.1, parameters=[w])
        >>> (w * w).sum().backward()
        >>> opt.step()
        >>> [round(v, 4) for v in w.tolist()]
        [0.9, -0.9]
    """

    _op = "adam"
    _group_keys = {"beta1": "_beta1", "beta2": "_beta2", "epsilon": "_epsilon",
                   "amsgrad": "_amsgrad"}
    _decoupled = False

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 parameters=None, weight_decay=None, grad_clip=None, lazy_mode: bool = False,
                 multi_precision: bool = False, use_multi_tensor: bool = False,
                 amsgrad: bool = False, name: str | None = None) -> None:
        api = type(self).__name__
        self._beta1 = _beta(api, "beta1", beta1)
        self._beta2 = _beta(api, "beta2", beta2)
        self._epsilon = float(epsilon)
        if self._epsilon < 0:
            raise ValueError(f"{api}: epsilon must be >= 0, got {self._epsilon}")
        self._lazy_mode = bool(lazy_mode)
        self._amsgrad = bool(amsgrad)
        self._no_max = np.zeros((1,), np.float32)  # moment2_max stand-in when amsgrad is off
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)

    def _prepare(self, param, group):
        beta1, beta2 = float(self._hyper(group, "beta1")), float(self._hyper(group, "beta2"))
        amsgrad = bool(self._hyper(group, "amsgrad"))
        m1 = self._add_accumulator("moment1", param)
        m2 = self._add_accumulator("moment2", param)
        m2max = self._add_accumulator("moment2_max", param) if amsgrad else _Const(self._no_max)
        p1 = self._add_accumulator("beta1_pow_acc", param, beta1, shape=[1])
        p2 = self._add_accumulator("beta2_pow_acc", param, beta2, shape=[1])
        attrs = {"beta1": beta1, "beta2": beta2,
                 "epsilon": float(self._hyper(group, "epsilon")), "amsgrad": amsgrad}
        return [m1, m2, m2max, p1, p2], attrs


class _Const:
    """A fixed array standing where the update expects a state tensor (holds `_data`)."""

    def __init__(self, data) -> None:
        self._data = data


class AdamW(Adam):
    """AdamW: Adam with decoupled weight decay, param *= 1 - lr * lr_ratio * weight_decay
    before the Adam step (skipped for parameters apply_decay_param_fun(name) rejects).

    Args:
        learning_rate (float|LRScheduler, optional): Default 0.001.
        beta1, beta2, epsilon: see Adam.
        parameters: see Optimizer.
        weight_decay (float|Tensor, optional): the decoupled decay coefficient. Default 0.01.
        lr_ratio (callable, optional): lr_ratio(param) -> multiplier of the lr.
        apply_decay_param_fun (callable, optional): apply_decay_param_fun(param.name) -> bool.
        grad_clip, lazy_mode, multi_precision, amsgrad, name: see Adam.
    """

    _op = "adamw"
    _group_keys = dict(Adam._group_keys, weight_decay="_coeff")

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 parameters=None, weight_decay=0.01, use_lowprecision_moment: bool = False,
                 lr_ratio=None, apply_decay_param_fun=None, grad_clip=None,
                 lazy_mode: bool = False, multi_precision: bool = False, amsgrad: bool = False,
                 name: str | None = None) -> None:
        if weight_decay is None:
            weight_decay = 0.0
        if isinstance(weight_decay, Tensor):
            weight_decay = float(weight_decay)  # a 1-element Tensor
        if isinstance(weight_decay, bool) or not isinstance(weight_decay, (int, float)):
            raise TypeError(f"AdamW: weight_decay must be an int, float or Tensor, got "
                            f"{type(weight_decay).__name__}")
        if lr_ratio is not None and not callable(lr_ratio):
            raise TypeError(f"AdamW: lr_ratio must be callable, got {type(lr_ratio).__name__}")
        self._coeff = float(weight_decay)
        self._lr_ratio = lr_ratio
        self._apply_decay_param_fun = apply_decay_param_fun
        super().__init__(learning_rate, beta1, beta2, epsilon, parameters, None, grad_clip,
                         lazy_mode, multi_precision, False, amsgrad, name)

    def _add_param_group(self, group: dict) -> None:
        # a group without its own weight_decay uses the optimizer's decoupled coefficient
        if group.get("weight_decay") is None:
            group["weight_decay"] = self._coeff
        super()._add_param_group(group)

    def _regularizer(self, param, group):
        # weight_decay is decoupled (inside the update), never added to grads; a parameter's
        # own regularizer (ParamAttr) still is, as in Paddle
        reg = getattr(param, "regularizer", None)
        if reg is None or (isinstance(reg, WeightDecayRegularizer) and reg.coeff == 0.0):
            return None
        return reg

    def _prepare(self, param, group):
        states, attrs = super()._prepare(param, group)
        fun = self._apply_decay_param_fun
        attrs["coeff"] = float(self._hyper(group, "weight_decay"))
        attrs["lr_ratio"] = 1.0 if self._lr_ratio is None else float(self._lr_ratio(param))
        attrs["with_decay"] = fun is None or bool(fun(param.name))
        return states, attrs


class Adamax(Optimizer):
    """Adamax: Adam with the infinity norm, param -= lr / (1 - beta1^t) * m / u with
    u = max(beta2 * u + epsilon, |grad|).

    Args:
        learning_rate (float|LRScheduler, optional): Default 0.001.
        beta1, beta2, epsilon: Defaults 0.9, 0.999, 1e-8.
        parameters, weight_decay, grad_clip, name: see Optimizer.
    """

    _op = "adamax"
    _group_keys = {"beta1": "_beta1", "beta2": "_beta2", "epsilon": "_epsilon"}

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 parameters=None, weight_decay=None, grad_clip=None, name: str | None = None,
                 multi_precision: bool = False) -> None:
        self._beta1 = _beta("Adamax", "beta1", beta1)
        self._beta2 = _beta("Adamax", "beta2", beta2)
        self._epsilon = float(epsilon)
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)

    def _prepare(self, param, group):
        beta1 = float(self._hyper(group, "beta1"))
        states = [self._add_accumulator("moment", param),
                  self._add_accumulator("inf_norm", param),
                  self._add_accumulator("beta1_pow_acc", param, beta1, shape=[1])]
        return states, {"beta1": beta1, "beta2": float(self._hyper(group, "beta2")),
                        "epsilon": float(self._hyper(group, "epsilon"))}
