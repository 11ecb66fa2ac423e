"""Runtime converters called by converted code (`_jst.<name>` in StaticFunction.code).

Each decides when it runs: plain Python values run as Python; an eager Tensor runs as
eager Python would (a condition is taken with bool()), so converted code gives exactly the
eager result; a static Variable builds graph ops (`cond` / `while_loop` via
convert_static.py, tensor functions for and/or/not, len, casts). Iteration helpers drive the
index-based loops the for transformer emits.
Imports `framework`, `autograd`, `tensor`, `static` and its jit siblings (errors, transform,
convert_static).
"""
from __future__ import annotations

import functools
import operator
import types

from ..autograd import no_grad
from ..framework.flags import dispatch_wrapper, in_dynamic_mode
from ..framework.tensor import Tensor
from .. import tensor as T
from .convert_iter import (convert_enumerate, convert_iter, convert_range,  # noqa: F401
                           convert_zip, for_guard, for_has_next, for_item)
from .convert_static import (TensorArray, UndefinedVar, copy_state, is_var, static_cond,
                             static_while)
from .errors import Unsupported

__all__ = ["UndefinedVar", "TensorArray", "return_value", "convert_ifelse",
           "convert_ifelse_expr", "convert_while_loop", "convert_logical_and",
           "convert_logical_or", "convert_logical_not", "convert_compare", "convert_iter",
           "for_has_next", "for_item", "for_guard", "convert_range", "convert_enumerate",
           "convert_zip", "convert_len", "convert_shape", "convert_var_dtype",
           "convert_isinstance", "convert_print", "convert_assert", "convert_call"]


def _truth(v) -> bool:
    return bool(v)


def _as_bool(v):
    if is_var(v):
        return v if v.dtype.name == "bool" else T.cast(v, "bool")
    if isinstance(v, Tensor):
        return T.cast(v, "bool")
    return T.full([], bool(v), "bool")


def return_value(v):
    """The value a converted function returns: None when no `return` ran."""
    return None if isinstance(v, UndefinedVar) else v


# --- if / while ------------------------------------------------------------------------------

def _no_effects(effects, what: str) -> None:
    if effects:
        raise Unsupported(f"'{effects[0]}' is changed inside a tensor-dependent {what}: a "
                          f"Python side effect that depends on a tensor value cannot be "
                          f"kept in a static graph")


def convert_ifelse(pred, true_fn, false_fn, get_args, set_args, names, effects=()) -> None:
    """`if pred:` with branches true_fn/false_fn that change the names via set_args;
    `effects` lists attribute changes in the branches (Unsupported under a tensor pred)."""
    if not is_var(pred):
        (true_fn if _truth(pred) else false_fn)()
        return
    _no_effects(effects, "if")
    init = list(get_args()) if get_args is not None else []

    def runner(fn):
        def run():
            if set_args is not None:
                set_args(tuple(copy_state(v) for v in init))
            fn()
            return list(get_args()) if get_args is not None else []
        return run
    out = static_cond(pred, runner(true_fn), runner(false_fn), names)
    if set_args is not None:
        set_args(tuple(out))


def convert_ifelse_expr(pred, true_value, false_value):
    """`a if pred else b` with a, b given as functions."""
    if not is_var(pred):
        return true_value() if _truth(pred) else false_value()
    return static_cond(pred, lambda: [true_value()], lambda: [false_value()],
                       ["<ternary>"])[0]


def convert_while_loop(cond_fn, body_fn, get_args, set_args, names, effects=()) -> None:
    """`while cond:`; a condition that is (or becomes) a Variable hands the loop, with its
    current state, to a `while_loop` op."""
    while True:
        c = cond_fn()
        if is_var(c):
            _no_effects(effects, "loop")
            static_while(cond_fn, body_fn, get_args, set_args, names)
            return
        if not _truth(c):
            return
        body_fn()


# --- and / or / not / comparisons -----------------------------------------------------------

def convert_logical_and(x_fn, y_fn):
    x = x_fn()
    if is_var(x):
        return T.logical_and(x if x.dtype.name == "bool" else _as_bool(x), _as_bool(y_fn()))
    if not _truth(x):
        return x
    y = y_fn()
    return y


def convert_logical_or(x_fn, y_fn):
    x = x_fn()
    if is_var(x):
        return T.logical_or(_as_bool(x), _as_bool(y_fn()))
    if _truth(x):
        return x
    return y_fn()


def convert_logical_not(x):
    if is_var(x):
        return T.logical_not(_as_bool(x))
    return not x


_COMPARE = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
            ">": operator.gt, ">=": operator.ge, "is": operator.is_, "is not": operator.is_not,
            "in": lambda a, b: a in b, "not in": lambda a, b: a not in b}


