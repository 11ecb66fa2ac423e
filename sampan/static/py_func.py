"""static.py_func (and static.nn.py_func): a Python function as an operator of a Program.

The function objects live in a side registry (sampan/ops/control_flow.py) keyed by integer
ids stored in the op's attrs; a program holding a py_func op therefore cannot be saved to a
file (serialize_program, save_inference_model and static.save refuse it). Imports `ops` and
`static.program`/`static.input`.
"""
from __future__ import annotations

from ..ops import py_func as _cf
from ..ops.opdef import REGISTRY
from .input import _require_static
from .program import Variable


def _as_list(value, api: str, arg: str, allow_none: bool = True) -> list:
    if value is None:
        if not allow_none:
            raise TypeError(f"{api}: {arg} must be a Variable or a list of Variables, got None")
        return []
    items = list(value) if isinstance(value, (list, tuple)) else [value]
    for v in items:
        if not isinstance(v, Variable):
            raise TypeError(f"{api}: {arg} must be a Variable or a list of Variables, got "
                            f"{type(v).__name__}")
    return items


def py_func(func, x, out, backward_func=None, skip_vars_in_backward_input=None):
    """Append an op that calls the Python function `func` at run time.

    Args:
        func (callable): called with the inputs `x` as Tensors (``np.array(t)`` gives the
            values); returns one array (or Tensor) per variable of `out`.
        x (Variable|list[Variable]|None): the inputs.
        out (Variable|list[Variable]|None): the output variables, created beforehand (e.g.
            ``program.current_block().create_var(name, shape=..., dtype=...)``); their
            shapes and dtypes declare what `func` returns.
        backward_func (callable, optional): gradient function, called with the inputs and
            outputs not listed in `skip_vars_in_backward_input`, then the gradients of the
            outputs; returns one gradient per input (None for no gradient).
        skip_vars_in_backward_input (Variable|list[Variable], optional): inputs/outputs
            not passed to `backward_func`.

    Returns:
        `out` as given.
    """
    api = "paddle.static.py_func"
    _require_static(api)
    if not callable(func):
        raise TypeError(f"{api}: func must be callable, got {type(func).__name__}")
    if backward_func is not None and not callable(backward_func):
        raise TypeError(f"{api}: backward_func must be callable or None, got "
                        f"{type(backward_func).__name__}")
    xs = _as_list(x, api, "x")
    outs = _as_list(out, api, "out")
    skip = _as_list(skip_vars_in_backward_input, api, "skip_vars_in_backward_input")
    if skip and backward_func is None:
        raise ValueError(f"{api}: skip_vars_in_backward_input is given but backward_func is "
                         f"None")
    known = {v.name for v in xs + outs}
    for v in skip:
        if v.name not in known:
            raise ValueError(f"{api}: skip_vars_in_backward_input variable {v.name!r} is "
                             f"neither in x nor in out")
    programs = {id(v.block.program): v.block.program for v in xs + outs}
    if len(programs) > 1:
        raise ValueError(f"{api}: x and out must belong to one Program")
    from .program import default_main_program
    program = next(iter(programs.values())) if programs else default_main_program()
    block = program.current_block()
    attrs = {**REGISTRY["py_func"].attrs,
             "forward_callable_id": _cf.register_py_func(func),
             "backward_callable_id": _cf.register_py_func(backward_func),
             "backward_skip_vars": [v.name for v in skip],
             "out_shapes": [list(v.shape) for v in outs],
             "out_dtypes": [v.dtype.name for v in outs]}
    block.append_op("py_func", {"x": [v.name for v in xs]}, {"out": [v.name for v in outs]},
                    attrs)
    diff = backward_func is not None and any(not v.stop_gradient for v in xs)
    for v in outs:
        if diff and v.dtype.kind in "fc" and not v._sg_explicit:
            v._stop_gradient = False
    return out
