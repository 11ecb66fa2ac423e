"""Graph building for converted control flow whose condition is a static Variable: an `if`
becomes one `cond` op, a loop one `while_loop` op, over the construct's state.

The state (the names a construct binds) is reconciled into a *template*: which values pass
through unchanged as Python constants and which become op outputs / loop variables, with
their dtype and shape. Numbers meeting tensors become tensors; a name defined on one side
only is filled with zeros there (Python would raise if that value were ever read); a list
that grows inside a tensor loop becomes a `TensorArray` (one stacked tensor [n, ...] grown by
concat, so its length may be unknown). Anything else that differs raises `Unsupported`.
Imports `framework`, `tensor`, `static` and sibling `errors`.
"""
from __future__ import annotations

from ..framework.dtype import get_default_dtype
from ..framework.tensor import Tensor, is_variable
from ..static.builder import to_variable
from ..static.control_flow import while_loop
from ..static.control_flow_block import _append_cond, _Sub
from ..static.program import default_main_program
from .. import tensor as T
from .errors import Dy2StaticError, Unsupported


def is_var(x) -> bool:
    return is_variable(x)


def is_num(x) -> bool:
    return isinstance(x, (bool, int, float)) and not isinstance(x, complex)


def tensorish(x) -> bool:
    return is_var(x) or isinstance(x, Tensor) or is_num(x)


class UndefinedVar:
    """The value of a local that has not been assigned yet (e.g. first assigned in a branch
    or loop that did not run). Any use raises NameError naming the variable."""

    def __init__(self, name: str) -> None:
        object.__setattr__(self, "_name", name)

    def __repr__(self) -> str:
        return f"UndefinedVar({self._name!r})"

    def _fail(self, *args, **kwargs):
        raise NameError(f"local variable '{self._name}' is used before it is assigned (it "
                        f"is only assigned in a branch or loop that did not run)")

    def __getattr__(self, attr):
        if attr.startswith("_"):   # probes such as is_variable(v)
            raise AttributeError(attr)
        self._fail()

    __bool__ = __call__ = __getitem__ = __iter__ = __len__ = __index__ = _fail
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _fail
    __truediv__ = __rtruediv__ = __neg__ = __lt__ = __le__ = __gt__ = __ge__ = _fail
    __matmul__ = __rmatmul__ = __pow__ = __float__ = __int__ = _fail


class TensorArray:
    """A list of same-shaped tensors that grows inside a tensor loop, held as one tensor
    `data` of shape [n, *item_shape]. Supports append, indexing, len (via convert_len),
    iteration (via convert_iter), paddle.stack and paddle.concat (via convert_call)."""

    def __init__(self, data) -> None:
        self.data = data

    def append(self, x) -> None:
        item = T.unsqueeze(x, 0)
        if item.dtype != self.data.dtype:
            item = T.cast(item, self.data.dtype)
        self.data = T.concat([self.data, item], axis=0)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return TensorArray(self.data[idx])
        return self.data[idx]

    def length(self):
        return T.shape(self.data)[0]

    def stack(self, axis: int = 0):
        return self.data if axis == 0 else T.moveaxis(self.data, 0, axis)

    def concat(self, axis: int = 0):
        shape = list(self.data.shape)
        moved = T.moveaxis(self.data, 0, axis)
        merged = [-1 if d < 0 else d for d in shape[1:]]
        merged[axis] = -1
        return T.reshape(moved, merged)

    def __repr__(self) -> str:
        return f"TensorArray({self.data!r})"


# --- templates -------------------------------------------------------------------------------

def _dtype(v) -> str:
    if is_var(v) or isinstance(v, Tensor):
        return v.dtype.name
    if isinstance(v, bool):
        return "bool"
    return "int64" if isinstance(v, int) else get_default_dtype()


def _shape(v) -> list:
    return list(v.shape) if (is_var(v) or isinstance(v, Tensor)) else []


def _describe(v) -> str:
    if is_var(v) or isinstance(v, Tensor):
        return f"a {v.dtype.name} tensor of shape {list(v.shape)}"
    return f"{type(v).__name__} {v!r}"[:80]


def _listlike(v) -> bool:
    return isinstance(v, (list, TensorArray))


def template(a, b, name: str, loop: bool):
    """How values `a` and `b` of one name (two branches; or a loop's input and its body's
    output when `loop`) are carried: ('const', v) | ('undef', name) | ('tensor', dtype, shape)
    | ('array', dtype, item_shape) | (list|tuple, [templates]) | (dict, [(key, template)])."""
    if a is b and not (loop and (is_var(a) or isinstance(a, Tensor))):
        return ("const", a)
    if not loop and is_var(a) and is_var(b) and a.name == b.name and a.block is b.block:
        return ("const", a)   # two handles (see copy_state) of one unchanged Variable
    ua, ub = isinstance(a, UndefinedVar), isinstance(b, UndefinedVar)
    if ua and ub:
        return ("undef", name)
    if ua or ub:
        other = b if ua else a
        return _carry_all(other, name) if _has_tensor(other) else ("const", other)
    if tensorish(a) and tensorish(b):
        return _tensor_template(a, b, name, loop)
    if type(a) is type(b) and isinstance(a, (list, tuple)) and len(a) == len(b):
        return (type(a), [template(x, y, f"{name}[{k}]", loop)
                          for k, (x, y) in enumerate(zip(a, b))])
    if _listlike(a) and _listlike(b):
        return _array_template(a, b, name)
    if isinstance(a, dict) and isinstance(b, dict) and list(a) == list(b):
        return (dict, [(k, template(a[k], b[k], f"{name}[{k!r}]", loop)) for k in a])
    if _equal(a, b):
        return ("const", a)
    raise Unsupported(f"'{name}' is {_describe(a)} and {_describe(b)} on the two sides of a "
                      f"{'tensor-dependent loop' if loop else 'tensor-dependent if'}; only "
                      f"tensors, numbers and lists/tuples/dicts of them can differ there")


