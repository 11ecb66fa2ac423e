"""paddle.summary: Paddle's table layout, parameter counts, inputs and errors."""
import pytest

import sampan as paddle
from sampan import nn
from sampan.utils import unique_name

GOLDEN = """\
---------------------------------------------------------------------------
 Layer (type)       Input Shape          Output Shape         Param #    
===========================================================================
   Conv2D-1       [[1, 1, 28, 28]]      [1, 6, 28, 28]          60       
    ReLU-1        [[1, 6, 28, 28]]      [1, 6, 28, 28]           0       
  MaxPool2D-1     [[1, 6, 28, 28]]      [1, 6, 14, 14]           0       
   Flatten-1      [[1, 6, 14, 14]]        [1, 1176]              0       
   Linear-1         [[1, 1176]]            [1, 10]            11,770     
===========================================================================
Total params: 11,830
Trainable params: 11,830
Non-trainable params: 0
---------------------------------------------------------------------------
Input size (MB): 0.00
Forward/backward pass size (MB): 0.09
Params size (MB): 0.05
Estimated Total Size (MB): 0.14
---------------------------------------------------------------------------

"""


def test_table_matches_paddles_layout(capsys):
    with unique_name.guard():
        net = nn.Sequential(nn.Conv2D(1, 6, 3, padding=1), nn.ReLU(), nn.MaxPool2D(2),
                            nn.Flatten(), nn.Linear(6 * 14 * 14, 10))
        info = paddle.summary(net, (1, 1, 28, 28))
    assert capsys.readouterr().out == GOLDEN
    assert info == {"total_params": 11830, "trainable_params": 11830}


class TwoInputs(nn.Layer):
    def __init__(self):
        super().__init__()
        self.scale = self.create_parameter([3])
        self.fc = nn.Linear(3, 2)
        self.frozen = nn.Linear(2, 2)
        self.frozen.weight.stop_gradient = True

    def forward(self, a, b):
        return self.frozen(self.fc(a * self.scale + b))


def test_custom_layer_two_inputs_and_frozen_params(capsys):
    net = TwoInputs()
    info = paddle.summary(net, [(4, 3), (4, 3)])
    out = capsys.readouterr().out
    assert "Linear-" in out and "TwoInputs" not in out  # the model row only when it is a leaf
    assert info == {"total_params": 8 + 6, "trainable_params": 8 + 2}
    assert net.training  # the mode is restored
    x = paddle.ones([2, 3])
    assert paddle.summary(net, input=[x, x]) == info


def test_errors():
    with pytest.raises(TypeError, match="must be a paddle.nn.Layer"):
        paddle.summary(lambda x: x, (1, 2))
    with pytest.raises(ValueError, match="input_size or input"):
        paddle.summary(nn.Linear(2, 2))
