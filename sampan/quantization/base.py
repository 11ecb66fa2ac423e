"""Base classes of quanters and observers, and the factories a QuantConfig holds.

A factory (`FakeQuanterWithAbsMaxObserver(moving_rate=0.9)`) only records arguments; QAT/PTQ
call `factory._instance(layer)` once per quantized layer to build the quanter Layer.
Imports `nn` and lower rooms only.
"""
from __future__ import annotations

import abc

from ..nn import Layer


class BaseQuanter(Layer, metaclass=abc.ABCMeta):
    """A Layer that simulates quantization of its input in forward (fake quant) and reports
    the scales, zero points, quant axis and bit length a converted model uses."""

    @abc.abstractmethod
    def forward(self, input):
        pass

    @abc.abstractmethod
    def scales(self):
        """The thresholds (abs max): a Tensor of shape [1] or [channels]."""

    @abc.abstractmethod
    def zero_points(self):
        pass

    @abc.abstractmethod
    def quant_axis(self) -> int:
        """-1 for per-tensor scales, else the channel axis of the quantized tensor."""

    @abc.abstractmethod
    def bit_length(self) -> int:
        pass


class BaseObserver(BaseQuanter, metaclass=abc.ABCMeta):
    """A quanter that only watches: forward records statistics and returns input unchanged;
    `cal_thresholds` turns the statistics into scales."""

    @abc.abstractmethod
    def cal_thresholds(self) -> None:
        pass


class QuanterFactory:
    """Holds a quanter class and its keyword arguments; `_instance(layer)` builds one."""

    layer_class: type = None

    def __init__(self, **kwargs) -> None:
        self.partial_kwargs = kwargs

    def _instance(self, layer) -> BaseQuanter:
        return self.layer_class(layer, **self.partial_kwargs)

    def __repr__(self) -> str:
        """Paddle's text: `Name(arg,...,key=value,...)`, values by str(), no spaces."""
        args = [str(a) for a in getattr(self, "partial_args", ())]
        args += [f"{k}={v}" for k, v in self.partial_kwargs.items()]
        return f"{type(self).__name__}({','.join(args)})"


class ObserverFactory(QuanterFactory):
    """A factory of observers (PTQ and the weights of QAT)."""


def check_bits(api: str, bits) -> int:
    if not isinstance(bits, int) or isinstance(bits, bool) or not 2 <= bits <= 8:
        raise ValueError(f"{api}: the bit length must be an int in [2, 8] (int8 kernels), "
                         f"got {bits!r}")
    return bits


def check_rate(api: str, rate) -> float:
    if not isinstance(rate, (int, float)) or not 0.0 < rate < 1.0:
        raise ValueError(f"{api}: moving_rate must be a float in (0, 1), got {rate!r}")
    return float(rate)
