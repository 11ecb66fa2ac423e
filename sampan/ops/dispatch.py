"""dispatch: the single choke point every operator call goes through.

Eager: run `op.compute` on the inputs' arrays, wrap the results, and record a GradNode when
grad is enabled and an input needs it. Anything else (static Program building, AMP, the
profiler) is this thread's dispatch chain (`framework.flags`: wrappers + build target); this is
the only place the library branches on mode. Imports only `framework` and `ops.opdef`.
"""
from __future__ import annotations

import weakref

import numpy as np

from ..backend import numpy_ as _xp
from ..framework import dtype as _dt
from ..framework import flags as _flags
from ..framework.flags import HOT, STATE
from ..framework.node import GradNode, pack_saved
from ..framework.place import is_device_array
from ..framework.tensor import Parameter, Tensor, to_array, wrap, is_variable
from . import devices as _devices
from .opdef import REGISTRY, OpDef, TensorSpec

_EMPTY: dict = {}
_ND = np.ndarray
_new = object.__new__
_DIFF_NP = frozenset(d.np for d in _dt.ALL if d.kind in "fc")
_ANY_DTYPE = frozenset(d.np for d in _dt.ALL)
_asarray = np.asarray
_ref = weakref.ref

np.seterr(all="ignore")  # Paddle returns inf/nan for log(0), 1/0 without warnings


def dispatch(op: OpDef, inputs: tuple, attrs: dict = _EMPTY, _eager: bool = False):
    """Run `op` on `inputs` (one entry per OpDef input slot) with `attrs`.

    This thread's dispatch chain (wrappers such as AMP or the profiler, then the static
    build target), when one is installed, gets the call instead; it ends in `eager`, which is
    this function with the chain bypassed.
    """
    if HOT.active and not _eager:
        chain = STATE.intercept
        if chain is not None:
            return chain(op, inputs, attrs)
    arrays = []
    append = arrays.append
    need = False
    for t in inputs:
        cls = t.__class__
        if cls is Tensor or cls is Parameter:
            data = t._data
            if data.__class__ is not _ND:  # a device array (or a stray scalar): slow path
                return _eager_general(op, inputs, attrs)
            append(data)
            if not t.stop_gradient:
                need = True
        elif t is None or cls is _ND:
            append(t)
        else:
            return _eager_general(op, inputs, attrs)
    if op.promote and arrays[0].dtype is not arrays[-1].dtype:
        return _eager_general(op, inputs, attrs)
    if op.check:
        _check(op, arrays, attrs)
    try:
        out = op.compute(_xp, *arrays, **attrs) if attrs else op.compute(_xp, *arrays)
    except Exception as err:  # explain with infer, which names the op and argument
        _explain(op, arrays, attrs, err)
    if need and op.vjp is not None and (not HOT.quirk or STATE.grad_enabled):
        return _record(op, inputs, inputs, attrs, out)
    if op.multi_out:
        return tuple([_wrap(o) for o in out])
    t = _new(Tensor)
    t._data = out if out.__class__ is _ND else _asarray(out)
    return t


def eager(op: OpDef, inputs: tuple, attrs: dict = _EMPTY):
    """The eager path (the end of every dispatch chain): compute now, record a tape node if
    grads may flow."""
    return dispatch(op, inputs, attrs, True)


_flags.EAGER[0] = eager


_CHECKED: dict = {}   # signatures of `check` calls whose infer passed (infer is pure)
_CHECKED_MAX = 4096
_PLAIN_ATTR = frozenset((int, float, str, bool, type(None)))


def _check(op: OpDef, arrays: list, attrs: dict) -> None:
    """`op.infer` before the kernel of a `check` op (one whose kernel would accept bad input
    silently). A signature (op, shapes, dtypes, attrs with their types) that passed once is
    not checked again: infer is a pure function of them (a conv's infer costs ~15 us)."""
    key = _signature(op, arrays, attrs)
    if key is not None and key in _CHECKED:
        return
    op.infer(*[spec_of(a) for a in arrays], **attrs)
    if key is not None:
        if len(_CHECKED) >= _CHECKED_MAX:
            _CHECKED.clear()
        _CHECKED[key] = True


