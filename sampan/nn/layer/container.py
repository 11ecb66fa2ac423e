"""Containers: Sequential, LayerList, LayerDict, ParameterList."""
from __future__ import annotations

import collections
from typing import Iterable

from ...framework.tensor import Parameter
from .layers import Layer

__all__ = ["Sequential", "LayerList", "LayerDict", "ParameterList"]


def _index(api: str, idx: int, n: int) -> int:
    if not isinstance(idx, int):
        raise TypeError(f"{api}: index must be an int, got {type(idx).__name__}")
    if not -n <= idx < n:
        raise IndexError(f"{api}: index {idx} is out of range for {n} elements")
    return idx + n if idx < 0 else idx


class Sequential(Layer):
    """Runs layers in order; built from layers or from (name, layer) pairs.

    Examples:
        >>> import sampan as paddle
        >>> net = paddle.nn.Sequential(paddle.nn.Linear(4, 2), paddle.nn.ReLU())
        >>> net(paddle.ones([3, 4])).shape
        paddle.Size([3, 2])
    """

    def __init__(self, *layers) -> None:
        super().__init__()
        if len(layers) > 0 and isinstance(layers[0], (list, tuple)):
            for name, layer in layers:
                self.add_sublayer(str(name), layer)
        else:
            for i, layer in enumerate(layers):
                self.add_sublayer(str(i), layer)

    def __getitem__(self, name):
        if isinstance(name, slice):
            return self.__class__(*list(self._sub_layers.values())[name])
        if isinstance(name, str):
            return self._sub_layers[name]
        values = list(self._sub_layers.values())
        return values[_index("Sequential", name, len(values))]

    def __setitem__(self, name, layer: Layer) -> None:
        keys = list(self._sub_layers)
        key = name if isinstance(name, str) else keys[_index("Sequential", name, len(keys))]
        setattr(self, key, layer)

    def __delitem__(self, name) -> None:
        keys = list(self._sub_layers)
        key = name if isinstance(name, str) else keys[_index("Sequential", name, len(keys))]
        del self._sub_layers[key]

    def __len__(self) -> int:
        return len(self._sub_layers)

    def __iter__(self):
        return iter(self._sub_layers.values())

    def append(self, module: Layer) -> "Sequential":
        """Adds `module` at the end, named by its position (Paddle 3.x)."""
        self.add_sublayer(str(len(self)), module)
        return self

    def insert(self, index: int, module: Layer) -> "Sequential":
        """Inserts `module` before position `index` (-len <= index <= len); the layers are
        named by position, so the ones after it are renamed one up."""
        if not isinstance(module, Layer):
            raise AssertionError(
                f"Sequential.insert: module should be a Layer, got {type(module).__name__}")
        n = len(self)
        if not isinstance(index, int) or not -n <= index <= n:
            raise IndexError(f"Sequential.insert: index {index} is out of range for {n} layers")
        values = list(self._sub_layers.values())
        values.insert(index + n if index < 0 else index, module)
        self._sub_layers.clear()
        for i, layer in enumerate(values):
            self._sub_layers[str(i)] = layer
        return self

    def extend(self, sequential: Iterable[Layer]) -> "Sequential":
        """Appends every layer of `sequential` in order."""
        for layer in sequential:
            self.append(layer)
        return self

    def forward(self, input):
        for layer in self._sub_layers.values():
            input = layer(input)
        return input


