"""Common nn operators: linear (fused matmul + bias), dropout, embedding, gather_tree.

Imports only `framework`, `backend` and sibling op modules; vjp rules use sampan ops.
"""
from __future__ import annotations

from ..framework.random import rng
from .dispatch import call
from .opdef import OpDef, TensorSpec, broadcast_shapes, norm_axis, register
from .vjp_context import grad_call


def _same_float(api: str, **specs) -> None:
    """All given specs must be of one floating dtype (the kernels do not promote)."""
    items = [(k, s) for k, s in specs.items() if s is not None]
    first_name, first = items[0]
    if first.dtype.kind not in "fc":
        raise TypeError(f"{api}: {first_name} must be a floating point tensor, got "
                        f"{first.dtype.name}")
    for arg, spec in items[1:]:
        if spec.dtype is not first.dtype:
            raise TypeError(f"{api}: {arg} ({spec.dtype.name}) must have the dtype of "
                            f"{first_name} ({first.dtype.name})")


# --- linear ------------------------------------------------------------------------------

def _linear_decompose(x, weight, bias=None):
    out = call("matmul", x, weight, transpose_x=False, transpose_y=False)
    return out if bias is None else out + bias


@register
class Linear(OpDef):
    """out = x @ weight + bias. x is [..., in_features], weight [in_features, out_features];
    bias (usually [out_features]) broadcasts to the shape of x @ weight without enlarging
    it. One kernel and one tape node instead of matmul + add; all inputs share one float
    dtype."""

    amp = "low"
    name = "linear"
    inputs = ("x", "weight", "bias?")
    saves = ("x", "weight")
    onnx = None  # Gemm needs 2-D x; export decomposes into MatMul + Add
    decompose = staticmethod(_linear_decompose)

    def infer(self, x, weight, bias=None):
        _same_float("linear", x=x, weight=weight, bias=bias)
        if x.ndim == 0:
            raise ValueError("linear: x must be at least 1-D, got a 0-D tensor")
        if weight.ndim != 2:
            raise ValueError(f"linear: weight must be 2-D [in_features, out_features], got "
                             f"shape {list(weight.shape)}")
        if -1 not in (x.shape[-1], weight.shape[0]) and x.shape[-1] != weight.shape[0]:
            raise ValueError(f"linear: the last dim of x (shape {list(x.shape)}) must equal "
                             f"in_features = weight.shape[0] (weight shape "
                             f"{list(weight.shape)}); got {x.shape[-1]} vs {weight.shape[0]}")
        out = x.shape[:-1] + weight.shape[1:]
        if bias is not None and broadcast_shapes("linear", out, bias.shape,
                                                 ("x @ weight", "bias")) != out:
            raise ValueError(f"linear: bias (shape {list(bias.shape)}) must broadcast to the "
                             f"shape of x @ weight {list(out)} without enlarging it")
        return TensorSpec(out, x.dtype)

    def compute(self, xp, x, weight, bias=None):
        if x.dtype != weight.dtype or (bias is not None and bias.dtype != x.dtype):
            raise TypeError("dtype mismatch")  # infer explains
        if x.ndim > 2:  # one 2-D GEMM is faster than NumPy's loop over the batch dims
            out = xp.matmul(x.reshape(-1, x.shape[-1]), weight)
            out = out.reshape(x.shape[:-1] + weight.shape[1:])
        else:
            out = xp.matmul(x, weight)
        if bias is None:
            return out
        out += bias  # a fresh array; raises if bias would enlarge it (infer explains)
        return out

    def vjp(self, ctx, g):
        x, w = ctx.x, ctx.weight
        in_f, out_f = w.shape
        gx = gw = gb = None
        flat = x.ndim > 2  # work on [rows, features] matrices (2-D GEMMs)
        g2 = call("reshape", g, shape=[-1, out_f]) if flat else g
        if ctx.needs[0]:
            gx = grad_call(ctx, "matmul", g2, w, transpose_x=False, transpose_y=True)
            if flat:
                gx = call("reshape", gx, shape=list(x.shape))
        if ctx.needs[1]:
            if x.ndim == 1:
                gw = call("matmul", call("reshape", x, shape=[in_f, 1]),
                          call("reshape", g, shape=[1, out_f]),
                          transpose_x=False, transpose_y=False)
            else:
                x2 = call("reshape", x, shape=[-1, in_f]) if flat else x
                gw = grad_call(ctx, "matmul", x2, g2, transpose_x=True, transpose_y=False)
        if ctx.needs[2]:
            lead = list(range(g.ndim - 1))
            if lead and len(ctx.in_shapes[2]) == 1:
                gb = grad_call(ctx, "sum", g, axis=lead, keepdim=False, dtype=None)
            else:
                gb = g  # the engine sums the broadcast dims
        return gx, gw, gb