def _carry_all(v, name: str):
    """Template carrying every tensor of `v` (the other side of `v` is undefined)."""
    if isinstance(v, TensorArray):
        return ("array", _dtype(v.data), _shape(v.data)[1:])
    if tensorish(v) and not is_num(v):
        return ("tensor", _dtype(v), _shape(v))
    if isinstance(v, (list, tuple)):
        return (type(v), [_carry_all(x, f"{name}[{k}]") for k, x in enumerate(v)])
    if isinstance(v, dict):
        return (dict, [(k, _carry_all(x, f"{name}[{k!r}]")) for k, x in v.items()])
    return ("const", v)


def _tensor_template(a, b, name: str, loop: bool):
    if is_num(a) and is_num(b) and type(a) is type(b) and a == b:
        return ("const", a)
    ta, tb = not is_num(a), not is_num(b)
    if ta and tb and _dtype(a) != _dtype(b):
        raise Unsupported(f"'{name}' is {_describe(a)} on one side and {_describe(b)} on "
                          f"the other of a tensor-dependent "
                          f"{'loop' if loop else 'if'}; cast it so both have one dtype")
    if ta or tb:
        ref = b if tb else a
        return ("tensor", _dtype(ref), _shape(ref))
    kinds = {_dtype(a), _dtype(b)}
    dtype = get_default_dtype() if get_default_dtype() in kinds else kinds.pop()
    return ("tensor", dtype, [])


def _array_template(a, b, name: str):
    items = [x for v in (a, b) for x in (v if isinstance(v, list) else [])]
    arrays = [v for v in (a, b) if isinstance(v, TensorArray)]
    if not all(tensorish(x) and not is_num(x) for x in items):
        raise Unsupported(f"list '{name}' changes length under a tensor condition, so it "
                          f"must hold only tensors (a tensor array)")
    ref = arrays[0].data if arrays else None
    if ref is not None:
        return ("array", _dtype(ref), _shape(ref)[1:])
    if not items:
        return ("const", a)
    return ("array", _dtype(items[0]), _shape(items[0]))


def _equal(a, b) -> bool:
    try:
        return bool(a == b)
    except Exception:  # objects whose == is not a bool
        return False


def _has_tensor(v) -> bool:
    if tensorish(v) and not is_num(v) or isinstance(v, TensorArray):
        return True
    if isinstance(v, (list, tuple)):
        return any(_has_tensor(x) for x in v)
    if isinstance(v, dict):
        return any(_has_tensor(x) for x in v.values())
    return False


def _fill_shape(shape: list) -> list:
    return [1 if d < 0 else d for d in shape]


def leaves(tpl, value) -> list:
    """The graph values (op outputs / loop variables) of `value` under template `tpl`,
    created in the block being built."""
    kind = tpl[0]
    if kind in ("const", "undef"):
        return []
    if kind == "tensor":
        return [_as_tensor(value, tpl[1], tpl[2])]
    if kind == "array":
        return [_as_array_data(value, tpl[1], tpl[2])]
    if kind is dict:
        return [x for k, t in tpl[1] for x in leaves(t, _get(value, k))]
    return [x for k, t in enumerate(tpl[1]) for x in leaves(t, _get(value, k))]


def _get(value, key):
    if isinstance(value, UndefinedVar):
        return value
    return value[key]


def _as_tensor(v, dtype: str, shape: list):
    if isinstance(v, UndefinedVar):
        return T.zeros(_fill_shape(shape), dtype)
    if is_num(v):
        return T.full(_fill_shape(shape), v, dtype)
    if v.dtype.name != dtype:
        return T.cast(v, dtype)
    return v


def _as_array_data(v, dtype: str, item_shape: list):
    if isinstance(v, TensorArray):
        return v.data if v.data.dtype.name == dtype else T.cast(v.data, dtype)
    if isinstance(v, UndefinedVar) or not v:
        return T.zeros([0] + _fill_shape(item_shape), dtype)
    return T.stack([_as_tensor(x, dtype, item_shape) for x in v], axis=0)


def rebuild(tpl, it):
    """The Python value of template `tpl` over graph values from iterator `it`."""
    kind = tpl[0]
    if kind == "const":
        return tpl[1]
    if kind == "undef":
        return UndefinedVar(tpl[1])
    if kind == "tensor":
        return next(it)
    if kind == "array":
        return TensorArray(next(it))
    if kind is dict:
        return {k: rebuild(t, it) for k, t in tpl[1]}
    built = [rebuild(t, it) for t in tpl[1]]
    return built if kind is list else kind(built)


