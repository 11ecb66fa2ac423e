"""paddle.DataParallel: replicate a Layer on every rank and average its gradients.

Gradients are all-reduced in fused buckets while backward runs (Paddle's reducer): buckets
hold the parameters in reverse order (about the order backward finishes them); each
trainable parameter has a gradient hook, which the engine runs as soon as that gradient is
complete; the hook copies it (plus any gradient accumulated before) into its bucket's flat
buffer, and a full bucket starts a non-blocking in-place MPI all-reduce at once, in bucket
order on every rank. At the end of backward (an engine callback) the buckets are waited on
and `.grad` becomes the average, a view of the bucket buffer. `no_sync()` skips all this so
gradients accumulate locally until the next synchronised backward.
"""
from __future__ import annotations

import contextlib

import numpy as np

from ..autograd import no_grad
from ..autograd.engine import queue_callback
from ..framework.tensor import _grad_of
from ..nn.layer.layers import Layer
from .env import _group

_MB = 1024 * 1024


def _reachable_leaves(outputs) -> set:
    """ids of the leaf tensors the tape reaches from `outputs` (a nested structure)."""
    stack, seen, leaves = [], set(), set()
    todo = [outputs]
    while todo:
        item = todo.pop()
        if isinstance(item, (list, tuple)):
            todo.extend(item)
        elif isinstance(item, dict):
            todo.extend(item.values())
        elif getattr(item, "_node", None) is not None:
            stack.append(item._node)
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        for edge in node.edges:
            if edge is None:
                continue
            if edge.__class__ is tuple:
                stack.append(edge[0])
            else:
                leaves.add(id(edge))
    return leaves


class _Bucket:
    """Parameters (one dtype) whose gradients travel in one fused all-reduce."""

    def __init__(self, params: list) -> None:
        self.params = params
        self.offsets = np.cumsum([0] + [p._data.size for p in params]).tolist()
        self.dtype = params[0]._data.dtype
        self.reset()

    def reset(self) -> None:
        self.waiting = len(self.params)
        self.buffer = None
        self.task = None

    def slot(self, k: int):
        """Parameter k's part of the flat buffer (allocated on first use in a pass)."""
        if self.buffer is None:
            self.buffer = np.empty(self.offsets[-1], self.dtype)
        return self.buffer[self.offsets[k]:self.offsets[k + 1]]


