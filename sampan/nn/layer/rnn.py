"""Recurrent layers: the RNN / BiRNN wrappers and the multi-layer SimpleRNN / LSTM / GRU
networks (the cells live in rnn_cell.py and are re-exported here, as in Paddle's
paddle.nn.layer.rnn).

The built-in cells run whole sequences through the scan ops of ops/nn_rnn.py (one input
projection matmul for all time steps, the recurrence in one kernel); any other cell is
stepped in Python like Paddle's dynamic-graph `rnn`. Imports `ops`, `tensor` and `nn`.
"""
from __future__ import annotations

from ...framework.tensor import is_tensor_or_variable
from ...ops.dispatch import call
from .container import LayerList
from .layers import Layer
from .rnn_cell import (GRUCell, LSTMCell, RNNCellBase, SimpleRNNCell, _map, _sequence_mask,
                       _time_major)

__all__ = ["RNNCellBase", "SimpleRNNCell", "LSTMCell", "GRUCell", "RNN", "BiRNN",
           "SimpleRNN", "LSTM", "GRU"]

def _fused(cell) -> bool:
    """Whether the cell is a built-in one the scan ops can run (no projection)."""
    return type(cell) in (SimpleRNNCell, GRUCell) or (type(cell) is LSTMCell
                                                      and not cell.proj_size)


def _run_scan(cell, x, states, mask, reverse: bool):
    """One direction through a scan op; x is time-major. Returns (h_seq, final_states)."""
    x_proj = cell._project(x)
    # NOTE: with initial states and sequence_length, Paddle 3.3.1's backward direction gets
    # wrong weight_hh grads (checked by finite differences); ours match finite differences
    if reverse:
        x_proj = call("flip", x_proj, axis=[0])
        mask = None if mask is None else call("flip", mask, axis=[0])
    h_seq, final = cell._scan(x_proj, states, mask)
    if reverse:
        h_seq = call("flip", h_seq, axis=[0])
    return h_seq, final


def _run_loop(cell, x, states, mask, reverse: bool, **kwargs):
    """Any cell, stepped in Python (Paddle's dynamic-graph rnn); x is time-major."""
    steps = [call("squeeze", p, axis=[0])
             for p in call("split", x, num_or_sections=x.shape[0], axis=0)]
    masks = None
    if mask is not None:
        masks = [call("squeeze", p, axis=[0])
                 for p in call("split", call("unsqueeze", mask, axis=[-1]),
                               num_or_sections=x.shape[0], axis=0)]
    order = range(len(steps) - 1, -1, -1) if reverse else range(len(steps))
    outputs = [None] * len(steps)
    for t in order:
        out, new = cell(steps[t], states, **kwargs)
        if masks is not None:
            m = masks[t]
            new = _map(lambda old, n: old + m * (n - old), states, new)
        states = new
        outputs[t] = out
    if not outputs:
        raise ValueError(f"RNN: inputs must have at least one time step, got shape "
                         f"{list(x.shape)}")
    return _map(lambda *outs: call("stack", list(outs), axis=0), *outputs), states


def _check_inputs(api: str, inputs, input_size=None, time_major: bool = False) -> None:
    """Check the user's own inputs (before any time-major transpose), naming the layer."""
    layout = "[time_steps, batch, input_size]" if time_major else \
        "[batch, time_steps, input_size]"
    if not hasattr(inputs, "shape") or len(inputs.shape) != 3:
        raise ValueError(f"{api}: inputs must be a 3-D Tensor {layout}, got "
                         f"{getattr(inputs, 'shape', type(inputs).__name__)}")
    feat = inputs.shape[-1]
    if input_size is not None and feat not in (-1, input_size):
        raise ValueError(f"{api}: the last dim of inputs {layout} must equal input_size "
                         f"({input_size}), got inputs of shape {list(inputs.shape)}")


