"""paddle.static.nn control flow: cond, while_loop, case, switch_case, Print (see
sampan/ops/control_flow.py for the op protocol: closed sub-blocks, positional binding of op
inputs to block-local variables, and the gradient rules of the `cond` / `while_loop` ops).

Building: a Python function (branch, loop condition, loop body) is traced into a new
sub-block (`_Sub`) under the builder; afterwards `_Sub.close` rewrites every reference to an
outer variable (captured Variables, parameters, constants) into a block-local placeholder and
records the outer Variable, which becomes an input of the op. In dynamic mode the functions
simply run in Python (Paddle's behaviour), so eager autograd sees the branch's ops.

This module holds the public API; `_Sub` and the op appenders live in control_flow_block.py;
control_flow_grad.py is the block builder (`ctx.blocks`) the static backward hands to the
ops' vjps, which replay a branch/body into a gradient sub-block.

Imports `framework`, `ops` and `static`.
"""
from __future__ import annotations

import numpy as np

from ..framework.flags import in_dynamic_mode
from ..framework.tensor import Tensor
from ..ops.print_op import new_print_id
from ..ops.dispatch import call
from .builder import to_variable
from .control_flow_block import (_append_cond, _append_while, _flatten, _is_var, _merge_shape,
                                 _same_structure, _Sub, _unflatten)
from .program import default_main_program

# re-exported by static.nn (paddle.static.nn.cond, ...); Print is paddle.static.Print
__all__ = ["cond", "while_loop", "case", "switch_case"]


# --- public API ------------------------------------------------------------------------------------

def _check_callable(fn, what: str, api: str) -> None:
    if fn is not None and not callable(fn):
        raise TypeError(f"{api}: {what} must be callable, got {type(fn).__name__}")


def _python_pred(pred, api: str) -> bool:
    if isinstance(pred, Tensor):
        if pred.size != 1:
            raise ValueError(f"{api}: pred must have exactly one element, got shape "
                             f"{list(pred.shape)}")
        return bool(pred.numpy().reshape(-1)[0])
    if isinstance(pred, (bool, np.bool_)):
        return bool(pred)
    raise TypeError(f"{api}: pred must be a bool Tensor with one element, got "
                    f"{type(pred).__name__}")


def cond(pred, true_fn=None, false_fn=None, name=None, return_names=None):
    """Run `true_fn()` if `pred` else `false_fn()`.

    In dynamic mode this is plain Python. In static mode (pred a Variable) both functions are
    traced into sub-blocks and a `cond` op selects one at run time; both must return the same
    nested structure of Tensors with the same dtypes (None for no output).

    Args:
        pred (Tensor): bool tensor with one element.
        true_fn, false_fn (callable, optional): functions without arguments.
        name (str, optional): unused.

    Returns:
        What the selected function returns (Variables in static mode).

    Examples:
        >>> import numpy as np
        >>> import sampan as paddle
        >>> paddle.enable_static()
        >>> main = paddle.static.Program()
        >>> with paddle.static.program_guard(main, paddle.static.Program()):
        ...     x = paddle.static.data("x", [2], "float32")
        ...     y = paddle.static.nn.cond(x.sum() > 0, lambda: x * 2.0, lambda: -x)
        >>> exe = paddle.static.Executor()
        >>> exe.run(main, feed={"x": np.array([1., -3.], "float32")}, fetch_list=[y])[0]
        array([-1.,  3.], dtype=float32)
        >>> paddle.disable_static()
    """
    _check_callable(true_fn, "true_fn", "cond")
    _check_callable(false_fn, "false_fn", "cond")
    if not _is_var(pred):
        fn = true_fn if _python_pred(pred, "cond") else false_fn
        return None if fn is None else fn()
    if pred.dtype.name != "bool":
        raise TypeError(f"cond: pred must be a bool tensor, got {pred.dtype.name}")
    if pred.size not in (1, -1):
        raise ValueError(f"cond: pred must have exactly one element, got shape {list(pred.shape)}")
    program = pred.block.program
    parent = program.current_block()
    subs, structs = [], []
    for fn in (true_fn, false_fn):
        sub = _Sub(program, parent.idx)
        leaves, struct = _flatten(sub.trace(fn) if fn is not None else None)
        sub.set_outputs(leaves, "cond")
        sub.close("cond")
        subs.append(sub)
        structs.append(struct)
    if not _same_structure(*structs):
        raise ValueError(f"cond: true_fn and false_fn must return the same structure; got "
                         f"{_describe(structs[0])} and {_describe(structs[1])}")
    return _unflatten(structs[0], _append_cond(pred, *subs))


def _describe(struct) -> str:
    if struct is None:
        return "None"
    if struct == "*":
        return "Tensor"
    kind, items = struct
    if kind is dict:
        return "{" + ", ".join(f"{k!r}: {_describe(x)}" for k, x in items) + "}"
    inner = ", ".join(_describe(x) for x in items)
    return f"[{inner}]" if kind is list else f"({inner})"


