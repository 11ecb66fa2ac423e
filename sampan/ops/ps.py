"""Parameter-server operators: pull/push of sparse table rows and of dense parameters, the
end-of-step call and the server's `listen_and_serv`, as OpDefs over a pluggable client.

The static PS transpiler (`sampan.distributed.ps.transpiler`) writes these ops into the
trainer and server Programs. They reach the parameter server through the client entered
with `set_ps_client` (`fleet.init_worker` enters the MPI client; tests may enter the
in-process `LocalPS`) and the server loop entered with `set_ps_server`. Imports only `ops`.
"""
from __future__ import annotations

from .opdef import OpDef, TensorSpec, register

_RUNTIME: dict = {"client": None, "server": None}


def set_ps_client(client) -> None:
    """Make `client` (pull_sparse/push_sparse/pull_dense/push_dense/step) the one the PS
    ops of this process talk to; None removes it."""
    _RUNTIME["client"] = client


def get_ps_client(api: str):
    """The entered PS client, or a clear error naming the op."""
    client = _RUNTIME["client"]
    if client is None:
        raise RuntimeError(f"{api}: no parameter-server client in this process; call "
                           f"fleet.init_worker() before running the trainer program")
    return client


def set_ps_server(run) -> None:
    """Make `run(config: dict, dense: dict)` the server loop `listen_and_serv` enters
    (None removes it)."""
    _RUNTIME["server"] = run


def _check_table(api: str, table) -> None:
    if not isinstance(table, str) or not table:
        raise ValueError(f"{api}: table must be the non-empty name of a sparse table, got "
                         f"{table!r}")


def _check_param(api: str, param) -> None:
    if not isinstance(param, str) or not param:
        raise ValueError(f"{api}: param must be the non-empty name of a dense parameter, got "
                         f"{param!r}")


def _check_ids(api: str, ids: TensorSpec) -> None:
    if ids.dtype.kind not in "iu":
        raise TypeError(f"{api}: ids must be an integer tensor (int32 or int64), got "
                        f"{ids.dtype.name}")


def _flat_ids(xp, api: str, ids, padding_idx: int):
    """ids as int64 [n], and the mask of those that are not padding."""
    flat = ids.reshape(-1).astype("int64", copy=False)
    if flat.size and flat.min() < 0:
        raise ValueError(f"{api}: ids must be >= 0, got {int(flat.min())}")
    keep = flat != padding_idx if padding_idx >= 0 else xp.ones(flat.shape, dtype=bool)
    return flat, keep


def _token(xp):
    return xp.zeros((), dtype="int32")


@register
class DistributedLookupTable(OpDef):
    """out[..., :] = the row of each id in the server-side sparse table `table` (rows are
    created on the servers on first touch); ids equal to `padding_idx` (>= 0) give zero
    rows and are not pulled. out has shape ids.shape + [dim]. The rows' gradient does not
    flow through this op: the trainer program pushes it with distributed_push_sparse."""
    name = "distributed_lookup_table"
    inputs = ("ids",)
    attrs = {"table": "", "dim": 1, "padding_idx": -1, "dtype": "float32"}
    side_effects = True

    def infer(self, ids, table="", dim=1, padding_idx=-1, dtype="float32"):
        api = "distributed_lookup_table"
        _check_table(api, table)
        _check_ids(api, ids)
        if not isinstance(dim, int) or dim <= 0:
            raise ValueError(f"{api}: dim must be a positive int, got {dim!r}")
        return TensorSpec(ids.shape + (dim,), dtype)

    def compute(self, xp, ids, table="", dim=1, padding_idx=-1, dtype="float32"):
        api = "distributed_lookup_table"
        flat, keep = _flat_ids(xp, api, ids, padding_idx)
        out = xp.zeros((flat.size, dim), dtype=dtype)
        wanted = flat[keep]
        if wanted.size:
            uniq, inverse = xp.unique(wanted, return_inverse=True)
            rows = xp.asarray(get_ps_client(api).pull_sparse(table, uniq))
            if rows.shape != (uniq.size, dim):
                raise ValueError(f"{api}: table {table!r} returned rows of shape "
                                 f"{list(rows.shape)}, expected [{uniq.size}, {dim}]")
            out[keep] = rows[inverse.reshape(-1)]
        return out.reshape(tuple(ids.shape) + (dim,))


