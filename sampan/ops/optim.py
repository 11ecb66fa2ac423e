"""Optimizer update rules as OpDefs (sgd, momentum, adam, ...): pure (param, grad, state, lr) -> new values.

Each OpDef's `update` writes the new parameter and state into its array arguments; `compute`
(the pure form used by dispatch, the Executor and the tests) runs `update` on copies. The eager
optimizers call `update` on the parameter's and the state's own arrays, so eager and static
training share one rule. Hyper-parameters that change per step (lr, beta powers) are tensor
inputs; the rest are attrs. No vjp. Imports only `framework`, `backend` and sibling op modules.
"""
from __future__ import annotations

import math

from .opdef import OpDef, TensorSpec, register  # noqa: F401


def scalar(value) -> float:
    """A 1-element array (or a Python number) as a Python float.

    Python floats are weakly typed in NumPy, so `float * float32 array` stays float32.
    """
    if isinstance(value, (int, float)):
        return float(value)
    return float(value.reshape(-1)[0])


def hyper(xp, param, *values):
    """Decay hyper-parameters at the precision Paddle's kernels use: float32 unless the
    parameter is float64 (so `1 - beta` is the float32 difference, e.g. 1 - 0.9f =
    0.100000024). Returns a tuple of Python floats. Deviation: Paddle's rmsprop, adamax,
    lamb and momentum kernels round to float32 for float64 parameters too; here float64
    parameters keep the exact values (adam/adamw do the same in Paddle)."""
    if param.dtype == xp.float64:
        return values
    return tuple(float(xp.float32(v)) for v in values)


class Update(OpDef):
    """Base of the update rules. Output `<name>_out` is the new value of input `<name>`."""

    amp = "keep"
    vjp = None
    check = True

    def __init__(self) -> None:
        super().__init__()
        names = self.input_names
        self.updated = tuple(names.index(o[:-4]) for o in self.outputs)

    def compute(self, xp, *arrays, **attrs):
        arrays = list(arrays)
        for i in self.updated:
            arrays[i] = arrays[i].copy()
        self.update(xp, *arrays, **attrs)
        return tuple(arrays[i] for i in self.updated)

    def update(self, xp, *arrays, **attrs) -> None:
        raise NotImplementedError(f"OpDef {self.name} defines no update")

    def infer(self, *specs, **attrs):
        param, grad = specs[0], specs[1]
        if param.dtype.kind != "f":
            raise TypeError(f"{self.name}: param must be a floating point tensor, got "
                            f"{param.dtype.name}")
        for name, spec in zip(self.input_names[1:], specs[1:]):
            if spec is None or name in _SCALAR_INPUTS or name in self.free_shape:
                continue
            if spec.shape != param.shape:
                raise ValueError(f"{self.name}: {name} shape {list(spec.shape)} must equal the "
                                 f"param shape {list(param.shape)}")
        if grad.dtype is not param.dtype:
            raise TypeError(f"{self.name}: grad dtype {grad.dtype.name} must equal the param "
                            f"dtype {param.dtype.name}")
        return tuple(specs[i] for i in self.updated)

    free_shape: tuple = ()


# inputs holding one value (shape [1] or []): per-step hyper-parameters
_SCALAR_INPUTS = frozenset({"learning_rate", "beta1_pow", "beta2_pow", "step"})


@register
class Sgd(Update):
    """param -= lr * grad."""

    name = "sgd"
    inputs = ("param", "grad", "learning_rate")
    outputs = ("param_out",)

    def compute(self, xp, *arrays, **attrs):
        return super().compute(xp, *arrays, **attrs)[0]

    def infer(self, *specs, **attrs):
        return super().infer(*specs, **attrs)[0]

    def update(self, xp, param, grad, learning_rate) -> None:
        lr = scalar(learning_rate)
        param -= lr * grad