# --- dropout -----------------------------------------------------------------------------

def _mask_shape(api: str, shape: tuple, axis) -> tuple:
    if axis is None:
        return tuple(shape)
    axes = {norm_axis(api, int(a), len(shape)) for a in axis}
    return tuple(d if i in axes else 1 for i, d in enumerate(shape))


def _uniform16(xp, seed: int, shape: tuple):
    """Uniform integers in [0, 65536) of `shape`: four per raw 64-bit draw of the seeded
    generator (3x faster than uniform floats; p is resolved to 1/65536)."""
    n = 1
    for d in shape:
        n *= d
    raw = rng(seed).bit_generator.random_raw((n + 3) // 4)
    return xp.asarray(raw.view(xp.uint16)[:n].reshape(shape))  # drawn on the host


@register
class Dropout(OpDef):
    """Training-time dropout: out = x * mask, with mask = keep / (1 - p) for
    'upscale_in_train' and mask = keep for 'downscale_in_infer', keep ~ Bernoulli(1 - p)
    drawn as keep = u >= round(p * 65536) with u uniform 16-bit integers from the seed.
    With `axis` the mask is drawn over those axes only and broadcast over the others.
    Outputs the mask too (x's dtype, the broadcast shape; no gradient); grad = g * mask.
    training=False (set by Program.clone(for_test=True)): out = x, or x * (1 - p) for
    'downscale_in_infer'."""

    name = "dropout"
    outputs = ("out", "mask")
    attrs = {"p": 0.5, "axis": None, "mode": "upscale_in_train", "seed": 0, "training": True}
    saves = ("mask",)
    random = True
    check = True
    nondiff_outputs = (1,)
    test_attrs = {"training": False}

    def onnx(self, b, node):
        a = node.attrs
        if a["training"] and a["p"] > 0:
            raise b.Unsupported("dropout in training mode draws random masks; call "
                                "layer.eval() before export")
        x = node.inputs[0]
        if a["mode"] == "upscale_in_train" or a["training"]:
            return [b.op("Identity", [x]), None]
        return [b.op("Mul", [x, b.scalar(1.0 - a["p"], node.out_dtype())]), None]

    def infer(self, x, p=0.5, axis=None, mode="upscale_in_train", seed=0, training=True):
        if x.dtype.kind != "f":
            raise TypeError(f"dropout: x must be a floating point tensor, got "
                            f"{x.dtype.name}")
        if not 0 <= p <= 1:
            raise ValueError(f"dropout: p must be in [0, 1], got {p}")
        if mode not in ("upscale_in_train", "downscale_in_infer"):
            raise ValueError(f"dropout: mode must be 'upscale_in_train' or "
                             f"'downscale_in_infer', got {mode!r}")
        return x, x.with_shape(_mask_shape("dropout", x.shape, axis))

    def compute(self, xp, x, p=0.5, axis=None, mode="upscale_in_train", seed=0,
                training=True):
        shape = _mask_shape("dropout", x.shape, axis)
        if not training:  # inference: identity, or the expected scale for downscale_in_infer
            keep_p = 1.0 if mode == "upscale_in_train" else 1.0 - p
            mask = xp.full(shape, keep_p, dtype=x.dtype)
            return (x.copy() if keep_p == 1.0 else x * mask), mask
        keep = _uniform16(xp, seed, shape) >= min(int(round(p * 65536)), 65536)
        scale = 1.0 / (1.0 - p) if mode == "upscale_in_train" and p < 1 else 1.0
        mask = keep.astype(x.dtype)
        if scale != 1.0:
            mask *= x.dtype.type(scale)
        return x * mask, mask

    def vjp(self, ctx, g, g_mask):
        return (g * ctx.mask,)


# --- embedding ---------------------------------------------------------------------------

@register
class Embedding(OpDef):
    """out[..., :] = weight[x[...], :] (row lookup); rows looked up by `padding_idx`
    (already made non-negative) are zero and get no gradient. The weight gradient
    scatter-adds the output gradient into the looked-up rows."""

    amp = "float32_always"
    name = "embedding"
    inputs = ("x", "weight")
    attrs = {"padding_idx": None}
    saves = ("x", "weight")

    def onnx(self, b, node):
        ids, weight = node.inputs
        out = b.op("Gather", [weight, ids], axis=0)
        pad = node.attrs["padding_idx"]
        if pad is None:
            return out
        pad = int(pad) % node.specs[1].shape[0] if node.specs[1].shape[0] > 0 else int(pad)
        hit = b.op("Equal", [ids, b.scalar(pad, node.specs[0].dtype.name)])
        zero = b.scalar(0, node.out_dtype())
        return b.op("Where", [b.unsqueeze_axes(hit, [len(node.specs[0].shape)]), zero, out])

    def infer(self, x, weight, padding_idx=None):
        if x.dtype.kind not in "iu":
            raise TypeError(f"embedding: x must be an integer tensor (int32 or int64), got "
                            f"{x.dtype.name}")
        if weight.ndim != 2:
            raise ValueError(f"embedding: weight must be 2-D [num_embeddings, "
                             f"embedding_dim], got shape {list(weight.shape)}")
        if padding_idx is not None and weight.shape[0] >= 0 and not (
                0 <= padding_idx < weight.shape[0]):
            raise ValueError(f"embedding: padding_idx must be in [0, {weight.shape[0]}) "
                             f"after wrapping negatives, got {padding_idx}")
        return TensorSpec(x.shape + weight.shape[1:], weight.dtype)

    def compute(self, xp, x, weight, padding_idx=None):
        if x.dtype.kind not in "iu" or weight.ndim != 2:
            raise TypeError("bad input")  # infer explains
        if x.size and (x.min() < 0 or x.max() >= weight.shape[0]):
            raise ValueError(f"embedding: ids must be in [0, {weight.shape[0]}) "
                             f"(num_embeddings), got values in [{x.min()}, {x.max()}]")
        out = xp.take(weight, x, axis=0)
        if padding_idx is not None:
            out[x == padding_idx] = 0
        return out

    def vjp(self, ctx, g):
        if not ctx.needs[1]:
            return None, None
        x, w = ctx.x, ctx.weight
        dim = w.shape[1]
        if ctx.padding_idx is not None:
            keep = call("not_equal", x, call("full_like", x, fill_value=ctx.padding_idx,
                                             dtype=None))
            g = g * call("unsqueeze", call("cast", keep, dtype=g.dtype.name), axis=[-1])
        flat = call("reshape", x, shape=[-1])
        rows = call("reshape", g, shape=[-1, dim])
        zeros = call("full_like", w, fill_value=0.0, dtype=None)
        return None, call("index_add", zeros, flat, rows, axis=0)


# --- gather_tree -------------------------------------------------------------------------

@register
class GatherTree(OpDef):
    """Backtrace beam-search ids: out[T-1] = ids[T-1]; going back in time, out[t, b, k] =
    ids[t, b, p] where p follows `parents` from the last step. ids/parents: [T, B, beam].
    Not differentiable."""

    name = "gather_tree"
    inputs = ("ids", "parents")

    def infer(self, ids, parents):
        for arg, s in (("ids", ids), ("parents", parents)):
            if s.dtype.kind not in "iu":
                raise TypeError(f"gather_tree: {arg} must be an integer tensor, got "
                                f"{s.dtype.name}")
            if s.ndim != 3:
                raise ValueError(f"gather_tree: {arg} must be 3-D [max_time, batch, "
                                 f"beam], got shape {list(s.shape)}")
        if ids.shape != parents.shape:
            raise ValueError(f"gather_tree: ids (shape {list(ids.shape)}) and parents "
                             f"(shape {list(parents.shape)}) must have the same shape")
        return ids

    def compute(self, xp, ids, parents):
        if ids.ndim != 3 or ids.shape != parents.shape:
            raise ValueError("bad shapes")  # infer explains
        out = xp.empty_like(ids)
        steps, batch, beam = ids.shape
        if steps == 0:
            return out
        rows = xp.arange(batch)[:, None]
        beams = xp.broadcast_to(xp.arange(beam), (batch, beam))
        for t in range(steps - 1, -1, -1):
            out[t] = ids[t][rows, beams]
            beams = parents[t][rows, beams]
        return out
