"""Fused operators made by Program passes: fused_elementwise and fused_linear.

Both carry their sub-graph (or activation) in attrs, compute it in one kernel with fewer
temporaries, and have a `decompose` that re-expands them into the ops they replace. Their
vjp recomputes the sub-graph in sampan ops and runs each sub-op's own vjp in reverse
(`chain_vjp`), so double grad and static backward work. Imports `framework` and `ops`.
"""
from __future__ import annotations

from ..framework import dtype as _dt
from .dispatch import call, dispatch
from .opdef import REGISTRY, OpDef, register
from .vjp_context import VjpContext, unbroadcast

# sub-ops whose sampan kernel is exactly this NumPy ufunc for float inputs of one dtype:
# the fused kernel calls the ufunc with out= into a dead temporary (same values).
_UFUNCS = {"add": "add", "subtract": "subtract", "multiply": "multiply",
           "divide": "true_divide", "maximum": "maximum", "minimum": "minimum",
           "exp": "exp", "log": "log", "tanh": "tanh", "sqrt": "sqrt", "neg": "negative",
           "sin": "sin", "cos": "cos", "abs": "absolute", "square": "square",
           "expm1": "expm1", "log1p": "log1p", "floor": "floor", "ceil": "ceil"}

# op types the elementwise-fusion pass may put into a fused_elementwise sub-graph
ELEMENTWISE = frozenset(_UFUNCS) | frozenset({
    "relu", "heaviside", "scale", "sigmoid", "reciprocal", "rsqrt", "cast", "gelu", "silu",
    "leaky_relu", "erf", "pow", "where", "clip", "sign", "log2", "log10", "sinh", "cosh",
    "tan", "atan", "elu", "softplus", "logaddexp", "hypot", "fmax", "fmin"})


def _graph_nodes(api: str, graph, n_inputs: int):
    """Validate a sub-graph attr: a list of [type, [refs], attrs]; refs index the inputs
    (0..n-1) and earlier nodes (n..); None marks an absent optional slot."""
    if not isinstance(graph, (list, tuple)) or not graph:
        raise ValueError(f"{api}: graph must be a non-empty list of [type, refs, attrs] "
                         f"nodes, got {graph!r}")
    nodes = []
    for j, node in enumerate(graph):
        if not isinstance(node, (list, tuple)) or len(node) != 3:
            raise ValueError(f"{api}: graph node {j} must be [type, refs, attrs], got "
                             f"{node!r}")
        typ, refs, attrs = node
        op = REGISTRY.get(typ)
        if op is None:
            raise ValueError(f"{api}: graph node {j} names unknown op {typ!r}")
        if op.multi_out or op.has_variadic or op.random:
            raise ValueError(f"{api}: graph node {j} ({typ}) must be a single-output, "
                             f"non-variadic, non-random op")
        if len(refs) != len(op.input_names):
            raise ValueError(f"{api}: graph node {j} ({typ}) takes {len(op.input_names)} "
                             f"inputs {list(op.input_names)}, got refs {list(refs)}")
        for r in refs:
            if r is not None and not (isinstance(r, int) and 0 <= r < n_inputs + j):
                raise ValueError(f"{api}: graph node {j} ({typ}) refers to {r!r}; refs must "
                                 f"name one of the {n_inputs} inputs or an earlier node "
                                 f"(< {n_inputs + j})")
        nodes.append((op, refs, {**op.attrs, **attrs}))
    return nodes


def _last_uses(nodes, n: int) -> dict:
    last = {}
    for j, (_, refs, _) in enumerate(nodes):
        for r in refs:
            if r is not None:
                last[r] = j
    return last


def run_graph(nodes, inputs: list) -> list:
    """Evaluate a sub-graph in sampan ops (recorded on the tape / appended to a Program)."""
    vals = list(inputs)
    for op, refs, attrs in nodes:
        vals.append(dispatch(op, tuple(None if r is None else vals[r] for r in refs), attrs))
    return vals


def chain_vjp(nodes, inputs: list, needs, g, create_graph: bool = False) -> list:
    """Gradients of the sub-graph's last value w.r.t. `inputs` (cotangent g): recompute the
    forward in sampan ops, then call each sub-op's vjp in reverse."""
    n = len(inputs)
    vals = run_graph(nodes, inputs)
    need = [bool(x) for x in needs] + [False] * len(nodes)
    for j, (_, refs, _) in enumerate(nodes):
        need[n + j] = any(r is not None and need[r] for r in refs)
    grads = [None] * len(vals)
    grads[-1] = g
    for j in range(len(nodes) - 1, -1, -1):
        gj = grads[n + j]
        if gj is None or not need[n + j]:
            continue
        op, refs, attrs = nodes[j]
        if op.vjp is None:
            continue
        ctx = VjpContext(attrs, tuple(r is not None and need[r] for r in refs),
                         [tuple(vals[r].shape) if r is not None and need[r] else None
                          for r in refs], create_graph)
        for name, r in zip(op.input_names, refs):
            setattr(ctx, name, None if r is None else vals[r])
        setattr(ctx, op.outputs[0], vals[n + j])
        res = op.vjp(ctx, gj)
        res = res if isinstance(res, (tuple, list)) else (res,)
        for r, gr in zip(refs, res):
            if r is None or gr is None or not need[r]:
                continue
            gr = unbroadcast(gr, vals[r].shape)
            if gr.dtype is not vals[r].dtype and _dt.convert_dtype(vals[r].dtype).kind in "fc":
                gr = call("cast", gr, dtype=_dt.convert_dtype(vals[r].dtype).name)
            grads[r] = gr if grads[r] is None else grads[r] + gr
    return grads[:n]


