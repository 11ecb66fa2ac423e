"""Tensor and Parameter: a backend array plus autograd metadata.

This module holds data only. Math methods and operators are bound by `sampan.tensor`,
`backward` by `sampan.autograd`. Imports only `framework` modules.
"""
from __future__ import annotations

import itertools

import numpy as np

from . import dtype as _dt
from . import place as _place
from .size import TensorSize, _Shape

_names = itertools.count()
_new = object.__new__


class Tensor:
    """A multi-dimensional array with autograd support (`paddle.Tensor`).

    Attributes read on the hot path are class defaults so that wrapping a fresh kernel
    result sets only `_data` (and the autograd fields when a graph node is recorded).
    """

    _data: np.ndarray
    stop_gradient = True
    persistable = False
    _grad = None
    _node = None        # GradNode that produced this tensor (None for leaves)
    _out_idx = 0        # which output of `_node` this tensor is
    _version = 0        # bumped by every in-place op; checked by backward
    _hooks = None       # gradient hooks (list) or None
    _retain = False     # keep .grad on a non-leaf (retain_grads)
    _name = None
    _blank = None       # the placeholder array of a created, not yet filled tensor
    __array_priority__ = 100  # numpy defers `ndarray op Tensor` to our reflected operators

    def __init__(self, data=None, dtype=None, place=None, stop_gradient: bool = True,
                 name: str | None = None) -> None:
        if data is None:
            data = np.zeros((0,), dtype=_dt.default_float().np)
        self._data = to_array(data, dtype)
        if place is not None or _place.current_place() is not _place._CPU:
            self._data = _place.move(self._data, _place.to_place(place))
        self.stop_gradient = bool(stop_gradient)
        if name is not None:
            self._name = name

    # --- identity and metadata -------------------------------------------------------
    @property
    def name(self) -> str:
        if self._name is None:
            self._name = f"generated_tensor_{next(_names)}"
        return self._name

    @name.setter
    def name(self, value: str) -> None:
        self._name = value

    @property
    def shape(self) -> list:
        return _Shape(self._data.shape)

    @property
    def dtype(self) -> _dt.DType:
        return _dt.from_numpy(self._data.dtype)

    @property
    def ndim(self) -> int:
        return self._data.ndim

    def dim(self) -> int:
        return self._data.ndim

    ndimension = dim

    @property
    def size(self) -> int:
        return TensorSize(self._data.shape)

    @property
    def place(self):
        return _place.place_of(self._data)

    @property
    def is_leaf(self) -> bool:
        return self._node is None

    @property
    def grad(self):
        return self._grad

    @grad.setter
    def grad(self, value) -> None:
        """Set the gradient. As in Paddle, setting over an existing gradient copies the
        values into a new gradient tensor that keeps the old one's stop_gradient (False
        after backward; later edits of `value` do not show); with no gradient yet, `value`
        itself becomes it."""
        if value is not None and not isinstance(value, Tensor):
            value = wrap(to_array(value, self.dtype))
        elif value is not None and self._grad is not None and value is not self._grad:
            copied = wrap(value._data.copy())
            copied.stop_gradient = self._grad.stop_gradient
            value = copied
        self._grad = value

    @property
    def T(self):
        return self.transpose(list(range(self.ndim))[::-1])

    # --- conversion ------------------------------------------------------------------
    def numpy(self, *args) -> np.ndarray:
        """The values as a NumPy array (shared with the tensor). Paddle's optional positional
        argument (whether its C++ side may copy) is accepted and has no effect here."""
        if len(args) > 1:
            raise TypeError(f"Tensor.numpy() takes at most 1 argument, got {len(args)}")
        data = self._data
        return data if data.__class__ is np.ndarray else _place.backend_of(data).to_host(data)

    def __array__(self, dtype=None, copy=None):
        data = self.numpy()
        return data if dtype is None else data.astype(dtype)

    def item(self, *args):
        data = self._data
        if not args and data.size != 1:
            raise ValueError(f"Tensor.item: only a tensor with one element can be converted "
                             f"to a Python scalar, got shape {list(data.shape)}")
        value = data.item(*args)
        return value if data.dtype != _dt.bfloat16.np else float(value)

    def tolist(self) -> list:
        data = self._data
        if data.dtype in (_dt.bfloat16.np,):
            data = data.astype(np.float32)
        return data.tolist()

    def __float__(self) -> float:
        return float(self.item())

    def __int__(self) -> int:
        return int(self.item())

    def __index__(self) -> int:
        if self.dtype.kind not in "iub":
            raise TypeError(f"only integer tensors can be used as an index, got {self.dtype}")
        return int(self.item())

    def __complex__(self) -> complex:
        return complex(self.item())

    def __bool__(self) -> bool:
        if self._data.size != 1:
            raise ValueError(f"The truth value of a Tensor with shape {list(self.shape)} is "
                             f"ambiguous; use paddle.any() or paddle.all()")
        return bool(self._data)

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-D tensor")
        return self._data.shape[0]

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-D tensor")
        for i in range(self._data.shape[0]):
            yield self[i]

    def __hash__(self) -> int:
        return id(self)

    def __repr__(self) -> str:
        if not self._is_initialized():
            return "Tensor(Not initialized)"
        from .printing import tensor_repr
        return tensor_repr(self)

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        """A 0-D tensor formats as its Python number (`f"{t}"` -> `5.0`, as Paddle 3.3.1);
        others as their repr, and only with an empty format spec."""
        if self._data.ndim == 0:
            return format(self.item(), spec)
        if spec:
            raise TypeError("unsupported format string passed to Tensor.__format__")
        return repr(self)

    def __deepcopy__(self, memo):
        new = Tensor.__new__(type(self))
        new.__dict__.update({k: v for k, v in self.__dict__.items()
                             if k not in ("_node", "_grad", "_hooks")})
        new._data = self._data.copy()
        if self._grad is not None:
            new._grad = _grad_of(self._grad._data.copy())
        memo[id(self)] = new
        return new

    def __reduce_ex__(self, proto):
        return (_rebuild, (type(self), self._data, self.stop_gradient, self._name))

    # --- autograd bookkeeping (engine lives in sampan.autograd) -----------------------
    def clear_grad(self, set_to_zero: bool = True) -> None:
        """Reset the gradient (zeros when set_to_zero, else None)."""
        if self._grad is not None and set_to_zero:
            self._grad = _grad_of(np.zeros_like(self._grad._data))
        else:
            self._grad = None

    def clear_gradient(self, set_to_zero: bool = True) -> None:
        self.clear_grad(set_to_zero)

    def detach(self) -> "Tensor":
        """A new tensor sharing the data, cut from the graph (stop_gradient=True)."""
        return wrap(self._data)

    def detach_(self) -> "Tensor":
        self._node = None
        self.stop_gradient = True
        return self

    def retain_grads(self) -> None:
        self._retain = True

    def register_hook(self, hook):
        """Call `hook(grad)` when this tensor's gradient is computed; it may return a new grad."""
        if self.stop_gradient:
            raise RuntimeError("register_hook: cannot register a hook on a tensor that "
                               "stops gradient (stop_gradient=True)")
        if self._hooks is None:
            self._hooks = []
        self._hooks.append(hook)
        hooks = self._hooks

        class _Handle:
            def remove(self_inner) -> bool:
                if hook in hooks:
                    hooks.remove(hook)
                    return True
                return False
        return _Handle()

    def _alias(self) -> "Tensor":
        """A second handle on the current value and graph position (used by in-place ops)."""
        other = _new(Tensor)
        other._data = self._data
        other.stop_gradient = self.stop_gradient
        other._node = self._node
        other._out_idx = self._out_idx
        other._version = self._version
        other._hooks = self._hooks
        return other

    def _rebind(self, result: "Tensor") -> "Tensor":
        """Make self hold `result` (value and graph position): the end of an in-place op."""
        self._data = result._data
        self._node = result._node
        self._out_idx = result._out_idx
        if not result.stop_gradient:
            self.stop_gradient = False
        self._version += 1
        return self

    def _is_initialized(self) -> bool:
        """False for a created tensor (Layer.create_tensor) until a value is put in it."""
        return self._blank is None or self._blank is not self._data

    def value(self) -> "Tensor":
        return self

    def get_tensor(self):
        """The DenseTensor holding this tensor's data (Paddle's low-level view:
        set(array, place), shape(), _dtype(); prints as Paddle's DenseTensor)."""
        from .dense_tensor import DenseTensorHolder
        return DenseTensorHolder(self)

    def cpu(self) -> "Tensor":
        """This tensor on the CPU (itself when it is there already)."""
        return self._to_place(_place._CPU)

    def cuda(self, device_id=None, blocking=True) -> "Tensor":
        """This tensor on GPU `device_id` (default: the current GPU, else 0)."""
        if device_id is None:
            current = _place.current_place()
            device_id = current.id if current.is_gpu_place() else 0
        return self._to_place(_place.CUDAPlace(device_id))

    def _to_place(self, place) -> "Tensor":
        """A copy on `place` keeping stop_gradient (itself when already there).

        NOTE: the copy is a new leaf: gradients do not flow back across a device move.
        """
        if _place.place_of(self._data) == place:
            return self
        out = wrap(_place.move(self._data, place))
        out.stop_gradient = self.stop_gradient
        return out

    def pin_memory(self, blocking: bool = True) -> "Tensor":
        """A copy in pinned host memory: needs a GPU build (Paddle 3.3.1's CPU build raises
        RuntimeError); on a GPU place sampan keeps the tensor where it is."""
        if self.place.is_cpu_place() and not _place.current_place().is_gpu_place():
            raise RuntimeError("Tensor.pin_memory: pinned memory needs a GPU device; this "
                               "tensor is on Place(cpu) and no GPU is in use")
        return self

    def _to(self, device=None, dtype=None, blocking=None):
        out = self if device is None else self._to_place(_place.to_place(device))
        return out if dtype is None else out.astype(dtype)

    def to(self, *args, **kwargs) -> "Tensor":
        """A copy on `device` and/or in `dtype`: to(device=None, dtype=None, blocking=None),
        positionally in any order (Paddle's rule), or to(other=tensor) for its place and
        dtype."""
        if len(args) > 3:
            raise TypeError(f"Tensor.to: takes at most 3 positional arguments (device, dtype, "
                            f"blocking), got {len(args)}")
        unknown = sorted(set(kwargs) - {"device", "dtype", "blocking", "other"})
        if unknown:
            raise TypeError(f"Tensor.to: unexpected keyword argument(s) {unknown}; expected "
                            f"device, dtype, blocking or other")
        other = kwargs.get("other")
        if other is not None:   # the dtype and place of another tensor
            if not isinstance(other, Tensor):
                raise TypeError(f"Tensor.to: other must be a Tensor, got "
                                f"{type(other).__name__}")
            return self._to(other.place, other.dtype)
        dtype = kwargs.get("dtype")
        device = kwargs.get("device")
        for a in args:
            if isinstance(a, (_dt.DType, np.dtype)) or (isinstance(a, str) and
                                                        a.replace("paddle.", "") in _dt._BY_NAME):
                dtype = a
            elif isinstance(a, (str, _place.Place)):
                device = a
        return self._to(device, dtype)

    def element_size(self) -> int:
        return self._data.itemsize

    def numel(self):
        return wrap(np.asarray(self._data.size, dtype=np.int64))

    def is_dense(self) -> bool:
        return True

    def is_sparse(self) -> bool:
        return False

    def data_ptr(self) -> int:
        return self._data.ctypes.data

    @property
    def data(self) -> "Tensor":
        return self

    @data.setter
    def data(self, value) -> None:
        self.set_value(value)

    def set_value(self, value) -> None:
        """Overwrite the data in place (shape must match; dtype is cast to this tensor's)."""
        arr = value._data if isinstance(value, Tensor) else np.asarray(value)
        if tuple(arr.shape) != self._data.shape:
            raise ValueError(f"set_value: shape of value {list(arr.shape)} does not match "
                             f"the tensor's shape {list(self.shape)}")
        self._data = arr.astype(self._data.dtype, copy=True)
        self._version += 1


