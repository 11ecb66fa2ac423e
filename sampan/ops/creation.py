"""Creation operators: full, full_like, arange, linspace, eye, diag, tril/triu, assign, ...

Ops that build a tensor from attrs alone have `inputs = ()`, so static Programs can hold
them. Imports `framework` and `ops.opdef`/`ops.dispatch` only.
"""
from __future__ import annotations

import math

import numpy as np

from ..framework import dtype as _dt
from .dispatch import call
from .opdef import OpDef, TensorSpec, norm_axis, register


def fill_scalar(value):
    """An attr fill value as a Python scalar (complex values travel as [real, imag])."""
    if isinstance(value, (list, tuple)):
        return complex(value[0], value[1])
    return value


def arange_length(start, end, step) -> int:
    """Number of elements of arange(start, end, step), as NumPy counts them."""
    if step == 0:
        raise ValueError(f"arange: step must not be 0, got start={start}, end={end}, step=0")
    return max(0, math.ceil((end - start) / step))


def diag_length(shape: tuple, offset: int) -> int:
    """Length of the `offset` diagonal of a matrix of `shape` (-1 when unknown)."""
    m, n = shape
    if m == -1 or n == -1:
        return -1
    if offset >= 0:
        return max(0, min(m, n - offset))
    return max(0, min(m + offset, n))


def tri_count(row: int, col: int, offset: int, lower: bool) -> int:
    """Number of (i, j) in a row x col grid with j - i <= offset (lower) or >= offset."""
    if lower:
        return sum(max(0, min(col, i + offset + 1)) for i in range(row))
    return sum(max(0, col - max(0, i + offset)) for i in range(row))


@register
class Full(OpDef):
    """out = a tensor of `shape` filled with `fill_value`, in `dtype` (no tensor input)."""

    name = "full"
    inputs = ()
    attrs = {"shape": [], "fill_value": 0.0, "dtype": "float32"}

    def onnx(self, b, node):   # attrs only: the value itself
        return b.fold(self, node)

    def infer(self, shape=(), fill_value=0.0, dtype="float32"):
        return TensorSpec(shape, dtype)

    def compute(self, xp, shape=(), fill_value=0.0, dtype="float32"):
        return xp.full(tuple(shape), fill_scalar(fill_value), dtype=_dt.convert_dtype(dtype).np)


@register
class FullLike(OpDef):
    """out = a tensor shaped like x filled with `fill_value`; dtype None keeps x's dtype.

    x's values are not read, so the op is not differentiable.
    """

    name = "full_like"
    attrs = {"fill_value": 0.0, "dtype": None}
    saves = ()

    def onnx(self, b, node):
        value = b.scalar(node.attrs["fill_value"], node.out_dtype())
        return b.op("Expand", [value, b.op("Shape", [node.inputs[0]])])

    def infer(self, x, fill_value=0.0, dtype=None):
        return x if dtype is None else x.with_dtype(dtype)

    def compute(self, xp, x, fill_value=0.0, dtype=None):
        npd = x.dtype if dtype is None else _dt.convert_dtype(dtype).np
        return xp.full(x.shape, fill_scalar(fill_value), dtype=npd)


@register
class FullBatchLike(OpDef):
    """out = a tensor of `shape` filled with `fill_value`, whose dim `output_dim_idx` is dim
    `input_dim_idx` of x at run time (Paddle's fill_constant_batch_size_like): initial
    states of a batch whose size a static Program knows only when it runs. x's values are not
    read, so the op is not differentiable."""

    name = "_full_batch_like"
    attrs = {"shape": [], "fill_value": 0.0, "dtype": "float32", "input_dim_idx": 0,
             "output_dim_idx": 0}
    saves = ()
    vjp = None

    def onnx(self, b, node):
        a = node.attrs
        value = b.scalar(a["fill_value"], node.out_dtype())
        out = node.out_shape()
        if -1 not in out:  # the batch was known when the graph was exported
            return b.op("Expand", [value, b.ints(out)])
        k = a["input_dim_idx"]
        dims = [b.ints([d]) for d in a["shape"]]
        dims[a["output_dim_idx"]] = b.shape_of(node.inputs[0], k, k + 1)
        return b.op("Expand", [value, b.op("Concat", dims, axis=0)])

    def _shape(self, batch, shape, output_dim_idx):
        out = list(shape)
        out[output_dim_idx] = batch
        return out

    def infer(self, x, shape=(), fill_value=0.0, dtype="float32", input_dim_idx=0,
              output_dim_idx=0):
        return TensorSpec(self._shape(x.shape[input_dim_idx], shape, output_dim_idx), dtype)

    def compute(self, xp, x, shape=(), fill_value=0.0, dtype="float32", input_dim_idx=0,
                output_dim_idx=0):
        dims = self._shape(x.shape[input_dim_idx], shape, output_dim_idx)
        return xp.full(tuple(dims), fill_scalar(fill_value), dtype=_dt.convert_dtype(dtype).np)