def _check_rnn_args(inputs, initial_states, sequence_length) -> None:
    """Paddle's argument types for rnn (TypeError): Tensors, not arrays."""
    items = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
    for t in items:
        if not is_tensor_or_variable(t):
            raise TypeError(f"rnn: inputs must be a Tensor (or a list/tuple of Tensors), got "
                            f"{type(t).__name__}")
    states = initial_states if isinstance(initial_states, (list, tuple)) else \
        [] if initial_states is None else [initial_states]
    for t in states:
        if not is_tensor_or_variable(t) and not isinstance(t, (list, tuple)):
            raise TypeError(f"rnn: initial_states must be a Tensor or a (nested) list/tuple "
                            f"of Tensors, got {type(t).__name__}")
    if sequence_length is not None and not is_tensor_or_variable(sequence_length):
        raise TypeError(f"rnn: sequence_length must be a Tensor or None, got "
                        f"{type(sequence_length).__name__}")


def rnn(cell, inputs, initial_states=None, sequence_length=None, time_major: bool = False,
        is_reverse: bool = False, **kwargs):
    """Run `cell` over the time steps of `inputs` (Paddle's paddle.nn.layer.rnn.rnn).

    Outputs at steps past a sequence's length are the cell's outputs for the carried
    states (Paddle's dynamic-graph behaviour); the states stop updating there.
    """
    _check_rnn_args(inputs, initial_states, sequence_length)
    batch_dim = 1 if time_major else 0
    if initial_states is None:
        initial_states = cell.get_initial_states(inputs, dtype=inputs.dtype.name,
                                                 batch_dim_idx=batch_dim)
    x = _time_major(inputs, time_major)
    mask = None if sequence_length is None else _sequence_mask(sequence_length, x.shape[0],
                                                               inputs.dtype.name, "rnn")
    if _fused(cell) and mask is None and not kwargs and x.shape[0] > 0:
        out, states = _run_scan(cell, x, initial_states, None, is_reverse)
    else:
        out, states = _run_loop(cell, x, initial_states, mask, is_reverse, **kwargs)
    return _map(lambda o: _time_major(o, time_major), out), states


class RNN(Layer):
    """Run a cell over a sequence.

    Args:
        cell (RNNCellBase): the cell.
        is_reverse (bool): process the sequence from the last step. Default False.
        time_major (bool): inputs are [time, batch, ...] instead of [batch, time, ...].

    forward(inputs, initial_states=None, sequence_length=None, **kwargs) returns
    (outputs, final_states).

    Examples:
        >>> import sampan as paddle
        >>> rnn = paddle.nn.RNN(paddle.nn.SimpleRNNCell(4, 3))
        >>> out, h = rnn(paddle.ones([2, 5, 4]))
        >>> out.shape, h.shape
        (paddle.Size([2, 5, 3]), paddle.Size([2, 3]))
    """

    def __init__(self, cell, is_reverse: bool = False, time_major: bool = False) -> None:
        super().__init__()
        if not isinstance(cell, Layer):
            raise TypeError(f"RNN: cell must be an RNNCellBase layer, got "
                            f"{type(cell).__name__}")
        self.cell = cell
        self.is_reverse = is_reverse
        self.time_major = time_major

    def forward(self, inputs, initial_states=None, sequence_length=None, **kwargs):
        _check_inputs("RNN", inputs, getattr(self.cell, "input_size", None), self.time_major)
        return rnn(self.cell, inputs, initial_states, sequence_length, self.time_major,
                   self.is_reverse, **kwargs)


