"""Heterogeneous parameter server, the Program side: `Executor.split_program_by_device`
(Paddle's algorithm over each op's `op_device`), the two programs a heter run executes (the
heter worker's section with its parameters' updates, and the trainer program where that
section is one `send_and_recv` op), and `Executor.start_heter_trainer`, the worker's serving
loop. Imports `framework`, `ops` and `static`; the transport is entered by
sampan.distributed.ps.heter through `ops.heter`.
"""
from __future__ import annotations

import time

import numpy as np

from ..ops.heter import get_heter_server
from ..ops.opdef import REGISTRY
from ..ops.optim import Update
from . import executor as _executor
from .dataset_run import report_fetch
from .program import Operator, Program

_CPU = "cpu"


def is_optimizer_op(op) -> bool:
    """An optimizer update op (Paddle: op_role Optimize)."""
    return isinstance(REGISTRY.get(op.type), Update)


def _device_runs(program: Program) -> tuple:
    """Consecutive runs of ops with one device ("" counts as cpu), before the first
    optimizer op: ([ops per run], [device per run])."""
    ops_list, types = [], []
    for op in program.global_block().ops:
        if is_optimizer_op(op):
            break
        device = op.attr("op_device") or _CPU
        if not types or types[-1] != device:
            ops_list.append([])
            types.append(device)
        ops_list[-1].append(op)
    return ops_list, types


def _absorb_sandwiched(ops_list: list, types: list) -> None:
    """A cpu run between two runs of one heter device joins that device (its ops' op_device
    is rewritten, as in Paddle)."""
    i, n = 0, len(types)
    while i < n:
        while i < n and types[i] == _CPU:
            i += 1
        if i == n:
            return
        heter = types[i]
        i += 1
        start, valid = i, True
        while i < n and types[i] != heter:
            if types[i] != _CPU:
                valid = False
                break
            i += 1
        if i == n:
            return
        if not valid:
            continue
        for j in range(start, i):
            for op in ops_list[j]:
                op._set_attr("op_device", heter)
            types[j] = heter


def _merged(ops_list: list, types: list) -> tuple:
    merged_ops, merged_types = [], []
    for ops, device in zip(ops_list, types):
        if not merged_types or merged_types[-1] != device:
            merged_ops.append([])
            merged_types.append(device)
        merged_ops[-1].extend(ops)
    return merged_ops, merged_types


def _inputs_from_previous(program: Program, merged_ops: list) -> list:
    """Per section, the names it reads from the section before it (Paddle's rule: the
    second section also reads every non-persistable variable, e.g. the data)."""
    data_vars = {n for n, v in program.global_block().vars.items() if not v.persistable}
    result, outputs_pre = [], set()
    for i, ops in enumerate(merged_ops):
        inputs, outputs = set(), set()
        for op in ops:
            inputs.update(n for n in op.input_arg_names if n not in outputs)
            outputs.update(op.output_arg_names)
        if i == 0:
            result.append(set())
        else:
            result.append(inputs & (outputs_pre | data_vars if i == 1 else outputs_pre))
        outputs_pre = outputs
    return result


