"""`paddle.Size`: what `Tensor.shape` returns in Paddle 3.x.

A `list` subclass (so everything that took the 2.x list keeps working) that prints as
`paddle.Size([2, 3])`, compares equal to lists and tuples of the same dims, keeps its type
through slicing, `+` and `*`, and has `numel()`.

Shapes built inside sampan come from already-checked integers, so they use `_Shape`, a
subclass that skips the Python-level check of `Size(...)` (about 70 ns per `.shape`).
"""
from __future__ import annotations

import operator
from math import prod


class Size(list):
    """The dims of a Tensor: a `list` of ints that prints as `paddle.Size([...])`.

    Args:
        dims (Iterable[int], optional): The dimension sizes. Default: ().

    Examples:
        >>> import sampan as paddle
        >>> size = paddle.Size([2, 3, 4])
        >>> print(size)
        paddle.Size([2, 3, 4])
        >>> size.numel()
        24
    """

    __slots__ = ()

    def __init__(self, dims=()) -> None:
        items = list(dims)
        for i, d in enumerate(items):
            if not isinstance(d, int) and not hasattr(d, "__index__"):
                raise TypeError(f"paddle.Size() takes an iterable of 'int' (item {i} is "
                                f"{type(d).__name__!r})")
        super().__init__(operator.index(d) for d in items)

    def __repr__(self) -> str:
        return f"paddle.Size({list.__repr__(self)})"

    __str__ = __repr__

    def __getitem__(self, index):
        got = list.__getitem__(self, index)
        return _Shape(got) if isinstance(index, slice) else got

    def __add__(self, other):
        return _Shape(list(self) + list(other))

    def __radd__(self, other):
        return _Shape(list(other) + list(self))

    def __mul__(self, n):
        return _Shape(list.__mul__(self, n))

    __rmul__ = __mul__

    def __eq__(self, other) -> bool:
        if isinstance(other, tuple):
            other = list(other)
        return list.__eq__(self, other)

    def __ne__(self, other) -> bool:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    __hash__ = None  # a list: unhashable, as in Paddle

    def __copy__(self) -> Size:
        return _Shape(self)

    def __deepcopy__(self, memo) -> Size:
        return _Shape(self)

    def __reduce__(self):
        return (Size, (list(self),))

    def numel(self) -> int:
        """The number of elements a tensor of this shape holds (1 for `[]`)."""
        return prod(self)


class _Shape(Size):
    """A Size built from dims sampan already checked: `list.__init__`, no Python check."""

    __slots__ = ()
    __init__ = list.__init__


_Shape.__name__ = _Shape.__qualname__ = "Size"


class TensorSize(int):
    """What `Tensor.size` is in Paddle 3.x: the element count (an int), also callable as
    PyTorch's `size()`: `x.size()` is `x.shape` as a `paddle.Size`, `x.size(d)` one dim."""

    def __new__(cls, dims) -> TensorSize:
        self = int.__new__(cls, prod(dims))
        self._dims = dims
        return self

    def __call__(self, dim=None):
        shape = _Shape(self._dims)
        return shape if dim is None else shape[dim]

    def __reduce__(self):
        return (int, (int(self),))
