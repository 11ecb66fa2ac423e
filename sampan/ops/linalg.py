"""linalg operators: matrix products (matmul, einsum), norms and cross products.

Decompositions and solvers live in ops/linalg_decomp.py (imported at the end). Imports
`framework` and `ops.opdef`/`ops.dispatch` only; vjp rules are written in sampan ops.
"""
from __future__ import annotations

import math
import string

import numpy as np  # only to build constant masks/identities inside vjp rules

from ..framework import dtype as _dt
from ..framework.tensor import wrap
from .dispatch import call
from .math import conj_if_complex
from .opdef import OpDef, TensorSpec, broadcast_shapes, norm_axis, register
from .vjp_context import grad_call


def mm(x, y, tx: bool = False, ty: bool = False, ctx=None):
    """matmul with explicit transpose flags (dispatch does not fill attr defaults); with a
    vjp rule's `ctx`, through grad_call."""
    if ctx is not None:
        return grad_call(ctx, "matmul", x, y, transpose_x=tx, transpose_y=ty)
    return call("matmul", x, y, transpose_x=tx, transpose_y=ty)


def mT(t):
    """Swap the last two dims of a tensor (a differentiable einsum, so vjps stay in ops)."""
    return call("einsum", [t], equation="...ij->...ji")


def _known_neq(a: int, b: int) -> bool:
    return a != -1 and b != -1 and a != b


# --- matmul ------------------------------------------------------------------------------

@register
class Matmul(OpDef):
    """out = x @ y with NumPy/Paddle rules: 1-D x is a row, 1-D y a column (the added dim is
    removed again); batch dims broadcast. transpose_x/transpose_y swap the last two dims of
    a >= 2-D operand first (ignored for 1-D). Inputs are promoted to a common dtype."""

    amp = "low"
    name = "matmul"
    inputs = ("x", "y")
    attrs = {"transpose_x": False, "transpose_y": False}
    promote = True

    def onnx(self, b, node):
        x, y = b.like(node.inputs, node.specs, node.out_dtype())
        for name, k in (("transpose_x", 0), ("transpose_y", 1)):
            nd = len(node.specs[k].shape)
            if node.attrs[name] and nd >= 2:
                perm = list(range(nd - 2)) + [nd - 1, nd - 2]
                if k == 0:
                    x = b.op("Transpose", [x], perm=perm)
                else:
                    y = b.op("Transpose", [y], perm=perm)
        return b.op("MatMul", [x, y])

    def infer(self, x, y, transpose_x=False, transpose_y=False):
        for arg, s in (("x", x), ("y", y)):
            if s.ndim == 0:
                raise ValueError(f"matmul: {arg} must be at least 1-D, got a 0-D tensor")
        xs, ys = list(x.shape), list(y.shape)
        if len(xs) >= 2 and transpose_x:
            xs[-1], xs[-2] = xs[-2], xs[-1]
        if len(ys) >= 2 and transpose_y:
            ys[-1], ys[-2] = ys[-2], ys[-1]
        k_y = ys[0] if len(ys) == 1 else ys[-2]
        if _known_neq(xs[-1], k_y):
            which = "dim" if len(ys) == 1 else "second-to-last dim"
            raise ValueError(f"matmul: the last dim of x (shape {list(x.shape)}) must equal "
                             f"the {which} of y (shape {list(y.shape)}); got {xs[-1]} vs "
                             f"{k_y}")
        batch = broadcast_shapes("matmul", tuple(xs[:-2]), tuple(ys[:-2]))
        out = list(batch)
        if len(xs) >= 2:
            out.append(xs[-2])
        if len(ys) >= 2:
            out.append(ys[-1])
        return TensorSpec(out, _dt.promote_types(x.dtype, y.dtype))

    def compute(self, xp, x, y, transpose_x=False, transpose_y=False):
        if transpose_x and x.ndim >= 2:
            x = xp.swapaxes(x, -1, -2)
        if transpose_y and y.ndim >= 2:
            y = xp.swapaxes(y, -1, -2)
        if x.ndim > 2 and y.ndim == 2 and x.flags.c_contiguous and x.dtype == y.dtype:
            # NOTE: one 2-D GEMM over the folded batch dims is ~2.5x faster than NumPy's
            # stacked matmul loop (sequence models: [B, T, D] @ [D, H])
            if x.shape[-1] == y.shape[0]:
                out = xp.matmul(x.reshape(-1, x.shape[-1]), y)
                return out.reshape(x.shape[:-1] + (y.shape[1],))
        try:
            return xp.matmul(x, y)
        except ValueError as err:
            # NumPy's message starts with "matmul:", which would stop dispatch from asking
            # infer for the Paddle-style explanation
            raise ValueError(f"incompatible shapes ({err})") from None

    def vjp(self, ctx, g):
        # complex operands: the gradient uses their conjugates (g @ y^H, x^H @ g)
        x, y = conj_if_complex(ctx.x), conj_if_complex(ctx.y)
        # other families may call("matmul", x, y) without attrs: fall back to the defaults
        tx = ctx.attrs.get("transpose_x", False)
        ty = ctx.attrs.get("transpose_y", False)
        x_vec, y_vec = x.ndim == 1, y.ndim == 1
        if x_vec:
            x, tx = call("reshape", x, shape=[1, x.shape[0]]), False
        if y_vec:
            y, ty = call("reshape", y, shape=[y.shape[0], 1]), False
        if x_vec or y_vec:
            gshape = list(g.shape)
            if x_vec:
                gshape.insert(len(gshape) - (0 if y_vec else 1), 1)
            if y_vec:
                gshape.append(1)
            g = call("reshape", g, shape=gshape)
        gx = gy = None
        if ctx.needs[0]:
            if tx:  # out = x^T y (or x^T y^T): dx = y g^T (or y^T g^T)
                gx = mm(y, g, ty, True, ctx)
            else:   # out = x y (or x y^T): dx = g y^T (or g y)
                gx = mm(g, y, False, not ty, ctx)
            if x_vec:  # [..., 1, K] -> [..., K]; the engine then sums the batch dims
                gx = call("reshape", gx, shape=list(gx.shape[:-2]) + [gx.shape[-1]])
        if ctx.needs[1]:
            if ty:  # out = x y^T (or x^T y^T): dy = g^T x (or g^T x^T)
                gy = mm(g, x, True, tx, ctx)
            else:   # out = x y (or x^T y): dy = x^T g (or x g)
                gy = mm(x, g, not tx, False, ctx)
            if y_vec:  # [..., K, 1] -> [..., K]
                gy = call("reshape", gy, shape=list(gy.shape[:-1]))
        return gx, gy


