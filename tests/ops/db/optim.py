"""Op database entries for sampan/ops/optim.py (optimizer update rules, no gradients).

The references are out-of-place NumPy transcriptions of the published update rules, written
independently of the in-place kernels; tests/optimizer reuses them to check whole optimizers.
"""
import math

import numpy as np

from sampan.ops.dispatch import call
from tests.ops.op_db import OpEntry, Sample


def _s(a):
    return float(np.asarray(a).reshape(-1)[0])


def sgd_ref(param, grad, lr):
    return param - _s(lr) * grad


def momentum_ref(param, grad, lr, velocity, mu=0.9, use_nesterov=False,
                 regularization_method="", regularization_coeff=0.0, rescale_grad=1.0):
    g = grad * rescale_grad
    if regularization_method == "l2_decay":
        g = g + regularization_coeff * param
    v = mu * velocity + g
    step = g + mu * v if use_nesterov else v
    return param - _s(lr) * step, v


def adam_ref(param, grad, lr, m1, m2, m2max, b1p, b2p, beta1=0.9, beta2=0.999, epsilon=1e-8,
             amsgrad=False, coeff=0.0, lr_ratio=1.0, with_decay=False):
    lr = _s(lr) * lr_ratio
    if with_decay:
        param = param - lr * coeff * param
    m1 = beta1 * m1 + (1 - beta1) * grad
    m2 = beta2 * m2 + (1 - beta2) * grad ** 2
    if amsgrad:
        m2max = np.maximum(m2max, m2)
    v = m2max if amsgrad else m2
    t1, t2 = _s(b1p), _s(b2p)
    # Kingma & Ba, Algorithm 1 with epsilon applied to the bias-corrected sqrt(v_hat)
    m_hat = m1 / (1 - t1)
    v_hat = v / (1 - t2)
    out = param - lr * m_hat / (np.sqrt(v_hat) + epsilon)
    return out, m1, m2, m2max, b1p * beta1, b2p * beta2


def adamw_ref(*args, coeff=0.01, lr_ratio=1.0, with_decay=True, **kw):
    return adam_ref(*args, coeff=coeff, lr_ratio=lr_ratio, with_decay=with_decay, **kw)


def adamax_ref(param, grad, lr, m, u, b1p, beta1=0.9, beta2=0.999, epsilon=1e-8):
    m = beta1 * m + (1 - beta1) * grad
    u = np.maximum(beta2 * u + epsilon, np.abs(grad))
    return param - _s(lr) / (1 - _s(b1p)) * m / u, m, u, b1p * beta1


def adagrad_ref(param, grad, lr, moment, epsilon=1e-6):
    moment = moment + grad ** 2
    return param - _s(lr) * grad / (np.sqrt(moment) + epsilon), moment


def adadelta_ref(param, grad, lr, eg2, edx2, rho=0.95, epsilon=1e-6):
    eg2 = rho * eg2 + (1 - rho) * grad ** 2
    dx = -np.sqrt(edx2 + epsilon) / np.sqrt(eg2 + epsilon) * grad
    edx2 = rho * edx2 + (1 - rho) * dx ** 2
    return param + _s(lr) * dx, eg2, edx2


def rmsprop_ref(param, grad, lr, ms, mg, mom, rho=0.95, epsilon=1e-6, momentum=0.0,
                centered=False):
    ms = rho * ms + (1 - rho) * grad ** 2
    if centered:
        mg = rho * mg + (1 - rho) * grad
        mom = momentum * mom + _s(lr) * grad / np.sqrt(ms - mg ** 2 + epsilon)
    else:
        mom = momentum * mom + _s(lr) * grad / np.sqrt(ms + epsilon)
    return param - mom, ms, mg, mom


def lamb_ref(param, grad, lr, m1, m2, b1p, b2p, weight_decay=0.01, beta1=0.9, beta2=0.999,
             epsilon=1e-6, always_adapt=False):
    m1 = beta1 * m1 + (1 - beta1) * grad
    m2 = beta2 * m2 + (1 - beta2) * grad ** 2
    r = (m1 / (1 - _s(b1p))) / (np.sqrt(m2 / (1 - _s(b2p))) + epsilon) + weight_decay * param
    pn, rn = np.linalg.norm(param.ravel()), np.linalg.norm(r.ravel())
    trust = pn / rn if (weight_decay > 0 or always_adapt) and pn > 0 and rn > 0 else 1.0
    return param - _s(lr) * trust * r, m1, m2, b1p * beta1, b2p * beta2