class BiRNN(Layer):
    """A forward and a backward cell over the same sequence; outputs are concatenated on
    the last axis, final states are (states_fw, states_bw).

    Args:
        cell_fw (RNNCellBase): forward cell.
        cell_bw (RNNCellBase): backward cell (same input_size).
        time_major (bool): inputs are [time, batch, ...]. Default False.

    Examples:
        >>> import sampan as paddle
        >>> birnn = paddle.nn.BiRNN(paddle.nn.GRUCell(4, 3), paddle.nn.GRUCell(4, 3))
        >>> out, (h_fw, h_bw) = birnn(paddle.ones([2, 5, 4]))
        >>> out.shape
        paddle.Size([2, 5, 6])
    """

    def __init__(self, cell_fw, cell_bw, time_major: bool = False) -> None:
        super().__init__()
        if cell_fw.input_size != cell_bw.input_size:
            raise ValueError(f"BiRNN: input size of forward cell({cell_fw.input_size}) does "
                             f"not equal that of backward cell({cell_bw.input_size})")
        self.cell_fw = cell_fw
        self.cell_bw = cell_bw
        self.time_major = time_major

    def forward(self, inputs, initial_states=None, sequence_length=None, **kwargs):
        _check_inputs("BiRNN", inputs, self.cell_fw.input_size, self.time_major)
        if initial_states is None:
            states_fw = states_bw = None
        elif isinstance(initial_states, (list, tuple)) and len(initial_states) == 2:
            states_fw, states_bw = initial_states
        else:
            raise ValueError("BiRNN: initial_states must be a list/tuple of 2 (forward and "
                             "backward states)")
        out_fw, st_fw = rnn(self.cell_fw, inputs, states_fw, sequence_length,
                            self.time_major, False, **kwargs)
        out_bw, st_bw = rnn(self.cell_bw, inputs, states_bw, sequence_length,
                            self.time_major, True, **kwargs)
        outputs = _map(lambda a, b: call("concat", [a, b], axis=-1), out_fw, out_bw)
        return outputs, (st_fw, st_bw)