# --- einsum ------------------------------------------------------------------------------

def _split_term(api: str, term: str, ndim: int, k: int):
    """Labels of one operand term as a list of letters and "..." (at most once)."""
    if term.count("...") > 1:
        raise ValueError(f"{api}: operand {k} term {term!r} has more than one ellipsis")
    head, dots, tail = term.partition("...")
    for ch in head + tail:
        if ch not in string.ascii_letters:
            raise ValueError(f"{api}: invalid subscript {ch!r} in term {term!r}; only letters "
                             f"and '...' are allowed")
    n_explicit = len(head) + len(tail)
    if ndim != -1 and ((not dots and n_explicit != ndim) or (dots and n_explicit > ndim)):
        raise ValueError(f"{api}: operand {k} has {ndim} dims but its term {term!r} labels "
                         f"{n_explicit}{' or more' if dots else ''}")
    return list(head) + (["..."] if dots else []) + list(tail)


def parse_einsum(api: str, equation: str, ndims: list):
    """(terms, out_term): label lists per operand and for the output (explicit form)."""
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    raw = lhs.split(",")
    if len(raw) != len(ndims):
        raise ValueError(f"{api}: equation {equation!r} has {len(raw)} operand terms but "
                         f"{len(ndims)} operands were given")
    terms = [_split_term(api, t, n, k) for k, (t, n) in enumerate(zip(raw, ndims))]
    if arrow:
        out = _split_term(api, rhs, -1, len(terms))
        letters = {ch for t in terms for ch in t}
        for ch in out:
            if ch != "..." and ch not in letters:
                raise ValueError(f"{api}: output subscript {ch!r} of {equation!r} does not "
                                 f"appear in any operand term")
            if ch != "..." and out.count(ch) > 1:
                raise ValueError(f"{api}: output subscript {ch!r} repeats in {equation!r}")
        if "..." in out and not any("..." in t for t in terms):
            raise ValueError(f"{api}: output of {equation!r} has '...' but no operand does")
    else:
        counts: dict = {}
        for t in terms:
            for ch in t:
                if ch != "...":
                    counts[ch] = counts.get(ch, 0) + 1
        out = (["..."] if any("..." in t for t in terms) else []) + sorted(
            ch for ch, c in counts.items() if c == 1)
    return terms, out