@register
class Momentum(Update):
    """Heavy-ball momentum (Paddle's `momentum` kernel).

    g = rescale_grad * grad (+ regularization_coeff * param when regularization_method is
    "l2_decay"); velocity = mu * velocity + g; param -= lr * velocity, or with Nesterov
    param -= lr * (g + mu * velocity).
    """

    name = "momentum"
    inputs = ("param", "grad", "learning_rate", "velocity")
    outputs = ("param_out", "velocity_out")
    attrs = {"mu": 0.9, "use_nesterov": False, "regularization_method": "",
             "regularization_coeff": 0.0, "rescale_grad": 1.0}

    def update(self, xp, param, grad, learning_rate, velocity, mu=0.9, use_nesterov=False,
               regularization_method="", regularization_coeff=0.0, rescale_grad=1.0) -> None:
        lr = scalar(learning_rate)
        mu, = hyper(xp, param, mu)
        g = grad if rescale_grad == 1.0 else grad * rescale_grad
        if regularization_method == "l2_decay":
            g = g + regularization_coeff * param
        velocity *= mu
        velocity += g
        if use_nesterov:
            step = velocity * mu
            step += g
            step *= lr
            param -= step
        else:
            param -= lr * velocity


class _AdamBase(Update):
    """Adam (Kingma & Ba) with Paddle's placement of epsilon.


    m1 = b1 m1 + (1-b1) g; m2 = b2 m2 + (1-b2) g^2 (amsgrad: m2_max = max(m2_max, m2) is used
    instead of m2); param -= lr sqrt(1-b2^t)/(1-b1^t) * m1 / (sqrt(m2) + eps sqrt(1-b2^t)).
    beta1_pow/beta2_pow hold b^t for the current step and are multiplied by b afterwards.
    When amsgrad is False, moment2_max is passed through unchanged (any 1-element array).
    """

    inputs = ("param", "grad", "learning_rate", "moment1", "moment2", "moment2_max",
              "beta1_pow", "beta2_pow")
    outputs = ("param_out", "moment1_out", "moment2_out", "moment2_max_out",
               "beta1_pow_out", "beta2_pow_out")
    attrs = {"beta1": 0.9, "beta2": 0.999, "epsilon": 1e-8, "amsgrad": False}
    free_shape = ("moment2_max",)


@register
class Adam(_AdamBase):
    """Adam; see _AdamBase."""

    name = "adam"

    def update(self, xp, param, grad, learning_rate, moment1, moment2, moment2_max,
               beta1_pow, beta2_pow, beta1=0.9, beta2=0.999, epsilon=1e-8,
               amsgrad=False) -> None:
        adam_step(xp, param, grad, scalar(learning_rate), moment1, moment2,
                  moment2_max if amsgrad else None, beta1_pow, beta2_pow, beta1, beta2, epsilon)


def adam_step(xp, param, grad, lr, moment1, moment2, moment2_max, beta1_pow, beta2_pow,
              beta1, beta2, epsilon) -> None:
    """The in-place Adam update shared by adam and adamw (few temporaries: it is hot).

    12 in-place ufunc passes over one temporary; NumPy has no fused a*x+y, so this is the
    floor for ufuncs (measured on the 784-512-256-10 MLP, 2-core box: 0.72 ms raw NumPy vs
    0.77 ms per optimizer step; float32 sqrt alone is ~30%). Tried and rejected: L2-sized
    chunks (15-45% slower: the passes are not memory bound), a 2-thread split along axis 0
    (0.52 ms with an idle second core, 1.3-1.8 ms when it is busy), a lerp form of the
    moment update (same pass count)."""
    p1, p2 = scalar(beta1_pow), scalar(beta2_pow)
    beta1, beta2 = hyper(xp, param, beta1, beta2)
    moment1 *= beta1
    tmp = xp.multiply(grad, 1.0 - beta1, out=xp.empty_like(param))
    moment1 += tmp
    moment2 *= beta2
    xp.multiply(grad, grad, out=tmp)
    tmp *= 1.0 - beta2
    moment2 += tmp
    second = moment2
    if moment2_max is not None:
        xp.maximum(moment2_max, moment2, out=moment2_max)
        second = moment2_max
    correction = math.sqrt(1.0 - p2)
    xp.sqrt(second, out=tmp)
    tmp += epsilon * correction
    xp.divide(moment1, tmp, out=tmp)
    tmp *= lr * correction / (1.0 - p1)
    param -= tmp
    beta1_pow *= beta1
    beta2_pow *= beta2