class Parameter(Tensor):
    """A trainable tensor owned by a Layer: stop_gradient=False, persistable=True."""

    stop_gradient = False
    persistable = True
    need_clip = True
    is_distributed = False
    regularizer = None
    optimize_attr = {"learning_rate": 1.0}

    def __init__(self, data=None, dtype=None, name=None, trainable: bool = True, shape=None,
                 **kwargs):
        if isinstance(dtype, bool):  # Paddle 3.x's nn.Parameter(data, requires_grad)
            kwargs.setdefault("requires_grad", dtype)
            dtype = None
        if "requires_grad" in kwargs:
            trainable = bool(kwargs.pop("requires_grad"))
        if shape is not None and data is None:  # Paddle's EagerParamBase(shape, dtype, ...)
            data = np.zeros([int(d) for d in shape], dtype=_dt.convert_dtype(
                dtype or _dt.default_float()).np)
        super().__init__(data, dtype, stop_gradient=not trainable, name=name)
        self.trainable = bool(trainable)
        for key, value in kwargs.items():
            setattr(self, key, value)

    def __repr__(self) -> str:
        return "Parameter containing:\n" + Tensor.__repr__(self)

    __str__ = __repr__

    @property
    def trainable(self) -> bool:
        """Whether the optimizer updates it: the opposite of stop_gradient (as in Paddle,
        setting one sets the other)."""
        return not self.stop_gradient

    @trainable.setter
    def trainable(self, value: bool) -> None:
        if not isinstance(value, bool):
            raise ValueError(f"Parameter.trainable: trainable must be a bool, got "
                             f"{type(value).__name__} ({value!r})")
        self.stop_gradient = not value

    @property
    def trainable_(self) -> bool:
        return not self.stop_gradient