def join_term(labels) -> str:
    return "".join(labels)


def _term_dims(term, shape):
    """Map labels of `term` to dims of `shape`: {letter: [sizes]}, ellipsis shape."""
    k = term.index("...") if "..." in term else len(term)
    n_tail = len(term) - k - 1 if "..." in term else 0
    head = list(zip(term[:k], shape[:k]))
    tail = list(zip(term[k + 1:], shape[len(shape) - n_tail:])) if n_tail else []
    ell = tuple(shape[k:len(shape) - n_tail]) if "..." in term else ()
    return head + tail, ell


def _unify(api, letter, a, b):
    if a == b or b == 1:
        return a
    if a == 1:
        return b
    if a == -1 or b == -1:
        return max(a, b)
    raise ValueError(f"{api}: subscript {letter!r} has inconsistent sizes {a} and {b}")


@register
class Einsum(OpDef):
    """Einstein summation over `operands` following `equation` (NumPy semantics, including
    '...' broadcasting and repeated subscripts such as 'ii->i'). The public function always
    passes the explicit ('->') form. Dtypes promote to a common one."""

    amp = "low"
    name = "einsum"
    inputs = ("*operands",)
    attrs = {"equation": ""}

    def onnx(self, b, node):   # ONNX needs equal ellipsis ranks: pad with 1s
        eq = node.attrs["equation"].replace(" ", "")
        subs = eq.split("->")[0].split(",")
        ins = b.like(node.inputs, node.specs, node.out_dtype())
        ranks = [len(s.shape) - len(sub.replace("...", "")) if "..." in sub else 0
                 for s, sub in zip(node.specs[0], subs)]
        for k, (sub, r) in enumerate(zip(subs, ranks)):
            if "..." in sub and r < max(ranks):
                at = sub.index("...")
                ins[k] = b.unsqueeze_axes(ins[k], list(range(at, at + max(ranks) - r)))
        return b.op("Einsum", ins, equation=eq)

    def infer(self, operands, equation=""):
        terms, out = parse_einsum(self.name, equation, [s.ndim for s in operands])
        sizes: dict = {}
        ell: tuple = ()
        for term, spec in zip(terms, operands):
            pairs, e = _term_dims(term, spec.shape)
            for ch, d in pairs:
                sizes[ch] = _unify(self.name, ch, sizes.get(ch, d), d)
            ell = broadcast_shapes(self.name, ell, e, ("'...'", "'...'"))
        shape = []
        for ch in out:
            shape.extend(ell if ch == "..." else [sizes[ch]])
        dtype = operands[0].dtype
        for s in operands[1:]:
            dtype = _dt.promote_types(dtype, s.dtype)
        return TensorSpec(shape, dtype)

    def compute(self, xp, operands, equation=""):
        return xp.einsum(equation, *operands)

    def vjp(self, ctx, g):
        ops = ctx.operands
        terms, out = parse_einsum(self.name, ctx.equation, [t.ndim for t in ops])
        terms, out, fresh = _explicit(terms, out, [t.ndim for t in ops])
        return ([_einsum_grad(i, ops, terms, out, g, fresh) if need else None
                 for i, need in enumerate(ctx.needs[0])],)


def _explicit(terms, out, ndims):
    """Replace '...' by letters (right-aligned across operands, as broadcasting aligns
    them): NumPy's einsum cannot sum over '...' dims, which gradients need to do."""
    used = {ch for t in terms + [out] for ch in t if ch != "..."}
    fresh = [ch for ch in string.ascii_letters if ch not in used]
    ells = [n - (len(t) - 1) if "..." in t else 0 for t, n in zip(terms, ndims)]
    e = max(ells, default=0)
    ell_letters, rest = fresh[:e], fresh[e:]

    def expand(t, ne):
        res = []
        for ch in t:
            res.extend(ell_letters[e - ne:] if ch == "..." else [ch])
        return res
    return ([expand(t, ne) for t, ne in zip(terms, ells)], expand(out, e), rest)