@register
class Adamw(_AdamBase):
    """AdamW: param *= 1 - lr * lr_ratio * coeff (when with_decay), then Adam with lr * lr_ratio."""

    name = "adamw"
    attrs = {"beta1": 0.9, "beta2": 0.999, "epsilon": 1e-8, "amsgrad": False, "coeff": 0.01,
             "lr_ratio": 1.0, "with_decay": True}

    def update(self, xp, param, grad, learning_rate, moment1, moment2, moment2_max,
               beta1_pow, beta2_pow, beta1=0.9, beta2=0.999, epsilon=1e-8, amsgrad=False,
               coeff=0.01, lr_ratio=1.0, with_decay=True) -> None:
        lr = scalar(learning_rate) * lr_ratio
        if with_decay and coeff:
            param *= 1.0 - lr * coeff
        adam_step(xp, param, grad, lr, moment1, moment2, moment2_max if amsgrad else None,
                  beta1_pow, beta2_pow, beta1, beta2, epsilon)


@register
class Adamax(Update):
    """Adamax: m = b1 m + (1-b1) g; u = max(b2 u + eps, |g|); param -= lr/(1-b1^t) * m / u."""

    name = "adamax"
    inputs = ("param", "grad", "learning_rate", "moment", "inf_norm", "beta1_pow")
    outputs = ("param_out", "moment_out", "inf_norm_out", "beta1_pow_out")
    attrs = {"beta1": 0.9, "beta2": 0.999, "epsilon": 1e-8}

    def update(self, xp, param, grad, learning_rate, moment, inf_norm, beta1_pow, beta1=0.9,
               beta2=0.999, epsilon=1e-8) -> None:
        lr = scalar(learning_rate) / (1.0 - scalar(beta1_pow))
        beta1, beta2 = hyper(xp, param, beta1, beta2)
        moment *= beta1
        moment += (1.0 - beta1) * grad
        inf_norm *= beta2
        inf_norm += epsilon
        xp.maximum(inf_norm, xp.abs(grad), out=inf_norm)
        param -= lr * (moment / inf_norm)
        beta1_pow *= beta1


@register
class Adagrad(Update):
    """Adagrad: moment += g^2; param -= lr * g / (sqrt(moment) + epsilon)."""

    name = "adagrad"
    inputs = ("param", "grad", "learning_rate", "moment")
    outputs = ("param_out", "moment_out")
    attrs = {"epsilon": 1e-6}

    def update(self, xp, param, grad, learning_rate, moment, epsilon=1e-6) -> None:
        moment += grad * grad
        param -= scalar(learning_rate) * grad / (xp.sqrt(moment) + epsilon)


@register
class Adadelta(Update):
    """Adadelta (Zeiler): E[g^2] = rho E[g^2] + (1-rho) g^2;
    dx = -sqrt((E[dx^2] + eps) / (E[g^2] + eps)) g; E[dx^2] = rho E[dx^2] + (1-rho) dx^2;
    param += lr * dx."""

    name = "adadelta"
    inputs = ("param", "grad", "learning_rate", "avg_squared_grad", "avg_squared_update")
    outputs = ("param_out", "avg_squared_grad_out", "avg_squared_update_out")
    attrs = {"rho": 0.95, "epsilon": 1e-6}

    def update(self, xp, param, grad, learning_rate, avg_squared_grad, avg_squared_update,
               rho=0.95, epsilon=1e-6) -> None:
        rho, = hyper(xp, param, rho)
        avg_squared_grad *= rho
        avg_squared_grad += (1.0 - rho) * grad * grad
        delta = -xp.sqrt((avg_squared_update + epsilon) / (avg_squared_grad + epsilon)) * grad
        avg_squared_update *= rho
        avg_squared_update += (1.0 - rho) * delta * delta
        param += scalar(learning_rate) * delta


@register
class Rmsprop(Update):
    """RMSProp: ms = rho ms + (1-rho) g^2; centered: mg = rho mg + (1-rho) g, ms - mg^2 is used;
    mom = momentum * mom + lr * g / sqrt(ms (- mg^2) + eps); param -= mom."""

    name = "rmsprop"
    inputs = ("param", "grad", "learning_rate", "mean_square", "mean_grad", "moment")
    outputs = ("param_out", "mean_square_out", "mean_grad_out", "moment_out")
    attrs = {"rho": 0.95, "epsilon": 1e-6, "momentum": 0.0, "centered": False}

    def update(self, xp, param, grad, learning_rate, mean_square, mean_grad, moment, rho=0.95,
               epsilon=1e-6, momentum=0.0, centered=False) -> None:
        rho, momentum = hyper(xp, param, rho, momentum)
        mean_square *= rho
        mean_square += (1.0 - rho) * grad * grad
        if centered:
            mean_grad *= rho
            mean_grad += (1.0 - rho) * grad
            denom = mean_square - mean_grad * mean_grad
        else:
            denom = mean_square.copy()
        denom += epsilon
        moment *= momentum
        moment += scalar(learning_rate) * grad / xp.sqrt(denom)
        param -= moment


