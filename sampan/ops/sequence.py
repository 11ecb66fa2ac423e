"""Sequence (LoD) ops, part 1: pool, softmax, expand, expand_as, conv; the LoD helpers.

A LoD (level-of-detail) tensor is a plain tensor whose rows are cut into sequences by an
int64 offsets vector `lod` = [0, end_0, end_1, ..., rows] (Paddle's level-1 LoD). Every op
here takes the offsets as an explicit input, so eager, static, both backward engines and the
Executor see plain arrays; ops that make a new LoD return it as an output. Ops that move rows
also return an int64 row map (nondiff) that their vjp reads. Imports only `ops`.
"""
from __future__ import annotations

from .dispatch import call
from .opdef import OpDef, TensorSpec, register


# --- LoD helpers (kernels) ---------------------------------------------------------------------

def check_lod(api: str, lod, rows: int, arg: str = "x"):
    """lod as int64 offsets; ValueError naming the API and offsets unless they start at 0,
    never decrease and end at `rows` (the row count of `arg`)."""
    if lod.ndim != 1 or lod.shape[0] < 1 or lod.dtype.kind not in "iu":
        raise ValueError(f"{api}: the LoD of {arg} must be a 1-D integer offsets vector "
                         f"[0, ..., rows], got shape {list(lod.shape)} dtype {lod.dtype}")
    lod = lod.astype("int64", copy=False)
    if lod[0] != 0 or (lod[1:] < lod[:-1]).any() or lod[-1] != rows:
        raise ValueError(f"{api}: invalid LoD offsets {lod.tolist()} for {arg}: they must "
                         f"start at 0, never decrease and end at the row count {rows}")
    return lod


def seg_ids(xp, lod):
    """The sequence index of every row."""
    return xp.repeat(xp.arange(lod.shape[0] - 1), xp.diff(lod))


def lod_spec_count(spec: TensorSpec) -> int:
    """Number of sequences of an offsets spec (-1 if unknown)."""
    return spec.shape[0] - 1 if spec.shape and spec.shape[0] > 0 else -1


def check_lod_spec(api: str, spec: TensorSpec, arg: str = "lod") -> None:
    if spec.ndim != 1 or spec.dtype.kind not in "iu":
        raise ValueError(f"{api}: {arg} must be a 1-D integer offsets tensor, got shape "
                         f"{list(spec.shape)} dtype {spec.dtype.name}")


def _rows_spec(x: TensorSpec, n: int = -1) -> TensorSpec:
    return x.with_shape((n,) + tuple(x.shape[1:]))


def _need_rows(api: str, x: TensorSpec, arg: str = "x") -> None:
    if x.ndim < 1:
        raise ValueError(f"{api}: {arg} must have at least 1 dim (rows), got a 0-D tensor")


# --- helpers for vjp rules (sampan ops) -------------------------------------------------------

def take_rows(v, index):
    """v[index] over rows, where index -1 reads a row of zeros (any index shape)."""
    zero = call("full_like", call("sum", v, axis=0, keepdim=True), fill_value=0.0)
    return call("concat", [v, zero], axis=0)[index]


def add_rows(like, index, g):
    """Adjoint of take_rows: zeros shaped like `like` plus the rows of g added at index
    (flattened; -1 entries dropped)."""
    idx = call("reshape", index, shape=[-1])
    keep = call("cast", idx >= 0, dtype="int64")
    rows = call("reshape", g, shape=[-1] + list(like.shape[1:]))
    mask = call("reshape", call("cast", keep, dtype=g.dtype),
                shape=[-1] + [1] * (like.ndim - 1))
    return call("index_add", call("full_like", like, fill_value=0.0), idx * keep, rows * mask,
                axis=0)


# --- ops -------------------------------------------------------------------------------------

POOL_TYPES = ("sum", "average", "sqrt", "max", "last", "first")


