"""Paddle 3.x Tensor-only methods and properties: dtype conversions (x.float(), x.long(),
...), type_as, mT, requires_grad, itemsize, device queries, repeat, split_with_sizes, stride,
apply. Bound onto Tensor by tensor/__init__.py from METHODS and PROPERTIES.
Imports `framework` and sibling tensor modules.
"""
from __future__ import annotations

from ..autograd import no_grad
from . import manipulation
from .compat3 import _dims, matrix_transpose
from .storage3 import METHODS as STORAGE_METHODS

_CONVERSIONS = {
    "bool": "bool", "byte": "uint8", "uint8": "uint8", "char": "int8", "int8": "int8",
    "short": "int16", "int16": "int16", "int": "int32", "int32": "int32",
    "long": "int64", "int64": "int64", "half": "float16", "float16": "float16",
    "bfloat16": "bfloat16", "float": "float32", "float32": "float32",
    "double": "float64", "float64": "float64", "cfloat": "complex64",
    "complex64": "complex64", "cdouble": "complex128", "complex128": "complex128",
}


def _conversion(method: str, dtype: str):
    def convert(self):
        return manipulation.cast(self, dtype)
    convert.__name__ = method
    convert.__doc__ = f"`x.{method}()` is `x.astype('{dtype}')`."
    return convert


def type_as(self, other):
    """`self` cast to `other`'s dtype."""
    return manipulation.cast(self, other.dtype)


def requires_grad_(self, requires_grad: bool = True):
    """Set whether gradients flow to `self` (stop_gradient = not requires_grad); returns self."""
    self.stop_gradient = not requires_grad
    return self


def _get_requires_grad(self) -> bool:
    return not self.stop_gradient


def _set_requires_grad(self, value: bool) -> None:
    self.stop_gradient = not bool(value)


def get_device(self) -> int:
    """The GPU id holding `self`; -1 on the CPU."""
    place = self.place
    return place.id if place.is_gpu_place() else -1


def repeat(input, repeats, *more_repeats):
    """Tile `input` by `repeats`: x.repeat(2, 1) or x.repeat([2, 1]) (PyTorch-style)."""
    if hasattr(repeats, "shape"):
        repeats = [int(v) for v in repeats.tolist()]
    return manipulation.tile(input, _dims("repeat", repeats, more_repeats))


def split_with_sizes(self, split_sizes, dim: int = 0):
    """Split `self` along `dim` into pieces of the given sizes (they must sum to the dim)."""
    total = self.shape[dim]
    if sum(split_sizes) != total:
        raise ValueError(f"split_with_sizes: split_sizes {list(split_sizes)} must sum to the "
                         f"size {total} of dim {dim}")
    return manipulation.split(self, list(split_sizes), axis=dim)


def stride(self, dim=None):
    """Element strides of `self` (row-major; sampan tensors are contiguous), or of one dim."""
    shape = list(self.shape)
    strides, acc = [], 1
    for size in reversed(shape):
        strides.append(acc)
        acc *= max(size, 1)
    strides.reverse()
    return strides if dim is None else strides[dim]


def apply(self, func):
    """func(self) computed without recording gradients; refused if self requires grad."""
    if not self.stop_gradient:
        raise RuntimeError("Cannot apply function on a tensor that required gradient.")
    with no_grad():
        return func(self)


def apply_(self, func):
    """Replace self's values by func(self) in place; refused if self requires grad."""
    out = apply(self, func)
    return self._rebind(manipulation.cast(out, self.dtype))


def gradient(self):
    """The gradient of `self` as a NumPy array (None before backward)."""
    return None if self.grad is None else self.grad.numpy()


def _grad_ivar(self):
    """The gradient Tensor of `self` (None before backward): Paddle's internal name for
    `Tensor.grad`."""
    return self.grad


def _zero_grads(self) -> None:
    """Set an existing gradient to zeros in place (nothing when there is none)."""
    self.clear_grad(set_to_zero=True)


def _register_backward_hook(self, hook):
    """Call `hook()` (no arguments) after a backward pass has accumulated this leaf's
    gradient; the gradient is not changed. Only leaves that need a gradient accept one."""
    if not callable(hook):
        raise TypeError(f"_register_backward_hook: hook must be callable, got "
                        f"{type(hook).__name__}")
    if self.stop_gradient or self._node is not None:
        raise ValueError("_register_backward_hook: only a leaf Tensor with "
                         "stop_gradient=False accepts a backward hook")

    def void_hook(grad):
        hook()

    return self.register_hook(void_hook)


def to_dense(self):
    """`self`: a dense tensor is already dense."""
    return self


def _false(self) -> bool:
    """False: a dense, non-distributed sampan Tensor."""
    return False


METHODS = {name: _conversion(name, dtype) for name, dtype in _CONVERSIONS.items()}
METHODS.update({"type_as": type_as, "requires_grad_": requires_grad_, "get_device": get_device,
                "repeat": repeat, "split_with_sizes": split_with_sizes, "stride": stride,
                "apply": apply, "apply_": apply_, "gradient": gradient, "to_dense": to_dense,
                "is_sparse_coo": _false, "is_sparse_csr": _false, "is_selected_rows": _false,
                "is_dist": _false, "_grad_ivar": _grad_ivar, "_zero_grads": _zero_grads,
                "_register_backward_hook": _register_backward_hook})
METHODS.update(STORAGE_METHODS)
PROPERTIES = {
    "mT": property(matrix_transpose, doc="The last two dims swapped (ndim >= 2)."),
    "requires_grad": property(_get_requires_grad, _set_requires_grad,
                              doc="not stop_gradient; settable."),
    "itemsize": property(lambda self: self._data.dtype.itemsize, doc="Bytes per element."),
    "is_cuda": property(lambda self: False, doc="False: sampan tensors live on the CPU."),
    "device": property(lambda self: "cpu", doc="'cpu': where sampan tensors live."),
}
