"""The backward engine: walks GradNodes in reverse topological order and runs each op's vjp.

A node runs once every node feeding it a gradient has run (dependency counts from one walk
over the reachable graph, then a ready list). The vjp rules are sampan ops, so with
`create_graph=True` the gradients are recorded on the tape themselves (higher-order
gradients); without it nothing is recorded, and the rules' arithmetic, the gradient sums and
the broadcast reductions may run on the kernels directly (ops/vjp_context.grad_call), the
per-node Python cost being what small graphs pay. Imports `framework` and `ops`.
"""
from __future__ import annotations

import threading
from typing import Callable

import numpy as np

from ..framework.flags import HOT, STATE
from ..framework.node import Packed
from ..framework.tensor import Parameter, Tensor, _grad_of, wrap
from ..ops.dispatch import call
from ..ops.vjp_context import fill_missing, flatten_grads, make_ctx, unbroadcast


_ND = np.ndarray
_new = object.__new__
_np_add = np.add


class GraphFreedError(RuntimeError, SystemError):
    """Backward reached a node whose saved values an earlier backward freed. Paddle raises
    SystemError here; it is a RuntimeError too."""


def _build_ctx(node, create_graph: bool):
    """The node's VjpContext (ops/vjp_context.py): saved values unpacked and checked against
    in-place modification, per-input needs and shapes from the edges."""
    op = node.op
    if node.freed:
        raise GraphFreedError(
            f"backward: the saved values of op '{op.name}' do not exist. This may be "
            f"because:\nYou calculate backward twice for the same subgraph without setting "
            f"retain_graph=True. Please set retain_graph=True in the first backward/grad "
            f"call.")
    values = {}
    counts = None
    saved = node.saved
    if saved:
        for (name, value), version in zip(saved.items(), node.versions):
            cls = value.__class__
            if cls is Tensor or cls is Parameter:   # the common case, checked inline
                if value._version != version:
                    _version_error(op, name, value._version, version)
            else:
                _check_version(op, name, value, version)
                value = _as_saved(value)
            values[name] = value
        if op.has_variadic:
            counts = {name: len(v) for name, v in saved.items() if isinstance(v, list)}
    if node.saved_out:
        for name, arr, ref, version in node.saved_out:
            if arr.__class__ is Packed:
                arr = to_array_of(op, name, arr.get())
            else:
                t = ref()
                if t is not None and t._version != version:
                    _version_error(op, name, t._version, version)
            out = _new(Tensor)
            out._data = arr
            idx = op.outputs.index(name)
            if idx not in op.nondiff_outputs and arr.dtype.kind not in "iu":
                out.stop_gradient = False
                out._node = node
                out._out_idx = idx
            values[name] = out
    edges = node.edges
    in_shapes = [None if e is None else e[0].out_meta[e[1]][0] if e.__class__ is tuple
                 else e._data.shape for e in edges]
    attrs = node.attrs
    return make_ctx(op, {**op.attrs, **attrs} if attrs else dict(op.attrs), values,
                    [e is not None for e in edges], in_shapes, create_graph, counts)


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
        f"modified by an in-place operation (received tensor_version:{now} != "
        f"wrapper_version_snapshot:{then}, as Paddle words it); use the out-of-place form "
        f"or clone() before modifying it")


class _Runs(threading.local):
    """This thread's backward passes in progress (a hook may run a nested one)."""

    def __init__(self) -> None:
        self.stack: list = []


_RUNS = _Runs()


class _GradMode:
    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled

    def __enter__(self):
        self.prev = STATE.grad_enabled
        STATE.grad_enabled = self.enabled

    def __exit__(self, *exc):
        STATE.grad_enabled = self.prev


def _apply_hooks(hooks, grad):
    """Run the hooks in order, each on the previous result. As in Paddle, a hook sees the
    gradient as a tensor with stop_gradient=False (a second handle when the engine's own
    gradient stops gradient, so that paddle.grad's results keep stop_gradient=True)."""
    for hook in list(hooks):
        new = hook(_as_grad(grad))
        if new is not None:
            grad = new
    return grad


def _as_grad(g):
    """`g` as Paddle shows a gradient: stop_gradient=False (the same data, no copy)."""
    return g if not g.stop_gradient else _grad_of(g._data)


