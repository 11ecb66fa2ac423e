"""Variable (a symbolic tensor in a Block) and Parameter (a persistable, trainable Variable).

A leaf module: imports only `framework`. The tensor API is bound onto Variable by
`static.builder`.
"""
from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

import numpy as np

from ..framework import dtype as _dt
from ..framework.size import _Shape

if TYPE_CHECKING:
    from .program import Block, Program


class Variable:
    """A symbolic tensor in a Block: name, shape (list, -1 = unknown dim), dtype and flags.

    It duck-types paddle.Tensor: the tensor functions, methods and operators bound by
    `sampan.static.builder` append operators to the Variable's Program instead of computing.
    """

    _is_variable = True
    __array_ufunc__ = None  # `ndarray op Variable` defers to Variable's reflected operator
    _version = 0
    is_parameter = False
    is_data = False
    trainable = False
    lod_level = 0
    _sg_explicit = False  # the user set stop_gradient (append_backward honours it)

    def __init__(self, block: "Block", name: str, shape, dtype, persistable: bool = False,
                 stop_gradient: bool = True) -> None:
        self.block = block
        self.name = name
        self._shape = [int(d) for d in shape]
        self._dtype = _dt.convert_dtype(dtype)
        self.persistable = bool(persistable)
        self._stop_gradient = bool(stop_gradient)

    @property
    def shape(self) -> list:
        return _Shape(self._shape)

    @property
    def dtype(self) -> _dt.DType:
        return self._dtype

    @property
    def ndim(self) -> int:
        return len(self._shape)

    def dim(self) -> int:
        return len(self._shape)

    ndimension = dim

    @property
    def stop_gradient(self) -> bool:
        return self._stop_gradient

    @stop_gradient.setter
    def stop_gradient(self, value: bool) -> None:
        self._stop_gradient = bool(value)
        self._sg_explicit = True

    @property
    def type(self) -> str:
        return "LOD_TENSOR"

    @property
    def program(self) -> "Program":
        return self.block.program

    @property
    def T(self):
        return self.transpose(list(range(self.ndim))[::-1])

    @property
    def place(self):
        from ..framework.place import current_place
        return current_place()

    @property
    def size(self) -> int:
        n = 1
        for d in self._shape:
            if d < 0:
                return -1
            n *= d
        return n

    def _no_value(self, what: str):
        raise TypeError(f"{what}: Variable '{self.name}' is symbolic (static graph mode) and "
                        f"has no value; fetch it with Executor.run(fetch_list=[...]) or run "
                        f"in dynamic mode (paddle.disable_static())")

    def _dynamic_only(self, what: str):
        """Paddle's fake_interface_only: eager-autograd methods of a static Variable."""
        raise AssertionError(
            f"'{what}' only can be called by `paddle.Tensor` in dynamic graph mode "
            f"(Variable '{self.name}' is symbolic). In static graph mode append the gradient "
            f"ops with paddle.static.append_backward(loss) / paddle.static.gradients(...) "
            f"(or optimizer.minimize(loss)) and fetch them with Executor.run; or switch to "
            f"dynamic graph mode with paddle.disable_static()")

    def backward(self, grad_tensor=None, retain_graph: bool = False):
        self._dynamic_only("backward")

    def gradient(self):
        self._dynamic_only("gradient")

    @property
    def grad_name(self) -> str:
        """The name append_backward gives this Variable's gradient: `<name>@GRAD`."""
        return f"{self.name}@GRAD"

    def clear_gradient(self, set_to_zero: bool = True):
        self._dynamic_only("clear_gradient")

    def append(self, x):
        """Only a tensor array (paddle.tensor.create_array) can be appended to."""
        raise TypeError(f"append: Variable '{self.name}' is a dense tensor, not a tensor "
                        f"array (create one with paddle.tensor.create_array)")

    def cpu(self):
        """The Variable itself: Executor.run hands every fetched value back as a host
        (NumPy) array, so no copy op is needed."""
        return self

    def _build_value(self):
        """The value, when the Program's ops fix it at build time (one `full` op with no
        inputs wrote it, e.g. `paddle.full([], 2)` as an axis or scale argument), as a NumPy
        array; None otherwise. API functions read attribute-like arguments through this."""
        writers = [op for op in self.block.ops if self.name in op.output_arg_names]
        if self.persistable or len(writers) != 1 or writers[0].type != "full":
            return None
        a = writers[0].attrs
        value = a["fill_value"]
        value = complex(*value) if isinstance(value, (list, tuple)) else value
        return np.full(a["shape"], value, dtype=_dt.convert_dtype(a["dtype"]).np)

    def numpy(self):
        self._no_value("numpy")

    def item(self, *args):
        self._no_value("item")

    def tolist(self):
        self._no_value("tolist")

    def __array__(self, dtype=None, copy=None):
        self._no_value("numpy.asarray")

    def __bool__(self) -> bool:
        self._no_value("bool()")

    def __float__(self) -> float:
        self._no_value("float()")

    def __int__(self) -> int:
        self._no_value("int()")

    def __index__(self) -> int:
        self._no_value("index")

    def __len__(self) -> int:
        if not self._shape:
            raise TypeError("len() of a 0-D Variable")
        if self._shape[0] < 0:
            raise TypeError(f"len(): the first dim of Variable '{self.name}' is unknown (-1)")
        return self._shape[0]

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]

    def __hash__(self) -> int:
        return id(self)

    def __repr__(self) -> str:
        kind = "persist " if self.persistable else ""
        return (f"{kind}var {self.name} : LOD_TENSOR.shape({', '.join(map(str, self._shape))})"
                f".dtype({self._dtype.name}).stop_gradient({self._stop_gradient})")

    __str__ = __repr__

    def detach(self) -> "Variable":
        from ..ops.dispatch import call
        out = call("assign", self)
        out._stop_gradient = True
        return out

    def clone(self) -> "Variable":
        from ..ops.dispatch import call
        return call("assign", self)

    def _alias(self) -> "Variable":
        """A second handle on the same variable (in-place ops compute from it)."""
        other = Variable.__new__(type(self))
        other.__dict__.update(self.__dict__)
        return other

    def _rebind(self, result: "Variable") -> "Variable":
        from .builder import rebind
        return rebind(self, result)

    def _assign_into(self, target) -> "Variable":
        """`paddle.assign(self, output=target)` while building, `target` an eager Tensor
        (a layer's running statistics): it becomes its persistable Variable, written with
        this value (the Executor stores it back into the tensor after each run)."""
        from .builder import rebind, to_variable
        return rebind(to_variable(self.block, "assign", "output", target), self)

    def _set_spec(self, shape, dtype) -> None:
        self._shape = [int(d) for d in shape]
        self._dtype = _dt.convert_dtype(dtype)


