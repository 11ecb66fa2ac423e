"""The heterogeneous parameter server's exchange op: `send_and_recv` sends a trainer's boundary
values to a heter worker, which runs its program section and answers with the section's
outputs. The op reaches the worker through the client entered with `set_heter_client`; a
heter worker's serving loop (Executor.start_heter_trainer) takes its requests from the server
entered with `set_heter_server` (sampan.distributed.ps.heter supplies both, in-process or over
MPI). Imports only `ops`.
"""
from __future__ import annotations

from .opdef import OpDef, TensorSpec, register

_RUNTIME: dict = {"client": None, "server": None}


def set_heter_client(client) -> None:
    """Make `client` (`send_and_recv(message_name, {name: array}, [names]) -> [arrays]`) the
    one this process's send_and_recv ops call; None removes it."""
    _RUNTIME["client"] = client


def set_heter_server(server) -> None:
    """Make `server` (`recv() -> (source, request)`, `reply(source, status, value)`,
    `trainer_num`) the one start_heter_trainer serves; None removes it."""
    _RUNTIME["server"] = server


_MISSING = {
    "client": "call fleet.init_worker() (or enter one with sampan.distributed.ps.heter) before "
              "running a heter trainer program",
    "server": "run it on a heter worker after fleet.init() (TRAINING_ROLE=HETER_TRAINER) or "
              "enter one with sampan.distributed.ps.heter"}


def _entered(kind: str, api: str):
    """The heter client or server entered in this process; a clear error without one."""
    got = _RUNTIME[kind]
    if got is None:
        raise RuntimeError(f"{api}: no heter {kind} in this process; {_MISSING[kind]}")
    return got


def get_heter_client(api: str):
    return _entered("client", api)


def get_heter_server(api: str):
    return _entered("server", api)


@register
class SendAndRecv(OpDef):
    """outs = the values named `recv_var_name` that the heter worker computes from the
    inputs `x` (named `send_var_name`) in its section `message_name`. The output specs are
    attrs (`out_shapes`, `out_dtypes`: the section's variables); no gradient flows through
    the op (the worker runs the section's backward itself)."""
    name = "send_and_recv"
    inputs = ("*x",)
    outputs = ("*out",)
    attrs = {"message_name": "", "send_var_name": [], "recv_var_name": [],
             "out_shapes": [], "out_dtypes": []}
    side_effects = True
    vjp = None

    def __init__(self) -> None:
        super().__init__()
        self.multi_out = True

    def infer(self, x, message_name="", send_var_name=(), recv_var_name=(), out_shapes=(),
              out_dtypes=()):
        api = "send_and_recv"
        if not isinstance(message_name, str) or not message_name:
            raise ValueError(f"{api}: message_name must name the heter section, got "
                             f"{message_name!r}")
        if len(send_var_name) != len(x):
            raise ValueError(f"{api}: send_var_name names {len(send_var_name)} values but "
                             f"{len(x)} inputs are given")
        if not (len(recv_var_name) == len(out_shapes) == len(out_dtypes)):
            raise ValueError(f"{api}: recv_var_name, out_shapes and out_dtypes must have one "
                             f"entry per output, got {len(recv_var_name)}, {len(out_shapes)} "
                             f"and {len(out_dtypes)}")
        return tuple(TensorSpec(tuple(s), d) for s, d in zip(out_shapes, out_dtypes))

    def compute(self, xp, x, message_name="", send_var_name=(), recv_var_name=(),
                out_shapes=(), out_dtypes=()):
        api = "send_and_recv"
        outs = get_heter_client(api).send_and_recv(
            message_name, dict(zip(send_var_name, x)), list(recv_var_name))
        if len(outs) != len(recv_var_name):
            raise RuntimeError(f"{api}: the heter worker returned {len(outs)} values for "
                               f"{len(recv_var_name)} names {list(recv_var_name)}")
        result = []
        for name, value, shape, dtype in zip(recv_var_name, outs, out_shapes, out_dtypes):
            value = xp.asarray(value)
            if value.ndim != len(shape) or any(s >= 0 and s != v
                                               for s, v in zip(shape, value.shape)):
                raise RuntimeError(f"{api}: the heter worker returned {name!r} of shape "
                                   f"{list(value.shape)}, expected {list(shape)}")
            result.append(value.astype(dtype, copy=False))
        return tuple(result)