def convert_compare(ops, *operands):
    """A chained comparison `a < b < c`; operands are functions, each evaluated once."""
    left, result, r = operands[0](), None, None
    for op, get in zip(ops, operands[1:]):
        right = get()
        r = _COMPARE[op](left, right)
        if is_var(r) or result is not None:
            result = r if result is None else T.logical_and(_as_bool(result), _as_bool(r))
        elif not _truth(r):
            return r
        left = right
    return result if result is not None else r


# --- builtins ----------------------------------------------------------------------------------

def convert_len(x):
    if isinstance(x, TensorArray):
        return x.length()
    if is_var(x):
        if not x.shape:
            raise TypeError("len() of a 0-D tensor")
        return x.shape[0] if x.shape[0] >= 0 else T.shape(x)[0]
    return len(x)


def convert_shape(x):
    """`x.shape`: a Variable's unknown (-1) dims read as int64 tensors (its run-time size),
    so `x.sum() / x.shape[0]` and `range(x.shape[0])` stay right for any batch size."""
    shape = x.shape
    if is_var(x) and any(d < 0 for d in shape):
        dyn = T.shape(x)
        out = list(shape)
        for k, d in enumerate(shape):
            if d < 0:
                out[k] = dyn[k]
                out[k]._sp_dim_of = (x, k)
        return out
    return shape


def _reshape(fn):
    """reshape(x, shape) with run-time dims from convert_shape in `shape`: x's own dim at
    the same position becomes 0 (copy the input dim) and a single remaining one -1 (infer),
    so `x.reshape([x.shape[0], -1])` works for an unknown batch."""
    @functools.wraps(fn)
    def call(x, shape, *args, **kwargs):
        if isinstance(shape, (list, tuple)) and any(is_var(d) for d in shape):
            shape = [0 if is_var(d) and getattr(d, "_sp_dim_of", (None, -1))[0] is x and
                     d._sp_dim_of[1] == k else d for k, d in enumerate(shape)]
            if sum(is_var(d) for d in shape) == 1 and \
                    not any(not is_var(d) and d == -1 for d in shape):
                shape = [-1 if is_var(d) else d for d in shape]
        return fn(x, shape, *args, **kwargs)
    return call


_CASTS = {int: "int64", float: None, bool: "bool"}


def convert_var_dtype(kind):
    """int/float/bool: a Variable argument is cast (int64, the default float, bool)."""
    def cast(*args, **kwargs):
        if len(args) == 1 and not kwargs and is_var(args[0]):
            dtype = _CASTS[kind]
            if dtype is None:
                from ..framework.dtype import get_default_dtype
                dtype = get_default_dtype()
            # eager int()/float()/bool() give a Python number: no gradient flows through it
            return _stop(T.cast(args[0], dtype))
        return kind(*args, **kwargs)
    return cast


def convert_isinstance(obj, classes):
    """isinstance() that counts a Variable as a paddle.Tensor and a TensorArray as a list."""
    group = classes if isinstance(classes, tuple) else (classes,)
    if is_var(obj) and any(isinstance(c, type) and issubclass(Tensor, c) and c is not object
                           for c in group):
        return True
    if isinstance(obj, TensorArray) and any(c in (list, tuple) for c in group):
        return True
    return isinstance(obj, classes)


def convert_print(*args, **kwargs):
    """print(); Variables are printed when the program runs (a `print` op)."""
    if not any(is_var(a) for a in args):
        print(*args, **kwargs)
        return
    from ..static.control_flow import Print
    text = " ".join(str(a) for a in args if not is_var(a))
    for a in args:
        if is_var(a):
            Print(a, message=text)


def convert_assert(test, message=None):
    """assert; a Variable condition cannot be checked while tracing and is skipped."""
    if is_var(test):
        return
    if not _truth(test):
        raise AssertionError(message() if message is not None else None)


def _tensor_array_aware(fn, method: str):
    @functools.wraps(fn)
    def call(x, *args, **kwargs):
        if isinstance(x, TensorArray):
            return getattr(x, method)(*args, **kwargs)
        return fn(x, *args, **kwargs)
    return call


@functools.lru_cache(maxsize=None)
def _builtins() -> dict:
    table = {len: convert_len, print: convert_print, range: convert_range,
             enumerate: convert_enumerate, zip: convert_zip, isinstance: convert_isinstance,
             int: convert_var_dtype(int), float: convert_var_dtype(float),
             bool: convert_var_dtype(bool)}
    for name in ("stack", "concat"):
        fn = getattr(T, name)
        table[fn] = _tensor_array_aware(fn, name)
    table[T.reshape] = _reshape(T.reshape)
    table[no_grad] = _NoGrad
    return table


def _numpy_guard(fn):
    @functools.wraps(fn)
    def call(*args, **kwargs):
        if any(is_var(a) for a in list(args) + list(kwargs.values())):
            raise Unsupported(f"numpy function {getattr(fn, '__name__', fn)} called on a "
                              f"static tensor: its value is unknown while tracing")
        return fn(*args, **kwargs)
    return call


