"""SGD and Momentum (update rules `sgd` and `momentum` in ops/optim.py)."""
from __future__ import annotations

from ..regularizer import L2Decay
from .optimizer import Optimizer

__all__ = ["SGD", "Momentum"]


class SGD(Optimizer):
    """Stochastic gradient descent: param -= lr * grad.

    Args:
        learning_rate (float|LRScheduler, optional): Default 0.001.
        parameters, weight_decay, grad_clip, name: see Optimizer.
        multi_precision (bool, optional): accepted for compatibility (no effect on CPU).

    Examples:
        >>> import sampan as paddle
        >>> w = paddle.create_parameter([2], "float32", default_initializer=None)
        >>> w.set_value(paddle.to_tensor([1.0, 2.0]))
        >>> opt = paddle.optimizer.SGD(learning_rate=0.5, parameters=[w])
        >>> (w * w).sum().backward()
        >>> opt.step()
        >>> w.tolist()
        [0.0, 0.0]
    """

    _op = "sgd"

    def __init__(self, learning_rate=0.001, parameters=None, weight_decay=None, grad_clip=None,
                 multi_precision: bool = False, name: str | None = None) -> None:
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)


class Momentum(Optimizer):
    """Momentum SGD: velocity = momentum * velocity + grad; param -= lr * velocity
    (Nesterov: param -= lr * (grad + momentum * velocity)).

    An L2Decay weight decay (or a float) is applied inside the update, after rescale_grad,
    as Paddle's fused kernel does.

    Args:
        learning_rate (float|LRScheduler, optional): Default 0.001.
        momentum (float, optional): Default 0.9.
        parameters: see Optimizer.
        use_nesterov (bool, optional): Nesterov momentum. Default False.
        weight_decay (float|L1Decay|L2Decay, optional): see Optimizer.
        grad_clip: see Optimizer.
        multi_precision (bool, optional): accepted for compatibility.
        rescale_grad (float, optional): gradients are multiplied by it first. Default 1.0.
        use_multi_tensor (bool, optional): accepted for compatibility.
        name (str, optional): see Optimizer.
    """

    _op = "momentum"
    _group_keys = {"momentum": "_momentum", "use_nesterov": "_use_nesterov",
                   "rescale_grad": "_rescale_grad"}

    def __init__(self, learning_rate=0.001, momentum: float = 0.9, parameters=None,
                 use_nesterov: bool = False, weight_decay=None, grad_clip=None,
                 multi_precision: bool = False, rescale_grad: float = 1.0,
                 use_multi_tensor: bool = False, name: str | None = None) -> None:
        if momentum is None:
            raise ValueError("Momentum: momentum is not set")
        self._momentum = float(momentum)
        self._use_nesterov = bool(use_nesterov)
        self._rescale_grad = float(rescale_grad)
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)

    def _regularizer(self, param, group):
        reg = super()._regularizer(param, group)
        return None if isinstance(reg, L2Decay) else reg  # fused into the update

    def _prepare(self, param, group):
        reg = Optimizer._regularizer(self, param, group)
        fused = isinstance(reg, L2Decay)
        attrs = {"mu": float(self._hyper(group, "momentum")),
                 "use_nesterov": bool(self._hyper(group, "use_nesterov")),
                 "regularization_method": "l2_decay" if fused else "",
                 "regularization_coeff": reg.coeff if fused else 0.0,
                 "rescale_grad": float(self._hyper(group, "rescale_grad"))}
        return [self._add_accumulator("velocity", param)], attrs