class DataParallel(Layer):
    """Run `layers` data-parallel: every rank holds a replica (parameters broadcast from
    rank 0 at construction) and backward averages the gradients over the ranks.

    Args:
        layers (Layer): the model.
        strategy: accepted for Paddle compatibility; unused.
        comm_buffer_size (int): bucket size in MB. Default 25.
        last_comm_buffer_size (float): size in MB of the first bucket to become ready (the
            last parameters). Default 1.
        find_unused_parameters (bool): allow parameters that the forward does not use (their
            gradient counts as zero). Default False: such a parameter raises an error.
        group (Group, optional): the ranks to average over. Default all.

    Examples:
        >>> import sampan as paddle
        >>> model = paddle.DataParallel(paddle.nn.Linear(2, 1))
        >>> sorted(model.state_dict())
        ['bias', 'weight']
    """

    def __init__(self, layers, strategy=None, comm_buffer_size=25, last_comm_buffer_size=1,
                 find_unused_parameters=False, group=None) -> None:
        super().__init__()
        if not isinstance(layers, Layer):
            raise TypeError(f"DataParallel: layers must be a paddle.nn.Layer, got "
                            f"{type(layers).__name__}")
        for arg, value in (("comm_buffer_size", comm_buffer_size),
                           ("last_comm_buffer_size", last_comm_buffer_size)):
            if not isinstance(value, (int, float)) or value <= 0:
                raise ValueError(f"DataParallel: {arg} must be a positive number of MB, "
                                 f"got {value!r}")
        self._layers = layers
        self.find_unused_parameters = bool(find_unused_parameters)
        self._group = _group("DataParallel", group)
        self._sync = True
        self._params = [p for p in layers.parameters() if not p.stop_gradient]
        self._buckets, self._slot_of = self._make_buckets(comm_buffer_size * _MB,
                                                          last_comm_buffer_size * _MB)
        self._expected: set = set()   # ids of the parameters the last forward used
        self._ready: set = set()      # ids of those whose gradient is in its bucket
        self._next = 0                # index of the next bucket to launch
        if self._group.nranks > 1:
            self._broadcast_state()
            for p in self._params:
                p.register_hook(self._hook_for(p))

    def _make_buckets(self, size: float, first_size: float):
        """Buckets in reverse parameter order (about the order backward finishes them):
        (list of buckets in launch order, {id(param): (bucket, index in bucket)})."""
        groups, current, nbytes, limit = [], [], 0, first_size
        for p in reversed(self._params):
            if current and (nbytes + p._data.nbytes > limit
                            or p._data.dtype != current[0]._data.dtype):
                groups.append(current)
                current, nbytes, limit = [], 0, size
            current.append(p)
            nbytes += p._data.nbytes
        if current:
            groups.append(current)
        buckets = [_Bucket(g) for g in groups]
        slot_of = {id(p): (b, k) for b in buckets for k, p in enumerate(b.params)}
        return buckets, slot_of

    def _broadcast_state(self) -> None:
        comm = self._group.comm
        src = 0
        with no_grad():
            for t in list(self._layers.parameters()) + list(self._layers.buffers()):
                t._data = comm.broadcast(t._data, src)

    def forward(self, *inputs, **kwargs):
        outputs = self._layers(*inputs, **kwargs)
        if self._group.nranks > 1 and self._sync:
            self._note_used(_reachable_leaves(outputs))
        return outputs

    def _note_used(self, used: set) -> None:
        if not used:
            return   # evaluation or no_grad: nothing will flow back
        if self._ready:   # the last backward raised before its end: drop its buckets
            for bucket in self._buckets:
                if bucket.task is not None:
                    bucket.task.wait()
                bucket.reset()
            self._expected, self._ready, self._next = set(), set(), 0
        unused = [p for p in self._params if id(p) not in used]
        if unused and not self.find_unused_parameters:
            names = [p.name for p in unused][:5]
            raise RuntimeError(f"DataParallel: {len(unused)} trainable parameters (e.g. "
                               f"{names}) are not used by the forward; pass "
                               f"find_unused_parameters=True")
        self._expected.update(id(p) for p in self._params if id(p) in used)

    def _hook_for(self, param):
        def hook(grad):
            if self._sync and id(param) in self._expected:
                self._on_grad(param, grad._data)
            return None
        return hook

    def _on_grad(self, param, grad) -> None:
        """`param`'s gradient of this pass is complete: put it in its bucket; start every
        bucket that is full and next in order; let MPI progress the ones in flight."""
        if not self._ready:   # the first gradient of this backward pass
            queue_callback(self._finish)
            for p in self._params:
                if id(p) not in self._expected:
                    self._fill(p, None)   # unused (find_unused_parameters): zero
        self._fill(param, grad)
        for bucket in self._buckets[:self._next]:
            if bucket.task is not None and bucket.task.is_completed():
                bucket.task = None

    def _fill(self, param, grad) -> None:
        """Write `param`'s full gradient (accumulated .grad + this pass's `grad`, either
        may be missing) into its bucket; launch the buckets that became ready."""
        bucket, k = self._slot_of[id(param)]
        out = bucket.slot(k)
        base = param._grad
        param._grad = None   # in the bucket now; the engine then stores `grad` without a sum
        if base is None and grad is None:
            out[...] = 0
        elif base is None or grad is None:
            out[...] = (grad if base is None else base._data).reshape(-1)
        else:
            np.add(base._data.reshape(-1), grad.reshape(-1), out=out)
        self._ready.add(id(param))
        bucket.waiting -= 1
        buckets = self._buckets
        while self._next < len(buckets) and buckets[self._next].waiting == 0:
            self._launch(buckets[self._next])
            self._next += 1

    def _launch(self, bucket: _Bucket) -> None:
        comm = self._group.comm
        start = getattr(comm, "iall_reduce", None)
        if start is None:   # a communicator without non-blocking calls
            bucket.buffer = comm.all_reduce(bucket.buffer, "sum", out=bucket.buffer)
        else:
            bucket.task = start(bucket.buffer, "sum", "DataParallel all_reduce")

    def _finish(self) -> None:
        """End of backward: launch what is left (parameters that got no gradient count as
        zero), wait for every bucket in order, and set `.grad` to the averages."""
        for p in self._params:
            if id(p) not in self._ready:
                self._fill(p, None)
        n = self._group.nranks
        for bucket in self._buckets:
            if bucket.task is not None:
                bucket.task.wait()
            flat = bucket.buffer
            flat /= n
            for k, p in enumerate(bucket.params):
                p._grad = _grad_of(flat[bucket.offsets[k]:bucket.offsets[k + 1]]
                                   .reshape(p._data.shape))  # as any .grad (Paddle)
            bucket.reset()
        self._expected, self._ready, self._next = set(), set(), 0

    @contextlib.contextmanager
    def no_sync(self):
        """Within this context gradients are not all-reduced; they accumulate locally and
        the next synchronised backward all-reduces the accumulated sum."""
        prev, self._sync = self._sync, False
        try:
            yield
        finally:
            self._sync = prev

    def state_dict(self, *args, **kwargs):
        return self._layers.state_dict(*args, **kwargs)

    def set_state_dict(self, state_dict, use_structured_name=True):
        return self._layers.set_state_dict(state_dict, use_structured_name)

    set_dict = set_state_dict
    load_dict = set_state_dict

    def scale_loss(self, loss):
        """Deprecated in Paddle: the loss is returned unchanged (gradients are averaged)."""
        return loss

    def apply_collective_grads(self) -> None:
        """Deprecated in Paddle: gradients are already all-reduced during backward."""
        return None
