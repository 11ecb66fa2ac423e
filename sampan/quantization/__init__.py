"""paddle.quantization: QuantConfig, quanters and observers, QAT and PTQ, and `convert` to
int8 layers that run int8 kernels (sampan/ops/quant.py). Imports `nn` and lower rooms."""
from . import functional, observers, quanters  # noqa: F401
from .base import BaseObserver, BaseQuanter, ObserverFactory, QuanterFactory  # noqa: F401
from .config import QuantConfig  # noqa: F401
from .factory import quanter  # noqa: F401
from .layers import Int8Conv2D, Int8Linear, QuantedConv2D, QuantedLinear  # noqa: F401
from .ptq import PTQ  # noqa: F401
from .qat import QAT  # noqa: F401

__all__ = ["QuantConfig", "BaseQuanter", "BaseObserver", "QuanterFactory", "ObserverFactory",
           "QAT", "PTQ", "quanter"]
