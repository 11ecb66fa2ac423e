"""The parameter-server compile step: a single-machine static Program (after `minimize`) is
rewritten into a trainer Program that pulls/pushes through the PS ops (`sampan/ops/ps.py`)
and a server Program holding one `listen_and_serv` op with the tables and dense parameters.

Distributed tables are the embedding weights marked `is_distributed` (static.nn.
sparse_embedding, static.nn.embedding(is_distributed=True)). Imports `framework`, `ops`,
`static` and `utils`.
"""
from __future__ import annotations

from ...ops.opdef import REGISTRY
from ...static.builder import append_op, build_into
from ...static.program import Operator, Program
from ...utils import unique_name

__all__ = ["transpile", "transpile_for_test", "table_configs", "init_worker_program",
           "init_dense_params", "server_config"]

_RULES = {"sgd": (), "adagrad": ("epsilon",), "adam": ("beta1", "beta2", "epsilon")}
_API = "transpile"


def transpile(main: Program, startup: Program, strategy=None, role=None) -> tuple:
    """Rewrite `main` and `startup` (in place) for parameter-server training.

    Lookups of distributed tables become `distributed_lookup_table` pulls and their weight
    gradients `distributed_push_sparse` pushes; every dense parameter's update op becomes a
    `distributed_push_dense` of its (clipped, regularized) gradient, followed by one
    `distributed_step` and a `distributed_pull_dense` per dense parameter. The update ops,
    the tables and the optimizer state leave the trainer (and its startup) program: they
    live on the servers, which apply SGD, Adagrad or Adam with the optimizer's learning
    rate at minimize time (an LRScheduler's later values do not reach them).

    Args:
        main (Program): the training program, after `optimizer.minimize(loss)`.
        startup (Program): its startup program.
        strategy (DistributedStrategy, optional): `a_sync` (default True, as Paddle)
            chooses async or sync mode.
        role (RoleMaker, optional): gives the number of trainers (`worker_num()`).

    Returns:
        tuple: (trainer_program, server_program); trainer_program is `main`.
    """
    block = main.global_block()
    updates = _update_ops(block)
    if not updates:
        raise ValueError(f"{_API}: the program has no optimizer update ops; call "
                         f"optimizer.minimize(loss) (or fleet.distributed_optimizer(...)"
                         f".minimize(loss)) before transpiling")
    tables = _tables(block)
    configs = [_table_config(block, startup, name, updates) for name in tables]
    dense = [p for p in updates if p not in tables]
    rule = _rule(block, startup, updates[dense[0]]) if dense else None
    dropped = _rewrite_trainer(main, tables, updates, dense)
    _prune_startup(startup, dropped)
    server = _server_program(main, startup, configs, dense, rule, strategy, role)
    main._bump()
    return main, server


def transpile_for_test(program: Program) -> Program:
    """Rewrite (in place) an inference program, e.g. `main.clone(for_test=True)` taken
    before minimize: lookups of parameter-server tables become distributed_lookup_table
    pulls and the tables leave the program, which then runs on a trainer after
    fleet.init_worker(). Returns `program`."""
    block = program.global_block()
    tables = _tables(block)
    block.ops = [_lookup_op(block, op) if op.type == "embedding"
                 and op.inputs["weight"][0] in tables else op for op in block.ops]
    used = {n for op in block.ops for n in op.input_arg_names + op.output_arg_names}
    for name in tables:
        if name in used:
            raise ValueError(f"transpile_for_test: distributed table {name!r} is read by an "
                             f"op other than its embedding lookups")
        del block.vars[name]
    program._bump()
    return program


def _update_ops(block) -> dict:
    """{parameter name: its optimizer update op} (ops with param/grad/learning_rate)."""
    out = {}
    for op in block.ops:
        if {"param", "grad", "learning_rate"} <= set(op.inputs):
            out[op.inputs["param"][0]] = op
    return out


def _tables(block) -> dict:
    """{table (weight) name: [its embedding ops]} for weights marked is_distributed."""
    out: dict = {}
    for op in block.ops:
        if op.type == "embedding":
            w = block._find_var(op.inputs["weight"][0])
            if getattr(w, "is_distributed", False):
                out.setdefault(w.name, []).append(op)
    return out


# --- configs ---------------------------------------------------------------------------------

def _producer(program: Program, name: str):
    for op in program.global_block().ops:
        if name in op.output_arg_names:
            return op
    return None


def _lr_value(block, startup: Program, op) -> float:
    name = op.inputs["learning_rate"][0]
    init = _producer(startup, name)
    if init is None or init.type != "full":
        raise NotImplementedError(
            f"{_API}: the learning rate of parameter {op.inputs['param'][0]!r} is not the "
            f"optimizer's learning-rate variable (per-parameter learning rates are not "
            f"supported by the parameter server)")
    return float(init.attrs.get("fill_value", 0.0))


