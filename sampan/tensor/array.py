"""paddle.tensor.array: tensor arrays (create_array, array_write, array_read, array_length).

In dynamic mode a tensor array is a Python list of Tensors, as in Paddle. While a static
Program is built it is a `StaticTensorArray`: a list of Variables held at build time, so
writes and reads need indices whose value the Program fixes when it is built (Python ints or
`paddle.zeros/full` Variables); `array_length` is a constant int64 [1] Variable. Arrays
indexed by values computed at run time (inside `static.nn.while_loop`) are not supported and
raise NotImplementedError. Imports `framework` and `ops`.
"""
from __future__ import annotations

from ..framework import dtype as _dt
from ..framework.flags import in_dynamic_mode
from ..framework.tensor import Tensor, is_variable
from ..ops.dispatch import call, dispatch
from ..ops.opdef import REGISTRY
from ._helpers import known_value

__all__ = ["create_array", "array_write", "array_read", "array_length",
           "tensor_array_to_tensor"]


class StaticTensorArray(list):
    """A tensor array of a static Program being built: its Variables, in order."""

    _is_tensor_array = True

    def __init__(self, dtype, items=()) -> None:
        super().__init__(items)
        self.dtype = _dt.convert_dtype(dtype)

    def append(self, x) -> None:
        if not is_variable(x):
            raise TypeError(f"append: a static tensor array holds Variables, got "
                            f"{type(x).__name__}")
        super().append(x)

    def __repr__(self) -> str:
        return f"StaticTensorArray(dtype={self.dtype.name}, length={len(self)})"


def create_array(dtype, initialized_list=None):
    """A new tensor array of `dtype`: a Python list of Tensors in dynamic mode, a
    StaticTensorArray while a static Program is built.

    Args:
        dtype (str|dtype): the dtype of the array's tensors.
        initialized_list (list|tuple, optional): Tensors (Variables) it starts with.

    Returns:
        list|StaticTensorArray.

    Examples:
        >>> import sampan as paddle
        >>> arr = paddle.tensor.create_array('float32', [paddle.ones([2])])
        >>> len(arr)
        1
    """
    _dt.convert_dtype(dtype)
    items = list(initialized_list) if initialized_list is not None else []
    if initialized_list is not None and not isinstance(initialized_list, (list, tuple)):
        raise TypeError(f"create_array: initialized_list must be a list or tuple, got "
                        f"{type(initialized_list).__name__}")
    for v in items:
        if not (isinstance(v, Tensor) or is_variable(v)):
            raise TypeError(f"create_array: all values in `initialized_list` should be "
                            f"Tensors (Variables), but received {type(v).__name__}")
    return items if in_dynamic_mode() else StaticTensorArray(dtype, items)


def _index(api: str, i, length: int, write: bool) -> int:
    if in_dynamic_mode():
        if not isinstance(i, Tensor):
            raise _IndexTypeError(f"{api}: the index 'i' must be a Tensor in dynamic mode, "
                                  f"got {type(i).__name__}")
        value = i.numpy()
    elif is_variable(i):
        if i._build_value() is None:
            raise NotImplementedError(
                f"{api}: index Variable '{i.name}' is computed when the Program runs; sampan's "
                f"static tensor arrays need indices fixed when it is built (paddle.zeros/full "
                f"or Python ints), so arrays inside while_loop are not supported")
        value = known_value(api, "i", i)
    else:
        value = i
    if getattr(value, "size", 1) != 1:
        raise ValueError(f"{api}: the index 'i' must hold one value, got shape "
                         f"{list(value.shape)}")
    k = int(getattr(value, "item", lambda: value)())
    if k < 0 or k > length or (k == length and not write):
        raise _IndexError(f"{api}: index {k} is out of range for a tensor array of length "
                          f"{length}")
    return k


class _IndexTypeError(AssertionError, TypeError):
    """Paddle asserts the index is a Tensor in dygraph mode; TypeError is the kind."""


class _IndexError(AssertionError, IndexError):
    """Paddle asserts the index is in range; IndexError is the kind."""


def _check_array(api: str, array) -> None:
    if not isinstance(array, list):
        raise TypeError(f"{api}: array must be a tensor array (a list, see create_array), "
                        f"got {type(array).__name__}")


def array_write(x, i, array=None):
    """Write x at index i of `array` (appending when i equals its length); a new array is
    created when `array` is None. Returns the array.

    Examples:
        >>> import sampan as paddle
        >>> i = paddle.zeros([1], dtype='int64')
        >>> arr = paddle.tensor.array_write(paddle.full([2], 3.0), i)
        >>> paddle.tensor.array_read(arr, i).tolist()
        [3.0, 3.0]
    """
    if not (isinstance(x, Tensor) or is_variable(x)):
        raise TypeError(f"array_write: x must be a Tensor, got {type(x).__name__}")
    if array is None:
        array = create_array(x.dtype)
    _check_array("array_write", array)
    k = _index("array_write", i, len(array), write=True)
    if k == len(array):
        array.append(x)
    else:
        array[k] = x
    return array


def array_read(array, i):
    """The tensor at index i of `array`."""
    _check_array("array_read", array)
    return array[_index("array_read", i, len(array), write=False)]


def array_length(array):
    """The number of tensors in `array`: a Python int in dynamic mode (as Paddle), an int64
    [1] Variable in a static Program."""
    _check_array("array_length", array)
    if in_dynamic_mode():
        return len(array)
    return dispatch(REGISTRY["full"], (), {"shape": [1], "fill_value": len(array),
                                           "dtype": "int64"})


def tensor_array_to_tensor(input, axis: int = 1, use_stack: bool = False, name=None):
    """Join a tensor array into one Tensor: concatenated along `axis`, or stacked along a
    new `axis` when `use_stack`. Also returns each element's size along `axis` (int64).

    Args:
        input (list|StaticTensorArray): the tensor array (from `create_array`).
        axis (int, optional): the axis to join along. Default 1.
        use_stack (bool, optional): stack instead of concatenating. Default False.
        name (str, optional): unused.

    Returns:
        tuple: (Tensor, Tensor) the joined tensor and the int64 sizes along `axis`.

    Examples:
        >>> import sampan as paddle
        >>> arr = paddle.tensor.create_array('float32', [paddle.ones([2, 3]), paddle.zeros([2, 1])])
        >>> out, index = paddle.tensor.manipulation.tensor_array_to_tensor(arr, axis=1)
        >>> list(out.shape), index.numpy().tolist()
        ([2, 4], [3, 1])
    """
    api = "tensor_array_to_tensor"
    if not isinstance(input, list):
        raise TypeError(f"{api}: input must be a tensor array (a list of Tensors from "
                        f"create_array), got {type(input).__name__}")
    if not input:
        raise ValueError(f"{api}: input is an empty tensor array")
    for i, x in enumerate(input):
        if not isinstance(x, Tensor) and not is_variable(x):
            raise TypeError(f"{api}: input[{i}] must be a Tensor, got {type(x).__name__}")
    sizes = [int(x.shape[axis]) for x in input]
    out = call("stack" if use_stack else "concat", list(input), axis=axis)
    parts = [dispatch(REGISTRY["full"], (), {"shape": [1], "fill_value": n, "dtype": "int64"})
             for n in sizes]
    return out, call("concat", parts, axis=0)
