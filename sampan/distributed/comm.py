"""The MPI communicator behind sampan's collective OpDefs: mpi4py non-blocking calls on the
NumPy buffers themselves (no copies, no pickling), each waited on with a polling deadline so
that a rank that died or never joined raises a TimeoutError naming the rank and the call.
Reductions and broadcast can write into the caller's buffer (`out=x`, MPI_IN_PLACE): the
collective OpDefs' in-place form, which is what Paddle's in-place collectives mean.
Imports mpi4py lazily (only when a process group is created); imports only `ops` of sampan.
"""
from __future__ import annotations

import os
import time
from sys import getrefcount

import numpy as np

DEFAULT_TIMEOUT = float(os.environ.get("SAMPAN_DIST_TIMEOUT", "300"))
_SPIN = 0.05

# dtypes MPI reduces natively; others are reduced in a wider type and cast back
_NATIVE = {np.dtype(t) for t in ("float32", "float64", "int8", "int16", "int32", "int64",
                                 "uint8", "uint16", "uint32", "uint64", "complex64",
                                 "complex128")}


_MPI: list = []      # the mpi4py MPI module once imported (a list: no `global`)
_OPS: dict = {}      # reduce op name -> MPI.Op


def mpi():
    """The mpi4py MPI module, with a clear error when it is missing."""
    if _MPI:
        return _MPI[0]
    try:
        from mpi4py import MPI
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("paddle.distributed needs mpi4py and an MPI library: "
                          "pip install mpi4py mpich") from exc
    _OPS.update(sum=MPI.SUM, avg=MPI.SUM, max=MPI.MAX, min=MPI.MIN, prod=MPI.PROD)
    _MPI.append(MPI)
    return MPI


def _mpi_op(op: str):
    if not _OPS:
        mpi()
    return _OPS[op]


class Task:
    """A pending point-to-point or collective call (paddle's task): `wait()` blocks until it
    completes or the deadline passes; `is_completed()` polls once (and so also lets MPI
    progress the call, which MPICH does only inside MPI calls)."""

    def __init__(self, comm: "MpiComm", requests, what: str, on_done=None) -> None:
        self._comm, self._reqs, self._what, self._on_done = comm, list(requests), what, on_done
        self._done = False

    def is_completed(self) -> bool:
        if not self._done and all(r.Test() for r in self._reqs):
            self._finish()
        return self._done

    def wait(self, timeout: float | None = None) -> bool:
        if not self._done:
            self._comm.wait_all(self._reqs, self._what, timeout)
            self._finish()
        return True

    def _finish(self) -> None:
        self._done = True
        if self._on_done is not None:
            self._on_done()


