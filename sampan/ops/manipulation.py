"""Shape manipulation operators: reshape, squeeze/unsqueeze, flatten, transpose, views
(as_complex/as_real/view), shard_index, and the shape helpers the other manipulation modules use.

All manipulation ops move or copy elements without arithmetic, so every vjp is again a
manipulation op (transpose <-> transpose, concat <-> split, pad <-> crop, ...). Join/split and
repeat ops live in manipulation_join.py, flip/roll/pad/crop/unfold in manipulation_reorder.py,
both imported at the bottom so that they register with this module. Imports `framework` and
`ops.opdef` only.
"""
from __future__ import annotations

import math

from ..framework import dtype as _dt
from .dispatch import call
from .opdef import OpDef, norm_axis, register


def _infer_unknown(shape: list, src: tuple, out: list) -> tuple:
    """Static shapes: the user's -1 is still computable when every unknown dim of `src` is
    copied by a 0 (reshape([-1, C, H, W] -> [0, G, -1]) gives [-1, G, C*H*W/G])."""
    copied = [i for i, s in enumerate(shape) if s == 0 and src[i] == -1]
    if -1 in shape and copied == [i for i, d in enumerate(src) if d == -1]:
        user = shape.index(-1)
        known = math.prod(d for d in src if d != -1)
        rest = math.prod(d for i, d in enumerate(out) if i not in copied and i != user)
        if rest and known % rest == 0:
            out[user] = known // rest
    return tuple(out)


