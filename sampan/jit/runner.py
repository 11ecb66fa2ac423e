"""ProgramRunner: the `run_program` op's runner over one traced (or loaded) Program.

forward runs the Program with the Executor (its plan cache, in-place updates and freed
intermediates); when gradients will be needed it also fetches the forward values the backward
Program reads. The backward Program is built once per set of inputs that need gradients:
`static.gradients` appended to a copy of the forward Program, then split off, so it holds only
vjp ops and reads forward values as feeds. It runs through another `run_program` call.
Imports `framework`, `ops` and `static`.
"""
from __future__ import annotations

import collections

import numpy as np

from ..framework import place as _place
from ..framework.flags import STATE
from ..framework.tensor import wrap
from ..ops.dispatch import dispatch
from ..ops.opdef import REGISTRY
from ..ops.run_program import Saved
from ..static.backward import gradients
from ..static.builder import building, program_guard
from ..static.executor import Executor
from ..static.program import Program
from ..utils import unique_name

_RUN = REGISTRY["run_program"]
_FLOAT = "fc"


class ProgramRunner:
    """Runs `program` from eager mode: feeds `in_names`, fetches `out_names`; `params` are
    the eager Parameters bound to the program (op inputs, so the tape routes their grads)."""

    def __init__(self, program: Program, in_names, out_names, params=(), where: str = "") -> None:
        self.program = program
        self.in_names = list(in_names)
        self.out_names = list(out_names)
        self.params = list(params)
        self.param_names = [_bound_name(program, p) for p in self.params]
        self.where = where   # "function 'f' (file.py:12)" for error messages
        self.exe = Executor(_place.CPUPlace())
        self._device_exes: dict = {}   # device place -> its Executor
        block = program.global_block()
        outs = [block.var(n) for n in self.out_names]
        self.out_attrs = {"out_shapes": [list(v.shape) for v in outs],
                          "out_dtypes": [v.dtype.name for v in outs]}
        self._float_outs = [k for k, v in enumerate(outs) if v.dtype.kind in _FLOAT]
        self._backward: dict = {}

    # --- eager entry -------------------------------------------------------------------
    def __call__(self, inputs: list, params=None) -> list:
        """Run on eager Tensors `inputs` through one run_program op; returns Tensors.
        `params` (default: the bound Parameters) are the op's other inputs."""
        params = self.params if params is None else params
        need = STATE.grad_enabled and (
            any(not t.stop_gradient for t in inputs) or
            any(not p.stop_gradient for p in params))
        mask = _mask(inputs, params) if need else ()
        saved = Saved(need and any(mask), mask)
        outs = dispatch(_RUN, (list(inputs), params),
                        {"program": self, "saved": saved, **self.out_attrs})
        for t, name in zip(outs, self.out_names):
            t.name = name
        return list(outs)

    # --- the run_program protocol --------------------------------------------------------
    def forward(self, x, params, saved) -> list:
        feed = dict(zip(self.in_names, x))
        place = _device_place(list(x) + list(params))
        if saved is None or not saved.train:
            return self._run(feed, self.out_names, place)
        grad = self.backward_program(saved.mask)
        values = self._run(feed, self.out_names + grad.saved_names, place)
        n = len(self.out_names)
        saved.values = values[n:]
        saved.out_meta = [(v.shape, v.dtype) for v in values[:n]]
        return values[:n]

    def backward(self, ctx, grads):
        saved = ctx.saved
        if saved is None or saved.values is None:
            raise RuntimeError(f"run_program: {self.where} ran without keeping the values "
                               f"its gradient needs (it ran under no_grad, or no input "
                               f"needed a gradient)")
        grad = self._backward[saved.mask]
        place = _device_place(saved.values)
        og = []
        for k in self._float_outs:
            g = grads[k]
            if g is None:
                shape, dtype = saved.out_meta[k]
                zeros = np.zeros(shape, dtype)
                g = wrap(zeros if place is None else _place.move(zeros, place))
            og.append(g)
        feeds = og + [wrap(v) for v in saved.values]
        # under create_graph the gradients depend on the forward inputs: make them op inputs
        # so that differentiating the gradients reaches _GradRunner.backward (a clear error)
        deps = list(ctx.x) + list(ctx.params) if STATE.grad_enabled else []
        results = list(grad.runner(feeds, deps)) if grad.runner is not None else []
        flat = [None] * len(saved.mask)
        for pos, g in zip(grad.positions, results):
            flat[pos] = g
        n = len(self.in_names)
        return flat[:n], flat[n:]

    # --- internals -------------------------------------------------------------------------
    def _run(self, feed: dict, fetch: list, place=None) -> list:
        """The fetched arrays, computed on `place` (a device place; None: the CPU)."""
        try:
            if place is None:
                return self.exe.run(self.program, feed=feed, fetch_list=fetch)
            exe = self._device_exes.get(place)
            if exe is None:
                exe = self._device_exes[place] = Executor(place)
            outs = exe.run(self.program, feed=feed, fetch_list=fetch, return_numpy=False)
            return [t._data for t in outs]
        except Exception as err:
            raise type(err)(f"{err}\n  (while running the static program of "
                            f"{self.where})") from err

    def backward_program(self, mask: tuple) -> "_Backward":
        grad = self._backward.get(mask)
        if grad is None:
            grad = self._backward[mask] = _build_backward(self, mask)
        return grad