def _value_guard(method):
    def call(*args, **kwargs):
        raise Unsupported(f"Tensor.{method.__name__}() needs a value, which a static tensor "
                          f"does not have while tracing")
    return call


def convert_call(fn):
    """The callable to call in place of fn: builtins map to converters, user functions,
    methods and layers are converted recursively (cached), library code runs as it is."""
    try:
        special = _builtins().get(fn)
    except TypeError:  # unhashable callable
        special = None
    if special is not None:
        return special
    from . import transform
    if isinstance(fn, types.FunctionType):
        if (getattr(fn, "__module__", "") or "").split(".")[0] == "numpy":
            return _numpy_guard(fn)
        return transform.convert_function(fn)
    if isinstance(fn, types.MethodType):
        owner = fn.__self__
        if is_var(owner) and fn.__name__ == "numpy":  # Paddle strips `.numpy()` calls
            return lambda *args, **kwargs: owner     # from converted code: x.numpy() is x
        if is_var(owner) and fn.__name__ in ("item", "tolist"):
            return _value_guard(fn)
        if is_var(owner) and fn.__name__ == "reshape":
            return functools.partial(_reshape(T.reshape), owner)
        return transform.convert_function(fn)
    original = _original(fn)
    if original is not None:
        return convert_call(original)
    if isinstance(fn, functools.partial):
        return functools.partial(convert_call(fn.func), *fn.args, **fn.keywords)
    if isinstance(fn, types.BuiltinFunctionType) or type(fn).__module__ == "numpy":
        mod = getattr(fn, "__module__", None) or type(fn).__module__
        return _numpy_guard(fn) if str(mod).startswith("numpy") else fn
    return _convert_object(fn, transform)


def _original(fn):
    """The user function behind a to_static wrapper (a StaticFunction's dygraph_function, or
    any object exposing `_sampan_original`), so nested to_static code is inlined."""
    original = getattr(fn, "_sampan_original", None)
    if original is None and type(fn).__name__ == "StaticFunction":
        original = getattr(fn, "dygraph_function", None)
    return original


def _convert_object(obj, transform):
    """Layers (sampan objects with a user forward), grad-mode decorators around user
    functions, and user objects with __call__."""
    cls = type(obj)
    inner = getattr(obj, "_func", None)
    if isinstance(inner, types.FunctionType) and cls.__module__.startswith("sampan.autograd"):
        return _grad_mode_call(cls, transform.convert_function(inner))
    if isinstance(obj, type):
        return obj
    forward = getattr(cls, "forward", None)
    if (isinstance(forward, types.FunctionType) or _original(forward) is not None) and \
            transform.is_ignored(cls.__call__):
        return _layer_call(obj, transform)
    call = getattr(cls, "__call__", None)
    if isinstance(call, types.FunctionType) and not transform.is_ignored(call):
        return types.MethodType(transform.convert_function(call), obj)
    return obj


def _grad_mode_call(cls, fn):
    """A @no_grad / @enable_grad function: converted, run under its grad mode. While
    building a Program under no_grad, every op built inside gets stop_gradient outputs (what
    eager no_grad does per op), so gradients still pass through values it returns as-is."""
    if cls is no_grad:
        return _NoGrad(fn)
    return cls(fn)


class _NoGrad(no_grad):
    """paddle.no_grad in converted code: while building a Program, ops built inside get
    stop_gradient outputs (static building records every op; eager no_grad records none)."""

    def __enter__(self):
        super().__enter__()
        self._wrap = None
        if not in_dynamic_mode():
            self._wrap = dispatch_wrapper(_no_grad_outputs)
            self._wrap.__enter__()

    def __exit__(self, *exc):
        if self._wrap is not None:
            self._wrap.__exit__(*exc)
        return super().__exit__(*exc)


def _stop(v):
    """A copy of Variable v that gradients do not flow through (append_backward honours an
    explicitly set stop_gradient)."""
    out = v.detach()
    out.stop_gradient = True
    return out


def _no_grad_outputs(op, inputs, attrs, nxt):
    out = nxt(op, inputs, attrs)
    for v in out if isinstance(out, (tuple, list)) else (out,):
        if is_var(v):
            v.stop_gradient = True
    return out


def _layer_call(layer, transform):
    """Call `layer` (hooks and all) with its forward converted for the duration."""
    forward = layer.forward
    new = convert_call(forward)
    if new is forward:
        return layer

    def call(*args, **kwargs):
        had = "forward" in layer.__dict__
        old = layer.__dict__.get("forward")
        layer.__dict__["forward"] = new
        try:
            return layer(*args, **kwargs)
        finally:
            if had:
                layer.__dict__["forward"] = old
            else:
                layer.__dict__.pop("forward", None)
    return call
