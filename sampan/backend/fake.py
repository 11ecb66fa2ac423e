"""A test-only device backend: NumPy arrays behind a distinct array type on `FakePlace`.

It behaves like a GPU array library where kernels can go wrong: implicit conversion to a
NumPy array raises (as CuPy's does), and so does mixing a host `np.ndarray` into a device
operation. Kernels that call NumPy directly instead of `xp`, mixed-place inputs and missing
device transfers therefore fail on the CPU. Imports only `framework.place`, `backend` and
NumPy.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..backend import numpy_ as _host
from .cupy_ import CPU_ONLY  # noqa: F401  (the fake device has CuPy's gaps, so its list)
from .cupy_conv import kernels_for
from ..framework.place import Place, register_array_type

_ND = np.ndarray
# creation functions that, like cupy.asarray, may copy host data to the device
_FROM_HOST = frozenset({"asarray", "array", "asanyarray", "ascontiguousarray"})


class FakePlace(Place):
    """The fake device `id` (prints `Place(fake:0)`)."""

    backend_module = "sampan.backend.fake"

    def __init__(self, id: int = 0) -> None:
        self.id = int(id)

    def __repr__(self) -> str:
        return f"Place(fake:{self.id})"


class _Flags(NamedTuple):
    c_contiguous: bool
    f_contiguous: bool
    owndata: bool


class FakeArray:
    """A host array standing in for device memory on fake device `device`."""

    __slots__ = ("_a", "device")
    __array_priority__ = 200

    def __init__(self, a: np.ndarray, device: int = 0) -> None:
        self._a = a
        self.device = device

    def __array__(self, dtype=None, copy=None):
        raise TypeError("fake device: implicit conversion to a NumPy array is not allowed "
                        "(a kernel called NumPy instead of xp); use .get()")

    def __setattr__(self, name, value) -> None:
        if name in FakeArray.__slots__:
            object.__setattr__(self, name, value)
        else:  # out.real = ..., out.imag = ...
            setattr(self._a, name, _unwrap(value, name))

    def get(self) -> np.ndarray:
        return self._a

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        args = _unwrap(inputs, ufunc.__name__)
        kwargs = {k: _unwrap(v, ufunc.__name__) for k, v in kwargs.items()}
        return _wrap(getattr(ufunc, method)(*args, **kwargs))

    def __array_function__(self, func, types, args, kwargs):
        name = func.__name__
        res = func(*_unwrap(args, name), **{k: _unwrap(v, name) for k, v in kwargs.items()})
        return _wrap(res)

    def __getattr__(self, name):
        if name.startswith("__"):  # no __array_interface__ & co: no silent host views
            raise AttributeError(name)
        if name == "flags":  # CuPy's flags: no `writeable`
            f = self._a.flags
            return _Flags(f.c_contiguous, f.f_contiguous, f.owndata)
        value = getattr(self._a, name)
        if callable(value):
            return lambda *a, **k: _wrap(value(*_unwrap(a, name),
                                               **{n: _unwrap(v, name) for n, v in k.items()}))
        return _wrap(value)

    def __getitem__(self, key):
        return _wrap(self._a[_unwrap(key, "__getitem__", strict=False)])

    def __setitem__(self, key, value) -> None:
        self._a[_unwrap(key, "__setitem__", strict=False)] = _unwrap(value, "__setitem__")

    def __len__(self) -> int:
        return len(self._a)

    def __iter__(self):
        return (_wrap(v) for v in self._a)

    def __bool__(self) -> bool:
        return bool(self._a)

    def __float__(self) -> float:
        return float(self._a)

    def __int__(self) -> int:
        return int(self._a)

    def __index__(self) -> int:
        return self._a.__index__()

    def __complex__(self) -> complex:
        return complex(self._a)

    def __repr__(self) -> str:
        return f"fake{self.device}:{self._a!r}"

    def __copy__(self):
        return FakeArray(self._a.copy(), self.device)

    def __deepcopy__(self, memo):
        return FakeArray(self._a.copy(), self.device)

    def __reduce__(self):
        raise TypeError("fake device arrays are not picklable; move them to the CPU first")


def _operator(ufunc, reflected: bool = False):
    if reflected:
        return lambda self, other: ufunc(other, self)
    return lambda self, other: ufunc(self, other)


for _name, _uf in [("add", np.add), ("sub", np.subtract), ("mul", np.multiply),
                   ("truediv", np.true_divide), ("floordiv", np.floor_divide),
                   ("mod", np.remainder), ("pow", np.power), ("matmul", np.matmul),
                   ("and", np.bitwise_and), ("or", np.bitwise_or), ("xor", np.bitwise_xor),
                   ("lshift", np.left_shift), ("rshift", np.right_shift)]:
    setattr(FakeArray, f"__{_name}__", _operator(_uf))
    setattr(FakeArray, f"__r{_name}__", _operator(_uf, True))
def _inplace(ufunc):
    def op(self, other):
        ufunc(self, other, out=(self,))
        return self
    return op


for _name, _uf in [("add", np.add), ("sub", np.subtract), ("mul", np.multiply),
                   ("truediv", np.true_divide), ("floordiv", np.floor_divide),
                   ("mod", np.remainder), ("pow", np.power), ("and", np.bitwise_and),
                   ("or", np.bitwise_or), ("xor", np.bitwise_xor)]:
    setattr(FakeArray, f"__i{_name}__", _inplace(_uf))
for _name, _uf in [("lt", np.less), ("le", np.less_equal), ("gt", np.greater),
                   ("ge", np.greater_equal), ("eq", np.equal), ("ne", np.not_equal)]:
    setattr(FakeArray, f"__{_name}__", _operator(_uf))
FakeArray.__neg__ = lambda self: np.negative(self)
FakeArray.__pos__ = lambda self: np.positive(self)
FakeArray.__abs__ = lambda self: np.absolute(self)
FakeArray.__invert__ = lambda self: np.invert(self)
FakeArray.__hash__ = None


def _unwrap(value, where: str, strict: bool = True):
    """Host arrays behind FakeArrays; a host `np.ndarray` operand is an error (strict)."""
    cls = value.__class__
    if cls is FakeArray:
        return value._a
    if cls is tuple or cls is list:
        return cls(_unwrap(v, where, strict) for v in value)
    if strict and isinstance(value, _ND):
        raise TypeError(f"fake device: {where} got a host numpy.ndarray operand "
                        f"(shape {list(value.shape)}) mixed with device arrays")
    return value


def _wrap(value, device: int = 0):
    if isinstance(value, (_ND, np.generic)):
        return FakeArray(np.asarray(value), device)
    if value.__class__ is tuple or value.__class__ is list:
        return value.__class__(_wrap(v, device) for v in value)
    return value


# NumPy features CuPy 14 lacks, so that the fake device fails where a GPU would
_CUPY_LACKS = {"max": ("initial",), "min": ("initial",), "amax": ("initial",),
               "amin": ("initial",), "take": ("mode",), "matrix_rank": ("hermitian",),
               "as_strided": ("writeable",)}
_CUPY_LACKS_UFUNC = {("maximum", "accumulate"), ("minimum", "accumulate"),
                     ("logaddexp", "accumulate"), ("multiply", "at")}


class _Ufunc:
    """A NumPy ufunc with device semantics, its methods (`at`, `reduce`, ...) included."""

    def __init__(self, ufunc: np.ufunc) -> None:
        self._ufunc = ufunc
        self.__name__ = ufunc.__name__

    def __call__(self, *args, **kwargs):
        return self._method("__call__", args, kwargs)

    def __getattr__(self, name: str):
        value = getattr(self._ufunc, name)
        if not callable(value):
            return value
        return lambda *args, **kwargs: self._method(name, args, kwargs)

    def _method(self, name, args, kwargs):
        label = f"xp.{self.__name__}.{name}"
        if (self.__name__, name) in _CUPY_LACKS_UFUNC:
            raise TypeError(f"{label} is not supported by CuPy")
        if any(a.__class__ is list for a in args):  # CuPy ufuncs take arrays and scalars
            raise TypeError(f"{label}: Unsupported type <class 'list'> (as CuPy's)")
        args = _unwrap(args, label)
        kwargs = {k: _unwrap(v, label) for k, v in kwargs.items()}
        return _wrap(getattr(self._ufunc, name)(*args, **kwargs))


class _Namespace:
    """NumPy's namespace (or a submodule of it) with device semantics."""

    def __init__(self, module, label: str) -> None:
        self._module = module
        self._label = label

    def __getattr__(self, name: str):
        value = getattr(self._module, name)
        if isinstance(value, np.ufunc):
            value = _Ufunc(value)
            setattr(self, name, value)
            return value
        if isinstance(value, type) or not callable(value):
            if hasattr(value, "__name__") and type(value).__name__ == "module":
                value = _Namespace(value, f"{self._label}.{name}")
            setattr(self, name, value)
            return value
        strict = name not in _FROM_HOST
        label = f"{self._label}.{name}"
        missing = _CUPY_LACKS.get(name, ())

        def call(*args, **kwargs):
            for key in missing:
                if key in kwargs:
                    raise TypeError(f"{label}() got an unexpected keyword argument {key!r} "
                                    f"(as CuPy's)")
            args = _unwrap(args, label, strict)
            kwargs = {k: _unwrap(v, label, strict) for k, v in kwargs.items()}
            return _wrap(value(*args, **kwargs))
        call.__name__ = name
        setattr(self, name, call)
        return call


_XP = _Namespace(_host, "xp")
ndarray = FakeArray
newaxis = None


def __getattr__(name: str):
    return getattr(_XP, name)


# --- the place protocol (framework.place) --------------------------------------------
def place_of(arr: FakeArray) -> FakePlace:
    return FakePlace(arr.device)


def to_host(arr: FakeArray) -> np.ndarray:
    return arr._a.copy()


def from_host(arr: np.ndarray, place: Place) -> FakeArray:
    return FakeArray(np.array(arr, copy=True), place.id)


def adopt(value, op_name: str):
    """A kernel's result as a device array: scalars are lifted; a host array is an error."""
    if value.__class__ is FakeArray:
        return value
    if isinstance(value, _ND):
        raise TypeError(f"{op_name}: the kernel returned a host numpy.ndarray on "
                        f"Place(fake:0): it computes with NumPy instead of xp")
    return FakeArray(np.asarray(value))


register_array_type(FakeArray, __import__(__name__, fromlist=["_"]))
#: the GPU's convolution kernels (backend/cupy_conv.py), so that the op tests on the fake
#: device run them; set to None to run backend/conv.py's CPU kernels on the fake device
conv_kernels = kernels_for(__import__(__name__, fromlist=["_"]))
