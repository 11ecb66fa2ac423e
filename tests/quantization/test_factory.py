"""paddle.quantization.quanter: the decorator declares a factory the config can use."""
import pytest

import sampan as paddle
from sampan.quantization import BaseQuanter, QuantConfig, QuanterFactory, quanter

__all__ = []


@quanter("HalfQuanter")
class HalfQuanterLayer(BaseQuanter):
    """Multiplies by `scale` (a stand-in quanter the test can observe)."""

    def __init__(self, layer, scale=0.5, *, tag="t"):
        super().__init__()
        self.scale, self.tag = scale, tag

    def forward(self, x):
        return x * self.scale

    def scales(self):
        return self.scale

    def zero_points(self):
        return None

    def quant_axis(self):
        return -1

    def bit_length(self):
        return 8


def test_quanter_declares_a_factory_in_the_module():
    factory = HalfQuanter(0.25, tag="w")   # noqa: F821 (declared by the decorator)
    assert isinstance(factory, QuanterFactory) and type(factory).__name__ == "HalfQuanter"
    assert "HalfQuanter" in __all__
    layer = factory._instance(paddle.nn.Linear(2, 2))
    assert isinstance(layer, HalfQuanterLayer) and (layer.scale, layer.tag) == (0.25, "w")
    out = layer(paddle.to_tensor([2.0, 4.0]))
    assert out.numpy().tolist() == [0.5, 1.0]
    config = QuantConfig(activation=factory, weight=None)
    assert config is not None


def test_quanter_rejects_bad_use():
    with pytest.raises(ValueError, match="quanter: class_name must be a Python identifier"):
        quanter("not a name")
    with pytest.raises(TypeError, match="quanter: 'X' must decorate a BaseQuanter subclass"):
        quanter("X")(int)