def nadam_ref(param, grad, lr, mdp, b2p, mu_prod, m1, m2, beta1=0.9, beta2=0.999,
              epsilon=1e-8, momentum_decay=0.004):
    # state after t-1 steps: mdp = 0.96^((t-1) psi), b2p = beta2^(t-1), mu_prod = prod mu_i
    mdp = mdp * 0.96 ** momentum_decay
    mu_t = beta1 * (1 - 0.5 * mdp)
    mu_t1 = beta1 * (1 - 0.5 * mdp * 0.96 ** momentum_decay)
    mu_prod = mu_prod * mu_t
    b2p = b2p * beta2
    m1 = beta1 * m1 + (1 - beta1) * grad
    m2 = beta2 * m2 + (1 - beta2) * grad ** 2
    m_hat = mu_t1 * m1 / (1 - mu_prod * mu_t1) + (1 - mu_t) * grad / (1 - mu_prod)
    out = param - _s(lr) * m_hat / (np.sqrt(m2 / (1 - b2p)) + epsilon)
    return out, mdp, b2p, mu_prod, m1, m2


def radam_ref(param, grad, lr, b1p, b2p, rho, m1, m2, beta1=0.9, beta2=0.999, epsilon=1e-8):
    b1p, b2p = b1p * beta1, b2p * beta2
    t = np.rint(np.log(b2p) / math.log(beta2))
    rho_inf = 2 / (1 - beta2) - 1
    rho = rho_inf - 2 * t * b2p / (1 - b2p)
    m1 = beta1 * m1 + (1 - beta1) * grad
    m2 = beta2 * m2 + (1 - beta2) * grad ** 2
    m_hat = m1 / (1 - b1p)
    out = np.empty_like(param)
    for k in np.ndindex(param.shape):
        if rho[k] > 5:
            lt = math.sqrt(1 - b2p[k]) / (math.sqrt(m2[k]) + epsilon)
            rt = math.sqrt((rho[k] - 4) * (rho[k] - 2) * rho_inf
                           / ((rho_inf - 4) * (rho_inf - 2) * rho[k]))
            out[k] = param[k] - _s(lr) * m_hat[k] * rt * lt
        else:
            out[k] = param[k] - _s(lr) * m_hat[k]
    return out, b1p, b2p, rho.astype(param.dtype), m1, m2


def asgd_ref(param, grad, lr, d, y, m):
    n = y.shape[0]
    i = int(m.reshape(-1)[0]) % n
    d = d - y[i] + grad
    y = y.copy()
    y[i] = grad
    m = m + 1
    return param - _s(lr) * d / min(int(m.reshape(-1)[0]), n), d, y, m


def rprop_ref(param, grad, rates, prev, learning_rate_range=(1e-5, 50.0), etas=(0.5, 1.2)):
    new_rates, new_prev = rates.copy(), grad.copy()
    out = param.copy()
    for k in np.ndindex(param.shape):
        s = grad[k] * prev[k]
        if s > 0:
            new_rates[k] = min(rates[k] * etas[1], learning_rate_range[1])
        elif s < 0:
            new_rates[k] = max(rates[k] * etas[0], learning_rate_range[0])
            new_prev[k] = 0
        out[k] = param[k] - np.sign(new_prev[k]) * new_rates[k]
    return out, new_rates, new_prev


def _fn(name):
    def fn(*args, **kwargs):
        return call(name, *args, **kwargs)
    return fn


def _arr(rng, dtype, shape, lo=-1.0, hi=1.0):
    return np.asarray(rng.uniform(lo, hi, shape)).astype(dtype)


def _pos(rng, dtype, shape):
    return _arr(rng, dtype, shape, 0.1, 1.0)


def _one(dtype, value):
    return np.asarray([value], dtype)


_SHAPES = (((3, 4), "same"), ((), "0-d"), ((0, 3), "empty"))


def _samples(states, attrs_list):
    """samples(rng, dtype): param, grad, lr, then `states(rng, dtype, shape)` arrays."""
    def samples(rng, dtype):
        out = []
        for shape, name in _SHAPES:
            for k, attrs in enumerate(attrs_list):
                args = (_arr(rng, dtype, shape), _arr(rng, dtype, shape), _one(dtype, 0.05))
                out.append(Sample(args + tuple(states(rng, dtype, shape)), dict(attrs),
                                  name=f"{name}-{k}"))
        p = _arr(rng, dtype, (4, 3)).T
        args = (p, _arr(rng, dtype, (3, 4)), _one(dtype, 0.05))
        out.append(Sample(args + tuple(states(rng, dtype, (3, 4))), dict(attrs_list[0]),
                          name="non-contiguous"))
        return out
    return samples