def _einsum_grad(i, ops, terms, out, g, fresh):
    """d(sum g * einsum(...))/d operand i, as one einsum of g with the other operands plus
    constant ones (labels that only operand i has at its size, i.e. summed away or
    broadcast from size 1 elsewhere) and identity matrices (repeated labels of operand i,
    i.e. diagonals). `terms`/`out` are explicit (no '...')."""
    term, shape = terms[i], tuple(ops[i].shape)
    fresh = iter(fresh)
    other: dict = {}
    for k, t in enumerate(terms):
        if k != i:
            for ch, d in zip(t, ops[k].shape):
                other[ch] = max(other.get(ch, 1), d)
    for ch, d in zip(out, g.shape):
        other[ch] = max(other.get(ch, 1), d)
    npd = g.dtype.np
    in_terms, operands = [join_term(out)], [g]
    for k, t in enumerate(terms):
        if k != i:
            in_terms.append(join_term(t))
            operands.append(ops[k])
    res, seen, ones = [], set(), []
    for ch, d in zip(term, shape):
        if ch not in seen:
            seen.add(ch)
            res.append(ch)
            if ch not in other or other[ch] < d:
                ones.append((ch, d))
            continue
        new = next(fresh)
        res.append(new)
        in_terms.append(ch + new)
        operands.append(wrap(np.eye(d, dtype=npd)))
    if ones:
        in_terms.append("".join(ch for ch, _ in ones))
        operands.append(wrap(np.ones(tuple(d for _, d in ones), dtype=npd)))
    eq = ",".join(in_terms) + "->" + join_term(res)
    return call("einsum", operands, equation=eq)


# --- norms -------------------------------------------------------------------------------

def _axes(api: str, axis, ndim: int) -> tuple:
    if axis is None:
        return tuple(range(ndim))
    axes = [axis] if isinstance(axis, int) else list(axis)
    out = tuple(sorted({norm_axis(api, int(a), ndim) for a in axes}))
    if len(out) != len(axes):
        raise ValueError(f"{api}: axis {axis} names the same dim twice")
    return out


def _real(dtype):
    return _dt.real_of(dtype)


