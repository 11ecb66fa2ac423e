"""QuantConfig: which quanter or observer watches the activations and weights of each layer.

Lookup order for a layer: its name (add_name_config), the instance (add_layer_config), its
type (add_type_config), then the global default given to the constructor.
"""
from __future__ import annotations

from ..nn import Conv2D, Layer, Linear
from .base import QuanterFactory

# layer types QAT/PTQ replace by a quantized twin (layers.py holds the twins)
QUANTIZABLE = (Linear, Conv2D)


class SingleLayerConfig:
    """The activation and weight factories of one layer (either may be None)."""

    def __init__(self, activation: QuanterFactory | None,
                 weight: QuanterFactory | None) -> None:
        self.activation = activation
        self.weight = weight

    def __repr__(self) -> str:
        return f"activation: {self.activation}\nweight: {self.weight}"


def _check_factory(api: str, arg: str, value) -> None:
    if value is not None and not isinstance(value, QuanterFactory):
        raise TypeError(f"QuantConfig.{api}: {arg} must be a quanter or observer factory "
                        f"(e.g. FakeQuanterWithAbsMaxObserver()) or None, got "
                        f"{type(value).__name__}")


def _as_list(value) -> list:
    return list(value) if isinstance(value, (list, tuple)) else [value]


class QuantConfig:
    """Configuration of QAT and PTQ.

    Args:
        activation (QuanterFactory|None): default quanter/observer of layer inputs.
        weight (QuanterFactory|None): default quanter/observer of layer weights.

    Examples:
        >>> import sampan as paddle
        >>> from sampan.quantization import QuantConfig
        >>> from sampan.quantization.quanters import FakeQuanterWithAbsMaxObserver
        >>> q = FakeQuanterWithAbsMaxObserver(moving_rate=0.9)
        >>> config = QuantConfig(activation=q, weight=q)
        >>> config.add_type_config(paddle.nn.Conv2D, activation=q, weight=None)
        >>> config._get_config_by_layer(paddle.nn.Conv2D(1, 2, 3)).weight is None
        True
    """

    def __init__(self, activation: QuanterFactory | None,
                 weight: QuanterFactory | None) -> None:
        _check_factory("__init__", "activation", activation)
        _check_factory("__init__", "weight", weight)
        self._global = (None if activation is None and weight is None
                        else SingleLayerConfig(activation, weight))
        self._layer2config: dict = {}
        self._prefix2config: dict = {}
        self._type2config: dict = {}

    def add_layer_config(self, layer, activation: QuanterFactory | None = None,
                         weight: QuanterFactory | None = None) -> None:
        """Set the quanters of one layer instance (or a list of them) and its sublayers."""
        _check_factory("add_layer_config", "activation", activation)
        _check_factory("add_layer_config", "weight", weight)
        for one in _as_list(layer):
            if not isinstance(one, Layer):
                raise TypeError(f"QuantConfig.add_layer_config: layer must be a Layer or a "
                                f"list of Layers, got {type(one).__name__}")
            for _, sub in one.named_sublayers(include_self=True):
                self._layer2config[id(sub)] = SingleLayerConfig(activation, weight)

    def add_name_config(self, layer_name, activation: QuanterFactory | None = None,
                        weight: QuanterFactory | None = None) -> None:
        """Set the quanters of layers whose full_name() starts with layer_name (or a list)."""
        _check_factory("add_name_config", "activation", activation)
        _check_factory("add_name_config", "weight", weight)
        for name in _as_list(layer_name):
            if not isinstance(name, str):
                raise TypeError(f"QuantConfig.add_name_config: layer_name must be a str or a "
                                f"list of str, got {type(name).__name__}")
            self._prefix2config[name] = SingleLayerConfig(activation, weight)

    def add_type_config(self, layer_type, activation: QuanterFactory | None = None,
                        weight: QuanterFactory | None = None) -> None:
        """Set the quanters of every layer of a type (or list of types)."""
        _check_factory("add_type_config", "activation", activation)
        _check_factory("add_type_config", "weight", weight)
        for t in _as_list(layer_type):
            if not (isinstance(t, type) and issubclass(t, Layer)):
                raise TypeError(f"QuantConfig.add_type_config: layer_type must be a Layer "
                                f"subclass or a list of them, got {t!r}")
            self._type2config[t] = SingleLayerConfig(activation, weight)

    def _get_config_by_layer(self, layer) -> SingleLayerConfig | None:
        full = layer.full_name()
        for prefix, cfg in self._prefix2config.items():
            if full.startswith(prefix):
                return cfg
        if id(layer) in self._layer2config:
            return self._layer2config[id(layer)]
        for t, cfg in self._type2config.items():
            if isinstance(layer, t):
                return cfg
        return self._global

    def _is_quantifiable(self, layer) -> bool:
        cfg = self._get_config_by_layer(layer)
        return isinstance(layer, QUANTIZABLE) and cfg is not None and (
            cfg.activation is not None or cfg.weight is not None)

    def __str__(self) -> str:
        """Paddle's text: the global config, then the type and name (prefix) configs when
        there are any (per-instance configs are not shown, as in Paddle)."""
        text = f"Global config:\n{self._global}\n"
        if self._type2config:
            text += f"Layer type config:\n{self._type2config}\n"
        if self._prefix2config:
            text += f"Layer prefix config: \n{self._prefix2config}\n"
        return text
