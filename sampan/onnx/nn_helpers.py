"""Lowering helpers for the nn operator families (convolution, pooling, normalization) that
the OpDefs' `onnx` rules call through the builder (GraphBuilder mixes this class in).

Imports `backend` (window arithmetic) and numpy; never onnx at module level.
"""
from __future__ import annotations

import numpy as np

from ..backend.window import resolve_pads


class Fallback(Exception):
    """Raised by a rule: this use of the op lowers through the OpDef's `decompose`."""


def _unsupported(msg: str):
    from .builder import Unsupported
    return Unsupported(msg)


def _channels_last(fmt: str) -> bool:
    return fmt in ("NHWC", "NLC", "NDHWC")


class NNHelpers:
    """Mixin of GraphBuilder; `self` is the builder."""

    def _to_cf(self, x: str, nd: int, fmt: str) -> str:
        """Channels-last -> channels-first (NHWC -> NCHW) when the format asks for it."""
        if not _channels_last(fmt):
            return x
        return self.op("Transpose", [x], perm=[0, nd + 1] + list(range(1, nd + 1)))

    def _from_cf(self, x: str, nd: int, fmt: str) -> str:
        if not _channels_last(fmt):
            return x
        return self.op("Transpose", [x], perm=[0] + list(range(2, nd + 2)) + [1])

    @staticmethod
    def _spatial(spec, nd: int, fmt: str) -> list:
        shape = list(spec.shape)
        return shape[1:1 + nd] if _channels_last(fmt) else shape[2:]

    def _pads(self, node, spatial, kernel, dilation_key="dilation") -> tuple:
        a = node.attrs
        dil = a.get(dilation_key, [1] * len(kernel))
        if a["padding_algorithm"] == "SAME" and -1 in spatial:
            raise _unsupported(f"padding_algorithm='SAME' needs known spatial sizes, got "
                               f"{spatial}")
        pads, dil = resolve_pads(a["padding_algorithm"], a["padding"], spatial, kernel,
                                 a["stride"], dil)
        onnx_pads = [int(p) for p in pads[0::2]] + [int(p) for p in pads[1::2]]
        return onnx_pads, [int(d) for d in dil]

    def conv(self, node, transposed: bool = False) -> str:
        """conv{1,2,3}d (and transposes) -> Conv / ConvTranspose, any padding algorithm,
        groups, dilation, channels-last formats."""
        a = node.attrs
        w_spec = node.specs[1]
        nd = len(w_spec.shape) - 2
        kernel = [int(k) for k in w_spec.shape[2:]]
        fmt = a["data_format"]
        spatial = self._spatial(node.specs[0], nd, fmt)
        pads, dil = self._pads(node, spatial, kernel)
        x = self._to_cf(node.inputs[0], nd, fmt)
        kw = dict(kernel_shape=kernel, strides=[int(s) for s in a["stride"]], pads=pads,
                  dilations=dil, group=int(a["groups"]))
        ins = [x, node.inputs[1], node.inputs[2]]
        if not transposed:
            out = self.op("Conv", ins if ins[2] else ins[:2], **kw)
            return self._from_cf(out, nd, fmt)
        out_spatial = self._spatial(node.outs[0], nd, fmt)
        extra = []
        for i, (m, k) in enumerate(zip(spatial, kernel)):
            natural = ((m - 1) * kw["strides"][i] - pads[i] - pads[i + nd]
                       + dil[i] * (k - 1) + 1)
            if -1 in (m, out_spatial[i]):
                if a.get("output_size") is not None:
                    raise _unsupported("output_size with unknown spatial sizes")
                extra.append(int(a["output_padding"][i]) if a["output_padding"] else 0)
            else:
                extra.append(int(out_spatial[i]) - natural)
        out = self.op("ConvTranspose", ins if ins[2] else ins[:2], output_padding=extra, **kw)
        return self._from_cf(out, nd, fmt)

    def max_pool(self, node) -> list:
        """max_pool{1,2,3}d -> MaxPool (the argmax mask output is not produced)."""
        a = node.attrs
        kernel = [int(k) for k in a["kernel_size"]]
        nd = len(kernel)
        fmt = a["data_format"]
        spatial = self._spatial(node.specs[0], nd, fmt)
        pads, _ = self._pads(node, spatial, kernel)
        x = self._to_cf(node.inputs[0], nd, fmt)
        out = self.op("MaxPool", [x], kernel_shape=kernel, pads=pads,
                      strides=[int(s) for s in a["stride"]], ceil_mode=int(a["ceil_mode"]))
        return [self._from_cf(out, nd, fmt), None]

    def adaptive_max_pool(self, node) -> list:
        """adaptive_max_pool: GlobalMaxPool for output size 1, MaxPool for equal windows,
        otherwise per spatial dim (max is separable) one ReduceMax per output window."""
        x = node.inputs[0]
        spatial = list(node.specs[0].shape[2:])
        out = list(node.outs[0].shape[2:])
        if all(o == 1 for o in out):
            return [self.op("GlobalMaxPool", [x]), None]
        if -1 in spatial:
            raise _unsupported(f"adaptive pooling of unknown spatial sizes {spatial}")
        if not any(m % o for m, o in zip(spatial, out)):
            k = [m // o for m, o in zip(spatial, out)]
            return [self.op("MaxPool", [x], kernel_shape=k, strides=k), None]
        for d, (m, o) in enumerate(zip(spatial, out)):
            axis = d + 2
            parts = []
            for i in range(o):
                lo, hi = (i * m) // o, -((-(i + 1) * m) // o)
                part = self.op("Slice", [x, self.ints([lo]), self.ints([hi]), self.ints([axis])])
                parts.append(self.reduce("ReduceMax", part, [axis], True))
            x = self.op("Concat", parts, axis=axis)
        return [x, None]

    def batch_norm(self, node) -> list:
        """Inference batch_norm (running statistics) -> BatchNormalization; training mode
        (batch statistics) lowers through decompose."""
        a = node.attrs
        if not a["use_global_stats"]:
            raise Fallback()
        x, mean, var, w, bias = node.inputs
        spec = node.specs[0]
        fmt = a["data_format"]
        nd = len(spec.shape) - 2
        c = int(node.specs[1].shape[0])
        dt = spec.dtype
        w = w or self.const(np.ones([c]), dt)
        bias = bias or self.const(np.zeros([c]), dt)
        xc = self._to_cf(x, nd, fmt) if nd > 0 else x
        out = self.op("BatchNormalization", [xc, w, bias, mean, var],
                      epsilon=float(a["epsilon"]))
        out = self._from_cf(out, nd, fmt) if nd > 0 else out
        return [out, None, None, None, None]

    def layer_norm(self, node) -> list:
        """layer_norm -> LayerNormalization (opset 17) over the dims from begin_norm_axis."""
        x, w, bias = node.inputs
        shape = list(node.specs[0].shape)
        axis = int(node.attrs["begin_norm_axis"]) % max(len(shape), 1)
        norm = shape[axis:]
        if w is None:
            if -1 in norm:
                raise _unsupported("layer_norm without weight over unknown dims")
            w = self.const(np.ones(norm), node.specs[0].dtype)
        elif list(node.specs[1].shape) != norm:   # Paddle's weight may be flat
            w = self.reshape(w, norm)
        if bias is not None and list(node.specs[2].shape) != norm:
            bias = self.reshape(bias, norm)
        out = self.op("LayerNormalization", [x, w, bias], axis=axis,
                      epsilon=float(node.attrs["epsilon"]))
        return [out, None, None]

    # --- axis slicing (roll, cumprod) -------------------------------------------------------
    def slice_axis(self, x: str, axis: int, start: int, end: int, step: int = 1) -> str:
        """x[start:end:step] along one axis (Python slice bounds)."""
        return self.op("Slice", [x, self.ints([start]), self.ints([end]), self.ints([axis]),
                                 self.ints([step])])

    def flip_axis(self, x: str, axis: int) -> str:
        """x reversed along one axis."""
        return self.slice_axis(x, axis, -1, -(2 ** 63), -1)

    def fill_like(self, x: str, value, dtype) -> str:
        """A tensor of x's (runtime) shape filled with `value`."""
        return self.op("Expand", [self.scalar(value, dtype), self.shape_of(x)])

    def static_dim(self, spec, axis: int, api: str) -> int:
        """The size of dim `axis` of `spec`; Unsupported when it is unknown (-1)."""
        n = int(spec.shape[axis])
        if n < 0:
            raise _unsupported(f"{api} along an axis of unknown size")
        return n

    def reduce_on(self, node, op_type: str, x: str) -> str:
        """A reduction with the node's axis/keepdim attrs applied to `x` (a stand-in for the
        node's input, e.g. nan-zeroed or a nonzero mask)."""
        axis = node.attrs.get("axis")
        axis = [axis] if isinstance(axis, int) else axis
        if axis is not None and (len(axis) == 0 or len(node.specs[0].shape) == 0):
            axis = None
        return self.reduce(op_type, x, axis, node.attrs.get("keepdim", False))