def while_loop(cond, body, loop_vars, is_test=False, name=None):
    """Repeat `loop_vars = body(*loop_vars)` while `cond(*loop_vars)` is true.

    In dynamic mode this is a Python loop. In static mode `cond` and `body` are traced into
    sub-blocks of one `while_loop` op; loop variables keep their dtype (shapes may vary: a dim
    that changes becomes -1). Gradients flow through the loop (the op saves every
    iteration's loop variables when an input needs a gradient and is_test is False).

    Args:
        cond (callable): loop_vars -> bool Tensor with one element.
        body (callable): loop_vars -> new loop_vars (same structure).
        loop_vars (list|tuple): initial values.
        is_test (bool): inference only (no iteration states saved).
        name (str, optional): unused.

    Returns:
        list: the final loop variables.

    Examples:
        >>> import sampan as paddle
        >>> i = paddle.full([], 0, "int64")
        >>> ten = paddle.full([], 10, "int64")
        >>> out = paddle.static.nn.while_loop(lambda i: i < ten, lambda i: [i + 1], [i])
        >>> int(out[0])
        10
    """
    if not callable(cond):
        raise TypeError(f"while_loop: cond must be callable, got {type(cond).__name__}")
    if not callable(body):
        raise TypeError(f"while_loop: body must be callable, got {type(body).__name__}")
    if not isinstance(loop_vars, (list, tuple)):
        raise TypeError(f"while_loop: loop_vars must be a list or tuple, got "
                        f"{type(loop_vars).__name__}")
    if len(loop_vars) == 0:
        raise ValueError("while_loop: loop_vars must not be empty")
    leaves, struct = _flatten(list(loop_vars))
    if in_dynamic_mode() and not any(_is_var(v) for v in leaves):
        return _python_while(cond, body, list(loop_vars))
    program = next((v.block.program for v in leaves if _is_var(v)), None) or \
        default_main_program()
    parent = program.current_block()
    inits = [to_variable(parent, "while_loop", f"loop_vars[{k}]", v)
             for k, v in enumerate(leaves)]
    shapes = [v.shape for v in inits]
    needs_grad = any(not v.stop_gradient for v in inits)
    for attempt in range(8):
        n_blocks = len(program.blocks)
        csub = _Sub(program, parent.idx)
        cargs = [csub.arg(v, s) for v, s in zip(inits, shapes)]
        pred = csub.trace(cond, *_unflatten(struct, cargs))
        if not _is_var(pred) or pred.dtype.name != "bool" or pred.size not in (1, -1):
            raise TypeError(f"while_loop: cond must return a bool Tensor with one element, "
                            f"got {_what(pred)}")
        csub.set_outputs([pred], "while_loop")
        csub.close("while_loop")
        bsub = _Sub(program, parent.idx)
        bargs = [bsub.arg(v, s) for v, s in zip(inits, shapes)]
        out = bsub.trace(body, *_unflatten(struct, bargs))
        if len(loop_vars) == 1 and not isinstance(out, (list, tuple)):
            out = [out]
        out_leaves, out_struct = _flatten(list(out) if isinstance(out, tuple) else out)
        if not _same_structure(struct, out_struct):
            raise ValueError(f"while_loop: body must return the same structure as loop_vars "
                             f"({_describe(struct)}), got {_describe(out_struct)}")
        bsub.set_outputs(out_leaves, "while_loop")
        bsub.close("while_loop")
        merged = []
        for k, v in enumerate(inits):
            ov = bsub.out_var(k)
            if ov.dtype is not v.dtype:
                raise TypeError(f"while_loop: loop variable {k} is {v.dtype.name} but body "
                                f"returns {ov.dtype.name}; cast it in the body")
            merged.append(_merge_shape("while_loop", f"loop variable {k}", shapes[k],
                                       ov.shape))
            needs_grad = needs_grad or not ov.stop_gradient
        if merged == shapes:
            break
        if attempt == 7:
            raise ValueError(f"while_loop: the loop variables' shapes do not settle "
                             f"({shapes} vs {merged})")
        shapes = merged  # a dim changes between iterations: trace again with -1 there
        del program.blocks[n_blocks:]
        program._bump()
    c_needs = any(not v.stop_gradient for s in (csub, bsub) for v in s.outer.values())
    save = (needs_grad or c_needs) and not is_test
    finals, _ = _append_while(inits, csub, bsub, shapes, save, is_test)
    return list(_unflatten(struct, finals))


def _what(v) -> str:
    if _is_var(v) or isinstance(v, Tensor):
        return f"{v.dtype.name} tensor of shape {list(v.shape)}"
    return type(v).__name__


def _python_while(cond, body, loop_vars: list) -> list:
    while _python_pred(cond(*loop_vars), "while_loop"):
        out = body(*loop_vars)
        if not isinstance(out, (list, tuple)):
            out = [out]
        if len(out) != len(loop_vars):
            raise ValueError(f"while_loop: body must return {len(loop_vars)} loop variables "
                             f"(the length of loop_vars), got {len(out)}")
        loop_vars = list(out)
    return loop_vars