class LayerList(Layer):
    """A list of sublayers, registered so their parameters are found.

    Examples:
        >>> import sampan as paddle
        >>> layers = paddle.nn.LayerList([paddle.nn.Linear(2, 2) for _ in range(3)])
        >>> len(layers), len(layers.parameters())
        (3, 6)
    """

    def __init__(self, sublayers: Iterable[Layer] | None = None) -> None:
        super().__init__()
        for i, layer in enumerate(sublayers or ()):
            self.add_sublayer(str(i), layer)

    def _renumber(self, layers: list) -> None:
        self._sub_layers.clear()
        for i, layer in enumerate(layers):
            self._sub_layers[str(i)] = layer

    def __getitem__(self, idx):
        values = list(self._sub_layers.values())
        if isinstance(idx, slice):
            return self.__class__(values[idx])
        return values[_index("LayerList", idx, len(values))]

    def __setitem__(self, idx: int, sublayer: Layer) -> None:
        idx = _index("LayerList", idx, len(self))
        self.add_sublayer(str(idx), sublayer)

    def __delitem__(self, idx) -> None:
        values = list(self._sub_layers.values())
        if isinstance(idx, slice):
            del values[idx]
        else:
            del values[_index("LayerList", idx, len(values))]
        self._renumber(values)

    def __len__(self) -> int:
        return len(self._sub_layers)

    def __iter__(self):
        return iter(self._sub_layers.values())

    def append(self, sublayer: Layer) -> "LayerList":
        self.add_sublayer(str(len(self)), sublayer)
        return self

    def insert(self, index: int, sublayer: Layer) -> None:
        values = list(self._sub_layers.values())
        values.insert(index, sublayer)
        self._renumber(values)

    def extend(self, sublayers: Iterable[Layer]) -> "LayerList":
        for layer in sublayers:
            self.append(layer)
        return self


class LayerDict(Layer):
    """An ordered dict of sublayers.

    Examples:
        >>> import sampan as paddle
        >>> d = paddle.nn.LayerDict({"act": paddle.nn.Sequential()})
        >>> list(d.keys())
        ['act']
    """

    def __init__(self, sublayers=None) -> None:
        super().__init__()
        if sublayers is not None:
            self.update(sublayers)

    def __getitem__(self, key: str) -> Layer:
        return self._sub_layers[key]

    def __setitem__(self, key: str, sublayer: Layer) -> None:
        self.add_sublayer(key, sublayer)

    def __delitem__(self, key: str) -> None:
        del self._sub_layers[key]

    def __len__(self) -> int:
        return len(self._sub_layers)

    def __iter__(self):
        return iter(self._sub_layers)

    def __contains__(self, key: str) -> bool:
        return key in self._sub_layers

    def clear(self) -> None:
        self._sub_layers.clear()

    def pop(self, key: str) -> Layer:
        return self._sub_layers.pop(key)

    def keys(self):
        return self._sub_layers.keys()

    def items(self):
        return self._sub_layers.items()

    def values(self):
        return self._sub_layers.values()

    def update(self, sublayers) -> None:
        if isinstance(sublayers, (dict, collections.OrderedDict, LayerDict)):
            items = sublayers.items()
        else:
            if not isinstance(sublayers, (list, tuple)):
                raise _UpdateTypeError(f"LayerDict.update: sublayers must be a dict, LayerDict "
                                       f"or list of (key, layer) pairs, got "
                                       f"{type(sublayers).__name__}")
            items = []
            for i, pair in enumerate(sublayers):
                if not isinstance(pair, (list, tuple)) or len(pair) != 2:
                    raise ValueError(f"LayerDict.update: element {i} must be a (key, layer) "
                                     f"pair, got {pair!r}")
                items.append(pair)
        for key, layer in items:
            self.add_sublayer(key, layer)


class ParameterList(Layer):
    """A list of Parameters, registered on the layer.

    Examples:
        >>> import sampan as paddle
        >>> ps = paddle.nn.ParameterList([paddle.create_parameter([2], "float32")])
        >>> len(ps)
        1
    """

    def __init__(self, parameters: Iterable[Parameter] | None = None) -> None:
        super().__init__()
        for i, p in enumerate(parameters or ()):
            self.add_parameter(str(i), p)

    def __getitem__(self, idx):
        values = list(self._parameters.values())
        if isinstance(idx, slice):
            return self.__class__(values[idx])
        return values[_index("ParameterList", idx, len(values))]

    def __setitem__(self, idx: int, param: Parameter) -> None:
        self.add_parameter(str(_index("ParameterList", idx, len(self))), param)

    def __len__(self) -> int:
        return len(self._parameters)

    def __iter__(self):
        return iter(self._parameters.values())

    def append(self, parameter: Parameter) -> "ParameterList":
        self.add_parameter(str(len(self)), parameter)
        return self


class _UpdateTypeError(AssertionError, TypeError):
    """LayerDict.update of a non-iterable: Paddle asserts; TypeError is the kind."""
