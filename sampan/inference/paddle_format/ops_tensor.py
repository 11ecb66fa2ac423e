"""Translators of Paddle's tensor op types (legacy names and slots): elementwise math and
comparison, matmul/mul/fc, reductions, shape manipulation, creation and shape arithmetic.
Each translator is `fn(ctx, op) -> {output slot: value}`. Imports `tensor`, `nn.functional`
and its package.
"""
from __future__ import annotations

import numpy as np

from ... import tensor as T
from ...nn import functional as F
from .build import Dim, LazyFill, SymShape, Unsupported
from .program_desc import DTYPES


def dtype_of(v) -> str:
    """A Paddle dtype attr (legacy VarType code or PIR name) as a dtype name."""
    if isinstance(v, str):
        return v
    if v not in DTYPES:
        raise Unsupported(f"dtype code {v}")
    return DTYPES[v]


def _align(x, y, axis: int):
    """Legacy elementwise `axis`: y's dims line up with x's starting at `axis`."""
    if axis == -1 or len(y.shape) == len(x.shape):
        return y
    tail = len(x.shape) - axis - len(y.shape)
    return T.reshape(y, [1] * axis + list(y.shape) + [1] * tail)


def binary(fn):
    def translate(c, op):
        x, y = c.var(op, "X"), c.var(op, "Y")
        return {"Out": fn(x, _align(x, y, op.attrs.get("axis", -1)))}
    return translate


def unary(fn):
    return lambda c, op: {"Out": fn(c.var(op, "X"))}


def matmul_v2(c, op):
    a = op.attrs
    return {"Out": T.matmul(c.var(op, "X"), c.var(op, "Y"), a.get("trans_x", False),
                            a.get("trans_y", False))}


def matmul(c, op):
    a = op.attrs
    out = T.matmul(c.var(op, "X"), c.var(op, "Y"), a.get("transpose_X", False),
                   a.get("transpose_Y", False))
    alpha = a.get("alpha", 1.0)
    return {"Out": out if alpha == 1.0 else T.scale(out, alpha)}


def mul(c, op):
    x, y = c.var(op, "X"), c.var(op, "Y")
    xk, yk = op.attrs.get("x_num_col_dims", 1), op.attrs.get("y_num_col_dims", 1)
    x2 = T.flatten(x, xk, -1) if len(x.shape) > xk + 1 else x
    y2 = T.reshape(y, [int(np.prod(y.shape[:yk])), -1])
    out = T.matmul(T.flatten(x2, 0, xk - 1) if xk > 1 else x2, y2)
    if xk > 1:
        out = T.reshape(out, list(x.shape[:xk]) + [y2.shape[1]])
    return {"Out": out}


def fc(c, op):
    x, w = c.var(op, "Input"), c.var(op, "W")
    k = op.attrs.get("in_num_col_dims", 1)
    out = T.matmul(T.flatten(x, k, -1) if len(x.shape) > k + 1 else x, w)
    if c.has(op, "Bias"):
        out = out + T.reshape(c.var(op, "Bias"), [-1])
    act = op.attrs.get("activation_type", "")
    return {"Out": F.relu(out) if act == "relu" else out}


def scale(c, op):
    a = op.attrs
    s = c.var(op, "ScaleTensor") if c.has(op, "ScaleTensor") else a.get("scale", 1.0)
    return {"Out": T.scale(c.var(op, "X"), s, a.get("bias", 0.0),
                           a.get("bias_after_scale", True))}


def clip(c, op):
    return {"Out": T.clip(c.var(op, "X"), float(op.attrs.get("min")),
                          float(op.attrs.get("max")))}


def cast(c, op):
    return {"Out": T.cast(c.var(op, "X"), dtype_of(op.attrs["out_dtype"]))}


def pow_(c, op):
    return {"Out": T.pow(c.var(op, "X"), float(op.attrs.get("factor", 1.0)))}


def _axes(a: dict, x):
    """Reduction axes of legacy reduce_* (dim/reduce_all) or PIR (axis) attrs; None = all."""
    dims = a.get("dim", a.get("axis", []))
    dims = [dims] if isinstance(dims, (int, np.integer)) else list(dims)
    return None if a.get("reduce_all") or not dims or len(dims) == len(x.shape) else dims


def reduce(fn):
    def translate(c, op):
        x = c.var(op, "X")
        keep = op.attrs.get("keep_dim", op.attrs.get("keepdim", False))
        return {"Out": fn(x, axis=_axes(op.attrs, x), keepdim=keep)}
    return translate


def arg(fn):
    def translate(c, op):
        a = op.attrs
        x = c.var(op, "X")
        axis = None if a.get("flatten") else a.get("axis", -1)
        out = fn(x, axis=axis, keepdim=a.get("keepdims", False),
                 dtype=dtype_of(a.get("dtype", 3)) if a.get("dtype", 3) != -1 else "int64")
        return {"Out": out}
    return translate