@register
class Lamb(Update):
    """LAMB (You et al.): Adam direction r = m_hat / (sqrt(v_hat) + eps) + wd * param, scaled by
    the trust ratio ||param|| / ||r|| (1 when either norm is 0); param -= lr * ratio * r."""

    name = "lamb"
    inputs = ("param", "grad", "learning_rate", "moment1", "moment2", "beta1_pow", "beta2_pow")
    outputs = ("param_out", "moment1_out", "moment2_out", "beta1_pow_out", "beta2_pow_out")
    attrs = {"weight_decay": 0.01, "beta1": 0.9, "beta2": 0.999, "epsilon": 1e-6,
             "always_adapt": False}

    def update(self, xp, param, grad, learning_rate, moment1, moment2, beta1_pow, beta2_pow,
               weight_decay=0.01, beta1=0.9, beta2=0.999, epsilon=1e-6,
               always_adapt=False) -> None:
        beta1, beta2 = hyper(xp, param, beta1, beta2)
        moment1 *= beta1
        moment1 += (1.0 - beta1) * grad
        moment2 *= beta2
        moment2 += (1.0 - beta2) * grad * grad
        m_hat = moment1 / (1.0 - scalar(beta1_pow))
        v_hat = moment2 / (1.0 - scalar(beta2_pow))
        r = m_hat / (xp.sqrt(v_hat) + epsilon) + weight_decay * param
        ratio = 1.0
        if weight_decay > 0 or always_adapt:
            p_norm = float(xp.sqrt((param * param).sum()))
            r_norm = float(xp.sqrt((r * r).sum()))
            if p_norm > 0 and r_norm > 0:
                ratio = p_norm / r_norm
        param -= (scalar(learning_rate) * ratio) * r
        beta1_pow *= beta1
        beta2_pow *= beta2


@register
class Nadam(Update):
    """NAdam (Dozat): mu_t = b1 (1 - 0.5 * 0.96^(t psi)); Nesterov-corrected Adam step.

    momentum_decay_pow holds 0.96^(t psi), beta2_pow b2^t and mu_product prod(mu_1..mu_t), all
    param-shaped as in Paddle; they start at 1.
    """

    name = "nadam"
    inputs = ("param", "grad", "learning_rate", "momentum_decay_pow", "beta2_pow", "mu_product",
              "moment1", "moment2")
    outputs = ("param_out", "momentum_decay_pow_out", "beta2_pow_out", "mu_product_out",
               "moment1_out", "moment2_out")
    attrs = {"beta1": 0.9, "beta2": 0.999, "epsilon": 1e-8, "momentum_decay": 0.004}
    free_shape = ("beta2_pow",)

    def update(self, xp, param, grad, learning_rate, momentum_decay_pow, beta2_pow, mu_product,
               moment1, moment2, beta1=0.9, beta2=0.999, epsilon=1e-8,
               momentum_decay=0.004) -> None:
        decay = 0.96 ** momentum_decay
        momentum_decay_pow *= decay
        beta2_pow *= beta2
        mu_t = beta1 * (1.0 - 0.5 * momentum_decay_pow)
        mu_next = beta1 * (1.0 - 0.5 * momentum_decay_pow * decay)
        mu_product *= mu_t
        moment1 *= beta1
        moment1 += (1.0 - beta1) * grad
        moment2 *= beta2
        moment2 += (1.0 - beta2) * grad * grad
        m_hat = (mu_next * moment1 / (1.0 - mu_product * mu_next)
                 + (1.0 - mu_t) * grad / (1.0 - mu_product))
        v_hat = moment2 / (1.0 - beta2_pow)
        param -= scalar(learning_rate) * m_hat / (xp.sqrt(v_hat) + epsilon)


