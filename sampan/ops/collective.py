"""Collective operators (all_reduce, broadcast, all_gather, ...) as OpDefs over a pluggable
communicator table, so they run eagerly, in static Programs and under to_static alike.

A communicator is looked up by the `ring_id` attr. This module only holds the table and a
single-rank communicator (rank 0 of 1, the semantics before `init_parallel_env`);
`sampan.distributed` enters its MPI communicators here. all_reduce, broadcast and reduce
also have an in-place form (`update`, as the optimizer OpDefs do) that writes into the
tensor's own buffer, which is what Paddle's collectives do. Imports `framework` and `ops`.
"""
from __future__ import annotations

from sys import getrefcount

from ..backend import numpy_ as _xp
from ..framework.flags import STATE
from .dispatch import call
from .opdef import REGISTRY, OpDef, TensorSpec, register

_ND = _xp.ndarray

REDUCE_OPS = ("sum", "max", "min", "prod", "avg")


class LocalComm:
    """The communicator of a single process: every collective is the identity on its data
    (with the stacked-per-rank layout of all_gather/scatter/alltoall of size 1)."""

    rank = 0
    nranks = 1

    def __init__(self) -> None:
        self._mailbox: list = []

    def all_reduce(self, x, op: str, out=None):
        return x if out is x else x.copy()

    def broadcast(self, x, src: int, out=None):
        return x if out is x else x.copy()

    def all_gather(self, x):
        return x[None].copy()

    def reduce(self, x, op: str, dst: int, out=None):
        return x if out is x else x.copy()

    def scatter(self, x, src: int):
        return x[0].copy()

    def reduce_scatter(self, x, op: str):
        return x[0].copy()

    def alltoall(self, x):
        return x.copy()

    def send(self, x, peer: int) -> None:
        self._mailbox.append(x.copy())

    def recv(self, shape, dtype, peer: int):
        if not self._mailbox:
            raise RuntimeError("recv: nothing was sent to rank 0 of a single-process group")
        return self._mailbox.pop(0).reshape(shape).astype(dtype, copy=False)

    def barrier(self) -> None:
        return None


_COMMS: dict = {0: LocalComm()}


def set_comm(ring_id: int, comm) -> None:
    """Make `comm` the communicator of group `ring_id` (None removes it; 0 falls back to the
    single-process communicator)."""
    if comm is None:
        _COMMS.pop(ring_id, None)
        if ring_id == 0:
            _COMMS[0] = LocalComm()
    else:
        _COMMS[ring_id] = comm


def get_comm(api: str, ring_id: int):
    """The communicator of group `ring_id`, or a clear error naming the API."""
    comm = _COMMS.get(ring_id)
    if comm is None:
        raise ValueError(f"{api}: no process group with id {ring_id} exists (create it with "
                         f"paddle.distributed.new_group on every rank)")
    return comm


def run_inplace(name: str, tensor, *attrs) -> bool:
    """Run collective `name` (all_reduce, broadcast, reduce) in place on `tensor`'s own
    buffer through its OpDef's `update` (`attrs`: the OpDef's attrs, in order), when
    nothing else can see the write or must see the call: this thread dispatches plainly (no
    static build target, AMP or profiler wrapper), the tensor needs no gradient, and it holds
    the only reference to a C-contiguous, writeable host array that owns its memory (two
    leaves' gradients may share one array; a NumPy handle from .numpy() or a view keeps its
    values). Returns False otherwise, and the caller dispatches the pure op. Saves the fresh
    result, whose first-touch page faults cost 10-15% at 16-64 MB."""
    if STATE.intercept is not None or not tensor.stop_gradient or _refs(tensor) > _SOLE:
        return False
    data = tensor._data
    if data.__class__ is not _ND or data.base is not None:
        return False
    flags = data.flags
    if not (flags.c_contiguous and flags.writeable):
        return False
    REGISTRY[name].update(_xp, data, *attrs)
    tensor._version += 1
    return True


def _refs(tensor) -> int:
    return getrefcount(tensor._data)


class _Probe:
    _data = None


_probe = _Probe()
_probe._data = object()
_SOLE = _refs(_probe)   # the count when the tensor's attribute is the only reference
del _probe


def _check_op(api: str, op: str) -> None:
    if op not in REDUCE_OPS:
        raise ValueError(f"{api}: op must be one of {list(REDUCE_OPS)}, got {op!r}")


def _check_rank(api: str, arg: str, value: int, comm) -> None:
    if not isinstance(value, int) or not 0 <= value < comm.nranks:
        raise ValueError(f"{api}: {arg} must be a rank in [0, {comm.nranks}) of the group, "
                         f"got {value!r}")


def _check_stacked(api: str, x: TensorSpec, comm) -> None:
    if x.ndim == 0 or x.shape[0] not in (comm.nranks, -1):
        raise ValueError(f"{api}: x must be stacked per rank with shape [nranks={comm.nranks}"
                         f", ...], got {list(x.shape)}")


@register
class AllReduce(OpDef):
    """out = the elementwise reduction (sum/max/min/prod/avg) of x over the group's ranks.
    The sum and average are linear, so their gradient is the same all_reduce of the
    cotangent (the gradient of every rank's copy flows back to every rank); max, min and
    prod carry no gradient."""
    name = "all_reduce"
    attrs = {"op": "sum", "ring_id": 0}
    saves = ()
    side_effects = True

    def infer(self, x, op="sum", ring_id=0):
        _check_op("all_reduce", op)
        get_comm("all_reduce", ring_id)
        return x

    def compute(self, xp, x, op="sum", ring_id=0):
        return get_comm("all_reduce", ring_id).all_reduce(x, op)

    def update(self, xp, x, op="sum", ring_id=0):
        """In place: x becomes the reduction (see run_inplace)."""
        get_comm("all_reduce", ring_id).all_reduce(x, op, out=x)

    def vjp(self, ctx, g):
        if ctx.op not in ("sum", "avg"):
            return (None,)
        return (call("all_reduce", g, op=ctx.op, ring_id=ctx.ring_id),)


