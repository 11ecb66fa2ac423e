"""The `py_func` op (paddle.static.py_func) and the registry of the Python functions it runs
(attrs hold only an integer id, since attrs must be JSON). Imports only `ops`.
"""
from __future__ import annotations

import os

from ..framework.tensor import wrap
from .dispatch import call
from .opdef import OpDef, TensorSpec, register


class _PyFuncs:
    """Side registry of the Python callables py_func ops run (attrs hold only an integer id,
    since attrs must be JSON). `token` identifies this process's registry: a program dict
    carrying py_func ids is only meaningful in the process that registered them."""
    funcs: dict = {}
    next_id = 0
    token = ""


def register_py_func(func) -> int:
    """Enter `func` in the py_func registry; returns its id (-1 for None)."""
    if func is None:
        return -1
    if not callable(func):
        raise TypeError(f"py_func: func must be callable, got {type(func).__name__}")
    if not _PyFuncs.token:
        import uuid  # noqa: PLC0415  (lazy: import time)
        _PyFuncs.token = f"{os.getpid()}-{uuid.uuid4().hex}"
    fid = _PyFuncs.next_id
    _PyFuncs.next_id += 1
    _PyFuncs.funcs[fid] = func
    return fid


def py_func_token() -> str:
    return _PyFuncs.token


def _py_func_callable(fid: int):
    func = _PyFuncs.funcs.get(fid)
    if func is None:
        raise RuntimeError(f"py_func: no Python function is registered under id {fid} in this "
                           f"process (programs with py_func ops cannot be saved and loaded)")
    return func


def _out_specs(attrs: dict) -> tuple:
    shapes, dtypes = attrs["out_shapes"], attrs["out_dtypes"]
    if len(shapes) != len(dtypes):
        raise ValueError(f"py_func: out_shapes ({len(shapes)}) and out_dtypes ({len(dtypes)}) "
                         f"differ in length")
    return tuple(TensorSpec(s, d) for s, d in zip(shapes, dtypes))


def _match_shape(shape, want) -> bool:
    return len(shape) == len(want) and all(w < 0 or s == w for s, w in zip(shape, want))


@register
class PyFunc(OpDef):
    """out = func(*x) for a registered Python function (static.py_func). The function gets
    the inputs as Tensors and returns arrays/Tensors (one per output); its gradient op is
    another py_func running `backward_func` on (inputs not skipped, outputs not skipped,
    output gradients)."""
    name = "py_func"
    inputs = ("*x",)
    outputs = ("*out",)
    attrs = {"forward_callable_id": -1, "backward_callable_id": -1, "backward_skip_vars": [],
             "out_shapes": [], "out_dtypes": [], "n_forward_inputs": -1}
    saves = ("x",)
    side_effects = True   # passes never fold, merge or drop it (the function may have effects)

    def infer(self, x, **attrs):
        attrs = {**self.attrs, **attrs}
        if attrs["forward_callable_id"] < 0:
            raise ValueError("py_func: forward_callable_id must name a registered function")
        return _out_specs(attrs)

    def compute(self, xp, x, **attrs):
        attrs = {**self.attrs, **attrs}
        func = _py_func_callable(attrs["forward_callable_id"])
        result = func(*[wrap(a) for a in x])
        shapes, dtypes = attrs["out_shapes"], attrs["out_dtypes"]
        if not shapes:
            return ()
        if result is not None and not isinstance(result, (list, tuple)):
            result = [result]
        if result is None or len(result) != len(shapes):
            got = "None" if result is None else f"{len(result)} values"
            raise ValueError(f"py_func: the function must return {len(shapes)} values (one "
                             f"per out variable), got {got}")
        outs = []
        for k, (r, s, d) in enumerate(zip(result, shapes, dtypes)):
            if r is None:  # a gradient function may leave an input without gradient
                if any(n < 0 for n in s):
                    raise ValueError(f"py_func: output {k} is None and its shape {s} is "
                                     f"not fully known")
                outs.append(xp.zeros(s, d))
                continue
            arr = xp.asarray(getattr(r, "_data", r)).astype(d, copy=False)
            if not _match_shape(arr.shape, s):
                raise ValueError(f"py_func: output {k} of the function has shape "
                                 f"{list(arr.shape)}, but the out variable is declared "
                                 f"with shape {list(s)}")
            outs.append(arr)
        return tuple(outs)

    def vjp(self, ctx, *grads):
        x = list(ctx.x)
        bid = ctx.attrs["backward_callable_id"]
        if bid < 0:
            return ([None] * len(x),)
        out = getattr(ctx, "out", None)
        fwd = {k: ctx.attrs[k] for k in self.attrs}
        if out is None:  # eager tape: outputs are not saved, rerun the forward function
            out = call("py_func", x, **fwd)
            out = list(out) if isinstance(out, (list, tuple)) else [out]
        skip = set(ctx.attrs["backward_skip_vars"])
        names = [getattr(v, "name", None) for v in x + list(out)]
        ins = [v for v, n in zip(x + list(out), names) if n is None or n not in skip]
        ins += list(grads)
        gx = call("py_func", ins, forward_callable_id=bid, backward_callable_id=-1,
                  backward_skip_vars=[], out_shapes=[list(v.shape) for v in x],
                  out_dtypes=[v.dtype.name for v in x])
        gx = list(gx) if isinstance(gx, (list, tuple)) else [gx]
        return ([g if need else None for g, need in zip(gx, ctx.needs[0])],)
