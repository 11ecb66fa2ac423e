"""Public creation functions (to_tensor, zeros, ones, full, arange, eye, diag, ...).

Shape, dtype and value arguments are turned into attrs here; the ops live in
`ops/creation.py`. Imports `framework` and `ops`.
"""
from __future__ import annotations


import numpy as np

from ..framework import dtype as _dt
from ..framework.flags import in_dynamic_mode
from ..framework.tensor import Tensor, to_array, wrap, is_variable
from ..ops.dispatch import call, dispatch
from ..ops.opdef import REGISTRY
from ..framework import place as _place
from ._helpers import check_inplace, is_tensor

__all__ = ["to_tensor", "zeros", "ones", "full", "empty", "zeros_like", "ones_like",
           "full_like", "empty_like", "arange", "linspace", "logspace", "eye", "diag",
           "diagflat", "diag_embed", "meshgrid", "tril", "triu", "assign", "clone",
           "tril_indices", "triu_indices", "vander", "zero_", "fill_",
           "fill_diagonal_"]

_SCALARS = (bool, int, float, complex, np.number, np.bool_)


def to_tensor(data, dtype=None, place=None, stop_gradient: bool = True):
    """Create a Tensor from Python data, a NumPy array or a Tensor (the data is copied).

    Python floats give the default float dtype (float32), ints int64, bools bool.

    Examples:
        >>> import sampan as paddle
        >>> paddle.to_tensor([[1, 2], [3, 4]])
        Tensor(shape=[2, 2], dtype=int64, place=Place(cpu), stop_gradient=True,
               [[1, 2],
                [3, 4]])
    """
    if not in_dynamic_mode():  # static: an op of the Program holds the value (Paddle)
        return _static_to_tensor(data, dtype, stop_gradient)
    arr = to_array(data, dtype)
    if isinstance(data, Tensor) and arr is data._data or arr is data:
        arr = arr.copy()
    if place is not None or not _place.current_place().is_cpu_place():
        arr = _place.move(arr, _place.to_place(place))
    t = wrap(arr)
    t.stop_gradient = bool(stop_gradient)
    return t


def _static_to_tensor(data, dtype, stop_gradient: bool):
    if is_variable(data):
        out = dispatch(REGISTRY["assign"], (data,))
        if dtype is not None:
            out = out.astype(as_dtype(dtype))
    else:
        # the value becomes a constant of the Program; an op with a Variable input (the
        # shape carrier from `full`, a creation op) is what appends it while building
        arr = to_array(data, dtype)
        like = dispatch(REGISTRY["full"], (), {"shape": list(arr.shape), "fill_value": 0,
                                               "dtype": _dt.from_numpy(arr.dtype).name})
        out = dispatch(REGISTRY["expand_as"], (wrap(arr), like))
    out.stop_gradient = bool(stop_gradient)
    return out


# --- argument conversion -------------------------------------------------------------------

def as_shape(api: str, shape) -> list:
    """A shape argument (int, list/tuple of ints or 0-D Tensors, or a 1-D Tensor) as ints."""
    if isinstance(shape, Tensor):
        if shape.ndim > 1 or shape.dtype.kind not in "iu":
            raise TypeError(f"{api}: shape given as a Tensor must be a 1-D integer tensor, "
                            f"got shape {list(shape.shape)} dtype {shape.dtype.name}")
        dims = [int(v) for v in shape.numpy().reshape(-1)]
    elif isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        dims = [int(shape)]
    elif isinstance(shape, (list, tuple)):
        dims = [_dim(api, d) for d in shape]
    else:
        raise TypeError(f"{api}: shape must be a list, tuple or Tensor, got "
                        f"{type(shape).__name__}")
    if any(d < 0 for d in dims):
        raise ValueError(f"{api}: every dim of shape must be non-negative (each value is "
                         f"expected to be no less than 0), got {dims}")
    return dims


