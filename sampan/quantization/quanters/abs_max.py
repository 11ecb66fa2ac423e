"""Fake quanters: moving-average abs-max (Paddle's FakeQuanterWithAbsMaxObserver) and a
per-channel abs-max quanter for weights."""
from __future__ import annotations

import numpy as np

from ... import tensor as T
from ...autograd import no_grad
from ...framework.tensor import Tensor
from ..base import BaseQuanter, QuanterFactory, check_bits, check_rate
from ..functional import fake_quant_dequant


def _buffer(value) -> Tensor:
    return T.to_tensor(np.asarray(value, "float32"))


class FakeQuanterWithAbsMaxObserverLayer(BaseQuanter):
    """Fake-quantizes its input per tensor with a moving-average abs-max scale.

    In training each call updates, before quantizing (Paddle's order):
        state = moving_rate * state + 1
        accum = moving_rate * accum + max(abs(x))
        scale = accum / state
    starting from state = 1, accum = 1, scale = 0.001 (Paddle's initial values). In eval mode
    the stored scale is used and nothing is updated.
    """

    def __init__(self, layer=None, name=None, moving_rate: float = 0.9, bit_length: int = 8,
                 dtype="float32") -> None:
        super().__init__()
        api = "FakeQuanterWithAbsMaxObserver"
        self._moving_rate = check_rate(api, moving_rate)
        self._bit_length = check_bits(api, bit_length)
        self.register_buffer("_scale", _buffer([0.001]))
        self.register_buffer("_state", _buffer([1.0]))
        self.register_buffer("_accum", _buffer([1.0]))

    def forward(self, input):
        if self.training:
            with no_grad():
                cur = T.max(T.abs(input)).astype("float32").reshape([1])
                state = self._state * self._moving_rate + 1.0
                accum = self._accum * self._moving_rate + cur
                self._state.set_value(state)
                self._accum.set_value(accum)
                self._scale.set_value(accum / state)
        return fake_quant_dequant(input, self._scale.astype(input.dtype), self._bit_length)

    def scales(self):
        return self._scale

    def zero_points(self):
        return T.zeros_like(self._scale)

    def quant_axis(self) -> int:
        return -1

    def bit_length(self) -> int:
        return self._bit_length


class FakeQuanterWithAbsMaxObserver(QuanterFactory):
    """Factory of FakeQuanterWithAbsMaxObserverLayer (moving-average abs-max fake quant).

    Args:
        moving_rate (float): decay of the moving average, default 0.9.
        bit_length (int): bits, default 8.
        dtype (str): dtype of the scale, default 'float32'.

    Examples:
        >>> import sampan as paddle
        >>> from sampan.quantization.quanters import FakeQuanterWithAbsMaxObserver
        >>> q = FakeQuanterWithAbsMaxObserver(moving_rate=0.9)._instance(None)
        >>> out = q(paddle.to_tensor([[-1.5, 0.3, 2.0]]))
        >>> round(float(q.scales()), 6)   # (0.9 * 1 + 2.0) / (0.9 * 1 + 1)
        1.526316
    """

    layer_class = FakeQuanterWithAbsMaxObserverLayer

    def __init__(self, moving_rate: float = 0.9, bit_length: int = 8, dtype="float32",
                 name=None) -> None:
        # keyword order as Paddle's, which shows in the printed factory
        super().__init__(name=name, moving_rate=moving_rate, bit_length=bit_length, dtype=dtype)


def weight_channel_axis(layer) -> int:
    """The output-channel axis of a layer's weight: 1 for Linear ([in, out]), else 0."""
    from ...nn import Linear
    return 1 if isinstance(layer, Linear) else 0


class FakeQuanterChannelWiseAbsMaxLayer(BaseQuanter):
    """Fake-quantizes a weight per output channel with its current abs max per channel."""

    def __init__(self, layer=None, bit_length: int = 8) -> None:
        super().__init__()
        self._bit_length = check_bits("FakeQuanterChannelWiseAbsMax", bit_length)
        self._axis = weight_channel_axis(layer)
        self._scale = None

    def forward(self, input):
        axes = [d for d in range(input.ndim) if d != self._axis]
        with no_grad():
            scale = T.max(T.abs(input), axis=axes)
        self._scale = scale
        return fake_quant_dequant(input, scale, self._bit_length, self._axis)

    def scales(self):
        return self._scale

    def zero_points(self):
        return None if self._scale is None else T.zeros_like(self._scale)

    def quant_axis(self) -> int:
        return self._axis

    def bit_length(self) -> int:
        return self._bit_length


class FakeQuanterChannelWiseAbsMax(QuanterFactory):
    """Factory of a per-output-channel abs-max fake quanter, meant for weights in QAT
    (axis 1 of a Linear weight, axis 0 of a Conv2D weight).

    Examples:
        >>> import sampan as paddle
        >>> from sampan.quantization.quanters import FakeQuanterChannelWiseAbsMax
        >>> q = FakeQuanterChannelWiseAbsMax()._instance(paddle.nn.Linear(2, 2))
        >>> # 0.1 / 0.2 * 127 = 63.5 rounds away from zero to 64 -> 64 * 0.2 / 127
        >>> q(paddle.to_tensor([[1.0, 0.1], [-0.5, 0.2]])).numpy().round(4)
        array([[ 1.    ,  0.1008],
               [-0.5039,  0.2   ]], dtype=float32)
    """

    layer_class = FakeQuanterChannelWiseAbsMaxLayer

    def __init__(self, bit_length: int = 8) -> None:
        super().__init__(bit_length=bit_length)