def _adam_states(rng, dtype, shape):
    return (_arr(rng, dtype, shape), _pos(rng, dtype, shape), _pos(rng, dtype, shape),
            _one(dtype, 0.9 ** 3), _one(dtype, 0.999 ** 3))


def _rprop_samples(rng, dtype):
    out = []
    for shape, name in _SHAPES + (((2, 5), "mixed"),):
        grad = _arr(rng, dtype, shape)
        prev = _arr(rng, dtype, shape)
        rates = _arr(rng, dtype, shape, 1e-5, 0.2)
        out.append(Sample((_arr(rng, dtype, shape), grad, rates, prev), name=name))
    out.append(Sample((_arr(rng, dtype, (3, 4)), _arr(rng, dtype, (3, 4)),
                       np.full((3, 4), 40.0, dtype), _arr(rng, dtype, (3, 4))),
                      {"learning_rate_range": [0.1, 45.0], "etas": [0.3, 1.5]}, name="caps"))
    return out


def _asgd_samples(rng, dtype):
    out = []
    for shape, name in _SHAPES:
        for count in (0, 1, 5):
            y = _arr(rng, dtype, (3,) + shape)
            out.append(Sample((_arr(rng, dtype, shape), _arr(rng, dtype, shape),
                               _one(dtype, 0.05), _arr(rng, dtype, shape), y,
                               np.asarray([count], np.int64)), name=f"{name}-m{count}"))
    return out


def _radam_states(rng, dtype, shape):
    # t = 3 (rho_t < 5: un-rectified) for some entries, t = 8 (rectified) for others
    t = np.where(rng.uniform(size=shape) < 0.5, 3, 8)
    return (np.asarray(0.9 ** t, dtype), np.asarray(0.999 ** t, dtype),
            np.ones(shape, dtype), _arr(rng, dtype, shape), _pos(rng, dtype, shape))


_ENTRIES_SPEC = [
    ("sgd", sgd_ref, lambda r, d, s: (), [{}]),
    ("momentum", momentum_ref, lambda r, d, s: (_arr(r, d, s),),
     [{}, {"mu": 0.8, "use_nesterov": True, "regularization_method": "l2_decay",
           "regularization_coeff": 0.1, "rescale_grad": 0.5}]),
    ("adam", adam_ref, _adam_states,
     [{}, {"beta1": 0.8, "beta2": 0.9, "epsilon": 1e-3, "amsgrad": True}]),
    ("adamw", adamw_ref, _adam_states,
     [{}, {"coeff": 0.1, "lr_ratio": 0.5, "amsgrad": True},
      {"coeff": 0.1, "with_decay": False}]),
    ("adamax", adamax_ref,
     lambda r, d, s: (_arr(r, d, s), _pos(r, d, s), _one(d, 0.9 ** 2)),
     [{}, {"beta1": 0.5, "beta2": 0.6, "epsilon": 0.1}]),
    ("adagrad", adagrad_ref, lambda r, d, s: (_pos(r, d, s),), [{}, {"epsilon": 0.1}]),
    ("adadelta", adadelta_ref, lambda r, d, s: (_pos(r, d, s), _pos(r, d, s)),
     [{}, {"rho": 0.5, "epsilon": 0.01}]),
    ("rmsprop", rmsprop_ref,
     lambda r, d, s: (_pos(r, d, s) + 1, _arr(r, d, s) * 0.5, _arr(r, d, s)),
     [{}, {"momentum": 0.5, "centered": True, "rho": 0.8}]),
    ("lamb", lamb_ref,
     lambda r, d, s: (_arr(r, d, s), _pos(r, d, s), _one(d, 0.9 ** 3), _one(d, 0.999 ** 3)),
     [{}, {"weight_decay": 0.0}, {"weight_decay": 0.0, "always_adapt": True}]),
    ("nadam", nadam_ref,
     lambda r, d, s: (np.full(s, 0.96 ** (0.004 * 2), d), np.full(s, 0.999 ** 2, d),
                      np.full(s, 0.81, d), _arr(r, d, s), _pos(r, d, s)),
     [{}, {"momentum_decay": 0.5, "beta1": 0.7}]),
    ("radam", radam_ref, _radam_states, [{}]),
]

ENTRIES = [OpEntry(op=name, fn=_fn(name), ref=ref, samples=_samples(states, attrs),
                   grad=False, tol=10.0)
           for name, ref, states, attrs in _ENTRIES_SPEC]
ENTRIES.append(OpEntry(op="asgd", fn=_fn("asgd"), ref=asgd_ref, samples=_asgd_samples,
                       grad=False))
ENTRIES.append(OpEntry(op="rprop", fn=_fn("rprop"), ref=rprop_ref, samples=_rprop_samples,
                       grad=False))