def top_k(c, op):
    a = op.attrs
    vals, idx = T.topk(c.var(op, "X"), int(a.get("k", 1)), a.get("axis", -1),
                       a.get("largest", True), a.get("sorted", True))
    return {"Out": vals, "Indices": idx}


def cumsum(c, op):
    a = op.attrs
    if a.get("exclusive") or a.get("reverse"):
        raise Unsupported("cumsum with exclusive/reverse")
    x = c.var(op, "X")
    return {"Out": T.cumsum(x, None if a.get("flatten") else a.get("axis", -1))}


def reshape(c, op):
    """Paddle's shape attr (0 copies a dim, -1 is inferred) or a shape computed from the
    input's own shape (ShapeTensor list / Shape tensor): a run-time dim k of x at position
    k becomes 0, a single other run-time dim -1."""
    x = c.var(op, "X")
    if c.has(op, "ShapeTensor"):
        dims = [_dim_entry(c.value(n)) for n in op.inputs["ShapeTensor"]]
    elif c.has(op, "Shape"):
        v = c.value(op.inputs["Shape"][0])
        dims = v.dims if isinstance(v, SymShape) else [int(d) for d in np.ravel(v)]
    else:
        dims = [int(d) for d in op.attrs["shape"]]
    out = [0 if isinstance(d, Dim) and d.var is x and d.axis == i else d
           for i, d in enumerate(dims)]
    unknown = [i for i, d in enumerate(out) if isinstance(d, Dim)]
    if len(unknown) > 1 or (unknown and -1 in out):
        raise Unsupported(f"reshape to {dims}: more than one dim known only at run time")
    return {"Out": T.reshape(x, [-1 if isinstance(d, Dim) else int(d) for d in out])}


def transpose(c, op):
    return {"Out": T.transpose(c.var(op, "X"), [int(d) for d in op.attrs["axis"]])}


def flatten_range(c, op):
    a = op.attrs
    return {"Out": T.flatten(c.var(op, "X"), a.get("start_axis", 1), a.get("stop_axis", -1))}


def flatten2(c, op):
    """Legacy flatten/flatten2: dims before `axis` into one, the rest into another."""
    x = c.var(op, "X")
    k = op.attrs.get("axis", 1)
    if k == 0:
        return {"Out": T.reshape(x, [1, -1])}
    out = T.flatten(x, k, -1) if len(x.shape) > k else T.unsqueeze(x, [-1])
    return {"Out": T.flatten(out, 0, k - 1) if k > 1 else out}


def squeeze(c, op):
    axes = [int(v) for v in op.attrs.get("axes", [])]
    return {"Out": T.squeeze(c.var(op, "X"), axes or None)}


def unsqueeze(c, op):
    return {"Out": T.unsqueeze(c.var(op, "X"), [int(v) for v in op.attrs["axes"]])}


def concat(c, op):
    return {"Out": T.concat(c.vars(op, "X"), int(op.attrs.get("axis", 0)))}


def split(c, op):
    a = op.attrs
    x = c.var(op, "X")
    sections = [int(s) for s in a.get("sections", [])]
    outs = T.split(x, sections if sections else int(a.get("num", 1)), int(a.get("axis", 0)))
    return {"Out": list(outs)}


def stack(c, op):
    items = [c.value(n) for n in op.inputs["X"]]
    flat = [v for i in items for v in (i if isinstance(i, list) else [i])]
    if op.attrs.get("axis", 0) == 0 and all(_is_dim(v) for v in flat):
        return {"Y": SymShape([_dim_entry(v) for v in flat])}
    return {"Y": T.stack(c.vars(op, "X"), int(op.attrs.get("axis", 0)))}


def _is_dim(v) -> bool:
    return isinstance(v, Dim) or (isinstance(v, (np.ndarray, np.generic)) and np.size(v) == 1
                                  and np.asarray(v).dtype.kind in "iu")


def _dim_entry(v):
    """One entry of a shape list: an int, or a Dim (a run-time dim of some input)."""
    if isinstance(v, SymShape) and len(v.dims) == 1:
        return v.dims[0]
    if isinstance(v, Dim):
        return v
    if isinstance(v, (np.ndarray, np.generic, int)) and np.size(v) == 1:
        return int(np.asarray(v).reshape(()))
    raise Unsupported("a shape entry is computed at run time from tensor values (not from "
                      "input shapes); sampan needs shapes known when the model is built")


def shape(c, op):
    x = c.var(op, "Input")
    return {"Out": SymShape([d if d >= 0 else Dim(x, i) for i, d in enumerate(x.shape)])}


