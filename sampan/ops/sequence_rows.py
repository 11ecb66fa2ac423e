"""Sequence (LoD) ops, part 2: the ops that move rows between sequences (concat, pad,
unpad, reverse, slice, reshape, enumerate, scatter). Conventions in ops/sequence.py.
Imports only `ops`.
"""
from __future__ import annotations

from .dispatch import call
from .opdef import OpDef, TensorSpec, register
from .sequence import (_need_rows, _rows_spec, check_lod, check_lod_spec, lod_spec_count,
                       seg_ids, take_rows)

_I64 = "int64"


def _offsets(xp, lens):
    return xp.concatenate([[0], xp.cumsum(lens)]).astype(_I64)


def _int_vector(api: str, xp, v, n: int, arg: str):
    """An int [n] or [n, 1] tensor as a flat int64 vector."""
    if v.dtype.kind not in "iu" or v.size != n or (v.ndim == 2 and v.shape[1] != 1) \
            or v.ndim > 2:
        raise ValueError(f"{api}: {arg} must be an integer tensor of shape [{n}] or [{n}, 1] "
                         f"(one value per sequence), got shape {list(v.shape)} dtype "
                         f"{v.dtype}")
    return xp.reshape(v, (-1,)).astype(_I64)


@register
class SequenceConcat(OpDef):
    """Sequence i of out = sequence i of x followed by sequence i of y. x_pos / y_pos hold
    the output row of every row of x / y."""
    name = "sequence_concat"
    inputs = ("x", "x_lod", "y", "y_lod")
    outputs = ("out", "out_lod", "x_pos", "y_pos")
    nondiff_outputs = (1, 2, 3)
    saves = ("x_pos", "y_pos")
    check = True

    def infer(self, x, x_lod, y, y_lod):
        _need_rows(self.name, x)
        check_lod_spec(self.name, x_lod, "x's LoD")
        check_lod_spec(self.name, y_lod, "y's LoD")
        if x.ndim != y.ndim or any(-1 not in (a, b) and a != b
                                   for a, b in zip(x.shape[1:], y.shape[1:])):
            raise ValueError(f"{self.name}: inputs must agree in all but the first dim, got "
                             f"shapes {list(x.shape)} and {list(y.shape)}")
        if x.dtype is not y.dtype:
            raise TypeError(f"{self.name}: inputs must share a dtype, got {x.dtype.name} and "
                            f"{y.dtype.name}")
        vec = TensorSpec((-1,), _I64)
        return _rows_spec(x), vec, TensorSpec((x.shape[0],), _I64), TensorSpec(
            (y.shape[0],), _I64)

    def compute(self, xp, x, x_lod, y, y_lod):
        x_lod = check_lod(self.name, x_lod, x.shape[0], "input[0]")
        y_lod = check_lod(self.name, y_lod, y.shape[0], "input[1]")
        if x_lod.shape != y_lod.shape:
            raise ValueError(f"{self.name}: the inputs must hold the same number of "
                             f"sequences, got LoD {x_lod.tolist()} and {y_lod.tolist()}")
        x_pos = xp.arange(x.shape[0]) + xp.repeat(y_lod[:-1], xp.diff(x_lod))
        y_pos = xp.arange(y.shape[0]) + xp.repeat(x_lod[1:], xp.diff(y_lod))
        out = xp.empty((x.shape[0] + y.shape[0],) + x.shape[1:], x.dtype)
        out[x_pos] = x
        out[y_pos] = y
        return out, x_lod + y_lod, x_pos.astype(_I64), y_pos.astype(_I64)

    def vjp(self, ctx, g, *_):
        return (call("gather", g, ctx.x_pos) if ctx.needs[0] else None, None,
                call("gather", g, ctx.y_pos) if ctx.needs[2] else None, None)