def split_program_by_device(program: Program):
    """Split the ops before the first optimizer op into sections by `op_device` and
    describe the heter (non-cpu) section: `[start, end, send_list, recv_list, program]`.

    Consecutive ops of one device form a section; a cpu section between two sections of
    the same heter device joins it (those ops' op_device is set to the device, as Paddle
    does). `start`/`end` are the indices of the heter section's first and last op in the
    global block; `recv_list` names what it reads from the section before it, `send_list`
    what the section after it reads from it (both sorted; Paddle's order is a set's);
    `program` is a copy of `program` pruned to computing send_list from recv_list. With no
    heter section it prints "warning: non heter program" and returns None; with several
    it prints "only one region of program can be heter" and describes the last.

    Examples:
        >>> import sampan as paddle
        >>> paddle.enable_static()
        >>> main, startup = paddle.static.Program(), paddle.static.Program()
        >>> with paddle.static.program_guard(main, startup):
        ...     x = paddle.static.data("x", [2, 3], "float32")
        ...     h = paddle.exp(x)
        ...     with paddle.static.device_guard("gpu"):
        ...         y = paddle.tanh(h)
        ...     z = paddle.sin(y)
        >>> exe = paddle.static.Executor()
        >>> start, end, send, recv, prog = exe.split_program_by_device(main)
        >>> start, end, send == [y.name], recv == [h.name]
        (1, 1, True, True)
        >>> exe.split_program_by_device(paddle.static.Program())
        warning: non heter program
        >>> paddle.disable_static()
    """
    if not isinstance(program, Program):
        raise TypeError(f"Executor.split_program_by_device: program must be a Program, got "
                        f"{type(program).__name__}")
    ops_list, types = _device_runs(program)
    _absorb_sandwiched(ops_list, types)
    merged_ops, merged_types = _merged(ops_list, types)
    recv = _inputs_from_previous(program, merged_ops)
    n = len(merged_ops)
    send = [sorted(recv[i + 1]) if i < n - 1 else [] for i in range(n)]
    starts = np.cumsum([0] + [len(ops) for ops in merged_ops]).tolist()
    heter = None
    for i, device in enumerate(merged_types):
        if device != _CPU:
            if heter is not None:
                print("only one region of program can be heter")
            heter = i
    if heter is None:
        print("warning: non heter program")
        return None
    pruned = prune_with_input(program, sorted(recv[heter]), send[heter])
    return [starts[heter], starts[heter + 1] - 1, send[heter], sorted(recv[heter]), pruned]


def prune_with_input(program: Program, feeds: list, targets: list) -> Program:
    """A copy of `program` keeping only the global-block ops needed to compute `targets`
    given `feeds` (ops that only produce fed values are dropped), and the variables those
    ops and the feeds mention."""
    new = program.clone()
    block = new.global_block()
    fed, needed, kept = set(feeds), set(targets), []
    for op in reversed(block.ops):
        outs = op.output_arg_names
        if any(n in needed for n in outs) and not all(n in fed for n in outs):
            kept.append(op)
            needed.update(n for n in op.input_arg_names if n not in fed)
    kept.reverse()
    block.ops = kept
    used = fed | {n for op in kept for n in op.input_arg_names + op.output_arg_names}
    block.vars = {n: v for n, v in block.vars.items() if n in used}
    new._bump()
    return new


class HeterPlan:
    """What a heter run executes of one program: `section`, the heter worker's program (the
    heter section's ops, then the update ops of the parameters it reads), fed `recv` and
    answering any of its variables; `trainer`, the program with that section replaced by one
    `send_and_recv` op (sending `recv`, receiving `send`: what later trainer ops or the
    fetches read)."""

    __slots__ = ("message_name", "section", "trainer", "recv", "send")

    def __init__(self, message_name, section, trainer, recv, send) -> None:
        self.message_name, self.section, self.trainer = message_name, section, trainer
        self.recv, self.send = recv, send