@register
class SequencePool(OpDef):
    """out[i] = pool of the rows of sequence i (sum, average, sqrt = sum / sqrt(len), max,
    last, first); an empty sequence gives pad_value. max_index (int64, same shape as out)
    holds the input row each max/last/first value came from (-1 elsewhere). The max
    subgradient goes to the first maximal row, as Paddle's MaxIndex."""
    name = "sequence_pool"
    inputs = ("x", "lod")
    outputs = ("out", "max_index")
    attrs = {"pool_type": "average", "pad_value": 0.0}
    nondiff_outputs = (1,)
    saves = ("x", "lod", "max_index")
    check = True

    def infer(self, x, lod, pool_type="average", pad_value=0.0):
        _need_rows(self.name, x)
        check_lod_spec(self.name, lod)
        if pool_type not in POOL_TYPES:
            raise ValueError(f"{self.name}: pool_type must be one of {list(POOL_TYPES)}, got "
                             f"{pool_type!r}")
        out = _rows_spec(x, lod_spec_count(lod))
        return out, out.with_dtype("int64")

    def compute(self, xp, x, lod, pool_type="average", pad_value=0.0):
        lod = check_lod(self.name, lod, x.shape[0])
        lens = xp.diff(lod)
        shape = (lens.shape[0],) + x.shape[1:]
        out = xp.full(shape, pad_value, x.dtype)
        index = xp.full(shape, -1, "int64")
        full = lens > 0
        starts = lod[:-1][full]
        if not starts.size:
            return out, index
        if pool_type in ("sum", "average", "sqrt"):
            total = xp.add.reduceat(x, starts, axis=0)
            scale = {"sum": 1, "average": lens[full], "sqrt": xp.sqrt(lens[full])}[pool_type]
            out[full] = total / xp.reshape(scale, (-1,) + (1,) * (x.ndim - 1))
            return out, index
        if pool_type == "max":
            best = xp.maximum.reduceat(x, starts, axis=0)
            rows = xp.reshape(xp.arange(x.shape[0]), (-1,) + (1,) * (x.ndim - 1))
            hit = x == best[seg_ids(xp, lod[xp.concatenate([[True], full])])]
            index[full] = xp.minimum.reduceat(xp.where(hit, rows, x.shape[0]), starts, axis=0)
        else:
            pick = starts if pool_type == "first" else lod[1:][full] - 1
            index[full] = xp.reshape(pick, (-1,) + (1,) * (x.ndim - 1))
        out[full] = xp.take_along_axis(x, index[full], axis=0)
        return out, index

    def vjp(self, ctx, g, _index=None):
        if ctx.pool_type in ("max", "last", "first"):
            idx = ctx.max_index
            keep = call("cast", idx >= 0, dtype="int64")
            vals = g * call("cast", keep, dtype=g.dtype)
            return (call("put_along_axis", call("full_like", ctx.x, fill_value=0.0),
                         idx * keep, vals, axis=0, reduce="add", broadcast=False), None)
        if ctx.pool_type != "sum":
            lens = ctx.lod[1:] - ctx.lod[:-1]
            lens = call("cast", lens + call("cast", lens == 0, dtype="int64"), dtype=g.dtype)
            scale = lens if ctx.pool_type == "average" else call("sqrt", lens)
            g = g / call("reshape", scale, shape=[-1] + [1] * (ctx.x.ndim - 1))
        return call("sequence_expand_as", g, ctx.lod), None


@register
class SequenceSoftmax(OpDef):
    """Softmax over the rows of each sequence of x ([N] or [N, 1])."""
    name = "sequence_softmax"
    inputs = ("x", "lod")
    saves = ("lod", "out")
    check = True

    def infer(self, x, lod):
        check_lod_spec(self.name, lod)
        if x.ndim not in (1, 2) or (x.ndim == 2 and x.shape[1] not in (1, -1)):
            raise ValueError(f"{self.name}: x must be [N] or [N, 1], got shape "
                             f"{list(x.shape)}")
        if x.dtype.kind != "f":
            raise TypeError(f"{self.name}: x must be float32 or float64, got {x.dtype.name}")
        return x

    def compute(self, xp, x, lod):
        lod = check_lod(self.name, lod, x.shape[0])
        out = xp.empty_like(x)
        flat, res = xp.reshape(x, (-1,)), xp.reshape(out, (-1,))
        full = xp.diff(lod) > 0
        if full.any():
            starts = lod[:-1][full]
            seg = seg_ids(xp, lod[xp.concatenate([[True], full])])
            e = xp.exp(flat - xp.maximum.reduceat(flat, starts)[seg])
            res[...] = e / xp.add.reduceat(e, starts)[seg]
        return out

    def vjp(self, ctx, g):
        out = ctx.out
        total = call("sequence_pool", g * out, ctx.lod, pool_type="sum")[0]
        return out * (g - call("sequence_expand_as", total, ctx.lod)), None


@register
class SequenceExpandAs(OpDef):
    """Row i of x (one row per sequence of `lod`) repeated len(sequence i) times."""
    name = "sequence_expand_as"
    inputs = ("x", "lod")
    saves = ("lod",)
    check = True

    def infer(self, x, lod):
        _need_rows(self.name, x)
        check_lod_spec(self.name, lod, "y's LoD")
        n = lod_spec_count(lod)
        if -1 not in (n, x.shape[0]) and n != x.shape[0]:
            raise ValueError(f"{self.name}: x has {x.shape[0]} rows but y has {n} sequences")
        return _rows_spec(x)

    def compute(self, xp, x, lod):
        lod = check_lod(self.name, lod, int(lod[-1]) if lod.size else 0, "y")
        if x.shape[0] != lod.shape[0] - 1:
            raise ValueError(f"{self.name}: x has {x.shape[0]} rows but y's LoD "
                             f"{lod.tolist()} has {lod.shape[0] - 1} sequences")
        return x[seg_ids(xp, lod)]

    def vjp(self, ctx, g):
        return call("sequence_pool", g, ctx.lod, pool_type="sum")[0], None


