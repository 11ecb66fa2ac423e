"""The shared part of QAT and PTQ: swap quantizable sublayers for their quantized twins,
and `convert` the twins into int8 layers."""
from __future__ import annotations

import abc
import copy

from ..nn import Conv2D, Layer, Linear
from .config import QuantConfig
from .layers import Int8Conv2D, Int8Linear, QuantedConv2D, QuantedLinear

_QUANTED = {Linear: QuantedLinear, Conv2D: QuantedConv2D}
_INT8 = {QuantedLinear: Int8Linear, QuantedConv2D: Int8Conv2D}


def _replace(model: Layer, make) -> None:
    """Replace each sublayer for which make(layer) returns a Layer (depth first)."""
    for name, child in list(model._sub_layers.items()):
        new = make(child)
        if new is not None:
            model._sub_layers[name] = new
        else:
            _replace(child, make)


class Quantization(metaclass=abc.ABCMeta):
    """Base of QAT and PTQ: holds the QuantConfig."""

    def __init__(self, config: QuantConfig) -> None:
        if not isinstance(config, QuantConfig):
            raise TypeError(f"{type(self).__name__}: config must be a QuantConfig, got "
                            f"{type(config).__name__}")
        self._config = copy.deepcopy(config)

    @abc.abstractmethod
    def quantize(self, model: Layer, inplace: bool = False) -> Layer:
        pass

    def _insert(self, model: Layer, inplace: bool) -> Layer:
        _check_model(type(self).__name__ + ".quantize", model)
        config = self._config
        # configs keyed by layer identity must survive the copy: resolve them first
        chosen = {id(sub): config._get_config_by_layer(sub)
                  for _, sub in model.named_sublayers(include_self=True)
                  if config._is_quantifiable(sub)}
        if not inplace:
            ids = [id(s) for _, s in model.named_sublayers(include_self=True)]
            model = copy.deepcopy(model)
            copies = [s for _, s in model.named_sublayers(include_self=True)]
            chosen = {id(c): chosen[i] for i, c in zip(ids, copies) if i in chosen}

        def make(layer):
            if id(layer) in chosen:
                return _QUANTED[_base_type(layer)](layer, chosen[id(layer)])
            return None
        if id(model) in chosen:
            raise ValueError(f"{type(self).__name__}.quantize: model is itself a "
                             f"{type(model).__name__}; wrap it in a container Layer")
        _replace(model, make)
        return model

    def convert(self, model: Layer, inplace: bool = False, remain_weight: bool = False) -> Layer:
        """Turn every quantized layer into an int8 layer (int8 weights, int8 activations,
        int32 accumulation), using the scales its quanters or observers collected.

        Args:
            model (Layer): a model returned by quantize (after training or calibration).
            inplace (bool): modify model instead of a copy, default False.
            remain_weight (bool): accepted for Paddle compatibility; int8 layers keep the
                int8 weight only.
        Returns:
            Layer: the converted model.
        """
        _check_model(type(self).__name__ + ".convert", model)
        if not inplace:
            model = copy.deepcopy(model)
        count = [0]

        def make(layer):
            if type(layer) in _INT8:
                count[0] += 1
                return _INT8[type(layer)](layer)
            return None
        _replace(model, make)
        if not count[0]:
            raise ValueError(f"{type(self).__name__}.convert: model has no quantized layers; "
                             f"call quantize(model) first")
        model.eval()
        return model


def _base_type(layer) -> type:
    for t in _QUANTED:
        if isinstance(layer, t):
            return t
    raise TypeError(f"quantize: no quantized form of {type(layer).__name__}")


def _check_model(api: str, model) -> None:
    if not isinstance(model, Layer):
        raise TypeError(f"{api}: model must be a Layer, got {type(model).__name__}")
