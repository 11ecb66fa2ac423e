"""Recurrent layers: cells vs NumPy, networks vs a NumPy reference of Paddle's semantics
(checked once against Paddle 3.3.1 with copied weights), sequence_length masking, state_dict
keys, gradients, errors; scan kernels vs their decompositions."""
import numpy as np
import pytest

import sampan as paddle
from sampan.ops import REGISTRY


def _sig(a):
    return 1.0 / (1.0 + np.exp(-a))


def _np(t):
    return t.numpy().astype(np.float64)


def _cell_step(mode, x, state, w_ih, w_hh, b_ih, b_hh, act="tanh"):
    """One step of a Paddle cell in NumPy; returns the new state(s)."""
    if mode == "LSTM":
        h, c = state
        H = h.shape[-1]
        g = x @ w_ih.T + b_ih + h @ w_hh.T + b_hh
        i, f, gg, o = _sig(g[:, :H]), _sig(g[:, H:2 * H]), np.tanh(g[:, 2 * H:3 * H]), \
            _sig(g[:, 3 * H:])
        c = f * c + i * gg
        return o * np.tanh(c), c
    if mode == "GRU":
        H = state.shape[-1]
        xg, hg = x @ w_ih.T + b_ih, state @ w_hh.T + b_hh
        r, z = _sig(xg[:, :H] + hg[:, :H]), _sig(xg[:, H:2 * H] + hg[:, H:2 * H])
        c = np.tanh(xg[:, 2 * H:] + r * hg[:, 2 * H:])
        return (state - c) * z + c
    pre = x @ w_ih.T + b_ih + state @ w_hh.T + b_hh
    return np.tanh(pre) if act == "tanh" else np.maximum(pre, 0)


