"""Fractional max pooling (fractional_max_pool2d/3d, Graham 2015) with its argmax mask.

Window i of a dim of size n pooled to o spans [int((i + u') * a) - int(u' * a), that start +
kernel) when a kernel size is given, else up to int((i + 1 + u') * a) - int(u' * a), with
a = (n - kernel) / (o - [kernel > 0]) and u' the pseudo-random u rescaled so every window
stays inside the input; arithmetic in float32 as Paddle's kernel. The windows are computed
from the attrs (u is drawn by the public function) and pooled by nn_pool.windows_max; the
gradient scatters to the mask. Imports `backend` (through nn_pool) and sibling op modules.
"""
from __future__ import annotations

import numpy as np

from .nn_pool import _AdaptiveMaxPool, _scatter_grad, windows_max
from .opdef import TensorSpec, register


def fractional_bounds(n: int, o: int, kernel: int, u: float) -> list:
    """[start, end) of the o fractional windows over n elements (kernel 0: no fixed size)."""
    f32 = np.float32
    alpha = f32(n - kernel) / f32(o - (1 if kernel > 0 else 0))
    if kernel == 0:
        base = n // o
        u_max = min(f32(base + 2) / alpha - f32(1), f32(n + 1 - base) / alpha - f32(o - 1))
        u = f32(u) * f32(u_max)
    u = f32(u)
    offset = int(u * alpha)
    bounds = []
    for i in range(o):
        start = int((f32(i) + u) * alpha) - offset
        end = start + kernel if kernel > 0 else int((f32(i + 1) + u) * alpha) - offset
        bounds.append((max(start, 0), min(end, n)))
    return bounds


class _FractionalMaxPool(_AdaptiveMaxPool):
    """Max over fractional windows of x [N, C, *spatial]; outputs out and the int32 flat
    spatial index of each window's first maximum (the gradient goes to it)."""

    onnx = None
    attrs = {"output_size": None, "kernel_size": None, "random_u": 0.5}

    def infer(self, x, output_size=None, kernel_size=None, random_u=0.5):
        out, mask = super().infer(x, output_size)
        kernel = kernel_size or [0] * self.nd
        names = ("depth", "height", "width")[3 - self.nd:]
        for name, n, o, k in zip(names, x.shape[2:], output_size, kernel):
            if n != -1 and (n < o - 1 + k or (k == 0 and o > n)):
                raise ValueError(f"{self.name}: input_{name} [{n}] is less than valid "
                                 f"output_{name} [{o - 1 + max(k, 1)}] (output_size "
                                 f"{list(output_size)}, kernel_size {list(kernel)})")
        if not 0.0 < float(random_u) < 1.0:
            raise ValueError(f"{self.name}: random_u must be a float in (0, 1), got "
                             f"{random_u}")
        return out, mask

    def compute(self, xp, x, output_size=None, kernel_size=None, random_u=0.5):
        kernel = kernel_size or [0] * self.nd
        return windows_max(xp, x, [fractional_bounds(n, o, k, random_u) for n, o, k in
                                   zip(x.shape[2:], output_size, kernel)])

    def vjp(self, ctx, g, g_mask=None):
        return (_scatter_grad(g, ctx.mask, ctx.x, "NCHW", False, False),)


@register
class FractionalMaxPool2D(_FractionalMaxPool):
    name = "fractional_max_pool2d"
    nd = 2


@register
class FractionalMaxPool3D(_FractionalMaxPool):
    name = "fractional_max_pool3d"
    nd = 3