@register
class DistributedPushSparse(OpDef):
    """Push the gradient rows `grads` (ids.shape + [dim]) of the looked-up `ids` to the
    sparse table `table`: rows of repeated ids are summed, padding ids are dropped. out is
    a 0-D int32 token that later ops (distributed_step) take to run after the push."""
    name = "distributed_push_sparse"
    inputs = ("ids", "grads")
    attrs = {"table": "", "padding_idx": -1}
    side_effects = True

    def infer(self, ids, grads, table="", padding_idx=-1):
        api = "distributed_push_sparse"
        _check_table(api, table)
        _check_ids(api, ids)
        lead = grads.shape[:-1]
        if grads.ndim != ids.ndim + 1 or any(a >= 0 and b >= 0 and a != b
                                             for a, b in zip(lead, ids.shape)):
            raise ValueError(f"{api}: grads must have shape ids.shape + [dim] = "
                             f"{list(ids.shape)} + [dim], got {list(grads.shape)}")
        return TensorSpec((), "int32")

    def compute(self, xp, ids, grads, table="", padding_idx=-1):
        api = "distributed_push_sparse"
        flat, keep = _flat_ids(xp, api, ids, padding_idx)
        rows = grads.reshape(flat.size, grads.shape[-1])[keep]
        flat = flat[keep]
        if flat.size:
            uniq, inverse = xp.unique(flat, return_inverse=True)
            summed = xp.zeros((uniq.size, rows.shape[1]), dtype=rows.dtype)
            xp.add.at(summed, inverse.reshape(-1), rows)
            get_ps_client(api).push_sparse(table, uniq, summed)
        return _token(xp)


@register
class DistributedPushDense(OpDef):
    """Push the gradient of the dense parameter `param` to the servers; out is a 0-D int32
    token."""
    name = "distributed_push_dense"
    inputs = ("grad",)
    attrs = {"param": ""}
    side_effects = True

    def infer(self, grad, param=""):
        _check_param("distributed_push_dense", param)
        return TensorSpec((), "int32")

    def compute(self, xp, grad, param=""):
        get_ps_client("distributed_push_dense").push_dense(param, grad)
        return _token(xp)


@register
class DistributedStep(OpDef):
    """End of a trainer step, after the pushes it takes as tokens: in sync mode it returns
    once the servers applied the step of every trainer. out is a 0-D int32 token."""
    name = "distributed_step"
    inputs = ("*deps",)
    side_effects = True

    def infer(self, deps):
        return TensorSpec((), "int32")

    def compute(self, xp, deps):
        get_ps_client("distributed_step").step()
        return _token(xp)


@register
class DistributedPullDense(OpDef):
    """out = the current value of the dense parameter `param` on the servers (shape `shape`,
    dtype `dtype`); `deps` are tokens of ops it must run after (distributed_step)."""
    name = "distributed_pull_dense"
    inputs = ("*deps",)
    attrs = {"param": "", "shape": [], "dtype": "float32"}
    side_effects = True

    def infer(self, deps, param="", shape=(), dtype="float32"):
        _check_param("distributed_pull_dense", param)
        return TensorSpec(shape, dtype)

    def compute(self, xp, deps, param="", shape=(), dtype="float32"):
        value = xp.asarray(get_ps_client("distributed_pull_dense").pull_dense(param))
        if value.size != _size(shape):
            raise ValueError(f"distributed_pull_dense: the servers hold {param!r} with "
                             f"{value.size} elements, expected shape {list(shape)}")
        return value.astype(dtype, copy=False).reshape(tuple(shape))


def _size(shape) -> int:
    n = 1
    for d in shape:
        n *= int(d)
    return n


@register
class ListenAndServ(OpDef):
    """The server program's op: serve the sparse `tables` (TableConfig dicts) and the dense
    parameters named `dense` (their initial values are the `params` inputs, in order; their
    server rule `dense_optimizer`, e.g. ["adam", lr, beta1, beta2, eps]) to `trainers` trainers in `mode` ('sync' or 'async') until every trainer stopped. Running
    it enters the server loop registered by the PS runtime (fleet.run_server)."""
    name = "listen_and_serv"
    inputs = ("*params",)
    attrs = {"tables": [], "dense": [], "dense_optimizer": None, "mode": "sync",
             "trainers": 1}
    side_effects = True

    def infer(self, params, tables=(), dense=(), dense_optimizer=None, mode="sync",
              trainers=1):
        api = "listen_and_serv"
        if mode not in ("sync", "async"):
            raise ValueError(f"{api}: mode must be 'sync' or 'async', got {mode!r}")
        if len(params) != len(dense):
            raise ValueError(f"{api}: got {len(params)} dense values for the {len(dense)} "
                             f"dense names {list(dense)}")
        for t in tables:
            if not isinstance(t, dict) or not t.get("name") or not t.get("dim"):
                raise ValueError(f"{api}: each table must be a TableConfig dict with a name "
                                 f"and a dim, got {t!r}")
        return TensorSpec((), "int32")

    def compute(self, xp, params, tables=(), dense=(), dense_optimizer=None, mode="sync",
                trainers=1):
        run = _RUNTIME["server"]
        if run is None:
            raise RuntimeError("listen_and_serv: no parameter-server runtime in this "
                               "process; start the server with fleet.init_server() and "
                               "fleet.run_server()")
        config = {"tables": list(tables), "dense": list(dense), "mode": mode,
                  "trainers": trainers, "dense_optimizer": dense_optimizer}
        run(config, dict(zip(dense, params)))
        return _token(xp)