def _signature(op: OpDef, arrays: list, attrs: dict):
    """A hashable, exact key of a call, or None when an attr is not plain data (ints,
    floats, strings, bools, None, flat lists/tuples of them); types are part of the key so
    1, 1.0 and True never share an entry."""
    parts = [op]
    for a in arrays:
        parts.append(None if a is None else (a.shape, a.dtype))
    if attrs.__class__ is FrozenAttrs:
        if attrs.signature is None:
            return None
        return tuple(parts) + attrs.signature
    return _attrs_signature(parts, attrs)


class FrozenAttrs(dict):
    """Op attrs fixed at creation, for a caller that passes the same attrs on every call (a
    layer's normalised arguments): `check` memoisation reads the precomputed `signature`
    instead of rebuilding it (~2 us for a conv). Writing to it raises (its list values are
    not to be written either)."""

    __slots__ = ("signature",)

    def __init__(self, attrs: dict) -> None:
        super().__init__(attrs)
        self.signature = _attrs_signature([], self)

    def __reduce__(self):
        return (FrozenAttrs, (dict(self),))

    def _frozen(self, *args, **kwargs):
        raise TypeError("FrozenAttrs: op attrs shared by calls must not be modified")

    __setitem__ = __delitem__ = update = pop = popitem = setdefault = clear = _frozen
    __ior__ = _frozen


def _attrs_signature(parts: list, attrs: dict):
    for k, v in attrs.items():
        c = v.__class__
        if c is list or c is tuple:
            types = tuple([e.__class__ for e in v])
            if not _PLAIN_ATTR.issuperset(types):
                return None
            parts.append((k, c, tuple(v), types))
        elif c in _PLAIN_ATTR:
            parts.append((k, c, v))
        else:
            return None
    return tuple(parts)


def _wrap(arr) -> Tensor:
    t = _new(Tensor)
    t._data = arr if arr.__class__ is _ND else _as_array(arr)
    return t


def _as_array(arr):
    """A kernel result as an array: scalars become 0-d host arrays; device arrays stay."""
    return arr if is_device_array(arr) else _asarray(arr)


def _eager_general(op: OpDef, inputs: tuple, attrs: dict):
    """Slow path: variadic slots, Python/NumPy constants, Tensor subclasses, promotion."""
    if len(inputs) != len(op.inputs):
        raise TypeError(f"{op.name}: expected {len(op.inputs)} inputs "
                        f"{list(op.input_names)}, got {len(inputs)}")
    norm = []
    for slot, (value, variadic) in enumerate(zip(inputs, op.variadic)):
        if variadic:
            if not isinstance(value, (list, tuple)):
                raise TypeError(f"{op.name}: {op.input_names[slot]} must be a list or tuple "
                                f"of Tensors, got {type(value).__name__}")
            norm.append([as_tensor(op, op.input_names[slot], v) for v in value])
        elif value is None:
            norm.append(None)
        else:
            norm.append(as_tensor(op, op.input_names[slot], value))
    if op.promote:
        norm = promote_inputs(op, norm)
    flat = []
    for value in norm:
        if isinstance(value, list):
            flat.extend(value)
        else:
            flat.append(value)
    xp = _xp
    if any(t is not None and t._data.__class__ is not _ND for t in flat):
        norm, flat, xp = _devices.place_inputs(op, norm, flat)
    args = [[v._data for v in value] if isinstance(value, list) else
            None if value is None else value._data for value in norm]
    need = any(t is not None and not t.stop_gradient for t in flat)
    if op.check:
        op.infer(*[_spec_arg(a) for a in args], **attrs)
    try:
        out = op.compute(xp, *args, **attrs)
    except Exception as err:
        _explain(op, args, attrs, err)
    if xp is not _xp:
        out = _devices.adopt_outputs(op, xp, out)
    if need and op.vjp is not None and (not HOT.quirk or STATE.grad_enabled):
        return _record(op, tuple(norm), flat, attrs, out)
    if op.multi_out:
        return tuple([_wrap(o) for o in out])
    return _wrap(out)


def as_tensor(op: OpDef, arg: str, value) -> Tensor:
    """An input slot value as a Tensor (Python and NumPy values become constants)."""
    if isinstance(value, Tensor):
        return value
    if is_variable(value):
        raise TypeError(f"{op.name}: {arg} is a static Variable but the program runs in "
                        f"dynamic mode; call paddle.enable_static() or use program_guard")
    try:
        return wrap(to_array(value))
    except (TypeError, ValueError) as e:
        raise TypeError(f"{op.name}: {arg} must be a Tensor, got {type(value).__name__} "
                        f"({e})") from None


