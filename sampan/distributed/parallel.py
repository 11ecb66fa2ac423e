"""paddle.DataParallel: replicate a Layer on every rank and average its gradients.

Gradients are all-reduced in fused buckets: each trainable parameter has a gradient hook;
when every parameter of a bucket has its gradient for this backward pass, the bucket is
flattened into one contiguous buffer and a non-blocking MPI all-reduce starts on it; when the
last parameter is ready the buckets are waited on and the averaged gradients written to
`.grad`. `no_sync()` skips the all-reduce so gradients accumulate locally until the next
synchronised backward, which all-reduces the accumulated sum.
"""
from __future__ import annotations

import contextlib

import numpy as np

from ..autograd import no_grad
from ..framework.tensor import wrap
from ..nn.layer.layers import Layer
from .comm import MpiComm
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
    """Parameters whose gradients travel in one fused all-reduce."""

    def __init__(self, params: list) -> None:
        self.params = params
        self.waiting = len(params)
        self.buffer = None
        self.task = None


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
        self._buckets = self._make_buckets(comm_buffer_size * _MB, last_comm_buffer_size * _MB)
        self._expected: dict = {}
        self._values: dict = {}
        if self._group.nranks > 1:
            self._broadcast_state()
            for p in self._params:
                p.register_hook(self._hook_for(p))

    def _make_buckets(self, size: float, first_size: float) -> dict:
        """Buckets in reverse parameter order (about the order backward produces them);
        returns {id(param): bucket}."""
        by_param, current, nbytes, limit = {}, [], 0, first_size
        for p in reversed(self._params):
            if current and (nbytes + p._data.nbytes > limit
                            or p._data.dtype != current[0]._data.dtype):
                bucket = _Bucket(current)
                by_param.update((id(q), bucket) for q in current)
                current, nbytes, limit = [], 0, size
            current.append(p)
            nbytes += p._data.nbytes
        if current:
            bucket = _Bucket(current)
            by_param.update((id(q), bucket) for q in current)
        return by_param

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
        unused = [p for p in self._params if id(p) not in used]
        if unused and not self.find_unused_parameters:
            names = [p.name for p in unused][:5]
            raise RuntimeError(f"DataParallel: {len(unused)} trainable parameters (e.g. "
                               f"{names}) are not used by the forward; pass "
                               f"find_unused_parameters=True")
        for p in self._params:
            if id(p) in used:
                self._expected[id(p)] = p

    def _hook_for(self, param):
        def hook(grad):
            if not self._sync or id(param) not in self._expected:
                return None
            return self._ready(param, grad)
        return hook

    def _ready(self, param, grad):
        """Record `param`'s full gradient (earlier accumulation + this pass); launch its
        bucket when complete; after the last parameter, finish every bucket."""
        if not self._values:
            self._mark_unused_ready()
        base = param._grad
        total = grad._data if base is None else base._data + grad._data
        self._values[id(param)] = total
        self._bucket_done_one(self._buckets[id(param)])
        if len(self._values) < len(self._params):
            return None
        self._finish()
        value, self._values = self._values[id(param)], {}
        param._grad = None   # the engine accumulates the returned value into .grad
        return wrap(value)

    def _mark_unused_ready(self) -> None:
        for p in self._params:
            if id(p) not in self._expected:
                self._values[id(p)] = (np.zeros_like(p._data) if p._grad is None
                                       else p._grad._data)
                self._bucket_done_one(self._buckets[id(p)])

    def _bucket_done_one(self, bucket: _Bucket) -> None:
        bucket.waiting -= 1
        if bucket.waiting == 0:
            bucket.buffer = np.concatenate([self._values[id(p)].reshape(-1)
                                            for p in bucket.params])
            comm = self._group.comm
            if isinstance(comm, MpiComm):
                bucket.task = comm.iall_reduce(bucket.buffer, "sum", "DataParallel all_reduce")

    def _finish(self) -> None:
        n = self._group.nranks
        seen = set()
        for bucket in self._buckets.values():
            if id(bucket) in seen:
                continue
            seen.add(id(bucket))
            if bucket.task is not None:
                bucket.task.wait()
            flat, offset = bucket.buffer, 0
            for p in bucket.params:
                size = p._data.size
                value = (flat[offset:offset + size] / n).reshape(p._data.shape)
                self._values[id(p)] = value.astype(p._data.dtype, copy=False)
                offset += size
                p._grad = wrap(self._values[id(p)])
            bucket.waiting, bucket.buffer, bucket.task = len(bucket.params), None, None
        self._expected = {}

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