@register
class SequencePad(OpDef):
    """out [S, L, ...]: sequence i of x in out[i, :len_i], pad_value (a scalar [1] or one
    row of x) after it; L = maxlen, or the longest sequence when maxlen is -1. length
    [S] int64 holds the lengths."""
    name = "sequence_pad"
    inputs = ("x", "lod", "pad_value")
    outputs = ("out", "length")
    attrs = {"maxlen": -1}
    nondiff_outputs = (1,)
    saves = ("pad_value", "length")
    check = True

    def infer(self, x, lod, pad_value, maxlen=-1):
        _need_rows(self.name, x)
        check_lod_spec(self.name, lod)
        if pad_value.dtype is not x.dtype:
            raise TypeError(f"{self.name}: pad_value dtype {pad_value.dtype.name} differs "
                            f"from x dtype {x.dtype.name}")
        n = lod_spec_count(lod)
        return (x.with_shape((n, maxlen if maxlen >= 0 else -1) + tuple(x.shape[1:])),
                TensorSpec((n,), _I64))

    def compute(self, xp, x, lod, pad_value, maxlen=-1):
        lod = check_lod(self.name, lod, x.shape[0])
        lens = xp.diff(lod)
        longest = int(lens.max()) if lens.size else 0
        if maxlen < 0:
            maxlen = longest
        elif maxlen < longest:
            raise ValueError(f"{self.name}: maxlen {maxlen} is shorter than the longest "
                             f"sequence ({longest}, LoD {lod.tolist()})")
        if pad_value.size != 1 and pad_value.shape != x.shape[1:]:
            raise ValueError(f"{self.name}: pad_value must hold one value or have the shape "
                             f"of one row of x {list(x.shape[1:])}, got shape "
                             f"{list(pad_value.shape)}")
        row = xp.reshape(pad_value, ()) if pad_value.size == 1 else pad_value
        out = xp.empty((lens.shape[0], maxlen) + x.shape[1:], x.dtype)
        out[...] = row
        seg = seg_ids(xp, lod)
        out[seg, xp.arange(x.shape[0]) - lod[seg]] = x
        return out, lens.astype(_I64)

    def vjp(self, ctx, g, _length=None):
        gx = call("sequence_unpad", g, ctx.length)[0]
        gp = None
        if ctx.needs[2]:
            pads = call("sum", g, axis=[0, 1]) - call("sum", gx, axis=0)
            pv = ctx.pad_value
            if pv.ndim != pads.ndim or list(pv.shape) != list(pads.shape):
                pads = call("reshape", call("sum", pads), shape=list(pv.shape))
            gp = pads
        return gx, None, gp


@register
class SequenceUnpad(OpDef):
    """The first length[i] rows of x[i] for each i, concatenated (out_lod their offsets).
    index [S, L] holds the output row of every x[i, t] (-1 for padding)."""
    name = "sequence_unpad"
    inputs = ("x", "length")
    outputs = ("out", "out_lod", "index")
    nondiff_outputs = (1, 2)
    saves = ("index",)
    check = True

    def infer(self, x, length):
        if x.ndim < 2:
            raise ValueError(f"{self.name}: x must be [batch, maxlen, ...], got shape "
                             f"{list(x.shape)}")
        if length.dtype.kind not in "iu":
            raise TypeError(f"{self.name}: length must be an integer tensor, got "
                            f"{length.dtype.name}")
        return (x.with_shape((-1,) + tuple(x.shape[2:])), TensorSpec((-1,), _I64),
                TensorSpec(tuple(x.shape[:2]), _I64))

    def compute(self, xp, x, length):
        lens = _int_vector(self.name, xp, length, x.shape[0], "length")
        if ((lens < 0) | (lens > x.shape[1])).any():
            raise ValueError(f"{self.name}: length must lie in [0, {x.shape[1]}] (x's "
                             f"second dim), got {lens.tolist()}")
        keep = xp.arange(x.shape[1])[None, :] < lens[:, None]
        index = xp.full(x.shape[:2], -1, _I64)
        index[keep] = xp.arange(int(keep.sum()))
        return x[keep], _offsets(xp, lens), index

    def vjp(self, ctx, g, *_):
        return take_rows(g, ctx.index), None