class _Backward:
    """The backward Program of a runner for one gradient mask."""

    __slots__ = ("runner", "saved_names", "positions")


class _GradRunner(ProgramRunner):
    """A backward Program run from eager mode; it has no gradient of its own."""

    def forward(self, x, params, saved) -> list:
        return super().forward(x, [], None)   # params: dependencies only (see backward)

    def backward(self, ctx, grads):
        raise NotImplementedError(
            f"run_program: higher-order gradients (paddle.grad(..., create_graph=True) and "
            f"then backward) through {self.where} are not supported; compute them in eager "
            f"mode (paddle.jit.enable_to_static(False))")


def _device_place(arrays):
    """The device place of the first device array in `arrays` (None: all on the host)."""
    for a in arrays:
        if a is not None and _place.is_device_array(a):
            return _place.place_of(a)
    return None


def _mask(inputs, params) -> tuple:
    return tuple(not t.stop_gradient and t._data.dtype.kind in _FLOAT
                 for t in list(inputs) + list(params))


def _bound_name(program: Program, param) -> str:
    for name, t in program._bound.items():
        if t is param:
            return name
    raise ValueError(f"run_program: parameter {param.name!r} is not bound to the program")


def _counters_after(program: Program) -> dict:
    """unique_name counters that continue past every `key_N` name of `program` (a loaded
    Program was named by another process's counters)."""
    counters = collections.defaultdict(int)
    for v in program.list_vars():
        key, _, n = v.name.rpartition("_")
        if key and n.isdigit():
            counters[key] = max(counters[key], int(n) + 1)
    return counters


def _build_backward(runner: ProgramRunner, mask: tuple) -> _Backward:
    """Append the gradients of the float outputs w.r.t. the masked inputs/params to a copy of
    the forward Program, then split that copy: the new ops form the backward Program."""
    whole = runner.program.clone()
    block = whole.global_block()
    n_fwd = len(block.ops)
    wrt_names = [n for n, m in zip(runner.in_names + runner.param_names, mask) if m]
    targets = [block.var(runner.out_names[k]) for k in runner._float_outs]
    if not targets:   # no float output: nothing to differentiate
        grad = _Backward()
        grad.saved_names, grad.positions, grad.runner = [], [], None
        return grad
    og_names = []
    for k, t in zip(runner._float_outs, targets):
        v = block.create_var(f"{t.name}@OUT_GRAD_{k}", t.shape, t.dtype)
        v.is_data = True
        og_names.append(v.name)
    old = unique_name.switch(_counters_after(whole))
    try:
        with program_guard(whole, Program()), building():
            grads = gradients(targets, [block.var(n) for n in wrt_names],
                              target_gradients=[block.var(n) for n in og_names])
    finally:
        unique_name.switch(old)
    positions = [i for i, m in enumerate(mask) if m]
    kept = [(p, g) for p, g in zip(positions, grads) if g is not None]
    backward_ops = block.ops[n_fwd:]
    defined = set(runner.in_names)
    for op in block.ops[:n_fwd]:
        defined.update(op.output_arg_names)
    reads = []
    for op in backward_ops:
        for name in op.input_arg_names:
            if name in defined and name not in reads and name not in whole._consts \
                    and name not in whole._bound:
                reads.append(name)
    out_names = [g.name for _, g in kept]
    for name in out_names:   # a gradient that is a forward value (identity) is fetched as is
        if name in defined and name not in reads:
            reads.append(name)
    bwd = whole.clone()
    bwd.global_block().ops = list(backward_ops)
    bwd._bump()
    for name in reads:
        bwd.global_block().vars[name].is_data = True
    grad = _Backward()
    grad.saved_names = reads
    grad.positions = [p for p, _ in kept]
    grad.runner = _GradRunner(bwd, og_names + reads, out_names,
                              where=f"the gradient of {runner.where}") if kept else None
    return grad