def heter_programs(program: Program, fetch_list=None, api: str = "heter_programs") -> HeterPlan:
    """The HeterPlan of `program` (after optimizer.minimize, dense part under a
    static.device_guard); `fetch_list` names section variables the trainer fetches."""
    split = split_program_by_device(program)
    if split is None:
        raise ValueError(f"{api}: the program has no heter section; build its dense part "
                         f"under paddle.static.device_guard('gpu')")
    start, end = split[0], split[1]
    ops = program.global_block().ops
    section_ops, tail = list(range(start, end + 1)), list(range(end + 1, len(ops)))
    updates = _section_updates(program, section_ops, tail)
    trainer_tail = [k for k in tail if k not in set(updates)]
    produced = _produced([ops[k] for k in section_ops + updates])
    recv = _section_inputs(program, [ops[k] for k in section_ops + updates])
    _check_updates(api, program, [ops[k] for k in updates], produced)
    fetch = [f if isinstance(f, str) else f.name for f in fetch_list or ()]
    read_after = {n for k in trainer_tail for n in ops[k].input_arg_names}
    send = [n for n in sorted(produced) if (n in read_after or n in fetch)
            and not program.global_block().var(n).persistable]
    _check_recv(api, program, ops[:start], recv)
    message = f"heter_section_{start}_{end}"
    section = _subprogram(program, section_ops + updates)
    trainer = _subprogram(program, list(range(start)) + trainer_tail, recv + send)
    block = trainer.global_block()
    exchange = Operator(block, "send_and_recv", {"x": list(recv)}, {"out": list(send)}, {
        "message_name": message, "send_var_name": list(recv), "recv_var_name": list(send),
        "out_shapes": [list(block.var(n).shape) for n in send],
        "out_dtypes": [block.var(n).dtype.name for n in send]}, op_device="")
    block.ops.insert(start, exchange)
    trainer._bump()
    return HeterPlan(message, section, trainer, recv, send)


def _section_updates(program: Program, section_ops: list, tail: list) -> list:
    """Indices of the tail ops the heter worker runs: the update ops of the parameters the
    section reads, and the ops (regularization, clipping) whose outputs only they read."""
    ops, block = program.global_block().ops, program.global_block()
    params = {n for k in section_ops for n in ops[k].input_arg_names
              if block.var(n).persistable}
    chosen = {k for k in tail if is_optimizer_op(ops[k]) and ops[k].input("param")
              and ops[k].input("param")[0] in params}
    readers: dict = {}
    for k in tail:
        for n in ops[k].input_arg_names:
            readers.setdefault(n, set()).add(k)
    for k in reversed(tail):
        outs = ops[k].output_arg_names
        users = set().union(*[readers.get(n, set()) for n in outs]) if outs else set()
        if k not in chosen and users and users <= chosen and \
                not any(block.var(n).persistable for n in outs):
            chosen.add(k)
    return sorted(chosen)


def _produced(ops: list) -> set:
    return {n for op in ops for n in op.output_arg_names}


def _section_inputs(program: Program, ops: list) -> list:
    """Non-persistable names the ops read before any of them writes them."""
    block, seen, result = program.global_block(), set(), []
    for op in ops:
        for n in op.input_arg_names:
            if n not in seen and not block.var(n).persistable and n not in result:
                result.append(n)
        seen.update(op.output_arg_names)
    return result


def _check_updates(api: str, program: Program, updates: list, produced: set) -> None:
    """The heter worker's optimizer ops must not read what only the trainer computes (e.g. a
    global-norm clip over the gradients of both sides)."""
    block = program.global_block()
    for op in updates:
        for n in op.input_arg_names:
            if not block.var(n).persistable and n not in produced:
                raise ValueError(f"{api}: the heter worker's optimizer op {op.type} (writing "
                                 f"{op.output_arg_names[0]!r}) reads {n!r}, which the trainer "
                                 f"computes; gradient clipping across the cpu and heter "
                                 f"parameters (e.g. ClipGradByGlobalNorm) cannot be split")


def _check_recv(api: str, program: Program, before: list, recv: list) -> None:
    block, made = program.global_block(), _produced(before)
    for n in recv:
        if n not in made and not block.var(n).is_data:
            raise ValueError(f"{api}: the heter section reads {n!r}, which no trainer op "
                             f"before it computes")


def _subprogram(program: Program, indices: list, keep=()) -> Program:
    """A clone of `program` whose global block keeps the ops at `indices`; it runs with the
    source's run values (the optimizer's learning rate)."""
    new = program.clone()
    block = new.global_block()
    block.ops = [block.ops[k] for k in indices]
    used = {n for op in block.ops for n in op.input_arg_names + op.output_arg_names}
    used.update(keep)
    block.vars = {n: v for n, v in block.vars.items()
                  if n in used or v.persistable or v.is_data}
    new._bump()
    for name, provider in _executor._RUN_VALUES.get(program, {}).items():
        _executor.set_run_value(new, name, provider)
    return new