@register
class SequenceReverse(OpDef):
    """Each sequence's rows in reverse order (same LoD)."""
    name = "sequence_reverse"
    inputs = ("x", "lod")
    saves = ("lod",)
    check = True

    def infer(self, x, lod):
        _need_rows(self.name, x)
        check_lod_spec(self.name, lod)
        return x

    def compute(self, xp, x, lod):
        lod = check_lod(self.name, lod, x.shape[0])
        seg = seg_ids(xp, lod)
        return x[lod[seg] + lod[seg + 1] - 1 - xp.arange(x.shape[0])]

    def vjp(self, ctx, g):
        return call("sequence_reverse", g, ctx.lod), None


@register
class SequenceSlice(OpDef):
    """Sequence i of out = rows offset[i] ... offset[i] + length[i] - 1 of sequence i of x.
    index [rows of x] holds each x row's output row (-1 when sliced away)."""
    name = "sequence_slice"
    inputs = ("x", "lod", "offset", "length")
    outputs = ("out", "out_lod", "index")
    nondiff_outputs = (1, 2)
    saves = ("index",)
    check = True

    def infer(self, x, lod, offset, length):
        _need_rows(self.name, x)
        check_lod_spec(self.name, lod)
        for arg, spec in (("offset", offset), ("length", length)):
            if spec.dtype.kind not in "iu":
                raise TypeError(f"{self.name}: {arg} must be an integer tensor, got "
                                f"{spec.dtype.name}")
        return (_rows_spec(x), TensorSpec((-1,), _I64), TensorSpec((x.shape[0],), _I64))

    def compute(self, xp, x, lod, offset, length):
        lod = check_lod(self.name, lod, x.shape[0], "input")
        n = lod.shape[0] - 1
        off = _int_vector(self.name, xp, offset, n, "offset")
        lens = _int_vector(self.name, xp, length, n, "length")
        bad = (off < 0) | (lens < 0) | (off + lens > xp.diff(lod))
        if bad.any():
            raise ValueError(f"{self.name}: offset {off.tolist()} and length {lens.tolist()} "
                             f"must give slices inside the sequences (LoD {lod.tolist()})")
        out_lod = _offsets(xp, lens)
        rows = xp.repeat(lod[:-1] + off - out_lod[:-1], lens) + xp.arange(out_lod[-1])
        index = xp.full((x.shape[0],), -1, _I64)
        index[rows] = xp.arange(rows.shape[0])
        return x[rows], out_lod, index

    def vjp(self, ctx, g, *_):
        return take_rows(g, ctx.index), None, None, None


@register
class SequenceReshape(OpDef):
    """x [N, D] with each sequence's len * D values re-cut into rows of new_dim; out_lod
    = lod * D / new_dim (every sequence must divide evenly)."""
    name = "sequence_reshape"
    inputs = ("x", "lod")
    outputs = ("out", "out_lod")
    attrs = {"new_dim": 1}
    nondiff_outputs = (1,)
    saves = ("x",)
    check = True

    def infer(self, x, lod, new_dim=1):
        check_lod_spec(self.name, lod)
        if x.ndim != 2 or x.shape[1] < 0:
            raise ValueError(f"{self.name}: input must be 2-D [rows, D] with D known, got "
                             f"shape {list(x.shape)}")
        if not isinstance(new_dim, int) or new_dim <= 0:
            raise ValueError(f"{self.name}: new_dim must be a positive int, got {new_dim!r}")
        return x.with_shape((-1, new_dim)), TensorSpec(lod.shape, _I64)

    def compute(self, xp, x, lod, new_dim=1):
        lod = check_lod(self.name, lod, x.shape[0], "input")
        width = lod * x.shape[1]
        if (width % new_dim).any():
            raise ValueError(f"{self.name}: every sequence's length * {x.shape[1]} must be "
                             f"divisible by new_dim {new_dim}, got LoD {lod.tolist()}")
        return xp.reshape(x, (-1, new_dim)), width // new_dim

    def vjp(self, ctx, g, _lod=None):
        return call("reshape", g, shape=[-1, ctx.x.shape[1]]), None


