"""paddle.nn.layer.rnn.rnn refuses arrays where Tensors are needed (Paddle's TypeErrors), in
static Programs and eagerly; Tensors (and nested state tuples) still run."""
import numpy as np
import pytest

import sampan as paddle
from sampan.nn.layer.rnn import rnn
from tests.static_util import static_guard

ARR = np.zeros((4, 2, 16), "float32")


def _errors(cell, inputs, seq):
    with pytest.raises(TypeError, match="rnn: inputs must be a Tensor .* got ndarray"):
        rnn(cell, ARR, sequence_length=seq)
    with pytest.raises(TypeError, match="rnn: inputs must be a Tensor .* got ndarray"):
        rnn(cell, [ARR], sequence_length=seq)
    with pytest.raises(TypeError, match="rnn: initial_states must be a Tensor .* got ndarray"):
        rnn(cell, inputs, initial_states=np.zeros((2, 16), "float32"))
    with pytest.raises(TypeError, match="rnn: initial_states must be a Tensor .* got ndarray"):
        rnn(cell, inputs, initial_states=[np.zeros((2, 16), "float32")] * 2)
    with pytest.raises(TypeError, match="rnn: sequence_length must be a Tensor or None"):
        rnn(cell, inputs, sequence_length=np.ones(2, "float32"))


def test_static_argument_types():
    with static_guard(paddle.static.Program(), paddle.static.Program()):
        inputs = paddle.static.data("inputs", [-1, -1, 16], "float32")
        seq = paddle.static.data("seq", [-1], "int64")
        _errors(paddle.nn.LSTMCell(16, 16), inputs, seq)


def test_eager_argument_types_and_tensor_states_run():
    cell = paddle.nn.LSTMCell(16, 8)
    x = paddle.to_tensor(ARR)
    _errors(cell, x, None)
    states = (paddle.zeros([4, 8]), paddle.zeros([4, 8]))
    out, (h, c) = rnn(cell, x, initial_states=states)
    assert out.shape == [4, 2, 8] and h.shape == [4, 8]
