"""nn.BeamSearchDecoder / nn.dynamic_decode: a tiny GRUCell decoder against a NumPy beam
search, Paddle 3.3.1 outputs for one configuration, the generic decoding loop (a decoder that
does not track its own finished flags), nested states and errors."""
import collections

import numpy as np
import pytest

import sampan as paddle
from sampan.nn.decode import BeamSearchDecoder, Decoder, dynamic_decode

V, H, E = 6, 4, 3


def _model(end_bias=-0.5, seed=0):
    """GRUCell + Embedding + Linear filled from RandomState(seed) (same order as Paddle)."""
    rng = np.random.RandomState(seed)
    cell, emb, out = paddle.nn.GRUCell(E, H), paddle.nn.Embedding(V, E), paddle.nn.Linear(H, V)
    for p in list(cell.parameters()) + list(emb.parameters()) + list(out.parameters()):
        p.set_value(rng.uniform(-1.5, 1.5, p.shape).astype("float32"))
    bias = out.bias.numpy()
    bias[1] += end_bias
    out.bias.set_value(bias)
    h0 = rng.uniform(-1, 1, (2, H)).astype("float32")
    return cell, emb, out, h0


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _np_beam_search(cell, emb, out, h0, beam, start, end, max_step):
    """Beam search in NumPy (float32), Paddle's rules: finished beams only extend with
    end_token at no cost; lengths count the steps taken before finishing."""
    w_ih, w_hh = cell.weight_ih.numpy(), cell.weight_hh.numpy()
    b_ih, b_hh = cell.bias_ih.numpy(), cell.bias_hh.numpy()
    table, w_out, b_out = emb.weight.numpy(), out.weight.numpy(), out.bias.numpy()
    batch = h0.shape[0]
    h = np.repeat(h0[:, None], beam, 1)
    logp = np.tile(np.array([[0.0] + [-1e9] * (beam - 1)], "float32"), (batch, 1))
    fin = np.zeros((batch, beam), bool)
    lens = np.zeros((batch, beam), np.int64)
    ids = np.full((batch, beam), start)
    noend = np.full(V, -1e9, "float32")
    noend[end] = 0
    history, step = [], 0
    rows = np.arange(batch)[:, None]
    while not fin.all():
        x = table[ids]
        xg, hg = x @ w_ih.T + b_ih, h @ w_hh.T + b_hh
        r = _sigmoid(xg[..., :H] + hg[..., :H])
        z = _sigmoid(xg[..., H:2 * H] + hg[..., H:2 * H])
        c = np.tanh(xg[..., 2 * H:] + r * hg[..., 2 * H:])
        h_new = (h - c) * z + c
        logits = h_new @ w_out + b_out
        lp = logits - logits.max(-1, keepdims=True)
        lp = lp - np.log(np.exp(lp).sum(-1, keepdims=True))
        lp = np.where(fin[..., None], noend, lp)
        total = (lp + logp[..., None]).reshape(batch, -1)
        top = np.argsort(-total, axis=1, kind="stable")[:, :beam]
        parent, token = top // V, top % V
        logp = total[rows, top]
        h = h_new[rows, parent]
        fin_p, lens = fin[rows, parent], lens[rows, parent]
        lens = lens + ~fin_p
        fin = fin_p | (token == end)
        history.append((token, parent))
        ids = token
        step += 1
        if max_step is not None and step > max_step:
            break
    # back-track the parents (gather_tree)
    seqs = np.zeros((len(history), batch, beam), np.int64)
    pos = np.tile(np.arange(beam), (batch, 1))
    for t in range(len(history) - 1, -1, -1):
        token, parent = history[t]
        seqs[t] = token[rows, pos]
        pos = parent[rows, pos]
    return seqs, logp, fin, lens, h


@pytest.mark.parametrize("end_bias,beam,max_step", [(-0.5, 3, 5), (-0.5, 3, 30), (0.0, 2, 8),
                                                    (-1.5, 4, 4)])