# --- if ----------------------------------------------------------------------------------------

def bool_pred(pred, what: str):
    """A Variable condition as a bool Variable with one element."""
    if pred.size not in (1, -1):
        raise Dy2StaticError(f"the condition of a tensor-dependent {what} must have exactly "
                             f"one element, got shape {list(pred.shape)}; use .all() or "
                             f".any()")
    return pred if pred.dtype.name == "bool" else T.cast(pred, "bool")


def static_cond(pred, true_run, false_run, names) -> list:
    """Trace `true_run` / `false_run` (each returning one value per name) into the branches
    of one `cond` op; return the merged values."""
    pred = bool_pred(pred, "if")
    program = pred.block.program
    parent = program.current_block()
    subs, outs = [], []
    for run in (true_run, false_run):
        sub = _Sub(program, parent.idx)
        outs.append(list(sub.trace(run)))
        subs.append(sub)
    tpls = [template(t, f, n, False) for t, f, n in zip(outs[0], outs[1], names)]
    for sub, values in zip(subs, outs):
        flat = sub.trace(lambda v=values: [x for t, y in zip(tpls, v) for x in leaves(t, y)])
        sub.set_outputs(flat, "if")
        sub.close("if")
    it = iter(_append_cond(pred, *subs, api="if"))
    return [rebuild(t, it) for t in tpls]


# --- while -------------------------------------------------------------------------------------

def static_while(cond_fn, body_fn, get_args, set_args, names) -> None:
    """Trace a converted while loop whose condition is a Variable into one `while_loop` op.
    A trial trace of the body (then discarded) decides the template of each name."""
    init = list(get_args()) if get_args is not None else []
    program = default_main_program()
    parent = program.current_block()
    tpls = _trial(program, parent, init, body_fn, get_args, set_args, names)
    loop_init = [x for t, v in zip(tpls, init) for x in leaves(t, v)] or [T.full([], 0, "int64")]
    n = len(loop_init)

    def put(vals):
        it = iter(vals)
        if set_args is not None:
            set_args(tuple(rebuild(t, it) for t in tpls))

    def cond_w(*vals):
        put(vals)
        c = cond_fn()
        if not is_var(c):
            c = T.full([], bool(c), "bool")
        return bool_pred(c, "while")

    def body_w(*vals):
        put(vals)
        body_fn()
        now = list(get_args()) if get_args is not None else []
        out = [x for t, v in zip(tpls, now) for x in leaves(t, v)]
        return out if out else list(vals[:n])

    put(while_loop(cond_w, body_w, loop_init))


def _trial(program, parent, init, body_fn, get_args, set_args, names) -> list:
    if get_args is None:
        return []
    start = len(program.blocks)
    sub = _Sub(program, parent.idx)
    probe = [_probe(sub, parent, v, n) for v, n in zip(init, names)]
    before = [_unprobe(p, v) for p, v in zip(probe, init)]   # the body may mutate probe
    try:
        def run():
            set_args(tuple(probe))
            body_fn()
            return list(get_args())
        after = sub.trace(run)
    finally:
        del program.blocks[start:]
        program._bump()
    return [template(b, a, n, True) for b, a, n in zip(before, after, names)]


def _probe(sub, parent, v, name):
    """A loop-input stand-in for the trial trace: tensors and numbers become block
    parameters; containers are copied so the trial cannot mutate the user's objects."""
    if tensorish(v):
        var = to_variable(parent, "while", name, v)
        return sub.arg(var)
    if isinstance(v, TensorArray):
        return TensorArray(sub.arg(v.data))
    if isinstance(v, (list, tuple)):
        return type(v)(_probe(sub, parent, x, name) for x in v)
    if isinstance(v, dict):
        return {k: _probe(sub, parent, x, name) for k, x in v.items()}
    return v


def copy_state(v):
    """A copy of containers (lists, tuples, dicts, tensor arrays) and Variable handles, so
    one branch's in-place changes are not seen by the other."""
    if isinstance(v, (list, tuple)):
        return type(v)(copy_state(x) for x in v)
    if isinstance(v, dict):
        return {k: copy_state(x) for k, x in v.items()}
    if isinstance(v, TensorArray):
        return TensorArray(v.data)
    if is_var(v):   # a new handle: an in-place op in one branch rebinds only its own handle
        handle = object.__new__(type(v))
        handle.__dict__.update(v.__dict__)
        return handle
    return v


def _unprobe(p, v):
    """The initial value as the template sees it: the probe's containers, the user's
    numbers (a number that stays a number is a constant)."""
    if is_num(v):
        return v
    if isinstance(v, (list, tuple)) and isinstance(p, (list, tuple)):
        return type(v)(_unprobe(x, y) for x, y in zip(p, v))
    if isinstance(v, dict) and isinstance(p, dict):
        return {k: _unprobe(p[k], v[k]) for k in v}
    return copy_state(p)