@register
class Radam(Update):
    """RAdam (Liu et al.): Adam with the variance rectification term r_t when rho_t > 5, plain
    bias-corrected momentum SGD otherwise. beta1_pow/beta2_pow hold b^t and rho the last
    rho_t, param-shaped as in Paddle (all start at 1)."""

    name = "radam"
    inputs = ("param", "grad", "learning_rate", "beta1_pow", "beta2_pow", "rho", "moment1",
              "moment2")
    outputs = ("param_out", "beta1_pow_out", "beta2_pow_out", "rho_out", "moment1_out",
               "moment2_out")
    attrs = {"beta1": 0.9, "beta2": 0.999, "epsilon": 1e-8}
    free_shape = ("beta1_pow", "beta2_pow")

    def update(self, xp, param, grad, learning_rate, beta1_pow, beta2_pow, rho, moment1,
               moment2, beta1=0.9, beta2=0.999, epsilon=1e-8) -> None:
        beta1_pow *= beta1
        beta2_pow *= beta2
        rho_inf = 2.0 / (1.0 - beta2) - 1.0
        # t recovered from beta2^t keeps the state Paddle-shaped (no step counter)
        t = xp.round(xp.log(beta2_pow) / math.log(beta2)) if beta2 > 0 else xp.ones_like(rho)
        rho[...] = rho_inf - 2.0 * t * beta2_pow / (1.0 - beta2_pow)
        moment1 *= beta1
        moment1 += (1.0 - beta1) * grad
        moment2 *= beta2
        moment2 += (1.0 - beta2) * grad * grad
        m_hat = moment1 / (1.0 - beta1_pow)
        rect = rho > 5.0
        safe = xp.where(rect, rho, rho_inf)
        r = xp.sqrt((safe - 4.0) * (safe - 2.0) * rho_inf
                    / ((rho_inf - 4.0) * (rho_inf - 2.0) * safe))
        adaptive = xp.sqrt(1.0 - beta2_pow) / (xp.sqrt(moment2) + epsilon)
        factor = xp.where(rect, r * adaptive, 1.0).astype(param.dtype, copy=False)
        param -= scalar(learning_rate) * m_hat * factor


@register
class Asgd(Update):
    """ASGD / SAG (Schmidt et al.): with i = m % n over the stored gradients y:
    d = d - y[i] + g; y[i] = g; m += 1; param -= lr * d / min(m, n)."""

    name = "asgd"
    inputs = ("param", "grad", "learning_rate", "d", "y", "m")
    outputs = ("param_out", "d_out", "y_out", "m_out")
    free_shape = ("y", "m")

    def infer(self, param, grad, learning_rate, d, y, m):
        out = super().infer(param, grad, learning_rate, d, y, m)
        if y.shape[1:] != param.shape:
            raise ValueError(f"asgd: y shape {list(y.shape)} must be [n] + the param shape "
                             f"{list(param.shape)}")
        return out

    def update(self, xp, param, grad, learning_rate, d, y, m) -> None:
        n = y.shape[0]
        count = int(m.reshape(-1)[0])
        i = count % n
        d -= y[i]
        d += grad
        y[i] = grad
        m += 1
        param -= (scalar(learning_rate) / min(count + 1, n)) * d


@register
class Rprop(Update):
    """Rprop (Riedmiller & Braun): per-element step sizes `learning_rate` grow by etas[1] while
    the gradient keeps its sign (capped at learning_rate_range[1]) and shrink by etas[0] when it
    flips (floored at learning_rate_range[0]); on a flip the step is skipped and the stored
    gradient `prev` zeroed. param -= sign(g) * learning_rate."""

    name = "rprop"
    inputs = ("param", "grad", "learning_rate", "prev")
    outputs = ("param_out", "learning_rate_out", "prev_out")
    attrs = {"learning_rate_range": [1e-5, 50.0], "etas": [0.5, 1.2]}

    def infer(self, param, grad, learning_rate, prev, **attrs):
        if learning_rate.shape != param.shape:
            raise ValueError(f"rprop: learning_rate shape {list(learning_rate.shape)} must "
                             f"equal the param shape {list(param.shape)}")
        return super().infer(param, grad, learning_rate, prev, **attrs)

    def update(self, xp, param, grad, learning_rate, prev, learning_rate_range=(1e-5, 50.0),
               etas=(0.5, 1.2)) -> None:
        lo, hi = learning_rate_range
        shrink, grow = etas
        prod = grad * prev
        up, down = prod > 0, prod < 0
        learning_rate[up] = xp.minimum(learning_rate[up] * grow, hi)
        learning_rate[down] = xp.maximum(learning_rate[down] * shrink, lo)
        g = xp.where(down, 0, grad).astype(grad.dtype, copy=False)
        param -= xp.sign(g) * learning_rate
        prev[...] = g