def promote_inputs(op: OpDef, values: list) -> list:
    """Cast tensor inputs of a promoting op to their common dtype (recorded as cast ops)."""
    tensors = [v for v in values if v is not None]
    target = tensors[0].dtype
    for t in tensors[1:]:
        target = _dt.promote_types(target, t.dtype)
    cast = REGISTRY["cast"]
    return [v if v is None or v.dtype is target else dispatch(cast, (v,), {"dtype": target.name})
            for v in values]


def _record(op: OpDef, slots: tuple, flat, attrs: dict, out):
    """Wrap outputs and attach a GradNode linking them to the inputs that need grads."""
    edges = []
    append = edges.append
    for t in flat:
        if t is None or t.__class__ is _ND or t.stop_gradient:
            append(None)
        else:
            node = t._node
            append(t if node is None else (node, t._out_idx))
    node = GradNode(op, attrs, edges)
    if op.saved_inputs:
        names = op.input_names
        node.saved = {names[i]: slots[i] for i in op.saved_inputs}
        node.versions = [_versions(slots[i]) for i in op.saved_inputs]
    if not op.multi_out:
        if out.__class__ is not _ND:
            out = _as_array(out)
        t = _new(Tensor)
        t._data = out
        node.out_meta = [(out.shape, out.dtype)]
        if out.dtype in _DIFF_NP or _int_leaf(flat):
            t.stop_gradient = False
            t._node = node
        if op.saved_outputs:
            node.saved_out = [(op.outputs[0], out, _ref(t), 0)]
        if HOT.quirk and STATE.saved_hooks is not None:
            pack_saved(node, STATE.saved_hooks, wrap)
        return t
    results = []
    nondiff = op.nondiff_outputs
    diff = _ANY_DTYPE if _int_leaf(flat) else _DIFF_NP
    for i, arr in enumerate(out):
        if arr.__class__ is not _ND:
            arr = _as_array(arr)
        t = _new(Tensor)
        t._data = arr
        if arr.dtype in diff and i not in nondiff:
            t.stop_gradient = False
            t._node = node
            t._out_idx = i
        results.append(t)
    node.out_meta = [(r._data.shape, r._data.dtype) for r in results]
    if op.saved_outputs:
        node.saved_out = [(op.outputs[i], results[i]._data, _ref(results[i]), 0)
                          for i in op.saved_outputs]
    if HOT.quirk and STATE.saved_hooks is not None:
        pack_saved(node, STATE.saved_hooks, wrap)
    return tuple(results)


def _int_leaf(flat) -> bool:
    """An integer/bool input the user marked stop_gradient=False makes every output
    differentiable, whatever its dtype (as in Paddle). Checked only for outputs that are
    not floating (the plain float path never scans)."""
    for t in flat:
        if t is not None and t.__class__ is not _ND and not t.stop_gradient and \
                t._data.dtype not in _DIFF_NP:
            return True
    return False


def _versions(value):
    if isinstance(value, list):
        return [v._version if isinstance(v, Tensor) else 0 for v in value]
    return value._version if isinstance(value, Tensor) else 0


def spec_of(arr) -> TensorSpec | None:
    if arr is None:
        return None
    return TensorSpec(arr.shape, _dt.from_numpy(arr.dtype))


def _spec_arg(arg):
    if isinstance(arg, list):
        return [spec_of(a) for a in arg]
    return spec_of(arg)


def _explain(op: OpDef, args, attrs: dict, err: Exception):
    """A kernel failed: let `infer` raise its clear error; otherwise re-raise, naming the op."""
    try:
        op.infer(*[_spec_arg(a) for a in args], **attrs)
    except NotImplementedError:
        pass
    if type(err) in _PLAIN and not str(err).startswith(op.name):
        raise type(err)(f"{op.name}: {err}")
    raise err


_PLAIN = (ValueError, TypeError, IndexError, RuntimeError, KeyError, ZeroDivisionError)


def call(name: str, *inputs, **attrs):
    """dispatch by op name; the convenient form for vjp rules and composites."""
    return dispatch(REGISTRY[name], inputs, attrs)