def _ref_direction(mode, cell, x, state, lengths, reverse, act="tanh"):
    """x [B, T, I] -> (outputs [B, T, H] zero past lengths, final state)."""
    w = [_np(getattr(cell, n)) for n in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")]
    B, T, _ = x.shape
    outs = np.zeros((B, T, cell.hidden_size))
    steps = range(T - 1, -1, -1) if reverse else range(T)
    for t in steps:
        new = _cell_step(mode, x[:, t], state, *w, act=act)
        m = (t < lengths)[:, None].astype(float)
        if mode == "LSTM":
            state = (m * new[0] + (1 - m) * state[0], m * new[1] + (1 - m) * state[1])
            outs[:, t] = state[0] * m
        else:
            state = m * new + (1 - m) * state
            outs[:, t] = state * m
    return outs, state


def _ref_network(net, mode, x, lengths=None, act="tanh"):
    B, T, _ = x.shape
    lengths = np.full(B, T) if lengths is None else np.asarray(lengths)
    finals = []
    for layer in net:
        cells = [layer.cell] if hasattr(layer, "cell") else [layer.cell_fw, layer.cell_bw]
        outs = []
        for d, cell in enumerate(cells):
            zeros = np.zeros((B, cell.hidden_size))
            state = (zeros, zeros) if mode == "LSTM" else zeros
            o, s = _ref_direction(mode, cell, x, state, lengths, d == 1, act)
            outs.append(o)
            finals.append(s)
        x = np.concatenate(outs, -1)
    if mode == "LSTM":
        return x, (np.stack([f[0] for f in finals]), np.stack([f[1] for f in finals]))
    return x, np.stack(finals)


def _f64(layer):
    return layer.to(dtype="float64")


@pytest.fixture
def rng():
    paddle.seed(7)
    return np.random.default_rng(0)


# --- cells -----------------------------------------------------------------------------

@pytest.mark.parametrize("mode", ["LSTM", "GRU", "RNN_TANH", "RNN_RELU"])
def test_cell_step_matches_numpy(mode, rng):
    cls = {"LSTM": paddle.nn.LSTMCell, "GRU": paddle.nn.GRUCell}.get(mode)
    act = "relu" if mode == "RNN_RELU" else "tanh"
    cell = _f64(cls(3, 4) if cls else paddle.nn.SimpleRNNCell(3, 4, activation=act))
    x = rng.standard_normal((2, 3))
    h = rng.standard_normal((2, 4))
    w = [_np(getattr(cell, n)) for n in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")]
    if mode == "LSTM":
        c = rng.standard_normal((2, 4))
        out, (h1, c1) = cell(paddle.to_tensor(x), (paddle.to_tensor(h), paddle.to_tensor(c)))
        want_h, want_c = _cell_step(mode, x, (h, c), *w)
        np.testing.assert_allclose(c1.numpy(), want_c, atol=1e-12)
    else:
        out, h1 = cell(paddle.to_tensor(x), paddle.to_tensor(h))
        want_h = _cell_step(mode, x, h, *w, act=act)
    np.testing.assert_allclose(out.numpy(), want_h, atol=1e-12)
    np.testing.assert_allclose(h1.numpy(), want_h, atol=1e-12)


def test_cell_default_states_are_zero(rng):
    cell = paddle.nn.GRUCell(3, 4)
    x = paddle.to_tensor(rng.standard_normal((2, 3)).astype("float32"))
    out, _ = cell(x)
    want, _ = cell(x, paddle.zeros([2, 4]))
    np.testing.assert_allclose(out.numpy(), want.numpy())


def test_cell_parameters_shapes_and_init():
    cell = paddle.nn.LSTMCell(3, 16)
    shapes = {k: v.shape for k, v in cell.state_dict().items()}
    assert shapes == {"weight_ih": [64, 3], "weight_hh": [64, 16], "bias_ih": [64],
                      "bias_hh": [64]}
    bound = 1 / np.sqrt(16)
    for p in cell.parameters():
        assert np.abs(p.numpy()).max() <= bound and p.numpy().std() > 0
    assert repr(cell) == "LSTMCell(3, 16)"
    assert repr(paddle.nn.SimpleRNNCell(3, 4, activation="relu")) == \
        "SimpleRNNCell(3, 4, activation=relu)"


def test_false_attr_freezes_parameter():
    cell = paddle.nn.GRUCell(3, 2, bias_ih_attr=False)
    assert cell.bias_ih.stop_gradient and np.all(cell.bias_ih.numpy() == 0)
    assert not cell.weight_ih.stop_gradient


def test_lstm_cell_proj_size(rng):
    cell = _f64(paddle.nn.LSTMCell(3, 4, proj_size=2))
    assert cell.weight_hh.shape == [16, 2] and cell.weight_ho.shape == [4, 2]
    x = rng.standard_normal((2, 3))
    h, (h1, c1) = cell(paddle.to_tensor(x))
    w = [_np(getattr(cell, n)) for n in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")]
    g = x @ w[0].T + w[2] + w[3]
    c = _sig(g[:, :4]) * np.tanh(g[:, 8:12])
    np.testing.assert_allclose(c1.numpy(), c, atol=1e-12)
    np.testing.assert_allclose(h.numpy(), (_sig(g[:, 12:]) * np.tanh(c)) @ _np(cell.weight_ho),
                               atol=1e-12)


# --- networks --------------------------------------------------------------------------

@pytest.mark.parametrize("mode,kwargs", [
    ("LSTM", {"num_layers": 2, "direction": "bidirect"}),
    ("GRU", {"num_layers": 2}),
    ("GRU", {"direction": "bidirectional"}),
    ("RNN_RELU", {"direction": "bidirect", "activation": "relu"}),
    ("RNN_TANH", {}),
])
@pytest.mark.parametrize("lengths", [None, [5, 3, 1]])
def test_network_matches_numpy_reference(mode, kwargs, lengths, rng):
    cls = {"LSTM": paddle.nn.LSTM, "GRU": paddle.nn.GRU}.get(mode, paddle.nn.SimpleRNN)
    net = _f64(cls(3, 4, **kwargs))
    x = rng.standard_normal((3, 5, 3))
    sl = None if lengths is None else paddle.to_tensor(np.array(lengths, "int64"))
    out, final = net(paddle.to_tensor(x), sequence_length=sl)
    want_out, want_final = _ref_network(net, mode, x, lengths, kwargs.get("activation", "tanh"))
    np.testing.assert_allclose(out.numpy(), want_out, atol=1e-12)
    if mode == "LSTM":
        for got, want in zip(final, want_final):
            np.testing.assert_allclose(got.numpy(), want, atol=1e-12)
    else:
        np.testing.assert_allclose(final.numpy(), want_final, atol=1e-12)


def test_lstm_recorded_values():
    """Fixed weights; expected numbers from the NumPy reference (equal to Paddle 3.3.1's to
    1e-7 when the same weights are loaded there)."""
    net = paddle.nn.LSTM(2, 2)
    for k, (name, p) in enumerate(net.named_parameters()):
        p.set_value(np.linspace(-0.5, 0.5, int(np.prod(p.shape))).reshape(p.shape)
                    .astype("float32") * (k + 1) / 2)
    x = np.array([[[1.0, -1.0], [0.5, 2.0], [-1.5, 0.25]]], "float32")
    out, (h, c) = net(paddle.to_tensor(x))
    want = _ref_network(_f64(net), "LSTM", x.astype(np.float64))[0]
    np.testing.assert_allclose(out.numpy(), want, atol=1e-6)
    np.testing.assert_allclose(
        out.numpy()[0], [[0.02367514, 0.11242541], [0.03280395, 0.16272537],
                         [0.04414104, 0.19122513]], atol=1e-6)


def test_sequence_length_masking(rng):
    net = paddle.nn.GRU(3, 4, direction="bidirect")
    x = rng.standard_normal((2, 6, 3)).astype("float32")
    out, h = net(paddle.to_tensor(x), sequence_length=paddle.to_tensor([6, 2]))
    assert np.all(out.numpy()[1, 2:] == 0)
    short, h_short = net(paddle.to_tensor(x[1:, :2]))
    np.testing.assert_allclose(out.numpy()[1, :2], short.numpy()[0], atol=1e-6)
    np.testing.assert_allclose(h.numpy()[:, 1], h_short.numpy()[:, 0], atol=1e-6)


def test_shapes_time_major_and_initial_states(rng):
    net = paddle.nn.LSTM(3, 4, num_layers=2, direction="bidirectional", time_major=True)
    x = paddle.to_tensor(rng.standard_normal((5, 2, 3)).astype("float32"))
    out, (h, c) = net(x)
    assert out.shape == [5, 2, 8] and h.shape == [4, 2, 4] and c.shape == [4, 2, 4]
    h0 = paddle.to_tensor(rng.standard_normal((4, 2, 4)).astype("float32"))
    out2, (h2, c2) = net(x, (h0, h0 * 0.5))
    assert not np.allclose(out2.numpy(), out.numpy())
    xb = paddle.transpose(x, [1, 0, 2])
    net.time_major = False
    for layer in net:
        layer.time_major = False
    out3, _ = net(xb, (h0, h0 * 0.5))
    np.testing.assert_allclose(out3.numpy(), out2.numpy().transpose(1, 0, 2), atol=1e-6)


def test_state_dict_keys_match_paddle():
    net = paddle.nn.LSTM(4, 3, num_layers=2, direction="bidirect")
    flat = [f"{w}_l{k}{s}" for k in range(2) for s in ("", "_reverse")
            for w in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")]
    nested = [f"{k}.cell_{d}.{w}" for k in range(2) for d in ("fw", "bw")
              for w in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")]
    assert list(net.state_dict()) == flat + nested
    assert len(net.parameters()) == 16
    assert net.weight_ih_l1_reverse is net[1].cell_bw.weight_ih
    assert net.weight_ih_l1.shape == [12, 6]
    gru = paddle.nn.GRU(4, 3)
    assert list(gru.state_dict()) == ["weight_ih_l0", "weight_hh_l0", "bias_ih_l0",
                                      "bias_hh_l0", "0.cell.weight_ih", "0.cell.weight_hh",
                                      "0.cell.bias_ih", "0.cell.bias_hh"]
    assert gru.weight_hh_l0.shape == [9, 3]


def test_repr_matches_paddle():
    net = paddle.nn.SimpleRNN(4, 3, time_major=True, dropout=0.5, activation="relu")
    assert repr(net) == ("SimpleRNN(4, 3, time_major=True, dropout=0.5\n  (0): RNN(\n"
                         "    (cell): SimpleRNNCell(4, 3, activation=relu)\n  )\n)")


def test_state_dict_round_trip(rng):
    a, b = paddle.nn.GRU(3, 4), paddle.nn.GRU(3, 4)
    b.set_state_dict(a.state_dict())
    x = paddle.to_tensor(rng.standard_normal((2, 3, 3)).astype("float32"))
    np.testing.assert_allclose(a(x)[0].numpy(), b(x)[0].numpy())


def test_dropout_between_layers_only_in_training(rng):
    net = paddle.nn.LSTM(3, 4, num_layers=2, dropout=0.5)
    x = paddle.to_tensor(rng.standard_normal((2, 4, 3)).astype("float32"))
    net.eval()
    a, b = net(x)[0].numpy(), net(x)[0].numpy()
    np.testing.assert_allclose(a, b)
    net.train()
    assert not np.allclose(net(x)[0].numpy(), a)


# --- RNN / BiRNN wrappers --------------------------------------------------------------

def test_rnn_wrapper_matches_network_and_reverse(rng):
    cell = _f64(paddle.nn.LSTMCell(3, 4))
    x = rng.standard_normal((2, 5, 3))
    out, (h, c) = paddle.nn.RNN(cell)(paddle.to_tensor(x))
    zeros = np.zeros((2, 4))
    want, (wh, wc) = _ref_direction("LSTM", cell, x, (zeros, zeros), np.array([5, 5]), False)
    np.testing.assert_allclose(out.numpy(), want, atol=1e-12)
    np.testing.assert_allclose(c.numpy(), wc, atol=1e-12)
    out_r, _ = paddle.nn.RNN(cell, is_reverse=True)(paddle.to_tensor(x))
    want_r, _ = _ref_direction("LSTM", cell, x, (zeros, zeros), np.array([5, 5]), True)
    np.testing.assert_allclose(out_r.numpy(), want_r, atol=1e-12)


def test_rnn_wrapper_padding_outputs_follow_paddle(rng):
    """RNN(cell) keeps the cell's outputs past the length (only the states freeze)."""
    cell = paddle.nn.SimpleRNNCell(3, 4)
    x = paddle.to_tensor(rng.standard_normal((2, 4, 3)).astype("float32"))
    out, h = paddle.nn.RNN(cell)(x, sequence_length=paddle.to_tensor([4, 2]))
    assert np.abs(out.numpy()[1, 2:]).sum() > 0
    np.testing.assert_allclose(h.numpy()[1], out.numpy()[1, 1], atol=1e-6)


def test_rnn_with_custom_cell(rng):
    class Accumulate(paddle.nn.RNNCellBase):
        def __init__(self):
            super().__init__()
            self.input_size = 2
            self.hidden_size = 2

        def forward(self, inputs, states=None):
            states = inputs if states is None else states + inputs
            return states * 2.0, states

        @property
        def state_shape(self):
            return (2,)
    x = rng.standard_normal((3, 4, 2)).astype("float32")
    out, final = paddle.nn.RNN(Accumulate())(paddle.to_tensor(x))
    np.testing.assert_allclose(out.numpy(), 2 * np.cumsum(x, 1), rtol=1e-5)
    np.testing.assert_allclose(final.numpy(), x.sum(1), rtol=1e-5)


def test_birnn(rng):
    fw, bw = paddle.nn.GRUCell(3, 4), paddle.nn.GRUCell(3, 5)
    birnn = paddle.nn.BiRNN(fw, bw)
    out, (h_fw, h_bw) = birnn(paddle.to_tensor(rng.standard_normal((2, 6, 3))
                                               .astype("float32")))
    assert out.shape == [2, 6, 9] and h_fw.shape == [2, 4] and h_bw.shape == [2, 5]
    np.testing.assert_allclose(h_bw.numpy(), out.numpy()[:, 0, 4:], atol=1e-6)
    assert list(birnn.state_dict())[:2] == ["cell_fw.weight_ih", "cell_fw.weight_hh"]


# --- gradients -------------------------------------------------------------------------

def _finite_diff(f, arr, eps=1e-6):
    g = np.zeros_like(arr)
    for idx in np.ndindex(arr.shape):
        old = arr[idx]
        arr[idx] = old + eps
        hi = f()
        arr[idx] = old - eps
        lo = f()
        arr[idx] = old
        g[idx] = (hi - lo) / (2 * eps)
    return g


@pytest.mark.parametrize("cls", [paddle.nn.LSTM, paddle.nn.GRU, paddle.nn.SimpleRNN])
def test_network_gradients_match_finite_differences(cls, rng):
    net = _f64(cls(2, 2, direction="bidirect"))
    x = paddle.to_tensor(rng.standard_normal((2, 3, 2)))
    x.stop_gradient = False
    sl = paddle.to_tensor([3, 2])
    cot = rng.standard_normal((2, 3, 4))

    def loss():
        return (net(x, sequence_length=sl)[0] * paddle.to_tensor(cot)).sum()
    loss().backward()
    with paddle.no_grad():
        for t in (x, net.weight_hh_l0, net.bias_ih_l0_reverse):
            want = _finite_diff(lambda: float(loss().numpy()), t.numpy())
            np.testing.assert_allclose(t.grad.numpy(), want, atol=1e-7, rtol=1e-6)


# --- errors ----------------------------------------------------------------------------

def test_errors():
    with pytest.raises(ValueError, match="direction"):
        paddle.nn.LSTM(3, 4, direction="backward")
    with pytest.raises(ValueError, match="hidden_size"):
        paddle.nn.GRUCell(3, 0)
    with pytest.raises(ValueError, match="activation"):
        paddle.nn.SimpleRNN(3, 4, activation="sigmoid")
    with pytest.raises(ValueError, match="input size"):
        paddle.nn.BiRNN(paddle.nn.GRUCell(3, 4), paddle.nn.GRUCell(5, 4))
    with pytest.raises(ValueError, match="proj_size"):
        paddle.nn.LSTMCell(3, 4, proj_size=4)
    with pytest.raises(ValueError, match="3-D"):
        paddle.nn.LSTM(3, 4)(paddle.ones([2, 3]))
    with pytest.raises(ValueError, match="num_layers \\* num_directions"):
        paddle.nn.GRU(3, 4, num_layers=2)(paddle.ones([2, 5, 3]), paddle.zeros([1, 2, 4]))
    with pytest.raises(ValueError, match=r"GRU: initial_states must have shape \[num_layers \* "
                                         r"num_directions, batch, hidden_size\] = \[1, 2, 4\], "
                                         r"got \[1, 3, 4\]"):
        paddle.nn.GRU(3, 4)(paddle.ones([2, 5, 3]), paddle.zeros([1, 3, 4]))
    with pytest.raises(ValueError, match=r"LSTM: initial_states .*proj_size\] = \[1, 2, 2\]"):
        paddle.nn.LSTM(3, 4, proj_size=2)(paddle.ones([2, 5, 3]),
                                          (paddle.zeros([1, 2, 4]), paddle.zeros([1, 2, 4])))
    with pytest.raises(ValueError, match="LSTMCell: the last dim of inputs .* input_size \\(3\\)"):
        paddle.nn.LSTMCell(3, 4)(paddle.ones([2, 5]))
    with pytest.raises(TypeError, match=r"LSTM: inputs \(float64\) must have the dtype of the "
                                        r"parameters \(float32\)"):
        paddle.nn.LSTM(3, 4)(paddle.ones([1, 2, 3], dtype="float64"))
    with pytest.raises(TypeError, match="GRUCell: inputs \\(float64\\) must have the dtype"):
        paddle.nn.GRUCell(3, 4)(paddle.ones([2, 3], dtype="float64"))
    with pytest.raises(TypeError, match="GRU: sequence_length must be an int32 or int64 "
                                        "tensor, got float32"):
        paddle.nn.GRU(3, 4)(paddle.ones([2, 5, 3]),
                            sequence_length=paddle.to_tensor([2.0, 3.0]))
    with pytest.raises(ValueError, match=r"GRUCell: each state must have shape \[batch, "
                                         r"hidden_size\] = \[2, 4\], got \[2, 5\]"):
        paddle.nn.GRUCell(3, 4)(paddle.ones([2, 3]), paddle.zeros([2, 5]))
    with pytest.raises(ValueError, match="LSTMCell: states must be a tuple of 2 tensors"):
        paddle.nn.LSTMCell(3, 4)(paddle.ones([2, 3]), paddle.zeros([2, 4]))


# --- kernels vs decompositions ---------------------------------------------------------

@pytest.mark.parametrize("name", ["_lstm_scan", "_gru_scan", "_rnn_scan"])
def test_scan_compute_equals_decompose(name, rng):
    op = REGISTRY[name]
    gates = {"_lstm_scan": 4, "_gru_scan": 3, "_rnn_scan": 1}[name]
    T, B, H = 4, 3, 2

    def t(*shape):
        return paddle.to_tensor(rng.standard_normal(shape))
    args = [t(T, B, gates * H), t(B, H)] + ([t(B, H)] if gates == 4 else []) + \
        [t(gates * H, H) * 0.5] + ([t(3 * H)] if gates == 3 else [])
    mask = paddle.to_tensor((np.arange(T)[:, None] < np.array([4, 2, 1])).astype("float64"))
    got = op.compute(np, *[a.numpy() for a in args], mask.numpy())
    want = op.decompose(*args, mask)
    got, want = (got if isinstance(got, tuple) else (got,)), \
        (want if isinstance(want, tuple) else (want,))
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w.numpy(), atol=1e-12)


@pytest.mark.parametrize("layer, shape, message", [
    (lambda: paddle.nn.LSTM(16, 32), [4, 10, 8],
     r"LSTM: the last dim of inputs \[batch, time_steps, input_size\] must equal input_size "
     r"\(16\), got inputs of shape \[4, 10, 8\]"),
    (lambda: paddle.nn.GRU(16, 32, time_major=True), [10, 4, 8],
     r"GRU: the last dim of inputs \[time_steps, batch, input_size\] .* \[10, 4, 8\]"),
    (lambda: paddle.nn.SimpleRNN(16, 32, direction="bidirect"), [4, 10, 8],
     r"SimpleRNN: .* got inputs of shape \[4, 10, 8\]"),
    (lambda: paddle.nn.RNN(paddle.nn.LSTMCell(16, 32)), [4, 10, 8],
     r"RNN: .* input_size \(16\), got inputs of shape \[4, 10, 8\]"),
    (lambda: paddle.nn.BiRNN(paddle.nn.GRUCell(16, 8), paddle.nn.GRUCell(16, 8)), [4, 10, 8],
     r"BiRNN: .* got inputs of shape \[4, 10, 8\]"),
])
def test_input_size_error_names_the_layer_and_the_users_shape(layer, shape, message):
    # not the time-major [10, 4, 8] and the cell's name, which the user never wrote
    with pytest.raises(ValueError, match=message) as info:
        layer()(paddle.ones(shape))
    assert "Cell" not in str(info.value)
