"""The backward engine: walks GradNodes in reverse topological order and runs each op's vjp.

The vjp rules are sampan ops, so with `create_graph=True` the gradients are recorded on the
tape themselves (higher-order gradients). Imports `framework` and `ops`.
"""
from __future__ import annotations

import numpy as np

from ..framework.flags import STATE
from ..framework.node import Packed
from ..framework.tensor import Tensor, wrap
from ..ops.dispatch import call


class _Ctx:
    """What a vjp sees: saved inputs and outputs by name, attrs by name (defaults filled),
    `needs` per input slot, and `in_shapes` per flattened input that needs a grad (so a rule
    that only needs an input's shape can leave the input out of `saves`)."""

    def __init__(self, node) -> None:
        attrs = {**node.op.attrs, **node.attrs}  # defaults first: callers may omit attrs
        self.__dict__.update(attrs)
        self.attrs = attrs


def _build_ctx(node) -> _Ctx:
    op = node.op
    if node.freed:
        raise RuntimeError(
            f"backward: the graph through op '{op.name}' was already freed by an earlier "
            f"backward; pass retain_graph=True to the first backward to run it twice")
    ctx = _Ctx(node)
    if node.saved:
        for (name, value), version in zip(node.saved.items(), node.versions):
            _check_version(op, name, value, version)
            setattr(ctx, name, _as_saved(value))
    if node.saved_out:
        for name, arr, ref, version in node.saved_out:
            t = ref()
            if isinstance(arr, Packed):
                arr = to_array_of(op, name, arr.get())
            elif t is not None and t._version != version:
                _version_error(op, name, t._version, version)
            out = wrap(arr)
            idx = op.outputs.index(name)
            if idx not in op.nondiff_outputs and not np.issubdtype(arr.dtype, np.integer):
                out.stop_gradient = False
                out._node = node
                out._out_idx = idx
            setattr(ctx, name, out)
    ctx.in_shapes = [None if e is None else e[0].out_meta[e[1]][0] if isinstance(e, tuple)
                     else e._data.shape for e in node.edges]
    needs = []
    pos = 0
    for variadic, name in zip(op.variadic, op.input_names):
        if variadic:
            count = len(node.saved[name]) if node.saved and name in node.saved else None
            if count is None:
                count = len(node.edges) - (len(op.input_names) - 1)
            needs.append(tuple(e is not None for e in node.edges[pos:pos + count]))
            pos += count
        else:
            needs.append(node.edges[pos] is not None)
            pos += 1
    ctx.needs = tuple(needs)
    return ctx


def to_array_of(op, name, value):
    if not isinstance(value, Tensor):
        raise TypeError(f"saved_tensors_hooks: unpack_hook must return a Tensor for "
                        f"'{name}' of op '{op.name}', got {type(value).__name__}")
    return value._data


def _as_saved(value):
    if isinstance(value, list):
        return [_as_saved(v) for v in value]
    if isinstance(value, Packed):
        value = value.get()
        if not isinstance(value, Tensor):
            raise TypeError(f"saved_tensors_hooks: unpack_hook must return a Tensor, got "
                            f"{type(value).__name__}")
        return value
    if value is None or isinstance(value, Tensor):
        return value
    return wrap(np.asarray(value))


def _check_version(op, name, value, version) -> None:
    if isinstance(value, list):
        for v, ver in zip(value, version):
            _check_version(op, name, v, ver)
    elif isinstance(value, Tensor) and value._version != version:
        _version_error(op, name, value._version, version)


def _version_error(op, name, now, then):
    raise RuntimeError(
        f"backward: input '{name}' of op '{op.name}' was saved for the gradient and then "
        f"modified by an in-place operation (its version is {now}, expected {then}); "
        f"use the out-of-place form or clone() before modifying it")


def unbroadcast(grad: Tensor, shape: tuple) -> Tensor:
    """Sum `grad` over the dimensions that broadcasting added or expanded to reach `shape`."""
    gshape = tuple(grad.shape)
    if gshape == tuple(shape):
        return grad
    lead = len(gshape) - len(shape)
    axes = list(range(lead))
    axes += [lead + i for i, d in enumerate(shape) if d == 1 and gshape[lead + i] != 1]
    if axes:
        grad = call("sum", grad, axis=axes, keepdim=True, dtype=None)
    return call("reshape", grad, shape=list(shape))


def flatten_grads(op, grads) -> list:
    if not isinstance(grads, (tuple, list)):
        grads = (grads,)
    if len(grads) != len(op.input_names):
        raise RuntimeError(f"vjp of '{op.name}' returned {len(grads)} gradients for "
                           f"{len(op.input_names)} inputs")
    flat = []
    for g, variadic in zip(grads, op.variadic):
        if variadic:
            flat.extend(g)
        else:
            flat.append(g)
    return flat


class _GradMode:
    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled

    def __enter__(self):
        self.prev = STATE.grad_enabled
        STATE.grad_enabled = self.enabled

    def __exit__(self, *exc):
        STATE.grad_enabled = self.prev


def _apply_hooks(hooks, grad):
    for hook in list(hooks):
        new = hook(grad)
        if new is not None:
            grad = new
    return grad


def _add(a, b):
    if a is None:
        return b
    return call("add", a, b)