def _rule(block, startup: Program, op) -> list:
    """The server optimizer tuple of an update op: ["sgd", lr], ["adagrad", lr, eps] or
    ["adam", lr, beta1, beta2, eps]."""
    if op.type not in _RULES:
        raise NotImplementedError(
            f"{_API}: the parameter server applies SGD, Adagrad or Adam; parameter "
            f"{op.inputs['param'][0]!r} is updated by {op.type!r}")
    defaults = REGISTRY[op.type].attrs
    return [op.type, _lr_value(block, startup, op)] + [
        float(op.attrs.get(k, defaults[k])) for k in _RULES[op.type]]


def _initializer(startup: Program, name: str) -> list:
    op = _producer(startup, name)
    kind = None if op is None else op.type
    defaults = REGISTRY[kind].attrs if kind in REGISTRY else {}
    a = {**defaults, **(op.attrs if op is not None else {})}
    if kind == "uniform":
        return ["uniform", float(a["min"]), float(a["max"])]
    if kind == "normal":
        return ["normal", float(a["mean"]), float(a["std"])]
    if kind == "full":
        return ["constant", float(a["fill_value"])]
    raise NotImplementedError(f"{_API}: table {name!r} is initialised by {kind!r}; the "
                              f"parameter server supports Uniform, Normal and Constant "
                              f"initializers")


def _table_config(block, startup: Program, name: str, updates: dict) -> dict:
    var = block._find_var(name)
    op = updates.get(name)
    if op is None:
        raise ValueError(f"{_API}: distributed table {name!r} has no optimizer update op "
                         f"(is it trainable and used by the loss?)")
    return {"name": name, "dim": int(var.shape[1]), "initializer": _initializer(startup, name),
            "optimizer": _rule(block, startup, op),
            "entry": getattr(var, "ps_entry", None)}


def table_configs(server_program: Program) -> list:
    """The TableConfig dicts of a server program's listen_and_serv op."""
    return list(_serv_op(server_program).attrs["tables"])


def _serv_op(server_program: Program):
    for op in server_program.global_block().ops:
        if op.type == "listen_and_serv":
            return op
    raise ValueError(f"{_API}: the program has no listen_and_serv op (not a server program "
                     f"made by transpile)")


# --- the trainer program -----------------------------------------------------------------------

def _lookup_op(block, op) -> Operator:
    """The distributed_lookup_table op replacing embedding op `op` (same output)."""
    w = block._find_var(op.inputs["weight"][0])
    pad = op.attrs.get("padding_idx")
    attrs = {"table": w.name, "dim": int(w.shape[1]),
             "padding_idx": -1 if pad is None else int(pad), "dtype": w.dtype.name}
    return Operator(block, "distributed_lookup_table", {"ids": list(op.inputs["x"])},
                    {k: list(v) for k, v in op.outputs.items()}, attrs, op.namescope, op.loc)


def _rewrite_trainer(main: Program, tables: dict, updates: dict, dense: list) -> set:
    """Rewrite main's global block; returns the names of the variables it dropped."""
    block = main.global_block()
    removed_updates = set(id(op) for op in updates.values())
    lookups = []
    ops = []
    for op in block.ops:
        if id(op) in removed_updates:
            continue
        if op.type == "embedding" and op.inputs["weight"][0] in tables:
            op = _lookup_op(block, op)
            lookups.append(op)
        ops.append(op)
    block.ops = ops
    tokens = _append_pushes(block, lookups, updates, dense)
    _append_step_and_pulls(block, tokens, dense)
    block.ops = _dead_backward_removed(block, block.ops)
    used = {n for op in block.ops for n in op.input_arg_names + op.output_arg_names}
    for name in tables:
        if name in used:
            raise ValueError(f"{_API}: distributed table {name!r} is read by an op other "
                             f"than its embedding lookups; only lookups of a parameter-server "
                             f"table are supported")
    candidates = set(tables) | {n for op in updates.values() for n in op.input_arg_names}
    dropped = {n for n in candidates if n not in used and block._find_var(n) is not None
               and block._find_var(n).persistable}
    for name in dropped:
        del block.vars[name]
    for name in [n for n, v in block.vars.items()  # temporaries of the removed ops
                 if n not in used and not (v.persistable or v.is_data)]:
        del block.vars[name]
    return dropped


def _dead_backward_removed(block, ops: list) -> list:
    """ops without the backward ops whose results nothing reads any more (the weight
    gradients of the tables, whose update ops are gone); forward ops always stay."""
    start = next((i for i, op in enumerate(ops)
                  if any(n.endswith("@GRAD") for n in op.output_arg_names)), len(ops))
    keep = [True] * len(ops)
    changed = True
    while changed:
        changed = False
        read = {n for k, op in enumerate(ops) if keep[k] for n in op.input_arg_names}
        for k in range(len(ops) - 1, start - 1, -1):
            op = ops[k]
            if not keep[k] or REGISTRY[op.type].side_effects:
                continue
            outs = op.output_arg_names
            if all(n not in read and not block._find_var(n).persistable for n in outs):
                keep[k] = False
                changed = True
    return [op for k, op in enumerate(ops) if keep[k]]