class RNNBase(LayerList):
    """Multi-layer, optionally bidirectional network of RNN/BiRNN layers (SimpleRNN, LSTM,
    GRU). Parameters are also exposed flat as weight_ih_l{k}[_reverse] & co, so the
    state_dict holds both naming schemes exactly like Paddle's."""

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1,
                 direction: str = "forward", time_major: bool = False, dropout: float = 0.0,
                 weight_ih_attr=None, weight_hh_attr=None, bias_ih_attr=None,
                 bias_hh_attr=None, proj_size: int = 0) -> None:
        super().__init__()
        name = type(self).__name__
        bidirect = ("bidirectional", "bidirect")
        if direction not in ("forward", *bidirect):
            raise ValueError(f"{name}: direction should be forward or bidirect (or "
                             f"bidirectional), received direction = {direction}")
        if not isinstance(num_layers, int) or num_layers < 1:
            raise ValueError(f"{name}: num_layers must be a positive int, got {num_layers!r}")
        if not 0.0 <= float(dropout) <= 1.0:
            raise ValueError(f"{name}: dropout must be in [0, 1], got {dropout}")
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.dropout = dropout
        self.num_directions = 2 if direction in bidirect else 1
        self.time_major = time_major
        self.num_layers = num_layers
        self.state_components = 2 if mode == "LSTM" else 1
        self.proj_size = proj_size
        kwargs = {"weight_ih_attr": weight_ih_attr, "weight_hh_attr": weight_hh_attr,
                  "bias_ih_attr": bias_ih_attr, "bias_hh_attr": bias_hh_attr}
        if mode == "LSTM":
            cell_cls = LSTMCell
            kwargs["proj_size"] = proj_size
        elif mode == "GRU":
            cell_cls = GRUCell
        else:
            cell_cls = SimpleRNNCell
            kwargs["activation"] = "relu" if mode == "RNN_RELU" else "tanh"
        in_size = proj_size or hidden_size
        for k in range(num_layers):
            size = input_size if k == 0 else in_size * self.num_directions
            if self.num_directions == 1:
                self.append(RNN(cell_cls(size, hidden_size, **kwargs), False, time_major))
            else:
                self.append(BiRNN(cell_cls(size, hidden_size, **kwargs),
                                  cell_cls(size, hidden_size, **kwargs), time_major))
        # Paddle also exposes the parameters under flat names, pairing a name list with
        # parameters() in order (quirks included), so its state_dicts load unchanged.
        names = []
        for k in range(num_layers):
            for d in range(self.num_directions):
                suffix = "_reverse" if d == 1 else ""
                names.extend(["weight_ih_l{}{}", "weight_hh_l{}{}"])
                if bias_ih_attr is not False:
                    names.append("bias_ih_l{}{}")
                if bias_hh_attr is not False:
                    names.append("bias_hh_l{}{}")
                names = [n.format(k, suffix) for n in names]
        for pname, param in zip(names, self.parameters()):
            setattr(self, pname, param)

    def _split_states(self, initial_states, x, dtype: str) -> list:
        """Per layer: the state (or (h, c)) of each direction; x is time-major."""
        L, D = self.num_layers, self.num_directions
        batch = x.shape[1]
        if initial_states is None:  # the batch dim comes from x when the op runs
            dims = (self.proj_size or self.hidden_size, self.hidden_size)
            initial_states = tuple(call("_full_batch_like", x, shape=[L * D, 1, dims[i]],
                                        fill_value=0.0, dtype=dtype, input_dim_idx=1,
                                        output_dim_idx=1)
                                   for i in range(self.state_components))
        elif self.state_components == 1:
            initial_states = (initial_states,)
        if len(initial_states) != self.state_components:
            raise ValueError(f"{type(self).__name__}: initial_states must be "
                             f"{self.state_components} tensor(s) of shape [num_layers * "
                             f"num_directions, batch, hidden], got {len(initial_states)}")
        comps = []
        for i, s in enumerate(initial_states):
            want = [L * D, batch, (self.proj_size or self.hidden_size) if i == 0
                    else self.hidden_size]
            shape = list(s.shape)
            if len(shape) != 3 or any(-1 not in (a, b) and a != b for a, b in zip(shape, want)):
                raise ValueError(f"{type(self).__name__}: initial_states must have shape "
                                 f"[num_layers * num_directions, batch, "
                                 f"{'proj_size' if i == 0 and self.proj_size else 'hidden_size'}]"
                                 f" = {want}, got {shape}")
            comps.append(_unstack(s))
        per_cell = [c[0] if self.state_components == 1 else tuple(c)
                    for c in zip(*comps)]
        return [per_cell[k * D:(k + 1) * D] for k in range(L)]

    def forward(self, inputs, initial_states=None, sequence_length=None):
        name = type(self).__name__
        _check_inputs(name, inputs, self.input_size, self.time_major)
        dtype = inputs.dtype.name
        x = _time_major(inputs, self.time_major)
        states = self._split_states(initial_states, x, dtype)
        if inputs.dtype != self.weight_ih_l0.dtype:
            raise TypeError(f"{name}: inputs ({dtype}) must have the dtype of the parameters "
                            f"({self.weight_ih_l0.dtype.name})")
        mask = None if sequence_length is None else _sequence_mask(
            sequence_length, x.shape[0], dtype, name)
        finals = []
        for k, layer in enumerate(self):
            if k > 0 and self.dropout > 0:
                from ..functional.common import dropout
                x = dropout(x, self.dropout, training=self.training, mode="upscale_in_train")
            cells = [layer.cell] if self.num_directions == 1 else [layer.cell_fw,
                                                                   layer.cell_bw]
            outs = []
            for d, cell in enumerate(cells):
                run = _run_scan if _fused(cell) and x.shape[0] > 0 else _run_loop
                out, final = run(cell, x, states[k][d], mask, d == 1)
                outs.append(out)
                finals.append(final)
            x = outs[0] if len(outs) == 1 else call("concat", outs, axis=-1)
        if mask is not None and not self.proj_size:
            # NOTE: Paddle's fused kernel zeroes outputs past each length; with proj_size it
            # steps the cells instead, whose outputs there are those of the carried states
            x = x * call("unsqueeze", mask, axis=[-1])
        out = _time_major(x, self.time_major)
        if self.state_components == 1:
            return out, call("stack", finals, axis=0)
        return out, tuple(call("stack", [f[i] for f in finals], axis=0) for i in range(2))

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.time_major is not False:
            s += f", time_major={self.time_major}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        return s


def _unstack(t) -> list:
    return [call("squeeze", p, axis=[0])
            for p in call("split", t, num_or_sections=t.shape[0], axis=0)]


