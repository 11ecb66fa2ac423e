"""QAT: quantization-aware training (fake quanters in the forward pass, straight-through
gradients), then `convert` to int8 layers."""
from __future__ import annotations

from ..nn import Layer
from .quantize import Quantization


class QAT(Quantization):
    """Quantization-aware training.

    Args:
        config (QuantConfig): the quanters of activations and weights.

    Examples:
        >>> import sampan as paddle
        >>> from sampan.quantization import QAT, QuantConfig
        >>> from sampan.quantization.quanters import FakeQuanterWithAbsMaxObserver
        >>> q = FakeQuanterWithAbsMaxObserver(moving_rate=0.9)
        >>> model = paddle.nn.Sequential(paddle.nn.Linear(4, 3))
        >>> qat_model = QAT(QuantConfig(activation=q, weight=q)).quantize(model)
        >>> type(qat_model[0]).__name__
        'QuantedLinear'
        >>> _ = qat_model(paddle.rand([2, 4]))
        >>> int8_model = QAT(QuantConfig(activation=q, weight=q)).convert(qat_model)
        >>> type(int8_model[0]).__name__, int8_model[0].weight.dtype
        ('Int8Linear', paddle.int8)
    """

    def quantize(self, model: Layer, inplace: bool = False) -> Layer:
        """Replace quantizable layers (Linear, Conv2D) with fake-quantized twins.

        Args:
            model (Layer): a model in training mode.
            inplace (bool): modify model instead of a deep copy, default False.
        Returns:
            Layer: the model to train.
        """
        if getattr(model, "training", True) is False:
            raise ValueError("QAT.quantize: quantization-aware training works on models in "
                             "training mode; call model.train() first")
        return self._insert(model, inplace)
