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
    # As Paddle 3.3.1: a network with sublayers is no row of its own, so the parameter it
    # holds itself (`scale`) is in neither the table nor the totals (14 / 10)
    assert "Linear-" in out and "TwoInputs-" not in out
    assert info == {"total_params": 14, "trainable_params": 10}
    assert net.training  # the mode is restored
    x = paddle.ones([2, 3])
    with pytest.raises(TypeError):   # Paddle calls net(input): a list is one argument
        paddle.summary(net, input=[x, x])


def test_errors():
    with pytest.raises(TypeError, match="must be a paddle.nn.Layer"):
        paddle.summary(lambda x: x, (1, 2))
    with pytest.raises(ValueError, match="input_size or input"):
        paddle.summary(nn.Linear(2, 2))


# Recorded from PaddlePaddle 3.3.1, each in a fresh process (`paddle.summary` prints these
# tables exactly).
PADDLE_RNN_TABLES = {
    'lstm': (
        '----------------------------------------------------------------------------------------------\n'
        ' Layer (type)       Input Shape                   Output Shape                   Param #    \n'
        '==============================================================================================\n'
        '    LSTM-1         [[4, 10, 16]]     [[4, 10, 32], [[1, 4, 32], [1, 4, 32]]]      6,400     \n'
        '==============================================================================================\n'
        'Total params: 6,400\n'
        'Trainable params: 6,400\n'
        'Non-trainable params: 0\n'
        '----------------------------------------------------------------------------------------------\n'
        'Input size (MB): 0.00\n'
        'Forward/backward pass size (MB): 0.01\n'
        'Params size (MB): 0.02\n'
        'Estimated Total Size (MB): 0.04\n'
        '----------------------------------------------------------------------------------------------\n'
        '\n'
    ),
    'net': (
        '----------------------------------------------------------------------------------------------\n'
        ' Layer (type)       Input Shape                   Output Shape                   Param #    \n'
        '==============================================================================================\n'
        '  Embedding-1        [[4, 10]]                     [4, 10, 16]                     800      \n'
        '    LSTM-1         [[4, 10, 16]]     [[4, 10, 32], [[1, 4, 32], [1, 4, 32]]]      6,400     \n'
        '   Linear-1          [[4, 32]]                       [4, 2]                        66       \n'
        '==============================================================================================\n'
        'Total params: 7,266\n'
        'Trainable params: 7,266\n'
        'Non-trainable params: 0\n'
        '----------------------------------------------------------------------------------------------\n'
        'Input size (MB): 0.00\n'
        'Forward/backward pass size (MB): 0.02\n'
        'Params size (MB): 0.03\n'
        'Estimated Total Size (MB): 0.04\n'
        '----------------------------------------------------------------------------------------------\n'
        '\n'
    ),
    'gru': (
        '------------------------------------------------------------------------------\n'
        ' Layer (type)       Input Shape           Output Shape           Param #    \n'
        '==============================================================================\n'
        '     GRU-1          [[2, 5, 8]]      [[2, 5, 16], [4, 2, 8]]      2,112     \n'
        '==============================================================================\n'
        'Total params: 2,112\n'
        'Trainable params: 2,112\n'
        'Non-trainable params: 0\n'
        '------------------------------------------------------------------------------\n'
        'Input size (MB): 0.00\n'
        'Forward/backward pass size (MB): 0.00\n'
        'Params size (MB): 0.01\n'
        'Estimated Total Size (MB): 0.01\n'
        '------------------------------------------------------------------------------\n'
        '\n'
    ),
}