@register
class Arange(OpDef):
    """out = [start, start + step, ...) up to `end` (exclusive), in `dtype`.

    Values are computed in float64 (int64 for integer dtypes) and then cast, so float32
    results do not accumulate rounding error.
    """

    name = "arange"
    inputs = ()
    attrs = {"start": 0, "end": 1, "step": 1, "dtype": "int64"}

    def onnx(self, b, node):   # attrs only: the value itself
        return b.fold(self, node)

    def infer(self, start=0, end=1, step=1, dtype="int64"):
        return TensorSpec((arange_length(start, end, step),), dtype)

    def compute(self, xp, start=0, end=1, step=1, dtype="int64"):
        n = arange_length(start, end, step)
        npd = _dt.convert_dtype(dtype).np
        if all(isinstance(v, int) for v in (start, end, step)):
            return (start + step * xp.arange(n, dtype=xp.int64)).astype(npd)
        return (start + step * xp.arange(n, dtype=xp.float64)).astype(npd)


@register
class Linspace(OpDef):
    """out = `num` evenly spaced values from `start` to `stop` (inclusive), in `dtype`."""

    name = "linspace"
    inputs = ()
    attrs = {"start": 0.0, "stop": 1.0, "num": 1, "dtype": "float32"}

    def onnx(self, b, node):   # attrs only: the value itself
        return b.fold(self, node)

    def infer(self, start=0.0, stop=1.0, num=1, dtype="float32"):
        if num < 0:
            raise ValueError(f"linspace: num must be non-negative, got {num}")
        return TensorSpec((num,), dtype)

    def compute(self, xp, start=0.0, stop=1.0, num=1, dtype="float32"):
        if num < 0:
            raise ValueError(f"linspace: num must be non-negative, got {num}")
        return xp.linspace(start, stop, num, dtype=xp.float64).astype(
            _dt.convert_dtype(dtype).np)


@register
class Logspace(OpDef):
    """out = base ** linspace(start, stop, num), in `dtype`."""

    name = "logspace"
    inputs = ()
    attrs = {"start": 0.0, "stop": 1.0, "num": 1, "base": 10.0, "dtype": "float32"}

    def onnx(self, b, node):   # attrs only: the value itself
        return b.fold(self, node)

    def infer(self, start=0.0, stop=1.0, num=1, base=10.0, dtype="float32"):
        if num < 0:
            raise ValueError(f"logspace: num must be non-negative, got {num}")
        return TensorSpec((num,), dtype)

    def compute(self, xp, start=0.0, stop=1.0, num=1, base=10.0, dtype="float32"):
        if num < 0:
            raise ValueError(f"logspace: num must be non-negative, got {num}")
        exps = xp.linspace(start, stop, num, dtype=xp.float64)
        return xp.power(float(base), exps).astype(_dt.convert_dtype(dtype).np)


@register
class Eye(OpDef):
    """out = a num_rows x num_columns matrix with ones on the main diagonal."""

    name = "eye"
    inputs = ()
    attrs = {"num_rows": 1, "num_columns": 1, "dtype": "float32"}

    def onnx(self, b, node):   # attrs only: the value itself
        return b.fold(self, node)

    def infer(self, num_rows=1, num_columns=1, dtype="float32"):
        return TensorSpec((num_rows, num_columns), dtype)

    def compute(self, xp, num_rows=1, num_columns=1, dtype="float32"):
        return xp.eye(num_rows, num_columns, dtype=_dt.convert_dtype(dtype).np)


