"""QuantConfig and quanter/observer factories print as Paddle 3.3.1 does."""
import sampan as paddle
from sampan.quantization import QuantConfig
from sampan.quantization.observers import AbsmaxObserver
from sampan.quantization.quanters import FakeQuanterWithAbsMaxObserver

# Paddle 3.3.1, the QuantConfig docstring example
QUANTER = "FakeQuanterWithAbsMaxObserver(name=None,moving_rate=0.9,bit_length=8,dtype=float32)"


def test_factories_print_paddle_text():
    assert repr(FakeQuanterWithAbsMaxObserver(moving_rate=0.9)) == QUANTER
    assert str(FakeQuanterWithAbsMaxObserver(0.5, 4, "float64", "nm")) == (
        "FakeQuanterWithAbsMaxObserver(name=nm,moving_rate=0.5,bit_length=4,dtype=float64)")
    assert repr(AbsmaxObserver(quant_bits=4)) == "AbsmaxObserver(quant_bits=4)"


def test_quant_config_global_type_and_prefix_sections():
    q = FakeQuanterWithAbsMaxObserver(moving_rate=0.9)
    assert str(QuantConfig(activation=q, weight=q)) == (
        f"Global config:\nactivation: {QUANTER}\nweight: {QUANTER}\n")
    cfg = QuantConfig(activation=None, weight=None)
    assert str(cfg) == "Global config:\nNone\n"
    cfg.add_type_config(paddle.nn.Linear, activation=q)
    cfg.add_name_config("fc", weight=AbsmaxObserver())
    text = str(cfg)
    assert text.startswith("Global config:\nNone\nLayer type config:\n{<class ")
    assert f"Linear'>: activation: {QUANTER}\nweight: None}}\n" in text
    assert text.endswith("Layer prefix config: \n{'fc': activation: None\n"
                         "weight: AbsmaxObserver(quant_bits=8)}\n")