def _append_pushes(block, lookups: list, updates: dict, dense: list) -> list:
    tokens = []
    with build_into(block):
        for op in lookups:
            grad = block._find_var(op.outputs["out"][0] + "@GRAD")
            if grad is None:  # the lookup's rows get no gradient (stop_gradient)
                continue
            ids = block._find_var(op.inputs["ids"][0])
            tokens.append(append_op(REGISTRY["distributed_push_sparse"], (ids, grad),
                                    {"table": op.attrs["table"],
                                     "padding_idx": op.attrs["padding_idx"]},
                                    out_names=[_fresh(block, "push_sparse")]))
        for name in dense:
            grad = block._find_var(updates[name].inputs["grad"][0])
            tokens.append(append_op(REGISTRY["distributed_push_dense"], (grad,),
                                    {"param": name}, out_names=[_fresh(block, "push_dense")]))
    return tokens


def _append_step_and_pulls(block, tokens: list, dense: list) -> None:
    """distributed_step after the pushes, then each dense parameter pulled into itself."""
    with build_into(block):
        done = append_op(REGISTRY["distributed_step"], (tokens,), {},
                         out_names=[_fresh(block, "step")])
        for name in dense:
            var = block._find_var(name)
            out = append_op(REGISTRY["distributed_pull_dense"], ([done],),
                            {"param": name, "shape": var.shape, "dtype": var.dtype.name},
                            out_names=[_fresh(block, "pull_dense")])
            block.ops[-1].outputs["out"] = [name]
            del block.vars[out.name]


def _fresh(block, prefix: str) -> str:
    """A variable name not yet used in `block` ("push_dense_0", ...)."""
    while True:
        name = unique_name.generate(prefix)
        if block._find_var(name) is None:
            return name


def _prune_startup(startup: Program, dropped: set) -> None:
    """Drop the startup ops (and variables) of what left the trainer program."""
    block = startup.global_block()
    block.ops = [op for op in block.ops if not set(op.output_arg_names) & dropped]
    for name in dropped:
        block.vars.pop(name, None)
    startup._bump()


# --- the server program ------------------------------------------------------------------------

def _server_program(main: Program, startup: Program, configs: list, dense: list, rule,
                    strategy, role) -> Program:
    """The dense parameters (persistable: their initial values are what the startup program
    put in the server's scope, as on the trainers) and listen_and_serv."""
    server = Program()
    sblock = server.global_block()
    src = main.global_block()
    for name in dense:
        v = src._find_var(name)
        sblock.create_var(name, v.shape, v.dtype, persistable=True, stop_gradient=True)
    attrs = {"tables": configs, "dense": list(dense), "mode": _mode(strategy),
             "trainers": _trainers(role), "dense_optimizer": rule}
    with build_into(sblock):
        append_op(_SERV, ([sblock.var(n) for n in dense],), attrs,
                  out_names=[_fresh(sblock, "listen_and_serv")])
    return server


_SERV = REGISTRY["listen_and_serv"]


def _mode(strategy) -> str:
    """'sync' or 'async' from a DistributedStrategy (a_sync, default True as Paddle)."""
    if strategy is None:
        return "async"
    if hasattr(strategy, "ps_mode"):
        return strategy.ps_mode()
    return "async" if getattr(strategy, "a_sync", True) else "sync"


def _trainers(role) -> int:
    for name in ("_worker_num", "worker_num"):
        if role is not None and hasattr(role, name):
            return int(getattr(role, name)())
    return 1


def server_config(server_program: Program) -> dict:
    """What a server needs from a server program: {"tables", "dense", "mode", "trainers",
    "dense_optimizer"} (the listen_and_serv attrs)."""
    return dict(_serv_op(server_program).attrs)


def init_worker_program(client, server_program: Program, scope) -> None:
    """A trainer's start (fleet.init_worker in static mode): make sure the tables of the
    server program exist (a no-op when the servers made them) and start every trainer from
    the servers' dense values (init_dense_params)."""
    client.create_tables(table_configs(server_program))
    init_dense_params(client, server_program, scope)


def init_dense_params(client, server_program: Program, scope) -> None:
    """Give the servers the dense parameters' initial values from `scope` (the first
    trainer to call wins) with the server optimizer rule, wait for every trainer, then
    load the servers' values into `scope`, so all trainers start from the same weights."""
    config = server_config(server_program)
    rule = config.get("dense_optimizer")
    for name in config["dense"]:
        value = scope.get(name)
        if value is None:
            raise RuntimeError(f"init_worker: dense parameter {name!r} has no value; run the "
                               f"startup program before fleet.init_worker()")
        client.init_dense(name, value, tuple(rule) if rule else None)
    client.barrier()
    for name in config["dense"]:
        scope.set(name, client.pull_dense(name).reshape(scope.get(name).shape))