class _EmbedLSTM(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.emb = paddle.nn.Embedding(50, 16)
        self.lstm = paddle.nn.LSTM(16, 32)
        self.fc = paddle.nn.Linear(32, 2)

    def forward(self, x):
        y, _ = self.lstm(self.emb(x))
        return self.fc(y[:, -1])


_RNN_CASES = {
    "lstm": (lambda: paddle.nn.LSTM(16, 32), (4, 10, 16), None, 6400),
    "net": (_EmbedLSTM, (4, 10), "int64", 7266),
    "gru": (lambda: paddle.nn.GRU(8, 8, num_layers=2, direction="bidirect"), (2, 5, 8), None,
            2112),
}


@pytest.mark.parametrize("name", sorted(_RNN_CASES))
def test_summary_counts_rnn_parameters_like_paddle(name, capsys):
    build, size, dtypes, total = _RNN_CASES[name]
    with unique_name.guard():
        info = paddle.summary(build(), size, dtypes=dtypes)
    assert info == {"total_params": total, "trainable_params": total}
    assert capsys.readouterr().out == PADDLE_RNN_TABLES[name]


def test_summary_totals_count_each_parameter_once(capsys):
    class Twice(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc = paddle.nn.Linear(4, 4)

        def forward(self, x):
            return self.fc(self.fc(x))

    net = Twice()
    net.fc.bias.stop_gradient = True
    info = paddle.summary(net, (2, 4))
    assert info == {"total_params": 20, "trainable_params": 16}
    assert "Non-trainable params: 4" in capsys.readouterr().out


class _ListNet(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, inputs):          # one argument: the list (or dict) itself
        first, second = (inputs["a"], inputs["b"]) if isinstance(inputs, dict) else inputs
        return self.fc(first + second)


def test_list_and_dict_input_are_passed_as_one_argument(capsys):
    net = _ListNet()
    info = paddle.summary(net, input=[paddle.ones([1, 4]), paddle.ones([1, 4])])
    assert "Linear-" in capsys.readouterr().out
    assert info == {"total_params": 10, "trainable_params": 10}
    assert repr(info) == "{'total_params': np.int64(10), 'trainable_params': np.int64(10)}"
    info = paddle.summary(net, input={"a": paddle.ones([1, 4]), "b": paddle.ones([1, 4])})
    assert "Input size (MB): 0.00" in capsys.readouterr().out
    assert info["total_params"] == 10


def test_a_layer_called_twice_is_one_row_showing_its_last_call(capsys):
    # Paddle 3.3.1 keys its rows by layer name: the second call of `drop` replaces the
    # first call's shapes in the first call's place (ViT practice's Mlp)
    class TwiceDrop(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.a, self.drop, self.b = nn.Linear(4, 6), nn.Dropout(0.1), nn.Linear(6, 2)

        def forward(self, x):
            return self.drop(self.b(self.drop(self.a(x))))

    with unique_name.guard():
        paddle.summary(TwiceDrop(), (1, 4))
    lines = [ln.split() for ln in capsys.readouterr().out.splitlines()[3:6]]
    assert lines == [["Linear-1", "[[1,", "4]]", "[1,", "6]", "30"],
                     ["Dropout-1", "[[1,", "2]]", "[1,", "2]", "0"],
                     ["Linear-2", "[[1,", "6]]", "[1,", "2]", "14"]]


def test_network_parameters_beside_sublayers_are_not_counted(capsys):
    # Paddle 3.3.1 (ViT practice: cls_token / pos_embedding): only the rows are summed
    class Own(nn.Layer):
        def __init__(self):
            super().__init__()
            self.w = self.create_parameter([3, 4])
            self.fc = nn.Linear(4, 2)

        def forward(self, x):
            return self.fc(x @ self.w)

    class Alone(nn.Layer):  # no sublayers: the network is the one row
        def __init__(self):
            super().__init__()
            self.w = self.create_parameter([3, 4])

        def forward(self, x):
            return x @ self.w

    assert paddle.summary(Own(), (1, 3)) == {"total_params": 10, "trainable_params": 10}
    assert "Own-" not in capsys.readouterr().out
    assert paddle.summary(Alone(), (1, 3)) == {"total_params": 12, "trainable_params": 12}
    assert "Alone-1" in capsys.readouterr().out
