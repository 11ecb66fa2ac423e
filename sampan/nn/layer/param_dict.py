"""ParameterDict (Paddle 3.x): Parameters held by string key, registered on the layer.

Imports `framework` and `nn.layer.layers`.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping

from ...framework.tensor import Parameter
from .layers import Layer

__all__ = ["ParameterDict"]


class ParameterDict(Layer):
    """Holds Parameters in a dictionary; each is registered under its key, so
    `parameters()`, `state_dict()` and optimizers see them.

    Args:
        parameters (Mapping|Iterable|None): a mapping of name -> Parameter, or an iterable
            of (name, Parameter) pairs. Default None (empty).

    Examples:
        >>> import sampan as paddle
        >>> params = paddle.nn.ParameterDict(
        ...     {"w": paddle.create_parameter([2, 2], "float32")})
        >>> params["b"] = paddle.create_parameter([2], "float32")
        >>> len(params), list(params)
        (2, ['w', 'b'])
        >>> [name for name, _ in params.named_parameters()]
        ['w', 'b']
    """

    def __init__(self, parameters: Mapping | Iterable | None = None) -> None:
        super().__init__()
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key: str) -> Parameter:
        if key not in self._parameters:
            raise KeyError(f"paddle.nn.ParameterDict: no parameter named {key!r} "
                           f"(keys: {list(self._parameters)})")
        return self._parameters[key]

    def __setitem__(self, key: str, param: Parameter) -> None:
        if not isinstance(param, Parameter):
            raise TypeError(f"paddle.nn.ParameterDict: the value of {key!r} must be a "
                            f"Parameter, got {type(param).__name__}")
        self.add_parameter(key, param)

    def __delitem__(self, key: str) -> None:
        del self._parameters[key]

    def __contains__(self, key: str) -> bool:
        return key in self._parameters

    def __len__(self) -> int:
        return len(self._parameters)

    def __iter__(self) -> Iterator[str]:
        return iter(self._parameters)

    def update(self, parameters: Mapping | Iterable) -> None:
        """Add (or replace) the parameters of a mapping or of (name, Parameter) pairs."""
        if isinstance(parameters, (Mapping, ParameterDict)):
            items = [(key, parameters[key]) for key in parameters]
        elif isinstance(parameters, Iterable):
            items = list(parameters)
        else:
            raise TypeError(f"paddle.nn.ParameterDict.update: parameters must be a mapping "
                            f"or an iterable of (name, Parameter) pairs, got "
                            f"{type(parameters).__name__}")
        for i, pair in enumerate(items):
            if len(pair) != 2:
                raise ValueError(f"paddle.nn.ParameterDict.update: element {i} of parameters "
                                 f"has length {len(pair)}, which must be 2")
            self.add_parameter(pair[0], pair[1])
