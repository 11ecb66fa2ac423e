"""The DenseTensor behind an eager Tensor (`x.get_tensor()`): Paddle's low-level holder view,
with `set(array, place)`, `shape()`, `_dtype()`, `lod()` and Paddle's printed form. Imports only
`framework` modules.
"""
from __future__ import annotations

import numpy as np

from . import dtype as _dt
from . import place as _place


class DenseTensorHolder:
    """The storage of one Tensor seen as Paddle's DenseTensor: reads show the tensor's current
    value, `set` replaces it (the tensor sees the new data, shape and dtype).

    Examples:
        >>> import numpy as np
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([1.5, 2.0])
        >>> t = x.get_tensor()
        >>> print(t)
          - shape: [2]
          - layout: NCHW
          - place: Place(cpu)
          - dtype: float32
          - data: [1.5 2]
        >>> t.set(np.array([7, 8, 9], dtype="int32"), paddle.CPUPlace())
        >>> x.tolist(), t.shape()
        ([7, 8, 9], [3])
    """

    __slots__ = ("_tensor",)

    def __init__(self, tensor) -> None:
        self._tensor = tensor

    def set(self, array, place=None) -> None:
        """Copy `array` (a NumPy array, Tensor or nested list) in as the tensor's value."""
        data = getattr(array, "_data", array)
        data = np.array(data if data.__class__ is np.ndarray else np.asarray(data))
        if place is not None:
            data = _place.move(data, _place.to_place(place))
        t = self._tensor
        t._data = data
        t._version += 1

    def shape(self) -> list:
        return list(self._tensor._data.shape)

    def _dtype(self) -> _dt.DType:
        return self._tensor.dtype

    def _place(self):
        return self._tensor.place

    def lod(self) -> list:
        return []

    def recursive_sequence_lengths(self) -> list:
        return []

    def _is_initialized(self) -> bool:
        return True

    def numpy(self) -> np.ndarray:
        return self._tensor.numpy()

    def __array__(self, dtype=None, copy=None):
        data = self._tensor.numpy()
        return data if dtype is None else data.astype(dtype)

    def __len__(self) -> int:
        return len(self._tensor._data)

    def __repr__(self) -> str:
        """Paddle's text: shape, layout, place, dtype, and the data flattened with C++
        stream formatting (6 significant digits; bools as 1/0)."""
        t = self._tensor
        flat = t.numpy().reshape(-1)
        if flat.dtype.kind == "f" or flat.dtype == _dt.bfloat16.np:
            items = [format(float(v), "g") for v in flat]
        elif flat.dtype.kind == "c":
            items = [f"({v.real:g},{v.imag:g})" for v in flat]
        else:
            items = [str(int(v)) for v in flat]
        return (f"  - shape: {list(t._data.shape)}\n  - layout: NCHW\n  - place: {t.place}\n"
                f"  - dtype: {t.dtype.name}\n  - data: [{' '.join(items)}]")

    __str__ = __repr__