@register
class FusedElementwise(OpDef):
    """A sub-graph of elementwise ops evaluated in one kernel (made by the
    `fuse_elementwise` pass). attrs: `graph` = [[type, refs, attrs], ...] (refs index `xs`
    then earlier nodes; the last node is the output); `inplace` = index of an input whose
    buffer is dead after this op and may hold the result (-1: none; set by the
    `inplace` pass, honoured only where the Executor confirms the buffer is dead).
    NumPy ufunc sub-ops write into dead temporaries with out= (fewer allocations)."""

    name = "fused_elementwise"
    inputs = ("*xs",)
    attrs = {"graph": [], "inplace": -1}

    def infer(self, xs, graph=(), inplace=-1):
        nodes = _graph_nodes(self.name, graph, len(xs))
        if not isinstance(inplace, int) or not -1 <= inplace < len(xs):
            raise ValueError(f"fused_elementwise: inplace must be -1 or an input index "
                             f"< {len(xs)}, got {inplace!r}")
        specs = list(xs)
        for op, refs, attrs in nodes:
            specs.append(op.infer(*[None if r is None else specs[r] for r in refs], **attrs))
        return specs[-1]

    def compute(self, xp, xs, graph=(), inplace=-1):
        n = len(xs)
        nodes = _graph_nodes(self.name, graph, n)
        last = _last_uses(nodes, n)
        vals = list(xs)
        owned = [False] * n
        if inplace >= 0 and getattr(xs[inplace].flags, "writeable", False):
            owned[inplace] = True
        nd = xp.ndarray
        for j, (op, refs, attrs) in enumerate(nodes):
            args = [None if r is None else vals[r] for r in refs]
            res = _fast(xp, op.name, args, refs, vals, owned, last, j)
            if res is None:
                if op.promote and args[0].dtype != args[-1].dtype:
                    dt = _dt.promote_types(_dt.from_numpy(args[0].dtype),
                                           _dt.from_numpy(args[-1].dtype)).np
                    args = [a.astype(dt) for a in args]
                res = op.compute(xp, *args, **attrs)
                fresh = res.__class__ is nd and res.base is None and not any(
                    res is a for a in args)
            else:
                fresh = True
            if res.__class__ is not nd:
                res = xp.asarray(res)
            vals.append(res)
            owned.append(fresh)
        return vals[-1]

    def vjp(self, ctx, g):
        nodes = _graph_nodes(self.name, ctx.graph, len(ctx.xs))
        return (chain_vjp(nodes, ctx.xs, ctx.needs[0], g, ctx.create_graph),)

    @staticmethod
    def decompose(xs, graph=(), inplace=-1):
        nodes = _graph_nodes("fused_elementwise", graph, len(xs))
        return run_graph(nodes, xs)[-1]


def _fast(xp, name, args, refs, vals, owned, last, j):
    """A ufunc sub-op on float arrays of one dtype, into a dead owned buffer if one fits;
    None when the generic kernel must run."""
    if name == "relu":
        uf, args = xp.maximum, [args[0], None]
    else:
        uname = _UFUNCS.get(name)
        if uname is None:
            return None
        uf = getattr(xp, uname)
    a = args[0]
    if a.__class__ is not xp.ndarray or a.dtype.kind != "f":
        return None
    b = args[1] if len(args) > 1 else None
    if name == "relu":
        # NOTE: maximum against a same-shape zero array is ~4x faster than against a
        # scalar (NumPy's SIMD loop needs two contiguous operands); it is also the output
        shape = a.shape
        b = xp.zeros(shape, a.dtype)
    elif b is not None:
        if b.__class__ is not xp.ndarray or b.dtype != a.dtype:
            return None
        if a.shape == b.shape or (b.size == 1 and b.ndim <= a.ndim):
            shape = a.shape
        elif a.size == 1 and a.ndim <= b.ndim:
            shape = b.shape
        else:
            shape = xp.broadcast_shapes(a.shape, b.shape)
    else:
        shape = a.shape
    out = None
    for r in refs:
        if r is not None and owned[r] and last.get(r) == j:
            buf = vals[r]
            if buf.shape == shape and buf.dtype == a.dtype:
                out = buf
                break
    if b is None:
        return uf(a) if out is None else uf(a, out=out)
    if out is None and name == "relu":
        out = b
    return uf(a, b) if out is None else uf(a, b, out=out)


