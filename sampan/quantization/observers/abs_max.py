"""Abs-max observers: running abs max per tensor (Paddle's AbsmaxObserver), its moving
average, and per-output-channel abs max of weights. Observers return their input unchanged."""
from __future__ import annotations

import numpy as np

from ... import tensor as T
from ...autograd import no_grad
from ..base import BaseObserver, ObserverFactory, check_bits, check_rate
from ..quanters.abs_max import weight_channel_axis


class _Observer(BaseObserver):
    """Shared parts: bit length, per-tensor axis, zero points, a scale from cal_thresholds."""

    def __init__(self, quant_bits: int = 8) -> None:
        super().__init__()
        self._quant_bits = check_bits(type(self).__name__, quant_bits)
        self._scale = None

    def forward(self, input):
        with no_grad():
            self._observe(input)
        return input

    def scales(self):
        if self._scale is None:
            self.cal_thresholds()
        return self._scale

    def zero_points(self):
        return T.zeros_like(self.scales())

    def quant_axis(self) -> int:
        return -1

    def bit_length(self) -> int:
        return self._quant_bits

    def _require_data(self, value) -> None:
        if value is None:
            raise RuntimeError(f"{type(self).__name__}: no data observed; run calibration "
                               f"batches through the model before convert")


class AbsmaxObserverLayer(_Observer):
    """scale = max |x| over every batch seen."""

    def __init__(self, layer=None, quant_bits: int = 8) -> None:
        super().__init__(quant_bits)
        self._max = None

    def _observe(self, x) -> None:
        cur = float(T.max(T.abs(x)).numpy())
        self._max = cur if self._max is None else max(self._max, cur)
        self._scale = None

    def cal_thresholds(self) -> None:
        self._require_data(self._max)
        self._scale = T.to_tensor(np.asarray([self._max], "float32"))


class AbsmaxObserver(ObserverFactory):
    """Per-tensor abs-max observer factory (PTQ).

    Examples:
        >>> import sampan as paddle
        >>> from sampan.quantization.observers import AbsmaxObserver
        >>> ob = AbsmaxObserver()._instance(None)
        >>> _ = ob(paddle.to_tensor([1.0, -3.0])); _ = ob(paddle.to_tensor([2.0]))
        >>> float(ob.scales())
        3.0
    """

    layer_class = AbsmaxObserverLayer

    def __init__(self, quant_bits: int = 8) -> None:
        super().__init__(quant_bits=quant_bits)


class MovingAverageAbsmaxObserverLayer(_Observer):
    """scale = accum / state with state = rate * state + 1, accum = rate * accum + max |x|,
    starting from state = accum = 1 (the start Paddle documents for its moving-average
    abs-max quantizer)."""

    def __init__(self, layer=None, moving_rate: float = 0.9, quant_bits: int = 8) -> None:
        super().__init__(quant_bits)
        self._rate = check_rate("MovingAverageAbsmaxObserver", moving_rate)
        self._state = 1.0
        self._accum = 1.0
        self._seen = False

    def _observe(self, x) -> None:
        cur = float(T.max(T.abs(x)).numpy())
        self._state = self._rate * self._state + 1.0
        self._accum = self._rate * self._accum + cur
        self._seen = True
        self._scale = None

    def cal_thresholds(self) -> None:
        self._require_data(self._seen or None)
        self._scale = T.to_tensor(np.asarray([self._accum / self._state], "float32"))


class MovingAverageAbsmaxObserver(ObserverFactory):
    """Moving-average abs-max observer factory (PTQ).

    Examples:
        >>> import sampan as paddle
        >>> from sampan.quantization.observers import MovingAverageAbsmaxObserver
        >>> ob = MovingAverageAbsmaxObserver(moving_rate=0.9)._instance(None)
        >>> _ = ob(paddle.to_tensor([2.0]))
        >>> round(float(ob.scales()), 6)   # (0.9 + 2) / (0.9 + 1)
        1.526316
    """

    layer_class = MovingAverageAbsmaxObserverLayer

    def __init__(self, moving_rate: float = 0.9, quant_bits: int = 8) -> None:
        super().__init__(moving_rate=moving_rate, quant_bits=quant_bits)


class AbsMaxChannelWiseWeightObserverLayer(_Observer):
    """Per-output-channel abs max of a weight (axis 1 of Linear, 0 of Conv2D)."""

    def __init__(self, layer=None, quant_bits: int = 8) -> None:
        super().__init__(quant_bits)
        self._axis = weight_channel_axis(layer)
        self._max = None

    def _observe(self, w) -> None:
        axes = [d for d in range(w.ndim) if d != self._axis]
        cur = T.max(T.abs(w), axis=axes).astype("float32")
        self._max = cur if self._max is None else T.maximum(self._max, cur)
        self._scale = None

    def cal_thresholds(self) -> None:
        self._require_data(self._max)
        self._scale = self._max

    def quant_axis(self) -> int:
        return self._axis


class AbsMaxChannelWiseWeightObserver(ObserverFactory):
    """Per-channel weight abs-max observer factory.

    Examples:
        >>> import sampan as paddle
        >>> from sampan.quantization.observers import AbsMaxChannelWiseWeightObserver
        >>> ob = AbsMaxChannelWiseWeightObserver()._instance(paddle.nn.Linear(2, 3))
        >>> _ = ob(paddle.to_tensor([[1.0, -4.0, 0.5], [-2.0, 1.0, 0.25]]))
        >>> ob.scales().numpy()
        array([2. , 4. , 0.5], dtype=float32)
    """

    layer_class = AbsMaxChannelWiseWeightObserverLayer

    def __init__(self, quant_bits: int = 8) -> None:
        super().__init__(quant_bits=quant_bits)