def test_beam_search_matches_numpy(end_bias, beam, max_step):
    cell, emb, out, h0 = _model(end_bias)
    dec = BeamSearchDecoder(cell, start_token=0, end_token=1, beam_size=beam,
                            embedding_fn=emb, output_fn=out)
    ids, state, lengths = dynamic_decode(dec, paddle.to_tensor(h0), max_step_num=max_step,
                                         return_length=True)
    seqs, logp, fin, lens, h = _np_beam_search(cell, emb, out, h0, beam, 0, 1, max_step)
    assert ids.dtype == paddle.int64 and ids.shape == [2, seqs.shape[0], beam]
    np.testing.assert_array_equal(ids.numpy(), seqs.transpose(1, 0, 2))
    np.testing.assert_allclose(state.log_probs.numpy(), logp, rtol=1e-5)
    np.testing.assert_array_equal(state.finished.numpy(), fin)
    np.testing.assert_array_equal(state.lengths.numpy(), lens)
    np.testing.assert_array_equal(lengths.numpy(), lens)
    np.testing.assert_allclose(state.cell_states.numpy(), h, rtol=1e-5, atol=1e-6)
    ids_tm, _ = dynamic_decode(dec, paddle.to_tensor(h0), max_step_num=max_step,
                               output_time_major=True)
    np.testing.assert_array_equal(ids_tm.numpy(), seqs)


def test_beam_search_matches_paddle():
    # Paddle 3.3.1, same weights (RandomState(0) in parameter order), end bias -0.5
    cell, emb, out, h0 = _model(-0.5)
    dec = BeamSearchDecoder(cell, 0, 1, 3, embedding_fn=emb, output_fn=out)
    ids, state = dynamic_decode(dec, paddle.to_tensor(h0), max_step_num=5)
    assert isinstance(state, BeamSearchDecoder.StateWrapper)
    np.testing.assert_array_equal(ids.numpy(), [
        [[1, 2, 2], [1, 2, 2], [1, 1, 5], [1, 1, 1], [1, 1, 1], [1, 1, 1]],
        [[1, 5, 5], [1, 1, 5], [1, 1, 5], [1, 1, 3], [1, 1, 3], [1, 1, 5]]])
    np.testing.assert_allclose(state.log_probs.numpy(), [[-1.7277, -3.1723, -4.5718],
                                                         [-1.5116, -2.1167, -6.2846]],
                               atol=1e-4)
    np.testing.assert_array_equal(state.finished.numpy(), [[True, True, True],
                                                           [True, True, False]])
    np.testing.assert_array_equal(state.lengths.numpy(), [[1, 3, 4], [1, 2, 6]])
    assert state.cell_states.shape == [2, 3, H]


def test_beam_search_step_structures_and_tiling():
    cell, emb, out, h0 = _model()
    dec = BeamSearchDecoder(cell, 0, 1, 3, embedding_fn=emb, output_fn=out)
    inputs, state, finished = dec.initialize(paddle.to_tensor(h0))
    assert inputs.shape == [2, 3, E] and state.cell_states.shape == [2, 3, H]
    np.testing.assert_array_equal(state.log_probs.numpy(), [[0, -1e9, -1e9]] * 2)
    assert state.log_probs.dtype == paddle.float32 and state.lengths.dtype == paddle.int64
    assert finished.dtype == paddle.bool and not finished.numpy().any()
    output, state, next_inputs, finished = dec.step(paddle.to_tensor([0]), inputs, state)
    assert isinstance(output, BeamSearchDecoder.OutputWrapper)
    assert output.predicted_ids.shape == [2, 3] and output.parent_ids.shape == [2, 3]
    assert output.predicted_ids.stop_gradient and next_inputs.shape == [2, 3, E]
    # step 0: every candidate comes from beam 0 (the others start at -1e9)
    assert not output.parent_ids.numpy().any()
    x = paddle.to_tensor(np.arange(6).reshape(2, 3))
    tiled = BeamSearchDecoder.tile_beam_merge_with_batch(x, 2)
    np.testing.assert_array_equal(tiled.numpy(), [[0, 1, 2], [0, 1, 2], [3, 4, 5], [3, 4, 5]])