def run_backward(roots, root_grads, retain_graph=False, create_graph=False, targets=None):
    """Propagate `root_grads` from `roots` through the tape.

    targets None: accumulate into leaves' `.grad` (Tensor.backward). Otherwise a list of
    tensors whose gradients are returned in order (paddle.grad), leaving `.grad` untouched.
    """
    buffers: dict = {}
    leaf_grads: dict = {}
    capture_nodes: dict = {}
    if targets is not None:
        for i, t in enumerate(targets):
            if t._node is not None:
                capture_nodes.setdefault((id(t._node), t._out_idx), []).append(i)
    captured = [None] * (len(targets) if targets is not None else 0)
    target_ids = {id(t): i for i, t in enumerate(targets or ()) if t._node is None}

    with _GradMode(create_graph):
        start = []
        for r, g in zip(roots, root_grads):
            if r._node is None:
                _send_leaf(r, g, leaf_grads, targets, target_ids, captured, create_graph)
            else:
                slot = buffers.setdefault(r._node, [None] * len(r._node.out_meta))
                slot[r._out_idx] = _add(slot[r._out_idx], g)
                start.append(r._node)
        order = _topo_order(start, None if targets is None else _needed(start, targets))
        for node in order:
            grads = buffers.pop(node, None)
            if grads is None:
                continue
            _run_node(node, grads, buffers, leaf_grads, targets, target_ids, captured,
                      capture_nodes, create_graph)
            if not retain_graph:
                node.saved = None
                node.saved_out = None
                node.freed = True
    if targets is None:
        for leaf, g in leaf_grads.values():
            _accumulate(leaf, g, create_graph)
    return captured


def _run_node(node, grads, buffers, leaf_grads, targets, target_ids, captured,
              capture_nodes, create_graph):
    op = node.op
    if node.hooks or capture_nodes:
        for i, g in enumerate(grads):
            if node.hooks and i in node.hooks and g is not None:
                grads[i] = g = _apply_hooks(node.hooks[i], g)
            for k in capture_nodes.get((id(node), i), ()):
                captured[k] = g
    if None in grads:
        if all(g is None for g in grads):
            return
        if not op.none_grads:
            grads = _zero_fill(op, node, grads)
    ctx = _build_ctx(node)
    in_grads = flatten_grads(op, op.vjp(ctx, *grads))
    for edge, g in zip(node.edges, in_grads):
        if edge is None or g is None:
            continue
        if not isinstance(g, Tensor):
            raise TypeError(f"vjp of '{op.name}' returned {type(g).__name__}, not a Tensor")
        if isinstance(edge, tuple):
            src, idx = edge
            shape = src.out_meta[idx][0]
        else:
            shape = edge._data.shape
        if g._data.shape != shape:
            g = unbroadcast(g, shape)
        if isinstance(edge, tuple):
            slot = buffers.setdefault(src, [None] * len(src.out_meta))
            dtype = src.out_meta[idx][1]
            if g._data.dtype != dtype:
                g = call("cast", g, dtype=str(dtype))
            slot[idx] = _add(slot[idx], g)
        else:
            _send_leaf(edge, g, leaf_grads, targets, target_ids, captured, create_graph)


def _zero_fill(op, node, grads) -> list:
    """Zeros for the differentiable outputs that got no gradient. An OpDef that sets
    `none_grads = True` receives None for them instead (its vjp skips their terms: no
    full-size zeros allocated and multiplied, e.g. the unused softmax output of
    softmax_with_cross_entropy)."""
    nondiff = op.nondiff_outputs
    return [g if g is not None or i in nondiff else wrap(np.zeros(shape, dtype))
            for i, (g, (shape, dtype)) in enumerate(zip(grads, node.out_meta))]


def _send_leaf(leaf, g, leaf_grads, targets, target_ids, captured, create_graph):
    if g._data.dtype != leaf._data.dtype:
        g = call("cast", g, dtype=leaf.dtype.name)
    if leaf._hooks:
        g = _apply_hooks(leaf._hooks, g)
    if targets is not None:
        k = target_ids.get(id(leaf))
        if k is not None:
            captured[k] = _add(captured[k], g)
        return
    prev = leaf_grads.get(id(leaf))
    leaf_grads[id(leaf)] = (leaf, g if prev is None else _add(prev[1], g))


def _accumulate(leaf, g, create_graph):
    if not create_graph:
        g = wrap(g._data)
    if leaf._grad is None:
        leaf._grad = g
    else:
        with _GradMode(create_graph):
            leaf._grad = call("add", leaf._grad, g)


def _children(node):
    for edge in node.edges:
        if isinstance(edge, tuple):
            yield edge[0]


def _topo_order(start, needed) -> list:
    """Nodes reachable from `start`, each after every node that feeds it a gradient."""
    seen = set()
    post = []
    for root in start:
        if id(root) in seen:
            continue
        seen.add(id(root))
        stack = [(root, _children(root))]
        while stack:
            node, it = stack[-1]
            for child in it:
                if id(child) not in seen and (needed is None or id(child) in needed):
                    seen.add(id(child))
                    stack.append((child, _children(child)))
                    break
            else:
                stack.pop()
                post.append(node)
    post.reverse()
    return post


def _needed(start, targets) -> set:
    """ids of nodes from which some target is reachable (prunes paddle.grad's walk)."""
    target_nodes = {id(t._node) for t in targets if t._node is not None}
    target_leaves = {id(t) for t in targets if t._node is None}
    memo: dict = {}

    def visit(node) -> bool:
        key = id(node)
        if key in memo:
            return memo[key]
        memo[key] = False
        hit = key in target_nodes
        for edge in node.edges:
            if isinstance(edge, tuple):
                hit = visit(edge[0]) or hit
            elif edge is not None and id(edge) in target_leaves:
                hit = True
        memo[key] = hit
        return hit

    import sys
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 100000))
    try:
        for node in start:
            visit(node)
    finally:
        sys.setrecursionlimit(limit)
    return {k for k, v in memo.items() if v}