EagerParamBase = Parameter


def _rebuild(cls, data, stop_gradient, name):
    t = cls.__new__(cls)
    t._data = data
    t.stop_gradient = stop_gradient
    if name is not None:
        t._name = name
    return t


def _grad_of(arr) -> Tensor:
    """A gradient tensor as Paddle keeps one in `.grad`: a leaf with stop_gradient=False."""
    t = wrap(arr)
    t.stop_gradient = False
    return t


def wrap(arr) -> Tensor:
    """Wrap a backend array as a fresh leaf Tensor (stop_gradient=True); no copy."""
    t = _new(Tensor)
    t._data = arr
    return t


def to_array(data, dtype=None) -> np.ndarray:
    """Convert Python/NumPy/Tensor data to a backend array in `dtype` (or its natural type).

    Python floats become the default float dtype, Python ints int64, bools bool, as
    `paddle.to_tensor` does; NumPy arrays keep their dtype (float64 stays float64).
    """
    if isinstance(data, Tensor):
        arr = data._data
    elif isinstance(data, np.ndarray) or _place.is_device_array(data):  # NumPy, CuPy arrays
        arr = data
    elif isinstance(data, np.generic):
        arr = np.asarray(data)
    elif dtype is not None and not _holds_tensor(data):
        try:  # straight to the requested dtype: no rounding through the default float
            return np.asarray(data, dtype=_dt.convert_dtype(dtype).np)
        except (TypeError, ValueError):
            arr = _from_python(data)
    else:
        arr = _from_python(data)
    if dtype is not None:
        target = _dt.convert_dtype(dtype).np
        if arr.dtype != target:
            arr = arr.astype(target)
    elif arr.dtype not in _dt._BY_NP:
        if arr.dtype.kind == "U" or arr.dtype.kind == "O":
            raise TypeError(f"to_tensor: data of type {arr.dtype} cannot be converted to a "
                            f"Tensor; expected numbers, bools or nested lists of them")
        arr = arr.astype(np.int64 if arr.dtype.kind in "iu" else np.float64)
    return arr