@register
class SequenceEnumerate(OpDef):
    """out[t] = the win_size ids starting at row t of x ([N] or [N, 1] int), pad_value past
    the end of its sequence. Integer only: no gradient."""
    name = "sequence_enumerate"
    inputs = ("x", "lod")
    attrs = {"win_size": 2, "pad_value": 0}
    check = True

    def infer(self, x, lod, win_size=2, pad_value=0):
        check_lod_spec(self.name, lod)
        if x.dtype.kind not in "iu" or x.ndim not in (1, 2) or (x.ndim == 2 and
                                                                x.shape[1] not in (1, -1)):
            raise ValueError(f"{self.name}: input must be an int32/int64 tensor [N] or "
                             f"[N, 1], got shape {list(x.shape)} dtype {x.dtype.name}")
        if not isinstance(win_size, int) or win_size <= 0:
            raise ValueError(f"{self.name}: win_size must be a positive int, got "
                             f"{win_size!r}")
        return x.with_shape((x.shape[0], win_size))

    def compute(self, xp, x, lod, win_size=2, pad_value=0):
        lod = check_lod(self.name, lod, x.shape[0], "input")
        flat = xp.concatenate([xp.reshape(x, (-1,)), xp.asarray([pad_value], x.dtype)])
        pos = xp.arange(x.shape[0])[:, None] + xp.arange(win_size)
        end = lod[1:][seg_ids(xp, lod)][:, None]
        return flat[xp.where(pos < end, pos, x.shape[0])]


@register
class SequenceScatter(OpDef):
    """out = x (2-D [B, D]) with updates[j] added at out[i, index[j]] for every row j of
    sequence i of index (B sequences). flat_index holds i * D + index[j]."""
    name = "sequence_scatter"
    inputs = ("x", "index", "index_lod", "updates")
    outputs = ("out", "flat_index")
    nondiff_outputs = (1,)
    saves = ("updates", "flat_index")
    check = True

    def infer(self, x, index, index_lod, updates):
        check_lod_spec(self.name, index_lod, "index's LoD")
        if x.ndim != 2:
            raise ValueError(f"{self.name}: input must be 2-D, got shape {list(x.shape)}")
        if index.dtype.kind not in "iu":
            raise TypeError(f"{self.name}: index must be int32/int64, got "
                            f"{index.dtype.name}")
        if updates.dtype is not x.dtype:
            raise TypeError(f"{self.name}: updates dtype {updates.dtype.name} differs from "
                            f"input dtype {x.dtype.name}")
        return x, TensorSpec((index.shape[0],), _I64)

    def compute(self, xp, x, index, index_lod, updates):
        lod = check_lod(self.name, index_lod, index.shape[0], "index")
        if lod.shape[0] - 1 != x.shape[0]:
            raise ValueError(f"{self.name}: index holds {lod.shape[0] - 1} sequences (LoD "
                             f"{lod.tolist()}) but input has {x.shape[0]} rows")
        idx = xp.reshape(index, (-1,)).astype(_I64)
        if updates.size != idx.size:
            raise ValueError(f"{self.name}: updates must hold one value per index, got shape "
                             f"{list(updates.shape)} for {idx.size} indices")
        if ((idx < 0) | (idx >= x.shape[1])).any():
            raise ValueError(f"{self.name}: index values must lie in [0, {x.shape[1]}), got "
                             f"{idx.tolist()}")
        flat_index = seg_ids(xp, lod) * x.shape[1] + idx
        out = x.copy()
        xp.add.at(xp.reshape(out, (-1,)), flat_index, xp.reshape(updates, (-1,)))
        return out, flat_index.astype(_I64)

    def vjp(self, ctx, g, _flat=None):
        gu = None
        if ctx.needs[3]:
            picked = call("gather", call("reshape", g, shape=[-1]), ctx.flat_index)
            gu = call("reshape", picked, shape=[-1] + list(ctx.updates.shape[1:]))
        return g, None, None, gu