class _Run:
    """One backward pass: pending output grads per node, leaf grads, paddle.grad captures."""

    def __init__(self, targets, create_graph: bool) -> None:
        self.buffers: dict = {}
        self.leaf_grads: dict = {}
        self.targets = targets
        self.create_graph = create_graph
        self.capture_nodes: dict = {}
        self.target_ids: dict = {}
        self.captured = [None] * (len(targets) if targets is not None else 0)
        self.callbacks: list = []
        for i, t in enumerate(targets or ()):
            if t._node is not None:
                self.capture_nodes.setdefault((id(t._node), t._out_idx), []).append(i)
            else:
                self.target_ids[id(t)] = i

    def send(self, node, idx: int, g) -> None:
        slot = self.buffers.get(node)
        if slot is None:
            slot = self.buffers[node] = [None] * len(node.out_meta)
        prev = slot[idx]
        slot[idx] = g if prev is None else _sum(prev, g, self.create_graph)

    def send_leaf(self, leaf, g, user: bool = False) -> None:
        """Sum a leaf's contributions; its hooks run once on the sum (see finish). `user`:
        g is a tensor a PyLayer's backward returned, as it is."""
        if g._data.dtype != leaf._data.dtype:
            g = call("cast", g, dtype=leaf.dtype.name)
            user = False
        if self.targets is not None:
            k = self.target_ids.get(id(leaf))
            if k is not None:
                prev = self.captured[k]
                self.captured[k] = g if prev is None else _sum(prev, g, self.create_graph)
            return
        prev = self.leaf_grads.get(id(leaf))
        self.leaf_grads[id(leaf)] = ((leaf, g, user) if prev is None else
                                     (leaf, _sum(prev[1], g, self.create_graph), False))

    def finish_leaves(self, keys) -> None:
        """The gradients of these leaves are complete: run their hooks, accumulate."""
        for key in keys:
            entry = self.leaf_grads.pop(key, None)
            if entry is not None:
                leaf, g, user = entry
                if leaf._hooks:
                    g = _apply_hooks(leaf._hooks, g)
                _accumulate(leaf, g, self.create_graph, user)


def run_backward(roots, root_grads, retain_graph=False, create_graph=False, targets=None):
    """Propagate `root_grads` from `roots` through the tape.

    targets None: accumulate into leaves' `.grad` (Tensor.backward); a leaf's hooks run
    once, on the sum of its gradients in this pass, as soon as that sum is complete (after
    the last node with an edge to the leaf), so that a hook can act on a finished gradient
    while backward goes on (DataParallel starts its bucket all-reduce there); callbacks
    queued with `queue_callback` run at the end. Otherwise a list of tensors whose
    gradients are returned in order (paddle.grad), leaving `.grad` untouched; as in Paddle,
    a leaf target's hooks do not run (they belong to the accumulation into `.grad`), a
    non-leaf target's do.
    """
    run = _Run(targets, create_graph)
    _RUNS.stack.append(run)
    try:
        with _GradMode(create_graph):
            _propagate(run, roots, root_grads, retain_graph)
    finally:
        _RUNS.stack.pop()
    for fn in run.callbacks:
        fn()
    return run.captured


def _propagate(run: _Run, roots, root_grads, retain_graph: bool) -> None:
    """Run every node reachable from the roots once all the nodes feeding it a gradient
    have run (a ready list over dependency counts); after each node, finish the leaves whose
    last contributing node it was."""
    start = []
    for r, g in zip(roots, root_grads):
        if r._node is None:
            run.send_leaf(r, g)
        else:
            run.send(r._node, r._out_idx, g)
            start.append(r._node)
    targets = run.targets
    needed = None if targets is None else _needed(start, targets)
    deps, leaf_deps = _count_deps(start, needed, targets is None)
    ready = [n for n in dict.fromkeys(start) if not deps[n]]
    buffers = run.buffers
    while ready:
        node = ready.pop()
        grads = buffers.pop(node, None)
        if grads is not None:
            _run_node(node, grads, run)
            if not retain_graph:
                node.saved = None
                node.saved_out = None
                node.freed = True
        for edge in node.edges:
            if edge.__class__ is tuple:
                child = edge[0]
                n = deps.get(child)
                if n is not None:
                    deps[child] = n - 1
                    if n == 1:
                        ready.append(child)
            elif edge is not None and leaf_deps is not None:
                key = id(edge)
                n = leaf_deps[key] - 1
                leaf_deps[key] = n
                if not n:
                    run.finish_leaves((key,))
    run.finish_leaves(list(run.leaf_grads))   # leaves given as roots


def _count_deps(start, needed, leaves: bool):
    """({node: number of edges into it from the nodes to run}, {id(leaf): number of edges
    into it}, or None when `leaves` is False), over the nodes reachable from `start` (and in
    `needed`, a set of ids, unless None)."""
    deps: dict = {}
    leaf_deps: dict | None = {} if leaves else None
    stack = []
    for root in start:
        if root not in deps:
            deps[root] = 0
            stack.append(root)
    while stack:
        for edge in stack.pop().edges:
            if edge.__class__ is tuple:
                child = edge[0]
                if child in deps:
                    deps[child] += 1
                elif needed is None or id(child) in needed:
                    deps[child] = 1
                    stack.append(child)
            elif edge is not None and leaves:
                key = id(edge)
                leaf_deps[key] = leaf_deps.get(key, 0) + 1
    return deps, leaf_deps