def shape_slots(api: str, shape) -> tuple:
    """A shape argument that may hold static Variables: (dims, tensors), where each -1 in dims
    is a slot that the values of `tensors` fill at run time (a 1-D Variable gives the whole
    shape, a 0-D/1-element one dim). Without Variables this is (as_shape(...), [])."""
    if is_variable(shape):
        _check_shape_var(api, shape, whole=True)
        return [-1] * shape.shape[0], [shape]
    if isinstance(shape, (list, tuple)) and any(is_variable(d) for d in shape):
        dims, tensors = [], []
        for d in shape:
            if is_variable(d):
                _check_shape_var(api, d, whole=False)
                tensors.append(d)
                dims.append(-1)
            else:
                dims.append(as_shape(api, [d])[0])
        return dims, tensors
    return as_shape(api, shape), []


def _check_shape_var(api: str, v, whole: bool) -> None:
    if v.dtype.name not in ("int32", "int64"):
        raise TypeError(f"{api}: the data type of a shape tensor must be int32 or int64, got "
                        f"{v.dtype.name}")
    if whole and (v.ndim != 1 or v.shape[0] < 0):
        raise ValueError(f"{api}: a shape given as a Variable must be 1-D with a known "
                         f"length, got shape {list(v.shape)}")
    if not whole and any(d != 1 for d in v.shape):
        raise ValueError(f"{api}: a Variable inside shape must hold one value (0-D or [1]), "
                         f"got shape {list(v.shape)}")


def dispatch_shaped(op: str, shape: tuple, attrs: dict):
    """Dispatch creation op `op` (full, uniform, normal, randint) for shape_slots' result:
    the op itself, or its `_<op>_dims` twin when run-time dims fill slots."""
    dims, tensors = shape
    if tensors:
        return dispatch(REGISTRY[f"_{op}_dims"], (tensors,), {**attrs, "shape": dims})
    return dispatch(REGISTRY[op], (), {**attrs, "shape": dims})


def _dim(api: str, d) -> int:
    if isinstance(d, Tensor):
        if d.size != 1 or d.dtype.kind not in "iu":
            raise TypeError(f"{api}: a Tensor inside shape must be a 0-D integer tensor, got "
                            f"shape {list(d.shape)} dtype {d.dtype.name}")
        return int(d.item())
    if isinstance(d, (int, np.integer)) and not isinstance(d, bool):
        return int(d)
    raise TypeError(f"{api}: elements of shape must be ints or 0-D integer Tensors, got "
                    f"{type(d).__name__} ({d!r})")


def as_dtype(dtype, default=None) -> str:
    """A dtype argument (string, paddle dtype, NumPy dtype) as a dtype name; None -> default
    (the default float dtype when no default is given)."""
    if dtype is None:
        return _dt.default_float().name if default is None else _dt.convert_dtype(default).name
    return _dt.convert_dtype(dtype).name


def as_scalar(api: str, arg: str, value):
    """A scalar argument (Python/NumPy scalar or one-element Tensor) as a Python number."""
    if isinstance(value, Tensor):
        if value.size != 1:
            raise ValueError(f"{api}: {arg} given as a Tensor must have one element, got "
                             f"shape {list(value.shape)}")
        value = value.item()
    if not isinstance(value, _SCALARS):
        raise TypeError(f"{api}: {arg} must be a number or a 0-D Tensor, got "
                        f"{type(value).__name__}")
    if isinstance(value, np.generic):
        value = value.item()
    return value


def fill_attr(api: str, value):
    """A fill value as a JSON-friendly attr (complex as [real, imag])."""
    value = as_scalar(api, "fill_value", value)
    if isinstance(value, complex):
        return [value.real, value.imag]
    return value


