"""Tracing a (converted) function into a Program, ConcreteProgram and the per-function cache.

A trace builds new main/startup Programs under `program_guard` + `building()`: one
`static.data` per tensor input (from its InputSpec; None dims stay -1), then the function is
called on those Variables. Layer Parameters met while building are bound to the Program
(builder.to_variable); other eager tensors the function captured are bound too, so their
current value is read at every run and gradients reach them. Imports `framework`, `ops`,
`static` and `jit.runner`/`jit.pytree`.
"""
from __future__ import annotations

import inspect

from ..framework.flags import dispatch_wrapper
from ..framework.random import get_rng_state, set_rng_state
from ..framework.tensor import Parameter, Tensor
from ..static.builder import building, current_block, program_guard, to_variable
from ..static.input import data
from ..static.input_spec import InputSpec
from ..static.program import Program
from .pytree import flatten, unflatten
from .runner import ProgramRunner


class ConcreteProgram:
    """One traced Program of a function: `main_program`, `startup_program`, `inputs` (data
    Variables), `outputs` (output Variables, flattened), `parameters` (the eager tensors the
    Program reads and may differentiate), `function`, `kwargs`; `runner` runs it eagerly."""

    def __init__(self, main, startup, inputs, outputs, out_tree, parameters, function,
                 kwargs, where: str) -> None:
        self.main_program = main
        self.startup_program = startup
        self.inputs = inputs
        self.outputs = outputs
        self.out_tree = out_tree
        self.parameters = parameters
        self.function = function
        self.kwargs = kwargs
        self.runner = ProgramRunner(main, [v.name for v in inputs],
                                    [v.name for v in outputs], parameters, where)

    def __call__(self, tensors: list):
        """Run on the tensor inputs (flattened); rebuild the function's output structure."""
        return unflatten(self.out_tree, self.runner(tensors))

    def __repr__(self) -> str:
        return (f"ConcreteProgram(function={getattr(self.function, '__qualname__', '?')}, "
                f"inputs={[v.name for v in self.inputs]}, "
                f"outputs={[v.name for v in self.outputs]})")


def input_names(fn, args: tuple, kwargs: dict, specs: list) -> list:
    """A feed name per tensor leaf: the InputSpec's name, else the function parameter's
    name (`name_0`, `name_1`... for a parameter holding several tensors), made unique."""
    try:
        bound = inspect.signature(fn).bind_partial(*args, **kwargs)
        items = list(bound.arguments.items())
    except (TypeError, ValueError):
        items = [(f"arg{i}", a) for i, a in enumerate(args)] + list(kwargs.items())
    names = []
    for pname, value in items:
        leaves, _ = flatten(value, leaf=_is_spec)
        if len(leaves) == 1:
            names.append(pname)
        else:
            names.extend(f"{pname}_{i}" for i in range(len(leaves)))
    out, seen = [], set()
    for spec, default in zip(specs, names + [f"input_{i}" for i in range(len(specs))]):
        name = spec.name or default
        base, k = name, 0
        while name in seen:
            k += 1
            name = f"{base}_{k}"
        seen.add(name)
        out.append(name)
    return out


def _is_spec(x) -> bool:
    return isinstance(x, InputSpec)


def trace(fn, spec_args: tuple, spec_kwargs: dict, where: str, original=None) -> ConcreteProgram:
    """Trace `fn` (already converted) called on `spec_args`/`spec_kwargs`, whose InputSpec
    leaves become data Variables; `original` is the user's function (for names)."""
    specs, tree = flatten((spec_args, spec_kwargs), leaf=_is_spec)
    names = input_names(original or fn, spec_args, spec_kwargs, specs)
    # Random ops draw their seeds when the Program runs (Executor), so the trace must not
    # consume any: then every run draws exactly the seeds an eager call would.
    rng_state = get_rng_state()
    try:
        return _trace(fn, specs, tree, names, where, original)
    finally:
        set_rng_state(rng_state)


def _live(x) -> bool:
    """An eager tensor whose value may change between runs or that needs gradients."""
    return isinstance(x, Tensor) and (isinstance(x, Parameter) or x.persistable
                                      or not x.stop_gradient)


def _capture(op, inputs, attrs, nxt):
    """Dispatch wrapper while tracing: Parameters, persistable and grad-requiring eager
    tensors become bound Variables, so ops on them alone (`w1 + w2`, an LSTM's fused
    weights) are built into the Program instead of being computed once at trace time."""
    if any(_live(v) or (v.__class__ in (list, tuple) and any(_live(x) for x in v))
           for v in inputs):
        block = current_block()

        def lift(v):
            return to_variable(block, op.name, "input", v) if _live(v) else v
        inputs = tuple([lift(x) for x in v] if v.__class__ in (list, tuple) else lift(v)
                       for v in inputs)
    return nxt(op, inputs, attrs)


def _trace(fn, specs, tree, names, where, original) -> ConcreteProgram:
    main, startup = Program(), Program()
    with program_guard(main, startup), building(), dispatch_wrapper(_capture):
        feeds = []
        for spec, name in zip(specs, names):
            var = data(name, list(spec.shape), spec.dtype)
            if spec.dtype.kind in "fc":
                var._stop_gradient = spec.stop_gradient   # not marked explicit
            feeds.append(var)
        args, kwargs = unflatten(tree, feeds)
        names = [v.name for v in feeds]
        result = fn(*args, **kwargs)
        leaves, out_tree = flatten(result)
        block = main.global_block()
        # an in-place op on an input rebinds its handle to the result: feed the data vars
        feeds = [block.vars[n] for n in names]
        outputs = [to_variable(block, where, "output", v) for v in leaves]
    params = _bind_captured(main)
    return ConcreteProgram(main, startup, feeds, outputs, out_tree, params, original or fn,
                           tree, where)


def _bind_captured(program: Program) -> list:
    """Bind the eager tensors the trace met as constants to the Program (read at every run);
    return the tensors that may need gradients: Parameters, and captured tensors that did.
    Tensors the Program writes (BatchNorm statistics) stay bound but are no op inputs: a
    written op input would fail the tape's version check."""
    for tensor, name in list(program._eager_ids.values()):
        if name in program._consts and isinstance(tensor, Tensor):
            del program._consts[name]
            program._bound[name] = tensor
            if not tensor.stop_gradient:
                program.global_block().vars[name]._stop_gradient = False
    written = {n for op in program.global_block().ops for n in op.output_arg_names}
    return [t for name, t in program._bound.items() if name not in written
            and (isinstance(t, Parameter) or not t.stop_gradient)]


class ProgramCache:
    """The ConcretePrograms of one StaticFunction, by (input specs, non-tensor argument
    values, train/eval). A key whose trace failed maps to FALLBACK (run eagerly)."""

    FALLBACK = "fallback"

    def __init__(self) -> None:
        self._programs: dict = {}
        self._last = None

    def get(self, key):
        return self._programs.get(key)

    def set(self, key, value) -> None:
        self._programs[key] = value
        if value is not self.FALLBACK:
            self._last = value

    def last(self):
        """The most recently traced ConcreteProgram (None before the first trace)."""
        return self._last

    def concrete_programs(self) -> list:
        return [v for v in self._programs.values() if v is not self.FALLBACK]

    def clear(self) -> None:
        self._programs.clear()
        self._last = None

    def __len__(self) -> int:
        return len(self.concrete_programs())

    def __contains__(self, key) -> bool:
        return key in self._programs