class SimpleRNN(RNNBase):
    """Multi-layer Elman RNN.

    Args:
        input_size (int), hidden_size (int), num_layers (int, default 1),
        direction (str): "forward" (default), "bidirect" or "bidirectional".
        time_major (bool): inputs [time, batch, input]. Default False.
        dropout (float): dropout between layers. Default 0.0.
        activation (str): "tanh" (default) or "relu".
        weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr: parameter attributes.
        name: unused.

    forward(inputs, initial_states=None, sequence_length=None) returns (outputs,
    final_states [num_layers * num_directions, batch, hidden]); outputs are 0 past each
    sequence's length.

    Examples:
        >>> import sampan as paddle
        >>> net = paddle.nn.SimpleRNN(4, 3, num_layers=2)
        >>> out, h = net(paddle.ones([2, 5, 4]))
        >>> out.shape, h.shape
        (paddle.Size([2, 5, 3]), paddle.Size([2, 2, 3]))
    """

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1,
                 direction: str = "forward", time_major: bool = False, dropout: float = 0.0,
                 activation: str = "tanh", weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, name=None) -> None:
        if activation not in ("tanh", "relu"):
            raise ValueError(f"Unknown activation '{activation}'")
        self.__dict__["activation"] = activation
        super().__init__("RNN_TANH" if activation == "tanh" else "RNN_RELU", input_size,
                         hidden_size, num_layers, direction, time_major, dropout,
                         weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr, 0)


class LSTM(RNNBase):
    """Multi-layer LSTM (gate order i, f, g, o).

    Args:
        input_size (int), hidden_size (int), num_layers (int, default 1),
        direction (str): "forward" (default), "bidirect" or "bidirectional".
        time_major (bool): inputs [time, batch, input]. Default False.
        dropout (float): dropout between layers. Default 0.0.
        weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr: parameter attributes.
        proj_size (int): project h to this size (weight_ho). Default 0 (none).
        name: unused.

    forward(inputs, initial_states=None, sequence_length=None) returns (outputs, (h, c)),
    h and c of shape [num_layers * num_directions, batch, hidden]; outputs are 0 past each
    sequence's length.

    Examples:
        >>> import sampan as paddle
        >>> net = paddle.nn.LSTM(4, 3, direction="bidirect")
        >>> out, (h, c) = net(paddle.ones([2, 5, 4]))
        >>> out.shape, h.shape
        (paddle.Size([2, 5, 6]), paddle.Size([2, 2, 3]))
    """

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1,
                 direction: str = "forward", time_major: bool = False, dropout: float = 0.0,
                 weight_ih_attr=None, weight_hh_attr=None, bias_ih_attr=None,
                 bias_hh_attr=None, proj_size: int = 0, name=None) -> None:
        super().__init__("LSTM", input_size, hidden_size, num_layers, direction, time_major,
                         dropout, weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr,
                         proj_size)


class GRU(RNNBase):
    """Multi-layer GRU (gate order r, z, c; reset gate applied after the matmul).

    Args:
        input_size (int), hidden_size (int), num_layers (int, default 1),
        direction (str): "forward" (default), "bidirect" or "bidirectional".
        time_major (bool): inputs [time, batch, input]. Default False.
        dropout (float): dropout between layers. Default 0.0.
        weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr: parameter attributes.
        name: unused.

    forward(inputs, initial_states=None, sequence_length=None) returns (outputs, h), h of
    shape [num_layers * num_directions, batch, hidden]; outputs are 0 past each sequence's
    length.

    Examples:
        >>> import sampan as paddle
        >>> net = paddle.nn.GRU(4, 3)
        >>> out, h = net(paddle.ones([2, 5, 4]))
        >>> out.shape, h.shape
        (paddle.Size([2, 5, 3]), paddle.Size([1, 2, 3]))
    """

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1,
                 direction: str = "forward", time_major: bool = False, dropout: float = 0.0,
                 weight_ih_attr=None, weight_hh_attr=None, bias_ih_attr=None,
                 bias_hh_attr=None, name=None) -> None:
        super().__init__("GRU", input_size, hidden_size, num_layers, direction, time_major,
                         dropout, weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr)