def _from_python(data) -> np.ndarray:
    if _holds_tensor(data):
        data = _unwrap_nested(data)
    try:
        arr = np.asarray(data)
    except ValueError as e:
        raise ValueError(f"to_tensor: data must be a rectangular nested sequence; {e}") from None
    if arr.dtype == np.float64 and not _has_numpy_float64(data):
        arr = arr.astype(_dt.default_float().np)
    elif arr.dtype == np.complex128:
        arr = arr.astype(np.complex64 if _dt.default_float() is not _dt.float64
                         else np.complex128)
    elif arr.dtype.kind == "i" and arr.dtype != np.int64:
        arr = arr.astype(np.int64)
    return arr


def _holds_tensor(data) -> bool:
    return isinstance(data, (list, tuple)) and any(isinstance(v, Tensor) for v in _flat(data))


def _flat(data):
    for v in data:
        if isinstance(v, (list, tuple)):
            yield from _flat(v)
        else:
            yield v


def _unwrap_nested(data):
    if isinstance(data, (list, tuple)):
        return [_unwrap_nested(v) for v in data]
    return data._data if isinstance(data, Tensor) else data


def _has_numpy_float64(data) -> bool:
    if isinstance(data, (list, tuple)):
        return any(_has_numpy_float64(v) for v in data)
    return isinstance(data, np.float64) or (isinstance(data, Tensor) and
                                            data._data.dtype == np.float64)


def is_variable(value) -> bool:
    """Whether `value` is a static-graph Variable (it marks itself with `_is_variable`:
    `framework` cannot import `static`). The one such test; use it instead of getattr."""
    return not isinstance(value, type) and bool(getattr(value, "_is_variable", False))


def is_tensor_or_variable(value) -> bool:
    """Whether `value` is an eager Tensor or a static Variable standing for one."""
    return isinstance(value, Tensor) or is_variable(value)