def _band_ones(like, rows: int, cols: int, offset: int):
    """A rows x cols matrix (dtype of `like`) with ones where col - row == offset."""
    ones = call("full", shape=[rows, cols], fill_value=1, dtype=like.dtype.name)
    return call("triu", call("tril", ones, diagonal=offset), diagonal=offset)


@register
class Diag(OpDef):
    """1-D x: a square matrix with x on the `offset` diagonal and `padding_value` elsewhere.
    2-D x: the `offset` diagonal of x as a 1-D tensor. The dtype is x's dtype.
    """

    name = "diag"
    attrs = {"offset": 0, "padding_value": 0}
    saves = ("x",)

    def onnx(self, b, node):   # static indices: ScatterND into a filled square, or Gather
        shape, off, x = list(node.specs[0].shape), int(node["offset"]), node.inputs[0]
        if -1 in shape:
            raise b.Unsupported("diag of a tensor with unknown dims")
        r, c = max(-off, 0), max(off, 0)
        if len(shape) == 1:
            n = shape[0] + abs(off)
            fill = b.op("Expand", [b.scalar(node["padding_value"], node.out_dtype()),
                                   b.ints([n, n])])
            pos = [[i + r, i + c] for i in range(shape[0])]
            return b.op("ScatterND", [fill, b.const(np.asarray(pos, np.int64).reshape(-1, 2)),
                                      x])
        k = diag_length(tuple(shape), off)
        flat = [(i + r) * shape[1] + i + c for i in range(k)]
        return b.op("Gather", [b.reshape(x, [-1]), b.ints(flat)], axis=0)

    def infer(self, x, offset=0, padding_value=0):
        if x.ndim == 1:
            n = -1 if x.shape[0] == -1 else x.shape[0] + abs(offset)
            return x.with_shape((n, n))
        if x.ndim == 2:
            return x.with_shape((diag_length(x.shape, offset),))
        raise ValueError(f"diag: x must be a 1-D or 2-D tensor, got {x.ndim}-D tensor with "
                         f"shape {list(x.shape)}")

    def compute(self, xp, x, offset=0, padding_value=0):
        if x.ndim == 1:
            n = x.shape[0] + abs(offset)
            out = xp.full((n, n), fill_scalar(padding_value), dtype=x.dtype)
            idx = xp.arange(x.shape[0])
            out[idx + max(-offset, 0), idx + max(offset, 0)] = x
            return out
        if x.ndim == 2:
            return xp.diagonal(x, offset).copy()
        raise ValueError(f"diag: x must be a 1-D or 2-D tensor, got {x.ndim}-D tensor with "
                         f"shape {list(x.shape)}")

    def vjp(self, ctx, g):
        x, offset = ctx.x, ctx.offset
        if x.ndim == 1:
            return (call("diag", g, offset=offset, padding_value=0),)
        # out[i] = x[i + r, i + c]: scatter g back through two band selection matrices.
        m, n = x.shape
        length = g.shape[0]
        rows = _band_ones(g, length, m, max(-offset, 0))
        cols = _band_ones(g, length, n, max(offset, 0))
        weighted = rows * call("reshape", g, shape=[length, 1])
        return (call("matmul", weighted, cols, transpose_x=True, transpose_y=False),)