def queue_callback(fn: Callable[[], object]) -> None:
    """Run `fn()` once when the running backward pass (Tensor.backward) ends, after every
    leaf's gradient is accumulated; called from a gradient hook (DataParallel waits for its
    bucket all-reduces there, as Paddle's reducer does in its backward final hook)."""
    if not _RUNS.stack:
        raise RuntimeError("queue_callback: no backward pass is running (call it from a "
                           "gradient hook)")
    _RUNS.stack[-1].callbacks.append(fn)


def _run_node(node, grads, run: _Run) -> None:
    op = node.op
    if node.hooks or run.capture_nodes:
        for i, g in enumerate(grads):
            if node.hooks and i in node.hooks and g is not None:
                grads[i] = g = _apply_hooks(node.hooks[i], g)
            for k in run.capture_nodes.get((id(node), i), ()):
                run.captured[k] = g
    for g in grads:   # (`None in grads` would call Tensor.__eq__)
        if g is None:
            if all(g is None for g in grads):
                return
            grads = fill_missing(op, grads, lambda i: wrap(np.zeros(*node.out_meta[i])))
            break
    ctx = _build_ctx(node, run.create_graph)
    in_grads = op.vjp(ctx, *grads)
    if in_grads.__class__ is not tuple or op.has_variadic or \
            len(in_grads) != len(op.input_names):
        in_grads = flatten_grads(op, in_grads)
    for edge, g in zip(node.edges, in_grads):
        if edge is None or g is None:
            continue
        if g.__class__ is not Tensor and not isinstance(g, Tensor):
            raise TypeError(f"vjp of '{op.name}' returned {type(g).__name__}, not a Tensor")
        if edge.__class__ is tuple:
            src, idx = edge
            shape, dtype = src.out_meta[idx]
            if g._data.shape != shape:
                g = unbroadcast(g, shape, run.create_graph)
            if g._data.dtype != dtype:
                g = call("cast", g, dtype=str(dtype))
            run.send(src, idx, g)
        else:
            user = getattr(op, "user_grads", False)   # a PyLayer: the user's tensors
            if g._data.shape != edge._data.shape:
                g = unbroadcast(g, edge._data.shape, run.create_graph)
                user = False
            run.send_leaf(edge, g, user)


def _sum(a, b, create_graph: bool):
    """a + b for two gradients: the add op, or (no create_graph, no dispatch wrapper, host
    arrays of one shape and dtype) NumPy's add on the arrays, the same kernel without the
    dispatch; gradients are never recorded then."""
    x, y = a._data, b._data
    if create_graph or HOT.active or x.__class__ is not _ND or y.__class__ is not _ND or \
            x.shape != y.shape or x.dtype != y.dtype:
        return call("add", a, b)
    out = _np_add(x, y)
    t = _new(Tensor)
    t._data = out if out.__class__ is _ND else np.asarray(out)   # 0-D: a NumPy scalar
    return t


def _accumulate(leaf, g, create_graph, user: bool = False):
    """Add `g` into `leaf.grad`. As in Paddle, a new `.grad` has stop_gradient=False (a
    leaf without create_graph; ops on it are recorded like on any such tensor) unless it is
    a PyLayer backward's own tensor (`user`), which keeps its flag; a sum into an existing
    `.grad` keeps that one's flag."""
    flag = g.stop_gradient if user and not create_graph else False
    if not create_graph:
        g = wrap(g._data)
    if leaf._grad is not None:
        flag = leaf._grad.stop_gradient and not create_graph
        g = _sum(leaf._grad, g, create_graph)
    g.stop_gradient = flag
    leaf._grad = g


def _children(node):
    for edge in node.edges:
        if isinstance(edge, tuple):
            yield edge[0]


def _needed(start, targets) -> set:
    """ids of nodes from which some target is reachable (prunes paddle.grad's walk).

    Iterative post-order walk (graphs may be deeper than Python's recursion limit)."""
    target_nodes = {id(t._node) for t in targets if t._node is not None}
    target_leaves = {id(t) for t in targets if t._node is None}
    hit: dict = {}
    for root in start:
        if id(root) in hit:
            continue
        hit[id(root)] = False
        stack = [(root, _children(root))]
        while stack:
            node, it = stack[-1]
            for child in it:
                if id(child) not in hit:
                    hit[id(child)] = False
                    stack.append((child, _children(child)))
                    break
            else:
                stack.pop()
                hit[id(node)] = _reaches(node, hit, target_nodes, target_leaves)
    return {k for k, v in hit.items() if v}


def _reaches(node, hit: dict, target_nodes: set, target_leaves: set) -> bool:
    if id(node) in target_nodes:
        return True
    for edge in node.edges:
        if edge.__class__ is tuple:
            if hit[id(edge[0])]:
                return True
        elif edge is not None and id(edge) in target_leaves:
            return True
    return False