def _int_arg(api: str, arg: str, value, minimum: int = 0) -> int:
    value = as_scalar(api, arg, value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{api}: {arg} must be an int, got {type(value).__name__} ({value!r})")
    if value < minimum:
        raise ValueError(f"{api}: {arg} must be >= {minimum}, got {value}")
    return value


# --- filled tensors ---------------------------------------------------------------------

def placed(api: str, t: Tensor, device=None, requires_grad: bool = False,
           pin_memory: bool = False) -> Tensor:
    """`t` moved to `device` (a Place or 'cpu'/'gpu:N', as to_tensor's place) with
    stop_gradient = not requires_grad: Paddle 3.x's creation keywords. pin_memory needs a GPU
    build (Paddle: RuntimeError on the CPU); sampan keeps no pinned host memory, so it is refused
    wherever the result lands on the CPU."""
    target = None if device is None else _place.to_place(device)
    if pin_memory and (target or _place.current_place()).is_cpu_place():
        raise RuntimeError(f"{api}: pin_memory=True: pinning memory is not supported for "
                           f"{target or _place.current_place()}")
    if target is not None and in_dynamic_mode():
        t._data = _place.move(t._data, target)
    if requires_grad:
        t.stop_gradient = False
    return t


def full(shape, fill_value, dtype=None, name=None,
         *, device=None, requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """A tensor of `shape` filled with `fill_value`.

    Args:
        shape (list|tuple|Tensor): ints or 0-D int Tensors, or a 1-D int Tensor.
        fill_value (bool|int|float|Tensor): the value (a 0-D Tensor is read as a scalar).
        dtype (str|dtype, optional): output dtype; None gives the default float (float32).

    Returns:
        Tensor of the given shape and dtype.

    Examples:
        >>> import sampan as paddle
        >>> paddle.full([2], 1.5)
        Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [1.50000000, 1.50000000])
    """
    if is_variable(fill_value):  # a static value known only at run time: 0 + value
        if fill_value.size != 1:
            raise ValueError(f"full: fill_value given as a Variable must hold one value, got "
                             f"shape {list(fill_value.shape)}")
        zeros_ = full(shape, 0, dtype)
        value = call("reshape", fill_value, shape=[])
        result = zeros_ + call("cast", value, dtype=zeros_.dtype.name)
        return placed("full", result, device, requires_grad, pin_memory)
    result = dispatch_shaped("full", shape_slots("full", shape), {
                                           "fill_value": fill_attr("full", fill_value),
                                           "dtype": as_dtype(dtype)})
    return placed("full", result, device, requires_grad, pin_memory)


def fill_constant(shape, dtype, value, force_cpu=False, out=None, name=None) -> Tensor:
    """A tensor of `shape` and `dtype` filled with `value` (Paddle's `paddle.tensor` name for
    `full` with the dtype first); with `out`, the values are assigned into it.

    Args:
        shape (list|tuple|Tensor): the output shape.
        dtype (str|dtype): output dtype (required).
        value (bool|int|float|Tensor): the fill value.
        force_cpu (bool, optional): ignored (sampan runs on the CPU). Default False.
        out (Tensor, optional): tensor to write the result into (then returned).

    Returns:
        Tensor.

    Examples:
        >>> import sampan as paddle
        >>> paddle.tensor.fill_constant([2], 'int64', 3)
        Tensor(shape=[2], dtype=int64, place=Place(cpu), stop_gradient=True,
               [3, 3])
    """
    if dtype is None:
        raise TypeError("fill_constant: dtype is required, got None")
    result = full(shape, value, dtype)
    return result if out is None else assign(result, out)


def zeros(shape, dtype=None, name=None,
          *, device=None, requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """A tensor of `shape` filled with 0 (dtype None: the default float dtype)."""
    result = dispatch_shaped("full", shape_slots("zeros", shape), {
                                           "fill_value": 0, "dtype": as_dtype(dtype)})
    return placed("zeros", result, device, requires_grad, pin_memory)


def ones(shape, dtype=None, name=None,
         *, device=None, requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """A tensor of `shape` filled with 1 (dtype None: the default float dtype)."""
    result = dispatch_shaped("full", shape_slots("ones", shape), {
                                           "fill_value": 1, "dtype": as_dtype(dtype)})
    return placed("ones", result, device, requires_grad, pin_memory)


def empty(shape, dtype=None, name=None,
          *, device=None, requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """An uninitialised tensor of `shape` (sampan fills it with zeros)."""
    result = dispatch_shaped("full", shape_slots("empty", shape), {
                                           "fill_value": 0, "dtype": as_dtype(dtype)})
    return placed("empty", result, device, requires_grad, pin_memory)


def _like(api: str, x, fill_value, dtype):
    if not is_tensor(x):
        raise TypeError(f"{api}: x must be a Tensor, got {type(x).__name__}")
    dtype = None if dtype is None else as_dtype(dtype)
    return dispatch(REGISTRY["full_like"], (x,), {"fill_value": fill_attr(api, fill_value),
                                                  "dtype": dtype})


def full_like(x, fill_value, dtype=None, name=None,
              *, device=None, requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """A tensor shaped like x filled with `fill_value` (dtype None: x's dtype)."""
    result = _like("full_like", x, fill_value, dtype)
    return placed("full_like", result, device, requires_grad, pin_memory)


def zeros_like(x, dtype=None, name=None,
               *, device=None, requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """A tensor shaped like x filled with 0 (dtype None: x's dtype)."""
    result = _like("zeros_like", x, 0, dtype)
    return placed("zeros_like", result, device, requires_grad, pin_memory)


def ones_like(x, dtype=None, name=None,
              *, device=None, requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """A tensor shaped like x filled with 1 (dtype None: x's dtype)."""
    result = _like("ones_like", x, 1, dtype)
    return placed("ones_like", result, device, requires_grad, pin_memory)


def empty_like(x, dtype=None, name=None,
               *, device=None, requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """An uninitialised tensor shaped like x (sampan fills it with zeros)."""
    result = _like("empty_like", x, 0, dtype)
    return placed("empty_like", result, device, requires_grad, pin_memory)


# --- ranges and matrices ------------------------------------------------------------------

def arange(start=0, end=None, step=1, dtype=None, name=None,
           *, device=None, requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """Values from `start` (inclusive) to `end` (exclusive) spaced by `step`.

    With one argument, it is `end` and start is 0. dtype None gives int64 when start, end
    and step are all ints, else the default float dtype.

    Examples:
        >>> import sampan as paddle
        >>> paddle.arange(5)
        Tensor(shape=[5], dtype=int64, place=Place(cpu), stop_gradient=True,
               [0, 1, 2, 3, 4])
    """
    if end is None:
        start, end = 0, start
    start = as_scalar("arange", "start", start)
    end = as_scalar("arange", "end", end)
    step = as_scalar("arange", "step", step)
    if step == 0:
        raise ValueError(f"arange: step must not be 0, got start={start}, end={end}, step=0")
    all_int = all(isinstance(v, int) for v in (start, end, step))
    dtype = as_dtype(dtype, "int64" if all_int else None)
    if not all_int:
        start, end, step = float(start), float(end), float(step)
    result = dispatch(REGISTRY["arange"], (), {"start": start, "end": end, "step": step,
                                               "dtype": dtype})
    return placed("arange", result, device, requires_grad, pin_memory)


def linspace(start, stop, num, dtype=None, name=None,
             *, device=None, requires_grad: bool = False) -> Tensor:
    """`num` evenly spaced values from `start` to `stop` inclusive (dtype None: float32)."""
    attrs = {"start": float(as_scalar("linspace", "start", start)),
             "stop": float(as_scalar("linspace", "stop", stop)),
             "num": _int_arg("linspace", "num", num), "dtype": as_dtype(dtype)}
    result = dispatch(REGISTRY["linspace"], (), attrs)
    return placed("linspace", result, device, requires_grad)


def logspace(start, stop, num, base=10.0, dtype=None, name=None) -> Tensor:
    """`num` values base ** t for t evenly spaced from `start` to `stop` inclusive."""
    attrs = {"start": float(as_scalar("logspace", "start", start)),
             "stop": float(as_scalar("logspace", "stop", stop)),
             "num": _int_arg("logspace", "num", num),
             "base": float(as_scalar("logspace", "base", base)), "dtype": as_dtype(dtype)}
    return dispatch(REGISTRY["logspace"], (), attrs)


def eye(num_rows, num_columns=None, dtype=None, name=None,
        *, device=None, requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """A num_rows x num_columns matrix with ones on the diagonal (num_columns None: square).

    Examples:
        >>> import sampan as paddle
        >>> paddle.eye(2, dtype="int64")
        Tensor(shape=[2, 2], dtype=int64, place=Place(cpu), stop_gradient=True,
               [[1, 0],
                [0, 1]])
    """
    rows = _int_arg("eye", "num_rows", num_rows)
    cols = rows if num_columns is None else _int_arg("eye", "num_columns", num_columns)
    result = dispatch(REGISTRY["eye"], (), {"num_rows": rows, "num_columns": cols,
                                            "dtype": as_dtype(dtype)})
    return placed("eye", result, device, requires_grad, pin_memory)


def diag(x, offset=0, padding_value=0, name=None) -> Tensor:
    """1-D x: a square matrix with x on the `offset` diagonal (`padding_value` elsewhere);
    2-D x: the `offset` diagonal as a 1-D tensor. Differentiable in x."""
    return dispatch(REGISTRY["diag"], (x,), {
        "offset": _int_arg("diag", "offset", offset, -2 ** 62),
        "padding_value": fill_attr("diag", padding_value)})


def diagflat(x, offset=0, name=None) -> Tensor:
    """A square matrix with the flattened x on the `offset` diagonal."""
    flat = call("reshape", x, shape=[-1])
    return dispatch(REGISTRY["diag"], (flat,), {
        "offset": _int_arg("diagflat", "offset", offset, -2 ** 62), "padding_value": 0})


def diag_embed(input, offset=0, dim1=-2, dim2=-1) -> Tensor:
    """Place the last dim of `input` on the `offset` diagonal of new dims (dim1, dim2)."""
    return dispatch(REGISTRY["diag_embed"], (input,), {"offset": int(offset),
                                                        "dim1": int(dim1), "dim2": int(dim2)})


def meshgrid(*args, **kwargs) -> list:
    """Coordinate grids ('ij' indexing) from k 1-D tensors: k tensors of shape [n1, ..., nk].

    Accepts the tensors as separate arguments or as one list/tuple.
    """
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = tuple(args[0])
    if not args:
        raise ValueError("meshgrid: expected at least one 1-D tensor, got none")
    for i, a in enumerate(args):
        if not is_tensor(a) or a.ndim != 1:
            kind = f"shape {list(a.shape)}" if is_tensor(a) else type(a).__name__
            raise ValueError(f"meshgrid: every input must be a 1-D Tensor; input {i} is {kind}")
    shape = [a.shape[0] for a in args]
    target = call("full", shape=shape, fill_value=False, dtype="bool")
    outs = []
    for i, a in enumerate(args):
        view = [1] * len(args)
        view[i] = shape[i]
        outs.append(call("expand_as", call("reshape", a, shape=view), target))
    return outs


def tril(x, diagonal=0, name=None) -> Tensor:
    """The lower triangle of the last two dims of x (above `diagonal` set to 0)."""
    return dispatch(REGISTRY["tril"], (x,), {"diagonal": int(diagonal)})


def triu(x, diagonal=0, name=None) -> Tensor:
    """The upper triangle of the last two dims of x (below `diagonal` set to 0)."""
    return dispatch(REGISTRY["triu"], (x,), {"diagonal": int(diagonal)})


def tril_indices(row, col, offset=0, dtype="int64") -> Tensor:
    """[2, N] coordinates of the lower triangle (col - row <= offset) of a row x col matrix."""
    attrs = {"row": _int_arg("tril_indices", "row", row),
             "col": _int_arg("tril_indices", "col", col), "offset": int(offset),
             "dtype": as_dtype(dtype)}
    return dispatch(REGISTRY["tril_indices"], (), attrs)


def triu_indices(row, col=None, offset=0, dtype="int64") -> Tensor:
    """[2, N] coordinates of the upper triangle (col - row >= offset); col None: row."""
    row = _int_arg("triu_indices", "row", row)
    col = row if col is None else _int_arg("triu_indices", "col", col)
    attrs = {"row": row, "col": col, "offset": int(offset), "dtype": as_dtype(dtype)}
    return dispatch(REGISTRY["triu_indices"], (), attrs)


def vander(x, n=None, increasing=False, name=None) -> Tensor:
    """The Vandermonde matrix of 1-D x: columns x ** (n-1), ..., x ** 0 (reversed when
    `increasing`); n None gives a square matrix.

    A composite of repeated multiplication (not pow), so gradients of every order are exact,
    also at x = 0.
    """
    if not is_tensor(x):
        raise TypeError(f"vander: x must be a 1-D Tensor, got {type(x).__name__}")
    if x.ndim != 1:
        raise ValueError(f"vander: x must be a 1-D Tensor, got shape {list(x.shape)}")
    n = x.shape[0] if n is None else _int_arg("vander", "n", n)
    if n == 0:
        return dispatch(REGISTRY["full"], (), {"shape": [x.shape[0], 0], "fill_value": 0,
                                               "dtype": x.dtype.name})
    cols = [dispatch(REGISTRY["full_like"], (x,), {"fill_value": 1, "dtype": None})]
    for _ in range(n - 1):
        cols.append(cols[-1] * x)
    return call("stack", cols if increasing else cols[::-1], axis=1)


# --- copies --------------------------------------------------------------------------------

def assign(x, output=None) -> Tensor:
    """Copy x (a Tensor, NumPy array, or Python scalar/list) into a new tensor, or into
    `output` when given (which is then returned). Differentiable in x."""
    if not is_tensor(x):
        x = to_tensor(x)
    result = dispatch(REGISTRY["assign"], (x,))
    if output is None:
        return result
    if is_variable(result) and isinstance(output, Tensor):
        return result._assign_into(output)  # built into a Program: see Variable._assign_into
    if not is_tensor(output):
        raise TypeError(f"assign: output must be a Tensor or None, got "
                        f"{type(output).__name__}")
    return output._rebind(result)


def clone(x, name=None) -> Tensor:
    """A differentiable copy of x (gradients flow back to x)."""
    return dispatch(REGISTRY["assign"], (x,))


# --- in-place Tensor methods -------------------------------------------------------------

def zero_(x) -> Tensor:
    """Set every element of x to 0 in place; returns x."""
    return _fill_inplace(x, 0, "zero_")


def fill_(x, value) -> Tensor:
    """Set every element of x to `value` in place (no gradient flows to x's old value)."""
    return _fill_inplace(x, value, "fill_")


def _fill_inplace(x, value, api: str) -> Tensor:
    check_inplace(x, api)
    result = dispatch(REGISTRY["full_like"], (x._alias(),),
                      {"fill_value": fill_attr(api, value), "dtype": None})
    return x._rebind(result)


def fill_diagonal_(x, value, offset=0, wrap=False, name=None) -> Tensor:
    """Set the diagonal of x (2-D, or all dims equal) to `value` in place; returns x.

    `offset` shifts the diagonal right (positive) or left (negative); `wrap` continues the
    diagonal below the first square block of a tall matrix.
    """
    check_inplace(x, "fill_diagonal_")
    value = as_scalar("fill_diagonal_", "value", value)
    result = dispatch(REGISTRY["fill_diagonal"], (x._alias(),),
                      {"value": value, "offset": int(offset), "wrap": bool(wrap)})
    return x._rebind(result)