@register
class DiagEmbed(OpDef):
    """out[..., i, j] (at dims dim1, dim2) = input[..., k] on the `offset` diagonal, else 0.

    The last dim L of input becomes two dims of size L + |offset| inserted at dim1, dim2 of
    the (ndim + 1)-D result.
    """

    name = "diag_embed"
    inputs = ("input",)
    attrs = {"offset": 0, "dim1": -2, "dim2": -1}
    saves = ()

    def onnx(self, b, node):   # Gather from [x, 0] with a static (m*m) index, then move dims
        shape, off, x = list(node.specs[0].shape), int(node["offset"]), node.inputs[0]
        nd, n = len(shape), shape[-1]
        if n < 0:
            raise b.Unsupported("diag_embed with an unknown last dim")
        d1, d2 = self._dims(nd, node["dim1"], node["dim2"])
        m, r, c = n + abs(off), max(-off, 0), max(off, 0)
        index = np.full((m, m), n, np.int64)
        index[np.arange(n) + r, np.arange(n) + c] = np.arange(n)
        col = b.op("Concat", [b.shape_of(x, 0, nd - 1), b.ints([1])], axis=0)
        zero = b.op("Expand", [b.scalar(0, node.out_dtype()), col])
        padded = b.op("Concat", [x, zero], axis=nd - 1)
        out = b.op("Gather", [padded, b.const(index)], axis=nd - 1)
        perm, rest = [0] * (nd + 1), iter(range(nd - 1))
        for j in range(nd + 1):
            perm[j] = nd - 1 if j == d1 else nd if j == d2 else next(rest)
        return b.op("Transpose", [out], perm=perm)

    def _dims(self, ndim, dim1, dim2):
        d1 = norm_axis(self.name, dim1, ndim + 1, "dim1")
        d2 = norm_axis(self.name, dim2, ndim + 1, "dim2")
        if d1 == d2:
            raise ValueError(f"diag_embed: dim1 and dim2 must be different dims, got "
                             f"dim1={dim1}, dim2={dim2}")
        return d1, d2

    def infer(self, input, offset=0, dim1=-2, dim2=-1):
        if input.ndim < 1:
            raise ValueError("diag_embed: input must be at least 1-D, got a 0-D tensor")
        d1, d2 = self._dims(input.ndim, dim1, dim2)
        last = input.shape[-1]
        n = -1 if last == -1 else last + abs(offset)
        shape = list(input.shape[:-1])
        for d in sorted((d1, d2)):
            shape.insert(d, n)
        return input.with_shape(shape)

    def compute(self, xp, input, offset=0, dim1=-2, dim2=-1):
        self.infer(TensorSpec(input.shape, _dt.from_numpy(input.dtype)), offset, dim1, dim2)
        d1, d2 = self._dims(input.ndim, dim1, dim2)
        length = input.shape[-1]
        n = length + abs(offset)
        out = xp.zeros(input.shape[:-1] + (n, n), dtype=input.dtype)
        idx = xp.arange(length)
        out[..., idx + max(-offset, 0), idx + max(offset, 0)] = input
        return xp.moveaxis(out, (-2, -1), (d1, d2))

    def vjp(self, ctx, g):
        return (call("diagonal", g, offset=ctx.offset, axis1=ctx.dim1, axis2=ctx.dim2),)


class _Tri(OpDef):
    """Base of tril/triu: keep the lower/upper triangle of the last two dims of x."""

    attrs = {"diagonal": 0}
    saves = ()

    def infer(self, x, diagonal=0):
        if x.ndim < 2:
            raise ValueError(f"{self.name}: x must be at least 2-D, got shape {list(x.shape)}")
        return x

    def vjp(self, ctx, g):
        return (call(self.name, g, diagonal=ctx.diagonal),)


@register
class Tril(_Tri):
    """out = x with elements above the `diagonal`-th diagonal set to 0 (last two dims)."""

    name = "tril"
    check = True

    def onnx(self, b, node):
        return b.op("Trilu", [node.inputs[0], b.scalar(node.attrs["diagonal"], "int64")], upper=0)

    def compute(self, xp, x, diagonal=0):
        return xp.tril(x, diagonal)


@register
class Triu(_Tri):
    """out = x with elements below the `diagonal`-th diagonal set to 0 (last two dims)."""

    name = "triu"
    check = True

    def onnx(self, b, node):
        return b.op("Trilu", [node.inputs[0], b.scalar(node.attrs["diagonal"], "int64")], upper=1)

    def compute(self, xp, x, diagonal=0):
        return xp.triu(x, diagonal)


