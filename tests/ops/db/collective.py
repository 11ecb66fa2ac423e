"""Op database entries for sampan/ops/collective.py: the single-process semantics (rank 0 of
1, before init_parallel_env); tests/distributed/ checks them across real ranks."""
import numpy as np

from sampan.ops.dispatch import call
from tests.ops.op_db import OpEntry, Sample


def _plain(rng, dt):
    return [Sample((rng.standard_normal((3, 4)).astype(dt),)),
            Sample((np.asarray(1.5, dt),)),
            Sample((rng.standard_normal((4, 3)).astype(dt).T,))]


def _stacked(rng, dt):
    return [Sample((rng.standard_normal((1, 3, 2)).astype(dt),)),
            Sample((rng.standard_normal((1,)).astype(dt),))]


def _send_recv(x):
    call("send", x, peer=0)
    return call("recv", shape=list(x.shape), dtype=str(x.dtype).replace("paddle.", ""),
                peer=0)


def _barrier(x):
    return call("barrier") + x.astype("int32")


ENTRIES = [
    OpEntry("all_reduce", lambda x: call("all_reduce", x, op="sum"), lambda x: x, _plain,
            name="all_reduce_sum"),
    OpEntry("all_reduce", lambda x: call("all_reduce", x, op="avg"), lambda x: x, _plain,
            name="all_reduce_avg"),
    OpEntry("all_reduce", lambda x: call("all_reduce", x, op="max"), lambda x: x, _plain,
            grad=False, name="all_reduce_max"),
    OpEntry("broadcast", lambda x: call("broadcast", x, src=0), lambda x: x, _plain,
            grad=False),
    OpEntry("all_gather", lambda x: call("all_gather", x), lambda x: x[None], _plain,
            grad=False),
    OpEntry("reduce", lambda x: call("reduce", x, op="prod", dst=0), lambda x: x, _plain,
            grad=False),
    OpEntry("c_scatter", lambda x: call("c_scatter", x, src=0), lambda x: x[0], _stacked,
            grad=False),
    OpEntry("reduce_scatter", lambda x: call("reduce_scatter", x, op="sum"),
            lambda x: x[0], _stacked, grad=False),
    OpEntry("alltoall", lambda x: call("alltoall", x), lambda x: x, _stacked, grad=False),
    OpEntry("send", lambda x: _send_recv(x), lambda x: x, _plain, grad=False,
            name="send_recv"),
    OpEntry("recv", lambda x: _send_recv(x), lambda x: x, _plain, grad=False),
    OpEntry("barrier", _barrier, lambda x: x.astype("int32"), _plain, grad=False,
            dtypes=("float64",)),
]