@register
class Norm(OpDef):
    """Vector p-norm of x over `axis` (all dims when None; several axes are flattened):
    p=2 Euclidean, inf max|x|, -inf min|x|, 0 count of non-zeros, else (sum |x|^p)^(1/p).
    Float inputs only; complex inputs give a real result. Subgradients: 0 at x = 0 for p=1
    and where the whole norm is 0; for +-inf the gradient goes to every element attaining
    the extreme |x|."""

    amp = "float32"
    name = "norm"
    attrs = {"p": 2.0, "axis": None, "keepdim": False}
    saves = ("x", "out")

    def infer(self, x, p=2.0, axis=None, keepdim=False):
        if x.dtype.kind not in "fc":
            raise TypeError(f"norm: x must be a floating point tensor, got {x.dtype.name}")
        axes = _axes(self.name, axis, x.ndim)
        shape = [1 if i in axes else d for i, d in enumerate(x.shape)] if keepdim else \
            [d for i, d in enumerate(x.shape) if i not in axes]
        return TensorSpec(shape, _real(x.dtype))

    def onnx(self, b, node):   # ReduceL2/L1/Max/Min of |x|; other p: (sum |x|^p)^(1/p)
        x, spec, p = node.inputs[0], node.specs[0], float(node["p"])
        if node.out_dtype().kind == "c" or str(spec.dtype.name).startswith("complex"):
            raise b.Unsupported("complex tensors have no ONNX type")
        axes, keep = _axes(self.name, node["axis"], len(spec.shape)), node["keepdim"]
        if not axes:   # a 0-d x: |x| (0 or 1 for p = 0)
            axes, x = [0], b.unsqueeze_axes(x, [0])
            keep = False
        named = {2.0: "ReduceL2", 1.0: "ReduceL1", math.inf: "ReduceMax",
                 -math.inf: "ReduceMin"}
        if p in named:
            a = x if p in (1.0, 2.0) else b.op("Abs", [x])
            return b.reduce(named[p], a, axes, keep)
        dt = node.out_dtype()
        if p == 0:
            nz = b.op("Not", [b.op("Equal", [x, b.scalar(0, dt)])])
            return b.reduce("ReduceSum", b.cast(nz, dt), axes, keep)
        powed = b.op("Pow", [b.op("Abs", [x]), b.scalar(p, dt)])
        return b.op("Pow", [b.reduce("ReduceSum", powed, axes, keep), b.scalar(1.0 / p, dt)])

    def compute(self, xp, x, p=2.0, axis=None, keepdim=False):
        if x.dtype.kind not in "fc":
            raise TypeError(f"norm: x must be a floating point tensor, got {x.dtype}")
        axes = _axes(self.name, axis, x.ndim)
        a = xp.abs(x)
        if p == 2:
            out = xp.sqrt(xp.sum(a * a, axis=axes, keepdims=keepdim))
        elif p == math.inf:
            # NOTE: no `initial=` (CuPy lacks it): empty inputs are handled by hand
            out = (xp.max(a, axis=axes, keepdims=keepdim) if a.size else
                   xp.zeros_like(xp.sum(a, axis=axes, keepdims=keepdim)))
        elif p == -math.inf:
            out = (xp.min(a, axis=axes, keepdims=keepdim) if a.size else
                   xp.full_like(xp.sum(a, axis=axes, keepdims=keepdim), math.inf))
        elif p == 0:
            out = xp.sum(a != 0, axis=axes, keepdims=keepdim)
        else:
            out = xp.sum(a ** p, axis=axes, keepdims=keepdim) ** (1.0 / p)
        return xp.asarray(out, dtype=a.dtype)

    def vjp(self, ctx, g):
        x, out, p = ctx.x, ctx.out, ctx.p
        if not ctx.keepdim:
            axes = _axes(self.name, ctx.axis, x.ndim)
            kept = [1 if i in axes else d for i, d in enumerate(x.shape)]
            g = call("reshape", g, shape=kept)
            out = call("reshape", out, shape=kept)
        if p == 0:
            return (x * 0.0 * g,)
        if p not in (1, math.inf, -math.inf):
            # a zero norm means x == 0 there: use 1 as divisor so the gradient is 0, not nan
            out = out + call("cast", call("equal", out, 0.0 * out), dtype=out.dtype.name)
        if p == 2:
            return (g * x / out,)
        if p == 1:
            return (g * call("sign", x),)
        if p in (math.inf, -math.inf):
            mask = call("cast", call("equal", abs(x), out), dtype=x.dtype.name)
            return (g * call("sign", x) * mask,)
        return (g * x * abs(x) ** (p - 2) / out ** (p - 1),)


# --- cross -------------------------------------------------------------------------------

@register
class Cross(OpDef):
    """Cross product of 3-vectors along `axis` (x and y broadcast)."""

    name = "cross"
    inputs = ("x", "y")
    attrs = {"axis": -1}
    promote = True
    check = True

    def infer(self, x, y, axis=-1):
        shape = broadcast_shapes(self.name, x.shape, y.shape)
        ax = norm_axis(self.name, axis, len(shape))
        if shape[ax] not in (3, -1):
            raise ValueError(f"cross: the size of dim {axis} (axis) must be 3, got shapes "
                             f"{list(x.shape)} and {list(y.shape)}")
        return TensorSpec(shape, _dt.promote_types(x.dtype, y.dtype))

    def compute(self, xp, x, y, axis=-1):
        return xp.cross(x, y, axis=axis)

    def onnx(self, b, node):   # x[1,2,0] * y[2,0,1] - x[2,0,1] * y[1,2,0] along axis
        x, y = b.like(node.inputs, node.specs, node.out_dtype())
        ax = norm_axis(self.name, node["axis"], len(node.out_shape()))
        x = b.op("Expand", [x, b.shape_of(y)])
        y = b.op("Expand", [y, b.shape_of(x)])
        i1, i2 = b.ints([1, 2, 0]), b.ints([2, 0, 1])
        g = lambda t, i: b.op("Gather", [t, i], axis=ax)  # noqa: E731
        return b.op("Sub", [b.op("Mul", [g(x, i1), g(y, i2)]),
                            b.op("Mul", [g(x, i2), g(y, i1)])])

    def vjp(self, ctx, g):
        gx = call("cross", ctx.y, g, axis=ctx.axis) if ctx.needs[0] else None
        gy = call("cross", g, ctx.x, axis=ctx.axis) if ctx.needs[1] else None
        return gx, gy


from . import linalg_decomp as _decomp  # noqa: E402,F401  (registers its OpDefs)
