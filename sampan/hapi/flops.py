"""paddle.flops: count a Layer's floating point operations by running it once on a random
input with per-layer forward post-hooks (Paddle's counting rules: multiply-adds of conv and
linear layers, 2 per element for BatchNorm in eval, 1 per output for average pooling ...).
"""
from __future__ import annotations

import numpy as np

from .. import nn
from .. import tensor as T
from ..autograd import no_grad


def _conv(m, x, y):
    kernel = int(np.prod(m.weight.shape[2:]))
    bias = 1 if getattr(m, "bias", None) is not None else 0
    return int(y.size * (x[0].shape[1] / m._groups * kernel + bias))


def _linear(m, x, y):
    return int(m.weight.shape[0] * y.size)


def _adaptive_avg(m, x, y):
    kernel = np.array(x[0].shape[2:]) // np.array(y.shape[2:])
    return int((np.prod(kernel) + 1) * y.size)


def _rules() -> dict:
    conv = (nn.Conv1D, nn.Conv2D, nn.Conv3D, nn.Conv1DTranspose, nn.Conv2DTranspose,
            nn.Conv3DTranspose)
    rules = {c: _conv for c in conv}
    rules.update({c: (lambda m, x, y: 2 * x[0].size) for c in (nn.BatchNorm2D, nn.BatchNorm)})
    rules.update({c: (lambda m, x, y: 0) for c in (nn.ReLU, nn.ReLU6, nn.Dropout)})
    rules.update({nn.LeakyReLU: lambda m, x, y: x[0].size, nn.Linear: _linear})
    rules.update({c: (lambda m, x, y: y.size) for c in (nn.AvgPool1D, nn.AvgPool2D,
                                                        nn.AvgPool3D)})
    rules.update({c: _adaptive_avg for c in (nn.AdaptiveAvgPool1D, nn.AdaptiveAvgPool2D,
                                             nn.AdaptiveAvgPool3D)})
    return rules


def _hook(rule, rows: dict, custom: bool):
    def hook(m, inputs, output):
        out = output[0] if isinstance(output, (list, tuple)) else output
        if custom:                 # Paddle's custom rules add to m.total_ops themselves
            m.total_ops = 0
            rule(m, inputs, out)
            ops = int(m.total_ops)
            del m.total_ops
        else:
            ops = 0 if rule is None else int(rule(m, inputs, out))
        params = sum(int(p.size) for p in m.parameters())
        rows[id(m)] = (list(inputs[0].shape), list(out.shape), params, ops)
    return hook


def flops(net, input_size, custom_ops=None, print_detail: bool = False) -> int:
    """Total FLOPs of one forward pass of `net` on a random input of `input_size`.

    Args:
        net (Layer): the network (layers without a rule count 0; a message says which).
        input_size (list): the input shape, batch included.
        custom_ops (dict, optional): {Layer class: fn(m, x, y)}; fn adds to m.total_ops.
        print_detail (bool): print a per-layer table.

    Returns:
        int

    Examples:
        >>> import sampan as paddle
        >>> net = paddle.nn.Sequential(paddle.nn.Conv2D(3, 8, 3, padding=1), paddle.nn.ReLU())
        >>> paddle.flops(net, [1, 3, 8, 8])  # doctest: +ELLIPSIS
        <class '...Conv2D'>'s flops has been counted
        <class '...ReLU'>'s flops has been counted
        Total Flops: 14336     Total Params: 224
        14336
    """
    if not isinstance(net, nn.Layer):
        raise TypeError(f"flops: net must be a paddle.nn.Layer, got {type(net).__name__} "
                        "(static Programs are not supported)")
    custom_ops, rules, rows, handles, seen = custom_ops or {}, _rules(), {}, [], set()
    leaves = [m for m in net.sublayers(include_self=True) if not list(m.children())]
    for m in leaves:
        kind = type(m)
        rule = custom_ops.get(kind, rules.get(kind))
        if kind not in seen:
            seen.add(kind)
            print(f"Customize Function has been applied to {kind}" if kind in custom_ops else
                  f"{kind}'s flops has been counted" if rule is not None else
                  f"Cannot find suitable count function for {kind}. Treat it as zero FLOPs.")
        handles.append(m.register_forward_post_hook(_hook(rule, rows, kind in custom_ops)))
    training = net.training
    net.eval()
    try:
        with no_grad():
            net(T.randn(list(input_size)))
    finally:
        for h in handles:
            h.remove()
        if training:
            net.train()
    done = [(m, rows[id(m)]) for m in leaves if id(m) in rows]
    if print_detail:
        print(f"{'Layer Name':<24}{'Input Shape':<22}{'Output Shape':<22}{'Params':>10}"
              f"{'Flops':>14}")
        for m, (i, o, p, f) in done:
            print(f"{m.full_name():<24}{str(i):<22}{str(o):<22}{p:>10}{f:>14}")
    total_ops = sum(r[3] for _, r in done)
    total_params = sum(r[2] for _, r in done)
    print(f"Total Flops: {total_ops}     Total Params: {total_params}")
    return total_ops