@register
class Broadcast(OpDef):
    """out = x of rank `src` on every rank of the group."""
    name = "broadcast"
    attrs = {"src": 0, "ring_id": 0}
    side_effects = True

    def infer(self, x, src=0, ring_id=0):
        _check_rank("broadcast", "src", src, get_comm("broadcast", ring_id))
        return x

    def compute(self, xp, x, src=0, ring_id=0):
        return get_comm("broadcast", ring_id).broadcast(x, src)

    def update(self, xp, x, src=0, ring_id=0):
        """In place: x becomes rank src's x (see run_inplace)."""
        get_comm("broadcast", ring_id).broadcast(x, src, out=x)


@register
class AllGather(OpDef):
    """out[r] = x of rank r: shape [nranks, *x.shape] (the public all_gather unstacks it)."""
    name = "all_gather"
    attrs = {"ring_id": 0}
    side_effects = True

    def infer(self, x, ring_id=0):
        comm = get_comm("all_gather", ring_id)
        return x.with_shape((comm.nranks,) + x.shape)

    def compute(self, xp, x, ring_id=0):
        return get_comm("all_gather", ring_id).all_gather(x)


@register
class Reduce(OpDef):
    """On rank `dst`: the reduction of x over the group; other ranks keep x."""
    name = "reduce"
    attrs = {"op": "sum", "dst": 0, "ring_id": 0}
    side_effects = True

    def infer(self, x, op="sum", dst=0, ring_id=0):
        _check_op("reduce", op)
        _check_rank("reduce", "dst", dst, get_comm("reduce", ring_id))
        return x

    def compute(self, xp, x, op="sum", dst=0, ring_id=0):
        return get_comm("reduce", ring_id).reduce(x, op, dst)

    def update(self, xp, x, op="sum", dst=0, ring_id=0):
        """In place: on rank dst x becomes the reduction (see run_inplace)."""
        get_comm("reduce", ring_id).reduce(x, op, dst, out=x)


@register
class CScatter(OpDef):
    """out = x[r] of rank `src` on rank r; x is stacked per rank ([nranks, ...]). Named
    c_scatter (Paddle's op type) because `scatter` is the tensor indexing op."""
    name = "c_scatter"
    attrs = {"src": 0, "ring_id": 0}
    side_effects = True

    def infer(self, x, src=0, ring_id=0):
        comm = get_comm("scatter", ring_id)
        _check_rank("scatter", "src", src, comm)
        _check_stacked("scatter", x, comm)
        return x.with_shape(x.shape[1:])

    def compute(self, xp, x, src=0, ring_id=0):
        return get_comm("scatter", ring_id).scatter(x, src)


@register
class ReduceScatter(OpDef):
    """out on rank r = the reduction over ranks of their x[r]; x is [nranks, ...]."""
    name = "reduce_scatter"
    attrs = {"op": "sum", "ring_id": 0}
    side_effects = True

    def infer(self, x, op="sum", ring_id=0):
        _check_op("reduce_scatter", op)
        _check_stacked("reduce_scatter", x, get_comm("reduce_scatter", ring_id))
        return x.with_shape(x.shape[1:])

    def compute(self, xp, x, op="sum", ring_id=0):
        return get_comm("reduce_scatter", ring_id).reduce_scatter(x, op)


@register
class AllToAll(OpDef):
    """out[j] on rank r = x[r] of rank j; x and out are [nranks, ...]."""
    name = "alltoall"
    attrs = {"ring_id": 0}
    side_effects = True

    def infer(self, x, ring_id=0):
        _check_stacked("alltoall", x, get_comm("alltoall", ring_id))
        return x

    def compute(self, xp, x, ring_id=0):
        return get_comm("alltoall", ring_id).alltoall(x)


@register
class Send(OpDef):
    """Send x to rank `peer`; out is x (so a Program orders later ops after the send)."""
    name = "send"
    attrs = {"peer": 0, "ring_id": 0}
    side_effects = True

    def infer(self, x, peer=0, ring_id=0):
        _check_rank("send", "dst", peer, get_comm("send", ring_id))
        return x

    def compute(self, xp, x, peer=0, ring_id=0):
        get_comm("send", ring_id).send(x, peer)
        return x


@register
class Recv(OpDef):
    """out = the tensor of `shape` and `dtype` that rank `peer` sends."""
    name = "recv"
    inputs = ()
    attrs = {"shape": [], "dtype": "float32", "peer": 0, "ring_id": 0}
    side_effects = True

    def infer(self, shape=(), dtype="float32", peer=0, ring_id=0):
        _check_rank("recv", "src", peer, get_comm("recv", ring_id))
        return TensorSpec(shape, dtype)

    def compute(self, xp, shape=(), dtype="float32", peer=0, ring_id=0):
        return get_comm("recv", ring_id).recv(tuple(shape), dtype, peer)


@register
class Barrier(OpDef):
    """Wait until every rank of the group reaches the barrier; out is a 0-D int32 zero."""
    name = "barrier"
    inputs = ()
    attrs = {"ring_id": 0}
    side_effects = True

    def infer(self, ring_id=0):
        get_comm("barrier", ring_id)
        return TensorSpec((), "int32")

    def compute(self, xp, ring_id=0):
        get_comm("barrier", ring_id).barrier()
        return xp.zeros((), dtype="int32")