class Parameter(Variable):
    """A persistable, trainable Variable (static.create_parameter, layers in static mode)."""

    is_parameter = True

    def __init__(self, block, name, shape, dtype, trainable: bool = True, **kwargs) -> None:
        super().__init__(block, name, shape, dtype, persistable=True,
                         stop_gradient=not trainable)
        self.trainable = trainable
        self.optimize_attr = {"learning_rate": 1.0}
        self.regularizer = None
        self.need_clip = True
        for key, value in kwargs.items():
            setattr(self, key, value)


def check_feed_array(var: Variable, arr: np.ndarray) -> None:
    """Raise a clear error when `arr` cannot be fed into `var` (dtype); warn when its shape
    differs from the declared one (Paddle 3.3.1 runs the Program with the fed shape)."""
    shape = var._shape
    if len(shape) != arr.ndim or any(d >= 0 and d != a for d, a in zip(shape, arr.shape)):
        warnings.warn(f"Executor.run: the fed value of '{var.name}' has shape "
                      f"{list(arr.shape)}, but the variable declares shape {list(shape)} "
                      f"(-1 = any size); running with the fed shape, as Paddle does",
                      stacklevel=3)
    if arr.dtype != var.dtype.np:
        raise TypeError(f"Executor.run: the fed value of '{var.name}' has dtype "
                        f"{_dt.from_numpy(arr.dtype).name if arr.dtype in _dt._BY_NP else arr.dtype}"
                        f", but the variable expects {var.dtype.name}; cast it first "
                        f"(e.g. arr.astype('{var.dtype.name}'))")