def slice_(c, op):
    a = op.attrs
    src = c.value(op.inputs["Input"][0])
    for slot in ("StartsTensor", "EndsTensor", "StartsTensorList", "EndsTensorList"):
        if c.has(op, slot):
            raise Unsupported("slice with run-time starts/ends")
    axes, starts, ends = (list(a[k]) for k in ("axes", "starts", "ends"))
    decrease = list(a.get("decrease_axis", []))
    if isinstance(src, SymShape):
        picked = src.dims[slice(starts[0], ends[0] if ends[0] < 2 ** 31 else None)]
        if decrease and len(picked) == 1:
            return {"Out": picked[0] if isinstance(picked[0], Dim) else np.int64(picked[0])}
        return {"Out": SymShape(picked)}
    out = T.slice(c.var(op, "Input"), axes, starts, ends)
    return {"Out": T.squeeze(out, decrease) if decrease else out}


def strided_slice(c, op):
    a = op.attrs
    return {"Out": T.strided_slice(c.var(op, "Input"), list(a["axes"]), list(a["starts"]),
                                   list(a["ends"]), list(a["strides"]))}


def gather(c, op):
    axis = c.const(op, "Axis").item() if c.has(op, "Axis") else op.attrs.get("axis", 0)
    return {"Out": T.gather(c.var(op, "X"), c.var(op, "Index"), int(axis))}


def expand(c, op):
    return {"Out": T.expand(c.var(op, "X"), [int(d) for d in op.attrs["shape"]])}


def tile(c, op):
    return {"Out": T.tile(c.var(op, "X"), [int(d) for d in op.attrs["repeat_times"]])}


def fill_constant(c, op):
    """A constant, a constant-folded shape, or a LazyFill when the shape has run-time dims."""
    a = op.attrs
    dtype = dtype_of(a.get("dtype", 5))
    value = float(a.get("str_value") or a.get("value", 0.0)) if not c.has(
        op, "ValueTensor") else c.const(op, "ValueTensor").item()
    if c.has(op, "ShapeTensor"):
        dims = c.value(op.inputs["ShapeTensor"][0])
        dims = dims.dims if isinstance(dims, SymShape) else [int(d) for d in np.ravel(dims)]
    elif c.has(op, "ShapeTensorList"):
        dims = [_dim_entry(c.value(n)) for n in op.inputs["ShapeTensorList"]]
    else:
        dims = [int(d) for d in a.get("shape", [])]
    if any(isinstance(d, Dim) for d in dims):
        return {"Out": LazyFill(value, dtype, dims)}
    return {"Out": np.full(dims, value, dtype=np.dtype(dtype))}


def fill_batch_like(c, op):
    """fill_constant_batch_size_like: `shape` with dim output_dim_idx taken from dim
    input_dim_idx of Input at run time."""
    a = op.attrs
    x = c.var(op, "Input")
    dims = [int(d) for d in a["shape"]]
    dims[a.get("output_dim_idx", 0)] = Dim(x, a.get("input_dim_idx", 0))
    return {"Out": LazyFill(float(a.get("str_value") or a.get("value", 0.0)),
                            dtype_of(a.get("dtype", 5)), dims)}


def fill_like(c, op):
    a = op.attrs
    x = c.var(op, "X")
    dtype = a.get("dtype", -1)
    return {"Out": T.full_like(x, float(a.get("value", 0.0)),
                               None if dtype in (-1, None) else dtype_of(dtype))}


def assign_value(c, op):
    a = op.attrs
    dtype = dtype_of(a.get("dtype", 5))
    vals = next((a[k] for k in ("fp32_values", "int32_values", "int64_values", "bool_values",
                                "values") if a.get(k)), [])
    return {"Out": np.asarray(vals, np.dtype(dtype)).reshape([int(d) for d in a["shape"]])}


def arange(c, op):
    start, end, step = (c.const(op, s).item() for s in ("Start", "End", "Step"))
    return {"Out": np.arange(start, end, step).astype(dtype_of(op.attrs.get("dtype", 5)))}


def where(c, op):
    return {"Out": T.where(c.var(op, "Condition"), c.var(op, "X"), c.var(op, "Y"))}


def one_hot(c, op):
    return {"Out": F.one_hot(c.var(op, "X"), int(op.attrs.get("depth", -1)))}


def index_select(c, op):
    return {"Out": T.index_select(c.var(op, "X"), c.var(op, "Index"), op.attrs.get("dim", 0))}


def pad3d(c, op):
    a = op.attrs
    return {"Out": F.pad(c.var(op, "X"), [int(p) for p in a["paddings"]], a.get("mode", "constant"),
                         a.get("value", 0.0), a.get("data_format", "NCDHW"))}