def test_beam_search_with_lstm_tuple_states():
    paddle.seed(1)
    cell = paddle.nn.LSTMCell(E, H)
    dec = BeamSearchDecoder(cell, 0, 1, 2, embedding_fn=paddle.nn.Embedding(V, E),
                            output_fn=paddle.nn.Linear(H, V))
    init = cell.get_initial_states(paddle.zeros([3, H]))
    ids, state = dynamic_decode(dec, init, max_step_num=3, output_time_major=True)
    h, c = state.cell_states
    assert ids.shape[1:] == [3, 2] and ids.shape[0] <= 4
    assert h.shape == [3, 2, H] and c.shape == [3, 2, H]


class _CountDecoder(Decoder):
    """Emits step numbers; sequence b finishes after limits[b] steps; state counts steps."""

    def __init__(self, limits):
        self.limits = paddle.to_tensor(limits)

    def initialize(self, inits):
        state = paddle.zeros([self.limits.shape[0], 1], "float32")
        return paddle.zeros([self.limits.shape[0]], "int64"), state, \
            paddle.zeros([self.limits.shape[0]], "bool")

    def step(self, time, inputs, states, **kwargs):
        out = {"t": paddle.expand(time, [self.limits.shape[0]]) * kwargs.get("scale", 1)}
        done = paddle.greater_equal(time + 1, self.limits)
        return out, states + 1.0, inputs, done


class _DoneDecoder(_CountDecoder):
    def initialize(self, inits):
        inputs, state, finished = super().initialize(inits)
        return inputs, state, paddle.logical_not(finished)


@pytest.mark.parametrize("impute", [False, True])
def test_dynamic_decode_generic_loop(impute):
    dec = _CountDecoder([2, 4, 1])
    outputs, state, lengths = dynamic_decode(dec, max_step_num=10, impute_finished=impute,
                                             return_length=True, scale=10)
    assert list(outputs) == ["t"] and outputs["t"].shape == [3, 4]  # batch major
    np.testing.assert_array_equal(outputs["t"].numpy()[0], [0, 10, 20, 30])
    np.testing.assert_array_equal(lengths.numpy(), [2, 4, 1])
    want = [[2], [4], [1]] if impute else [[4], [4], [4]]
    np.testing.assert_array_equal(state.numpy(), want)
    outputs, _ = dynamic_decode(dec, max_step_num=1, output_time_major=True)
    assert outputs["t"].shape == [2, 3]


def test_dynamic_decode_and_decoder_errors():
    cell, emb, out, h0 = _model()
    with pytest.raises(ValueError, match=r"BeamSearchDecoder: beam_size must be a positive"):
        BeamSearchDecoder(cell, 0, 1, 0)
    with pytest.raises(ValueError, match=r"BeamSearchDecoder: end_token must be a non-neg"):
        BeamSearchDecoder(cell, 0, -1, 2)
    with pytest.raises(TypeError, match=r"BeamSearchDecoder: cell must be a callable"):
        BeamSearchDecoder(3, 0, 1, 2)
    dec = BeamSearchDecoder(cell, 0, 9, 2, embedding_fn=emb, output_fn=out)
    with pytest.raises(ValueError, match=r"end_token 9 is out of range for the 6 logits"):
        dynamic_decode(dec, paddle.to_tensor(h0))
    with pytest.raises(ValueError, match=r"dynamic_decode: max_step_num must be None or a "):
        dynamic_decode(dec, paddle.to_tensor(h0), max_step_num=-1)
    with pytest.raises(ValueError, match=r"dynamic_decode: every sequence is finished"):
        dynamic_decode(_DoneDecoder([1]))
    with pytest.raises(NotImplementedError):
        Decoder().initialize(None)


def test_namedtuple_cell_outputs_are_kept():
    Pair = collections.namedtuple("Pair", ["a", "b"])
    from sampan.nn.decode import _flatten, _map_structure
    s = Pair(paddle.ones([2]), [paddle.zeros([1]), {"k": paddle.ones([3])}])
    assert len(_flatten(s)) == 3
    doubled = _map_structure(lambda x: x * 2, s)
    assert isinstance(doubled, Pair) and doubled.b[1]["k"].numpy().tolist() == [2, 2, 2]