def start_heter_trainer(exe, program=None, scope=None, debug: bool = False, fetch_list=None,
                        fetch_info=None, print_period: int = 100, fetch_handler=None) -> int:
    """Serve the heter section of `program` (the whole training program, as the trainers
    build it) until every trainer stopped: each request feeds the section's inputs, runs the
    section (forward, backward and its parameters' updates) in `scope` and answers the
    asked variables. Every `print_period` requests the `fetch_list` values are printed
    ("<info>: <value>") or given to `fetch_handler.handler({name: value})`; `debug` prints
    each request's time. Returns the number of requests served.

    The requests come from the heter server entered in this process (fleet.init on a
    HETER_TRAINER, or sampan.distributed.ps.heter.LocalHeter); every wait has its deadline.
    """
    api = "Executor.start_heter_trainer"
    program = _executor.default_main_program() if program is None else program
    if not isinstance(program, Program):
        raise TypeError(f"{api}: program must be a Program, got {type(program).__name__}")
    if print_period <= 0:
        raise ValueError(f"{api}: print_period must be > 0, got {print_period}")
    fetch = [f if isinstance(f, str) else f.name for f in fetch_list or ()]
    if fetch_handler is not None:
        fetch, fetch_info = list(fetch_handler.var_dict.values()), list(fetch_handler.var_dict)
        fetch = [f if isinstance(f, str) else f.name for f in fetch]
    info = list(fetch_info or fetch)
    if len(info) != len(fetch):
        raise ValueError(f"{api}: fetch_info ({len(info)} names) must name each of "
                         f"fetch_list ({len(fetch)} items)")
    plan = heter_programs(program, api=api)
    server = get_heter_server(api)
    scope = _executor.global_scope() if scope is None else scope
    stopped, served = set(), 0
    while len(stopped) < server.trainer_num:
        source, request = server.recv()
        if request[0] == "stop":
            stopped.add(request[1])
            server.reply(source, "ok", None)
            continue
        began = time.perf_counter()
        outs = _serve(exe, plan, scope, server, source, request, fetch)
        if outs is None:
            continue
        served += 1
        if debug:
            print(f"{api}: request {served} served in {time.perf_counter() - began:.6f} s")
        if fetch and served % print_period == 0:
            report_fetch(fetch_handler, info, outs)
    return served


def _serve(exe, plan: HeterPlan, scope, server, source, request, fetch: list):
    """Run one ("run", message_name, feed, names) request; the answer (or the error) goes to
    the trainer. Returns the fetched values, None when the request failed."""
    _, message, feed, names = request
    if message != plan.message_name:
        server.reply(source, "err", f"send_and_recv: this heter worker serves section "
                                    f"{plan.message_name!r}, got a request for {message!r} "
                                    f"(trainer and worker built different programs)")
        return None
    try:
        outs = exe.run(plan.section, feed=feed, fetch_list=list(names) + fetch, scope=scope)
    except Exception as exc:  # noqa: BLE001 - reported to the trainer
        server.reply(source, "err", f"heter worker: {type(exc).__name__}: {exc}")
        return None
    server.reply(source, "ok", outs[:len(names)])
    return outs[len(names):]


def make_trainer_program(program: Program, fetch_list=None) -> HeterPlan:
    """Turn `program` itself into its heter trainer program (as a heter PS trainer runs
    it: fleet's minimize on a trainer); returns the plan."""
    plan = heter_programs(program, fetch_list)
    trainer = plan.trainer
    program.blocks = trainer.blocks
    for block in program.blocks:
        block.program = program
    program._consts = trainer._consts
    program._bump()
    return plan