def _resolve_zero_size(api: str, shape: list, src: tuple) -> tuple:
    """Paddle 3.3.1 for an x with no elements: a 0 in shape is a literal 0 (at any index);
    -1 is 0 when shape has no 0, else (product of x's nonzero dims) / (product of the
    positive dims of shape), refused when shape has more zeros than x."""
    if any(s < -1 for s in shape) or shape.count(-1) > 1:
        raise ValueError(f"{api}: shape may hold dims >= 0 and one -1, got {shape}")
    if -1 not in shape:
        if 0 not in shape:
            raise ValueError(f"{api}: cannot reshape x of shape {list(src)} (0 elements) to "
                             f"{shape} ({math.prod(shape)} elements)")
        return tuple(shape)
    zeros, known = shape.count(0), math.prod(s for s in shape if s > 0)
    nonzero = math.prod(d for d in src if d)
    if zeros and (zeros > list(src).count(0) or nonzero % known):
        raise ValueError(f"{api}: cannot infer the -1 of {shape} for x of shape {list(src)} "
                         f"(0 elements)")
    return tuple(nonzero // known if s == -1 and zeros else max(s, 0) for s in shape)


def resolve_shape(api: str, shape, src: tuple) -> tuple:
    """Paddle reshape rules: 0 copies the input dim, one -1 is inferred."""
    shape = [int(s) for s in shape]
    if src and -1 not in src and math.prod(src) == 0:
        return _resolve_zero_size(api, shape, src)
    out = []
    for i, s in enumerate(shape):
        if s == 0:
            if i >= len(src):
                raise ValueError(f"{api}: shape[{i}] is 0 (copy the input dim) but x has only "
                                 f"{len(src)} dims")
            s = src[i]
        elif s < -1:
            raise ValueError(f"{api}: shape[{i}] is {s}; dims must be >= 0 or -1 (inferred), "
                             f"got shape {shape}")
        out.append(s)
    if shape.count(-1) > 1:
        raise ValueError(f"{api}: only one dim of shape may be -1, got {shape}")
    total = math.prod(src)
    if -1 in out:
        rest = math.prod(s for s in out if s != -1)
        if -1 in src:
            return _infer_unknown(shape, src, out)
        if rest == 0 or total % rest:
            raise ValueError(f"{api}: cannot reshape x of shape {list(src)} ({total} elements) "
                             f"to {shape}")
        out[out.index(-1)] = total // rest
    elif -1 not in src and math.prod(out) != total:
        raise ValueError(f"{api}: cannot reshape x of shape {list(src)} ({total} elements) to "
                         f"{shape} ({math.prod(out)} elements)")
    return tuple(out)


def axis_list(api: str, axis, ndim: int, arg: str = "axis") -> list:
    """`axis` (int or list) as a list of non-negative axes; duplicates are an error."""
    axes = [axis] if isinstance(axis, int) else list(axis)
    out = [norm_axis(api, int(a), ndim, arg) for a in axes]
    if len(set(out)) != len(out):
        raise ValueError(f"{api}: {arg} {axes} repeats an axis (x has {ndim} dims)")
    return out


def _attr(op: OpDef, ctx, name: str):
    """An attr as the vjp sees it; a caller of `call` may have left defaults out."""
    return ctx.attrs.get(name, op.attrs[name])


def _same_dim(a: int, b: int) -> bool:
    return a == b or a == -1 or b == -1


class ReshapeLike(OpDef):
    """Base of ops that only change the shape: the gradient is reshaped back to x's."""

    def vjp(self, ctx, g):
        shape = list(ctx.x.shape)
        if shape.count(-1) > 1:  # a Program being built knows x's shape only when it runs
            return (call("_reshape_like", g, ctx.x),)
        return (call("reshape", g, shape=shape),)


@register
class Reshape(ReshapeLike):
    """out = x with a new shape (0 copies a dim, -1 is inferred); the data is not copied."""

    name = "reshape"
    attrs = {"shape": None}
    check = True

    def onnx(self, b, node):   # 0 copies a dim and -1 is inferred in both
        return b.op("Reshape", [node.inputs[0], b.ints(node.attrs["shape"])])

    def infer(self, x, shape=None):
        return x.with_shape(resolve_shape(self.name, shape, x.shape))

    def compute(self, xp, x, shape=None):
        return xp.reshape(x, resolve_shape(self.name, shape, x.shape))


def _squeeze_shape(api: str, shape: tuple, axis) -> tuple:
    ndim = len(shape)
    if axis is None:
        return tuple(d for d in shape if d != 1)
    axes = {norm_axis(api, int(a), ndim) for a in axis} if ndim else set()
    # NOTE: Paddle ignores listed axes whose size is not 1 (they are kept, no error).
    return tuple(d for i, d in enumerate(shape) if not (i in axes and d == 1))


@register
class Squeeze(ReshapeLike):
    """Remove size-1 dims: all of them (axis None) or those listed in `axis`; listed dims
    whose size is not 1 are kept (Paddle semantics)."""

    name = "squeeze"
    attrs = {"axis": None}

    def onnx(self, b, node):
        shape = node.specs[0].shape
        axis = node.attrs["axis"]
        axes = range(len(shape)) if axis is None else axis_list(self.name, axis, len(shape))
        return b.squeeze_axes(node.inputs[0], [a for a in axes if shape[a] == 1])

    def infer(self, x, axis=None):
        return x.with_shape(_squeeze_shape(self.name, x.shape, axis))

    def compute(self, xp, x, axis=None):
        return xp.reshape(x, _squeeze_shape(self.name, x.shape, axis))


def _unsqueeze_shape(api: str, shape: tuple, axis) -> tuple:
    out = list(shape)
    for a in axis:
        a = int(a)
        n = len(out) + 1
        if not -n <= a < n:
            raise IndexError(f"{api}: axis {a} is out of range for inserting a dim into a "
                             f"tensor with {n - 1} dims (expected {-n} <= axis < {n}); "
                             f"x shape {list(shape)}, axis {list(axis)}")
        out.insert(a % n, 1)
    return tuple(out)


@register
class Unsqueeze(ReshapeLike):
    """Insert size-1 dims at the positions in `axis`, one after the other (each position
    refers to the shape produced by the previous insertions)."""

    name = "unsqueeze"
    attrs = {"axis": None}

    def onnx(self, b, node):   # Paddle inserts one axis after another
        dims = ["x"] * len(node.specs[0].shape)
        axis = node.attrs["axis"]
        for a in [axis] if isinstance(axis, int) else axis:
            dims.insert(int(a) % (len(dims) + 1), "new")
        return b.unsqueeze_axes(node.inputs[0], [i for i, d in enumerate(dims) if d == "new"])

    def infer(self, x, axis=None):
        return x.with_shape(_unsqueeze_shape(self.name, x.shape, axis))

    def compute(self, xp, x, axis=None):
        return xp.reshape(x, _unsqueeze_shape(self.name, x.shape, axis))


def _flatten_shape(api: str, shape: tuple, start: int, stop: int) -> tuple:
    if not shape:
        return (1,)
    ndim = len(shape)
    s = norm_axis(api, start, ndim, "start_axis")
    e = norm_axis(api, stop, ndim, "stop_axis")
    if s > e:
        raise ValueError(f"{api}: start_axis ({start}) must not be after stop_axis ({stop}) "
                         f"for x of shape {list(shape)}")
    mid = shape[s:e + 1]
    merged = -1 if -1 in mid else math.prod(mid)
    return tuple(shape[:s]) + (merged,) + tuple(shape[e + 1:])


@register
class Flatten(ReshapeLike):
    """Merge dims start_axis..stop_axis (inclusive) into one; a 0-D x gives shape [1]."""

    name = "flatten"
    attrs = {"start_axis": 0, "stop_axis": -1}

    def onnx(self, b, node):
        return b.to_out_shape(node)

    def infer(self, x, start_axis=0, stop_axis=-1):
        return x.with_shape(_flatten_shape(self.name, x.shape, start_axis, stop_axis))

    def compute(self, xp, x, start_axis=0, stop_axis=-1):
        return xp.reshape(x, _flatten_shape(self.name, x.shape, start_axis, stop_axis))


def check_perm(api: str, perm, shape: tuple) -> list:
    ndim = len(shape)
    if perm is None:
        raise ValueError(f"{api}: perm is required")
    perm = [int(p) for p in perm]
    norm = [p + ndim if p < 0 else p for p in perm]
    if len(perm) != ndim or sorted(norm) != list(range(ndim)):
        raise ValueError(f"{api}: perm {perm} is not a permutation of the {ndim} dims of x "
                         f"(shape {list(shape)}); expected a reordering of "
                         f"{list(range(ndim))}")
    return norm


@register
class Transpose(OpDef):
    """out.shape[i] = x.shape[perm[i]]; perm entries may be negative."""

    name = "transpose"
    attrs = {"perm": None}
    saves = ()
    check = True

    def onnx(self, b, node):
        nd = len(node.specs[0].shape)
        if not nd:
            return b.op("Identity", [node.inputs[0]])
        return b.op("Transpose", [node.inputs[0]], perm=[int(p) % nd for p in node.attrs["perm"]])

    def infer(self, x, perm=None):
        perm = check_perm(self.name, perm, x.shape)
        return x.with_shape([x.shape[p] for p in perm])

    def compute(self, xp, x, perm=None):
        return xp.transpose(x, check_perm(self.name, perm, x.shape))

    def vjp(self, ctx, g):
        perm = [p % max(g.ndim, 1) for p in _attr(self, ctx, "perm")]
        inv = [0] * len(perm)
        for i, p in enumerate(perm):
            inv[p] = i
        return (call("transpose", g, perm=inv),)


@register
class AsComplex(OpDef):
    """A float tensor whose last dim is 2 (real, imag) viewed as a complex tensor."""

    name = "as_complex"
    saves = ()
    check = True

    def infer(self, x):
        if x.dtype.name not in ("float32", "float64"):
            raise TypeError(f"{self.name}: x must be float32 or float64, got {x.dtype.name}")
        if not x.shape or x.shape[-1] not in (2, -1):
            raise ValueError(f"{self.name}: the last dim of x must be 2 (real, imag), got "
                             f"shape {list(x.shape)}")
        return x.with_shape(x.shape[:-1]).with_dtype(_dt.complex_of(x.dtype))

    def compute(self, xp, x):
        out = xp.empty(x.shape[:-1], dtype=_dt.complex_of(_dt.from_numpy(x.dtype)).np)
        out.real = x[..., 0]
        out.imag = x[..., 1]
        return out

    def vjp(self, ctx, g):
        return (call("as_real", g),)


@register
class AsReal(OpDef):
    """A complex tensor as a float tensor with a trailing dim of 2 (real, imag)."""

    name = "as_real"
    saves = ()
    check = True

    def infer(self, x):
        if x.dtype.name not in _dt.REAL_OF:
            raise TypeError(f"{self.name}: x must be complex64 or complex128, got "
                            f"{x.dtype.name}")
        return x.with_shape(x.shape + (2,)).with_dtype(_dt.real_of(x.dtype))

    def compute(self, xp, x):
        return xp.stack([x.real, x.imag], axis=-1)

    def vjp(self, ctx, g):
        return (call("as_complex", g),)


@register
class View(OpDef):
    """x's bytes reinterpreted as `dtype`; the last dim scales by the itemsize ratio."""

    name = "view"
    attrs = {"dtype": None}
    check = True

    def infer(self, x, dtype=None):
        new = _dt.convert_dtype(dtype)
        old_size, new_size = x.dtype.np.itemsize, new.np.itemsize
        if old_size == new_size:
            return x.with_dtype(new)
        last = x.shape[-1] if x.shape else None
        if last is None or (last != -1 and (last * old_size) % new_size):
            raise ValueError(f"view: cannot view x of shape {list(x.shape)} and dtype "
                             f"{x.dtype.name} as {new.name}: the last dim times "
                             f"{old_size} bytes must be a multiple of {new_size} bytes")
        size = -1 if last == -1 else last * old_size // new_size
        return x.with_shape(x.shape[:-1] + (size,)).with_dtype(new)

    def compute(self, xp, x, dtype=None):
        return xp.ascontiguousarray(x).view(_dt.convert_dtype(dtype).np)


@register
class ShardIndex(OpDef):
    """Map global indices to shard-local ones: x - shard_id * shard_size inside the shard,
    ignore_value elsewhere, where shard_size = ceil(index_num / nshards)."""

    name = "shard_index"
    attrs = {"index_num": 1, "nshards": 1, "shard_id": 0, "ignore_value": -1}
    check = True

    def infer(self, x, index_num=1, nshards=1, shard_id=0, ignore_value=-1):
        if x.dtype.name not in ("int32", "int64"):
            raise TypeError(f"{self.name}: input must be int32 or int64, got {x.dtype.name}")
        if nshards <= 0 or not 0 <= shard_id < nshards:
            raise ValueError(f"{self.name}: shard_id must be in [0, nshards), got shard_id "
                             f"{shard_id} and nshards {nshards}")
        if index_num <= 0:
            raise ValueError(f"{self.name}: index_num must be positive, got {index_num}")
        return x

    def compute(self, xp, x, index_num=1, nshards=1, shard_id=0, ignore_value=-1):
        size = (index_num + nshards - 1) // nshards
        lo = shard_id * size
        inside = (x >= lo) & (x < lo + size)
        return xp.where(inside, x - lo, ignore_value).astype(x.dtype)


# registers the join/split/repeat and flip/roll/pad/crop/unfold OpDefs
from . import manipulation_join, manipulation_reorder  # noqa: E402,F401