def case(pred_fn_pairs, default=None, name=None):
    """The fn of the first (pred, fn) pair whose pred is true, else `default()` (default
    None: the last pair's fn). Built from nested `cond`s."""
    if not isinstance(pred_fn_pairs, (list, tuple)):
        raise TypeError(f"case: pred_fn_pairs must be a list or tuple, got "
                        f"{type(pred_fn_pairs).__name__}")
    if not pred_fn_pairs:
        raise ValueError("case: pred_fn_pairs must not be empty")
    for k, pair in enumerate(pred_fn_pairs):
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise TypeError(f"case: pred_fn_pairs[{k}] must be a (pred, fn) tuple, got "
                            f"{pair!r}")
        pred, fn = pair
        if not (_is_var(pred) or isinstance(pred, Tensor)) or pred.dtype.name != "bool":
            raise TypeError(f"case: the pred of pred_fn_pairs[{k}] must be a bool Tensor, "
                            f"got {_what(pred)}")
        _check_callable(fn, f"the fn of pred_fn_pairs[{k}]", "case")
    pairs = list(pred_fn_pairs)
    if default is None:
        default = pairs.pop()[1]
    else:
        _check_callable(default, "default", "case")
    return _chain(pairs, default)


def _chain(pairs, default):
    fn = default
    for pred, true_fn in reversed(pairs):
        fn = (lambda p, t, f: lambda: cond(p, t, f))(pred, true_fn, fn)
    return fn()


def switch_case(branch_index, branch_fns, default=None, name=None):
    """The fn whose key equals `branch_index` (int tensor with one element), else `default()`
    (default None: the fn with the largest key).

    Args:
        branch_index (Tensor): int32/int64/uint8 tensor with one element.
        branch_fns (dict|list|tuple): {key: fn}, [(key, fn), ...] or [fn, ...] (keys 0..n-1).
        default (callable, optional): the fallback.
    """
    if not (_is_var(branch_index) or isinstance(branch_index, Tensor)) or \
            branch_index.dtype.name not in ("uint8", "int32", "int64"):
        raise TypeError(f"switch_case: branch_index must be an int32, int64 or uint8 Tensor, "
                        f"got {_what(branch_index)}")
    if not isinstance(branch_fns, (list, tuple, dict)):
        raise TypeError(f"switch_case: branch_fns must be a dict, list or tuple, got "
                        f"{type(branch_fns).__name__}")
    items = list(branch_fns.items()) if isinstance(branch_fns, dict) else list(branch_fns)
    if items and all(callable(f) for f in items):
        items = list(enumerate(items))
    keys = []
    for pair in items:
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise TypeError(f"switch_case: each element of branch_fns must be a (key, fn) "
                            f"tuple, got {pair!r}")
        key, fn = pair
        if not isinstance(key, int) or isinstance(key, bool):
            raise TypeError(f"switch_case: keys of branch_fns must be int, got "
                            f"{type(key).__name__}")
        if key in keys:
            raise ValueError(f"switch_case: the key {key} appears more than once in "
                             f"branch_fns")
        keys.append(key)
        _check_callable(fn, f"the fn for key {key}", "switch_case")
    if not items:
        raise ValueError("switch_case: branch_fns must not be empty")
    items.sort(key=lambda p: p[0])
    if default is None:
        default = items.pop()[1]
    else:
        _check_callable(default, "default", "switch_case")
    if branch_index.dtype.name != "int64":
        branch_index = branch_index.astype("int64")
    pairs = [(branch_index == key, fn) for key, fn in items]
    return _chain(pairs, default)


def Print(input, first_n=-1, message=None, summarize=20, print_tensor_name=True,
          print_tensor_type=True, print_tensor_shape=True, print_tensor_layout=True,
          print_tensor_lod=True, print_phase="both"):
    """Print `input` when the op runs (and its gradient in backward when print_phase is
    'backward' or 'both'); returns a Tensor equal to `input`. first_n >= 0 prints only the
    first first_n runs of this op (-1: every run); print_tensor_layout (Paddle 3.x) adds the
    '- layout: NCHW' line. Static graph mode only, as in Paddle."""
    from .input import static_mode_error
    from .builder import building_active
    if not building_active():
        raise static_mode_error("paddle.static.Print")
    if isinstance(first_n, bool) or not isinstance(first_n, int):
        raise TypeError(f"Print: first_n must be an int, got {type(first_n).__name__}")
    if print_phase not in ("forward", "backward", "both"):
        raise ValueError(f"Print: print_phase must be 'forward', 'backward' or 'both', got "
                         f"{print_phase!r}")
    return call("print", input, message=message or "", summarize=int(summarize),
                var_name=getattr(input, "name", None) or "",
                print_tensor_name=bool(print_tensor_name),
                print_tensor_type=bool(print_tensor_type),
                print_tensor_shape=bool(print_tensor_shape), print_phase=print_phase,
                print_tensor_layout=bool(print_tensor_layout),
                is_backward=False, first_n=first_n,
                print_id=new_print_id() if first_n >= 0 else -1)