def p_norm(c, op):
    a = op.attrs
    x = c.var(op, "X")
    axis = None if a.get("asvector") else a.get("axis", -1)
    return {"Out": T.norm(x, float(a.get("porder", 2.0)), axis, a.get("keepdim", False))}


def add_n(c, op):
    """Legacy sum / PIR add_n, as a chain of adds (which also broadcasts a -1 batch dim
    against a known one)."""
    items = c.vars(op, "X")
    out = items[0]
    for item in items[1:]:
        out = T.add(out, item)
    return {"Out": out}


def unstack(c, op):
    x = c.var(op, "X")
    return {"Y": list(T.unstack(x, op.attrs.get("axis", 0)))}


def tril_triu(c, op):
    fn = T.tril if op.attrs.get("lower", True) else T.triu
    return {"Out": fn(c.var(op, "X"), op.attrs.get("diagonal", 0))}


def argsort(c, op):
    a = op.attrs
    x = c.var(op, "X")
    idx = T.argsort(x, a.get("axis", -1), a.get("descending", False))
    return {"Out": T.take_along_axis(x, idx, a.get("axis", -1)), "Indices": idx}


def identity(c, op):
    return {"Out": c.var(op, "X")}


def numel(c, op):
    return {"Out": T.numel(c.var(op, "Input"))}


TABLE = {
    "elementwise_add": binary(T.add), "elementwise_sub": binary(T.subtract),
    "elementwise_mul": binary(T.multiply), "elementwise_div": binary(T.divide),
    "elementwise_max": binary(T.maximum), "elementwise_min": binary(T.minimum),
    "elementwise_pow": binary(T.pow), "elementwise_floordiv": binary(T.floor_divide),
    "elementwise_mod": binary(T.remainder),
    "equal": binary(T.equal), "not_equal": binary(T.not_equal),
    "less_than": binary(T.less_than), "less_equal": binary(T.less_equal),
    "greater_than": binary(T.greater_than), "greater_equal": binary(T.greater_equal),
    "logical_and": binary(T.logical_and), "logical_or": binary(T.logical_or),
    "logical_not": unary(T.logical_not),
    "exp": unary(T.exp), "log": unary(T.log), "sqrt": unary(T.sqrt), "rsqrt": unary(T.rsqrt),
    "abs": unary(T.abs), "square": unary(T.square), "floor": unary(T.floor),
    "ceil": unary(T.ceil), "round": unary(T.round), "reciprocal": unary(T.reciprocal),
    "sign": unary(T.sign), "sin": unary(T.sin), "cos": unary(T.cos), "erf": unary(T.erf),
    "matmul_v2": matmul_v2, "matmul": matmul, "mul": mul, "fc": fc, "bmm": binary(T.bmm),
    "scale": scale, "clip": clip, "cast": cast, "pow": pow_,
    "reduce_mean": reduce(T.mean), "reduce_sum": reduce(T.sum), "reduce_max": reduce(T.max),
    "reduce_min": reduce(T.min), "reduce_prod": reduce(T.prod),
    "mean": lambda c, op: {"Out": T.mean(c.var(op, "X"))},
    "arg_max": arg(T.argmax), "arg_min": arg(T.argmin), "top_k_v2": top_k,
    "cumsum": cumsum, "p_norm": p_norm,
    "reshape2": reshape, "reshape": reshape, "transpose2": transpose, "transpose": transpose,
    "flatten_contiguous_range": flatten_range, "flatten2": flatten2, "flatten": flatten2,
    "squeeze2": squeeze, "squeeze": squeeze, "unsqueeze2": unsqueeze, "unsqueeze": unsqueeze,
    "concat": concat, "split": split, "stack": stack, "slice": slice_,
    "strided_slice": strided_slice, "gather": gather,
    "gather_nd": lambda c, op: {"Out": T.gather_nd(c.var(op, "X"), c.var(op, "Index"))},
    "expand_v2": expand, "expand_as_v2": lambda c, op: {
        "Out": T.expand_as(c.var(op, "X"), c.var(op, "Y"))},
    "tile": tile, "shape": shape, "size": numel,
    "fill_constant": fill_constant, "fill_any_like": fill_like,
    "fill_constant_batch_size_like": fill_batch_like,
    "fill_zeros_like": lambda c, op: {"Out": T.zeros_like(c.var(op, "X"))},
    "assign_value": assign_value, "range": arange, "where": where, "one_hot_v2": one_hot,
    "index_select": index_select, "pad3d": pad3d,
    "assign": identity, "share_data": identity,
    "sum": add_n, "unstack": unstack, "tril_triu": tril_triu, "argsort": argsort,
    "logsumexp": reduce(T.logsumexp),
}