class _TriIndices(OpDef):
    """Base of tril_indices/triu_indices: a [2, N] tensor of (row, col) coordinates."""

    inputs = ()
    attrs = {"row": 1, "col": 1, "offset": 0, "dtype": "int64"}
    lower = True

    def onnx(self, b, node):   # attrs only: the value itself
        return b.fold(self, node)

    def infer(self, row=1, col=1, offset=0, dtype="int64"):
        if row < 0 or col < 0:
            raise ValueError(f"{self.name}: row and col must be non-negative, got row={row}, "
                             f"col={col}")
        return TensorSpec((2, tri_count(row, col, offset, self.lower)), dtype)

    def compute(self, xp, row=1, col=1, offset=0, dtype="int64"):
        self.infer(row, col, offset, dtype)
        fn = xp.tril_indices if self.lower else xp.triu_indices
        rows, cols = fn(row, offset, col)
        return xp.stack([rows, cols]).astype(_dt.convert_dtype(dtype).np)


@register
class TrilIndices(_TriIndices):
    """Coordinates of the lower triangle (col - row <= offset) of a row x col matrix."""

    name = "tril_indices"


@register
class TriuIndices(_TriIndices):
    """Coordinates of the upper triangle (col - row >= offset) of a row x col matrix."""

    name = "triu_indices"
    lower = False


@register
class Assign(OpDef):
    """out = a copy of x (the op behind paddle.assign and Tensor.clone)."""

    name = "assign"
    saves = ()
    onnx = "Identity"

    def infer(self, x):
        return x

    def compute(self, xp, x):
        return x.copy()

    def vjp(self, ctx, g):
        return (g,)


def fill_diagonal_positions(xp, shape: tuple, offset: int, wrap: bool):
    """Flat positions Paddle's fill_diagonal writes: every `sum(strides)` elements from 0,
    shifted by `offset`, skipping positions whose shifted column leaves the row."""
    numel = math.prod(shape)
    cols = shape[-1]
    stride = sum(math.prod(shape[k + 1:]) for k in range(len(shape)))
    size = numel if wrap else min(numel, cols * cols)
    pos = xp.arange(0, size, max(stride, 1), dtype=xp.int64)
    col = pos % cols + offset if cols else pos
    return pos[(col >= 0) & (col < cols)] + offset


@register
class FillDiagonal(OpDef):
    """out = x with its diagonal (shifted by `offset`) set to `value` (Tensor.fill_diagonal_).

    x must be 2-D or have all dims equal. `wrap` continues the diagonal below a tall matrix's
    first square block (as numpy.fill_diagonal). The gradient is g with the diagonal zeroed.
    """

    name = "fill_diagonal"
    attrs = {"value": 0.0, "offset": 0, "wrap": False}
    saves = ()
    check = True

    def onnx(self, b, node):   # ScatterND of `value` at the static flat positions
        shape = tuple(node.specs[0].shape)
        if -1 in shape:
            raise b.Unsupported("fill_diagonal of a tensor with unknown dims")
        pos = np.asarray(fill_diagonal_positions(np, shape, node["offset"], node["wrap"]),
                         np.int64).reshape(-1, 1)
        vals = b.op("Expand", [b.scalar(node["value"], node.out_dtype()), b.ints([len(pos)])])
        flat = b.op("ScatterND", [b.reshape(node.inputs[0], [-1]), b.const(pos), vals])
        return b.reshape(flat, list(shape))

    def infer(self, x, value=0.0, offset=0, wrap=False):
        if x.ndim < 2:
            raise ValueError(f"fill_diagonal_: x must be at least 2-D, got shape "
                             f"{list(x.shape)}")
        if x.ndim > 2 and len(set(x.shape)) != 1:
            raise ValueError(f"fill_diagonal_: all dims of x must be equal when x has more "
                             f"than 2 dims, got shape {list(x.shape)}")
        return x

    def compute(self, xp, x, value=0.0, offset=0, wrap=False):
        out = x.copy()
        out.reshape(-1)[fill_diagonal_positions(xp, x.shape, offset, wrap)] = value
        return out

    def vjp(self, ctx, g):
        return (call("fill_diagonal", g, value=0.0, offset=ctx.offset, wrap=ctx.wrap),)
