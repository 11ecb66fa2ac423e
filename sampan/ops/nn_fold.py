"""The sliding-block ops: im2col (paddle.nn.functional.unfold) and fold (col2im), adjoints
of each other. Kernels in sampan/backend/window.py. Imports `framework`, `backend` and
sibling op modules.
"""
from __future__ import annotations

import math

from ..backend.window import col2im_array, conv_out_len, im2col_array
from ..framework import dtype as _dt
from .dispatch import call
from .opdef import OpDef, TensorSpec, register


class _ColBase(OpDef):
    check = True

    def _geometry(self, spatial, kernel_sizes, strides, paddings, dilations):
        nd = len(spatial)
        for arg, v, n in (("kernel_sizes", kernel_sizes, nd), ("strides", strides, nd),
                          ("paddings", paddings, 2 * nd), ("dilations", dilations, nd)):
            if v is None or len(v) != n:
                raise ValueError(f"{self.name}: {arg} must have {n} entries for {nd} "
                                 f"spatial dims, got {v}")
        for arg, v in (("kernel_sizes", kernel_sizes), ("strides", strides),
                       ("dilations", dilations)):
            if any(int(e) <= 0 for e in v):
                raise ValueError(f"{self.name}: {arg} must be positive, got {list(v)}")
        return [conv_out_len(m, k, s, paddings[2 * i], paddings[2 * i + 1], d)
                for i, (m, k, s, d) in enumerate(zip(spatial, kernel_sizes, strides,
                                                     dilations))]


@register
class Im2col(_ColBase):
    """The sliding blocks of x [N, C, *spatial] as columns [N, C * prod(kernel), L]
    (the op behind paddle.nn.functional.unfold; "unfold" names Tensor.unfold).

    paddings: [before, after] per spatial dim. Row index = c * prod(kernel) + kernel offset,
    column = output position in row-major order. Gradient: fold (col2im).
    """

    name = "im2col"
    attrs = {"kernel_sizes": None, "strides": None, "paddings": None, "dilations": None}
    saves = ()

    def infer(self, x, kernel_sizes=None, strides=None, paddings=None, dilations=None):
        if x.ndim < 3:
            raise ValueError(f"{self.name}: x must have a batch, a channel and at least one "
                             f"spatial dim, got shape {list(x.shape)}")
        out = self._geometry(x.shape[2:], kernel_sizes, strides, paddings, dilations)
        if any(o != -1 and o <= 0 for o in out):
            raise ValueError(f"{self.name}: the kernel {list(kernel_sizes)} (dilations "
                             f"{list(dilations)}) does not fit in the padded input of "
                             f"spatial shape {list(x.shape[2:])} (paddings {list(paddings)})")
        c = x.shape[1]
        rows = -1 if c == -1 else c * math.prod(kernel_sizes)
        return x.with_shape([x.shape[0], rows, -1 if -1 in out else math.prod(out)])

    def compute(self, xp, x, kernel_sizes=None, strides=None, paddings=None, dilations=None):
        cols = im2col_array(xp, x, kernel_sizes, strides, paddings, dilations)
        n, c = x.shape[:2]
        nd = len(kernel_sizes)
        return cols.reshape(n, c * math.prod(kernel_sizes), math.prod(cols.shape[2 + nd:]))

    def vjp(self, ctx, g):
        size = list(ctx.in_shapes[0][2:])
        return (call("fold", g, output_sizes=size, kernel_sizes=ctx.kernel_sizes,
                     strides=ctx.strides, paddings=ctx.paddings, dilations=ctx.dilations),)


@register
class Fold(_ColBase):
    """Sum columns x [N, C * prod(kernel), L] back into [N, C, *output_sizes] (col2im): the
    adjoint of im2col, overlapping entries add up. paddings: [before, after] per dim."""

    name = "fold"
    attrs = {"output_sizes": None, "kernel_sizes": None, "strides": None, "paddings": None,
             "dilations": None}
    saves = ()

    def infer(self, x, output_sizes=None, kernel_sizes=None, strides=None, paddings=None,
              dilations=None):
        if x.ndim != 3:
            raise ValueError(f"{self.name}: x must be 3-D [N, C * prod(kernel_sizes), L], "
                             f"got shape {list(x.shape)}")
        if output_sizes is None or any(int(s) <= 0 for s in output_sizes):
            raise ValueError(f"{self.name}: output_sizes must be positive ints, got "
                             f"{output_sizes}")
        out = self._geometry(output_sizes, kernel_sizes, strides, paddings, dilations)
        kp = math.prod(kernel_sizes)
        rows, blocks = x.shape[1], x.shape[2]
        if rows != -1 and rows % kp:
            raise ValueError(f"{self.name}: x.shape[1] ({rows}) must be divisible by the "
                             f"kernel size product {kp} (kernel_sizes {list(kernel_sizes)})")
        if blocks != -1 and blocks != math.prod(out):
            raise ValueError(f"{self.name}: x.shape[2] ({blocks}) must equal the number of "
                             f"sliding blocks {math.prod(out)} ({out}) for output_sizes "
                             f"{list(output_sizes)}")
        return x.with_shape([x.shape[0], -1 if rows == -1 else rows // kp, *output_sizes])

    def compute(self, xp, x, output_sizes=None, kernel_sizes=None, strides=None,
                paddings=None, dilations=None):
        self.infer(TensorSpec(x.shape, _dt.from_numpy(x.dtype)), output_sizes, kernel_sizes,
                   strides, paddings, dilations)
        blocks = self._geometry(output_sizes, kernel_sizes, strides, paddings, dilations)
        n, rows = x.shape[:2]
        cols = x.reshape((n, rows // math.prod(kernel_sizes)) + tuple(kernel_sizes)
                         + tuple(blocks))
        return col2im_array(xp, cols, output_sizes, strides, paddings, dilations)

    def vjp(self, ctx, g):
        return (call("im2col", g, kernel_sizes=ctx.kernel_sizes, strides=ctx.strides,
                     paddings=ctx.paddings, dilations=ctx.dilations),)