class MpiComm:
    """One process group over an mpi4py communicator (`rank`, `nranks`, `timeout` s)."""

    def __init__(self, comm, group_id: int = 0, timeout: float | None = None) -> None:
        self.comm = comm
        self.group_id = group_id
        self.rank = comm.Get_rank()
        self.nranks = comm.Get_size()
        self.timeout = DEFAULT_TIMEOUT if timeout is None else float(timeout)
        self._in_place = mpi().IN_PLACE
        self._spare = None   # (shape, dtype, array): the last large all_gather/alltoall result

    def wait_all(self, reqs, what: str, timeout: float | None = None) -> None:
        """Poll `reqs` until all complete; past the deadline raise naming rank and call."""
        test = reqs[0].Test if len(reqs) == 1 else (lambda: mpi().Request.Testall(reqs))
        if test():
            return
        limit = self.timeout if timeout is None else timeout
        clock = time.monotonic
        start = clock()
        spin_until, deadline = start + _SPIN, start + limit
        # MPICH progresses non-blocking calls only inside MPI calls: spin on Test for the
        # first _SPIN seconds (the common, fast case; MPI's blocking calls spin too; a
        # sched_yield in this loop cost ~200 us per small call on a busy machine), then
        # poll with growing sleeps up to 1 ms
        while not test():
            if clock() > spin_until:
                break
        else:
            return
        pause = 1e-5
        while not test():
            if clock() > deadline:
                raise TimeoutError(
                    f"paddle.distributed.{what}: rank {self.rank} of {self.nranks} (group "
                    f"{self.group_id}) waited {limit:g} s and the call did not complete; "
                    f"another rank has died, hung or never joined (set the limit with "
                    f"init_parallel_env(timeout=...) or SAMPAN_DIST_TIMEOUT)")
            time.sleep(pause)
            pause = min(pause * 2, 1e-3)

    def _output(self, shape: tuple, dtype):
        """A result array: the previous one (>= 64 KB) of this shape and dtype when nothing
        references it any more (its pages are mapped: fresh memory costs first-touch page
        faults, 40-60% of a 64 MB all_gather), else a new one, kept as the next spare."""
        spare = self._spare
        if (spare is not None and spare[0] == shape and spare[1] == dtype
                and _spare_refs(spare) <= _FREE):
            return spare[2]
        out = np.empty(shape, dtype)
        self._spare = (shape, dtype, out) if out.nbytes >= _SPARE_MIN else None
        return out

    def _run(self, req, what: str) -> None:
        if not req.Test():   # a small call on a ready peer is done at the first test
            self.wait_all([req], what)

    # --- collectives on NumPy arrays ------------------------------------------------------
    # all_reduce, broadcast and reduce take `out`: None for a fresh result, or `x` itself
    # (a C-contiguous writeable array) to reduce in place, as Paddle's collectives do.
    def all_reduce(self, x, op: str, out=None):
        if out is x and x.dtype in _NATIVE and x.flags.c_contiguous:
            self._run(self.comm.Iallreduce(self._in_place, x, _OPS[op]), "all_reduce")
            return x if op != "avg" else _average(x, op, self.nranks)
        src, back = _reducible(x)
        res = np.empty_like(src)
        self._run(self.comm.Iallreduce(src, res, _mpi_op(op)), "all_reduce")
        return _into(out, back(_average(res, op, self.nranks)))

    def broadcast(self, x, src: int, out=None):
        buf = x if out is x else np.array(x, copy=True, order="C")
        self._run(self.comm.Ibcast(_buf(buf), src),
                  "broadcast")
        return buf

    def all_gather(self, x):
        shape = np.shape(x)  # ascontiguousarray makes a 0-D array 1-D
        x = np.ascontiguousarray(x)
        out = self._output((self.nranks,) + shape, x.dtype)
        self._run(self.comm.Iallgather(_buf(x), _buf(out)), "all_gather")
        return out

    def reduce(self, x, op: str, dst: int, out=None):
        src, back = _reducible(x)
        root = self.rank == dst
        if out is x and src is x:
            send = self._in_place if root else x
            self._run(self.comm.Ireduce(send, x if root else None, _mpi_op(op), root=dst),
                      "reduce")
            return _average(x, op, self.nranks) if root else x
        res = np.empty_like(src) if root else None
        self._run(self.comm.Ireduce(src, res, _mpi_op(op), root=dst), "reduce")
        if not root:
            return x if out is x else back(src.copy())
        return _into(out, back(_average(res, op, self.nranks)))

    def scatter(self, x, src: int):
        x = np.ascontiguousarray(x)
        out = np.empty(x.shape[1:], x.dtype)
        self._run(self.comm.Iscatter(_buf(x), _buf(out), root=src), "scatter")
        return out

    def reduce_scatter(self, x, op: str):
        x, back = _reducible(x)
        out = np.empty(x.shape[1:], x.dtype)
        self._run(self.comm.Ireduce_scatter_block(x, out, _mpi_op(op)), "reduce_scatter")
        return back(_average(out, op, self.nranks))

    def alltoall(self, x):
        x = np.ascontiguousarray(x)
        out = self._output(x.shape, x.dtype)
        self._run(self.comm.Ialltoall(_buf(x), _buf(out)), "alltoall")
        return out

    def send(self, x, peer: int) -> None:
        self.isend(x, peer).wait()

    def recv(self, shape, dtype, peer: int):
        out = np.empty(shape, dtype)
        self.irecv(out, peer).wait()
        return out

    def barrier(self) -> None:
        self._run(self.comm.Ibarrier(), "barrier")

    # --- non-blocking forms -----------------------------------------------------------------
    def isend(self, x, peer: int) -> Task:
        x = np.ascontiguousarray(x)
        return Task(self, [self.comm.Isend(_buf(x), dest=peer, tag=7)], "send")

    def irecv(self, out, peer: int, on_done=None) -> Task:
        return Task(self, [self.comm.Irecv(_buf(out), source=peer, tag=7)], "recv", on_done)

    def iall_reduce(self, x, op: str, what: str = "all_reduce") -> Task:
        """Start an in-place all_reduce of the contiguous buffer `x` (DataParallel buckets)."""
        return Task(self, [self.comm.Iallreduce(self._in_place, x, _mpi_op(op))], what)


def _spare_refs(spare) -> int:
    return getrefcount(spare[2])


_FREE = _spare_refs(((), None, object()))   # the count when only the spare tuple holds it
_SPARE_MIN = 1 << 16   # from about where malloc maps fresh pages per call


def _buf(x):
    """The C-contiguous array as an MPI buffer: itself for the dtypes MPI knows (mpi4py reads
    the type from it), else its memory as bytes (any dtype, incl. bfloat16 and bool)."""
    if x.dtype in _NATIVE:
        return x
    return [x.reshape(-1).view(np.uint8), mpi().BYTE]


def _reducible(x):
    """(array MPI can reduce, function restoring the original dtype); x itself when it is a
    C-contiguous array of a dtype MPI reduces natively."""
    if x.dtype in _NATIVE and x.flags.c_contiguous:
        return x, _same
    x = np.ascontiguousarray(x)
    if x.dtype in _NATIVE:
        return x, _same
    dtype = x.dtype
    wide = np.float64 if dtype.kind == "f" or dtype.name == "bfloat16" else np.int64
    return x.astype(wide), lambda a: a.astype(dtype)


def _same(a):
    return a


def _into(out, result):
    """`result`, written into `out` when the caller asked for an in-place call."""
    if out is None:
        return result
    out[...] = result
    return out


def _average(out, op: str, n: int):
    if op != "avg":
        return out
    if out.dtype.kind in "iub":
        out //= n
        return out
    out /= n
    return out
