"""InputSpec: the shape (None/-1 = any), dtype and name of a model input, for static data
declarations, to_static signatures and export. Imports only `framework`."""
from __future__ import annotations

import numpy as np

from ..framework import dtype as _dt


class InputSpec:
    """Describes one input: shape (None or -1 marks a dim of any size), dtype and name.

    Args:
        shape (list|tuple): dims; None is stored as -1.
        dtype (str|dtype): data type. Default "float32".
        name (str, optional): the feed name.
        stop_gradient (bool): whether the input stops gradients. Default False.

    Examples:
        >>> import sampan as paddle
        >>> spec = paddle.static.InputSpec([None, 784], "float32", "image")
        >>> spec
        InputSpec(shape=(-1, 784), dtype=paddle.float32, name=image, stop_gradient=False)
        >>> spec.batch(8).shape
        (8, -1, 784)
    """

    def __init__(self, shape, dtype="float32", name: str | None = None,
                 stop_gradient: bool = False) -> None:
        self.shape = _normalize_shape(shape)
        self.dtype = _dt.convert_dtype(dtype)
        if name is not None and not isinstance(name, str):
            raise TypeError(f"InputSpec: name must be a str or None, got {type(name).__name__}")
        self.name = name
        self.stop_gradient = bool(stop_gradient)

    @classmethod
    def from_tensor(cls, tensor, name: str | None = None) -> "InputSpec":
        """The spec of an existing Tensor (its name unless `name` is given)."""
        if not hasattr(tensor, "shape") or not hasattr(tensor, "dtype"):
            raise TypeError(f"InputSpec.from_tensor: expected a Tensor, got "
                            f"{type(tensor).__name__}")
        return cls(tensor.shape, tensor.dtype, name or getattr(tensor, "name", None))

    @classmethod
    def from_numpy(cls, ndarray, name: str | None = None) -> "InputSpec":
        """The spec of a NumPy array."""
        arr = np.asarray(ndarray)
        return cls(arr.shape, _dt.from_numpy(arr.dtype), name)

    def batch(self, batch_size) -> "InputSpec":
        """Prepend a batch dim (in place; returns self)."""
        if isinstance(batch_size, (list, tuple)):
            if len(batch_size) != 1:
                raise ValueError(f"InputSpec.batch: batch_size must be one int, got "
                                 f"{batch_size}")
            batch_size = batch_size[0]
        if not isinstance(batch_size, int) or isinstance(batch_size, bool):
            raise TypeError(f"InputSpec.batch: batch_size must be an int, got "
                            f"{type(batch_size).__name__}")
        self.shape = (batch_size,) + self.shape
        return self

    def unbatch(self) -> "InputSpec":
        """Drop the leading (batch) dim (in place; returns self)."""
        if not self.shape:
            raise ValueError("InputSpec.unbatch: the spec is 0-D and has no batch dim")
        self.shape = self.shape[1:]
        return self

    def __repr__(self) -> str:
        return (f"InputSpec(shape={self.shape}, dtype=paddle.{self.dtype.name}, "
                f"name={self.name}, stop_gradient={self.stop_gradient})")

    def __eq__(self, other) -> bool:
        return (type(other) is type(self) and self.shape == other.shape
                and self.dtype is other.dtype and self.name == other.name
                and self.stop_gradient == other.stop_gradient)

    def __hash__(self) -> int:
        return hash((self.shape, self.dtype.name, self.name, self.stop_gradient))


def _normalize_shape(shape) -> tuple:
    if isinstance(shape, int):
        shape = [shape]
    if not isinstance(shape, (list, tuple)):
        raise TypeError(f"InputSpec: shape must be a list or tuple, got "
                        f"{type(shape).__name__}")
    dims = []
    for d in shape:
        if d is None:
            dims.append(-1)
        elif isinstance(d, (int, np.integer)) and not isinstance(d, bool) and d >= -1:
            dims.append(int(d))
        else:
            raise ValueError(f"InputSpec: every dim must be an int >= -1 or None, got "
                             f"{d!r} in {list(shape)}")
    return tuple(dims)
