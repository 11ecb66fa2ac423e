"""PTQ: post-training quantization (observers collect scales over calibration batches),
then `convert` to int8 layers."""
from __future__ import annotations

from ..nn import Layer
from .quantize import Quantization


class PTQ(Quantization):
    """Post-training quantization.

    Args:
        config (QuantConfig): the observers of activations and weights.

    Examples:
        >>> import sampan as paddle
        >>> from sampan.quantization import PTQ, QuantConfig
        >>> from sampan.quantization.observers import AbsmaxObserver
        >>> model = paddle.nn.Sequential(paddle.nn.Linear(4, 3))
        >>> _ = model.eval()
        >>> ptq = PTQ(QuantConfig(activation=AbsmaxObserver(), weight=AbsmaxObserver()))
        >>> observed = ptq.quantize(model)
        >>> _ = observed(paddle.rand([8, 4]))      # calibration
        >>> type(ptq.convert(observed)[0]).__name__
        'Int8Linear'
    """

    def quantize(self, model: Layer, inplace: bool = False) -> Layer:
        """Insert observers into quantizable layers (Linear, Conv2D).

        Args:
            model (Layer): a model in evaluation mode.
            inplace (bool): modify model instead of a deep copy, default False.
        Returns:
            Layer: the model to calibrate (run representative batches through it).
        """
        if getattr(model, "training", False):
            raise ValueError("PTQ.quantize: post-training quantization works on models in "
                             "evaluation mode; call model.eval() first")
        return self._insert(model, inplace)