def fused_elementwise(xs, graph, inplace=-1, name=None):
    """Evaluate an elementwise sub-graph (see the `fused_elementwise` OpDef) on `xs`.

    Args:
        xs (list[Tensor]): the sub-graph's inputs.
        graph (list): [[op type, refs, attrs], ...]; refs index xs, then earlier nodes.
        inplace (int): input index whose buffer may be overwritten (-1: none).
    Returns:
        Tensor: the value of the last node.
    """
    if not isinstance(xs, (list, tuple)):
        raise TypeError(f"fused_elementwise: xs must be a list of Tensors, got "
                        f"{type(xs).__name__}")
    return dispatch(REGISTRY["fused_elementwise"], (list(xs),),
                    {"graph": [list(map(_jsonable, node)) for node in graph],
                     "inplace": int(inplace)})


def _jsonable(v):
    if isinstance(v, tuple):
        return [_jsonable(x) for x in v]
    if isinstance(v, list):
        return [_jsonable(x) for x in v]
    if isinstance(v, dict):
        return {k: _jsonable(x) for k, x in v.items()}
    return v


# --- fused_linear --------------------------------------------------------------------------

# activation -> (op type, attrs) of the sub-op applied after x @ weight + bias
ACTIVATIONS = {"none": None, "relu": ("relu", {}), "gelu": ("gelu", {"approximate": False}),
               "gelu_tanh": ("gelu", {"approximate": True}), "tanh": ("tanh", {}),
               "sigmoid": ("sigmoid", {}), "silu": ("silu", {})}


def _linear_nodes(activation: str, has_bias: bool):
    nodes = [(REGISTRY["linear"], [0, 1, 2 if has_bias else None], {})]
    act = ACTIVATIONS[activation]
    if act is not None:
        op = REGISTRY[act[0]]
        nodes.append((op, [3], {**op.attrs, **act[1]}))
    return nodes


def _check_activation(activation) -> None:
    if activation not in ACTIVATIONS:
        raise ValueError(f"fused_linear: activation must be one of {list(ACTIVATIONS)}, got "
                         f"{activation!r}")


@register
class FusedLinear(OpDef):
    """out = activation(x @ weight + bias) in one kernel (made by the `fuse_linear` pass
    from matmul + add (+ activation)); the activation runs in place on the GEMM result."""

    name = "fused_linear"
    inputs = ("x", "weight", "bias?")
    attrs = {"activation": "none"}
    saves = ("x", "weight", "bias")

    def infer(self, x, weight, bias=None, activation="none"):
        _check_activation(activation)
        out = REGISTRY["linear"].infer(x, weight, bias)
        act = ACTIVATIONS[activation]
        return out if act is None else REGISTRY[act[0]].infer(out, **act[1])

    def compute(self, xp, x, weight, bias=None, activation="none"):
        _check_activation(activation)
        out = REGISTRY["linear"].compute(xp, x, weight, bias)
        if activation == "none":
            return out
        if out.__class__ is not xp.ndarray:
            out = xp.asarray(out)
        if activation == "relu":
            return xp.maximum(out, out.dtype.type(0), out=out)
        if activation == "tanh":
            return xp.tanh(out, out=out)
        op, attrs = ACTIVATIONS[activation]
        return REGISTRY[op].compute(xp, out, **attrs)

    def vjp(self, ctx, g):
        nodes = _linear_nodes(ctx.activation, ctx.bias is not None)
        grads = chain_vjp(nodes, [ctx.x, ctx.weight, ctx.bias], ctx.needs, g,
                           ctx.create_graph)
        return tuple(grads)

    @staticmethod
    def decompose(x, weight, bias=None, activation="none"):
        out = call("matmul", x, weight, transpose_x=False, transpose_y=False)
        if bias is not None:
            out = out + bias
        act = ACTIVATIONS[activation]
        return out if act is None else call(act[0], out, **act[1])


def fused_linear(x, weight, bias=None, activation="none", name=None):
    """activation(x @ weight + bias) as one op.

    Args:
        x (Tensor): [..., in_features].
        weight (Tensor): [in_features, out_features].
        bias (Tensor, optional): broadcasts to the shape of x @ weight.
        activation (str): "none", "relu", "gelu", "gelu_tanh", "tanh", "sigmoid", "silu".
    Returns:
        Tensor: [..., out_features].
    """
    _check_activation(activation)
    return dispatch(REGISTRY["fused_linear"], (x, weight, bias), {"activation": activation})