@register
class SequenceExpand(OpDef):
    """Expand x by the sequence lengths r_i of y's LoD level (`y_lod`): with x_lod, sequence
    i of x is repeated r_i times (each copy one output sequence, out_lod); without, row i
    is repeated r_i times. index holds each output row's source row."""
    name = "sequence_expand"
    inputs = ("x", "x_lod?", "y_lod")
    outputs = ("out", "out_lod", "index")
    nondiff_outputs = (1, 2)
    saves = ("x", "index")
    check = True

    def infer(self, x, x_lod, y_lod):
        _need_rows(self.name, x)
        check_lod_spec(self.name, y_lod, "y's LoD")
        if x_lod is not None:
            check_lod_spec(self.name, x_lod, "x's LoD")
        return _rows_spec(x), TensorSpec((-1,), "int64"), TensorSpec((-1,), "int64")

    def compute(self, xp, x, x_lod, y_lod):
        y_lod = check_lod(self.name, y_lod, int(y_lod[-1]) if y_lod.size else 0, "y")
        reps = xp.diff(y_lod)
        if x_lod is None:
            x_lod = xp.arange(x.shape[0] + 1)
        x_lod = check_lod(self.name, x_lod, x.shape[0])
        if x_lod.shape[0] != y_lod.shape[0]:
            raise ValueError(f"{self.name}: x has {x_lod.shape[0] - 1} sequences (rows when "
                             f"x has no LoD) but y's LoD level {y_lod.tolist()} has "
                             f"{y_lod.shape[0] - 1}")
        seqs = xp.repeat(xp.arange(reps.shape[0]), reps)
        lens = xp.diff(x_lod)[seqs]
        out_lod = xp.concatenate([[0], xp.cumsum(lens)]).astype("int64")
        index = xp.repeat(x_lod[:-1][seqs] - out_lod[:-1], lens) + xp.arange(out_lod[-1])
        return x[index], out_lod, index.astype("int64")

    def vjp(self, ctx, g, _lod=None, _index=None):
        return call("index_add", call("full_like", ctx.x, fill_value=0.0), ctx.index, g,
                    axis=0), None, None


@register
class SequenceConv(OpDef):
    """Context convolution: row t of out = concat(rows t+context_start ...
    t+context_start+context_length-1 of its own sequence, zeros outside) @ filter
    ([context_length * D, F]). col_index holds the rows each output row reads (-1 = zero
    padding). Only context_stride 1, as Paddle."""
    name = "sequence_conv"
    inputs = ("x", "lod", "filter")
    outputs = ("out", "col_index")
    attrs = {"context_length": 3, "context_start": -1, "context_stride": 1}
    nondiff_outputs = (1,)
    saves = ("x", "filter", "col_index")
    check = True

    def infer(self, x, lod, filter, context_length=3, context_start=-1, context_stride=1):
        check_lod_spec(self.name, lod)
        if x.ndim != 2:
            raise ValueError(f"{self.name}: input must be 2-D [rows, D], got shape "
                             f"{list(x.shape)}")
        if context_stride != 1:
            raise ValueError(f"{self.name}: only filter_stride 1 is supported, got "
                             f"{context_stride}")
        want = context_length * x.shape[1] if x.shape[1] >= 0 else -1
        if filter.ndim != 2 or -1 not in (want, filter.shape[0]) and filter.shape[0] != want:
            raise ValueError(f"{self.name}: filter must be [filter_size * D, num_filters] = "
                             f"[{want}, F], got shape {list(filter.shape)}")
        if filter.dtype is not x.dtype:
            raise TypeError(f"{self.name}: filter dtype {filter.dtype.name} differs from "
                            f"input dtype {x.dtype.name}")
        return (x.with_shape((x.shape[0], filter.shape[1])),
                TensorSpec((x.shape[0], context_length), "int64"))

    def compute(self, xp, x, lod, filter, context_length=3, context_start=-1,
                context_stride=1):
        lod = check_lod(self.name, lod, x.shape[0], "input")
        seg = seg_ids(xp, lod)
        pos = xp.arange(x.shape[0])[:, None] + context_start + xp.arange(context_length)
        inside = (pos >= lod[:-1][seg][:, None]) & (pos < lod[1:][seg][:, None])
        col_index = xp.where(inside, pos, -1).astype("int64")
        ext = xp.concatenate([x, xp.zeros((1,) + x.shape[1:], x.dtype)])
        col = xp.reshape(ext[col_index], (x.shape[0], -1))
        return col @ filter, col_index

    def vjp(self, ctx, g, _col=None):
        x, w, idx = ctx.x, ctx.filter, ctx.col_index
        gx = gw = None
        if ctx.needs[0]:
            gcol = call("matmul", g, w, transpose_y=True)
            gx = add_rows(x, idx, gcol)
        if ctx.needs[2]:
            col = call("reshape", take_rows(x, idx), shape=[-1, w.shape[0]])
            gw = call("matmul", col, g, transpose_x=True)
        return gx, None, gw


from . import sequence_rows  # noqa: E402,F401  (registers the row-moving sequence ops)
