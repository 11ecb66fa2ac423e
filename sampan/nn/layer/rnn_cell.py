"""Recurrent cells: RNNCellBase, SimpleRNNCell, LSTMCell and GRUCell (Paddle's
paddle.nn.layer.rnn cells), and the nested-structure helpers the RNN wrappers share.

A cell computes one time step; the built-in cells also run whole sequences through the scan
ops of ops/nn_rnn.py (see rnn.py). Imports `ops`, `tensor` and `nn`.
"""
from __future__ import annotations

import math

from ...framework import dtype as _dt
from ...ops.dispatch import call
from .. import initializer as I
from .layers import Layer

__all__ = ["RNNCellBase", "SimpleRNNCell", "LSTMCell", "GRUCell"]

# --- nested-structure helpers ----------------------------------------------------------

def _map(fn, *trees):
    """Apply fn leafwise over equally nested tuples/lists of tensors."""
    if isinstance(trees[0], (list, tuple)):
        return type(trees[0])(_map(fn, *parts) for parts in zip(*trees))
    return fn(*trees)


def _flatten(tree) -> list:
    if isinstance(tree, (list, tuple)):
        return [leaf for part in tree for leaf in _flatten(part)]
    return [tree]


def _time_major(x, time_major: bool):
    return x if time_major else call("transpose", x, perm=[1, 0, *range(2, len(x.shape))])


def _sequence_mask(sequence_length, steps: int, dtype: str, api: str = "RNN"):
    """[T, B] mask: 1.0 where t < sequence_length[b], else 0.0."""
    lengths = sequence_length if hasattr(sequence_length, "shape") else call(
        "cast", _as_tensor(sequence_length), dtype="int64")
    if lengths.dtype.kind not in "iu":
        raise TypeError(f"{api}: sequence_length must be an int32 or int64 tensor, got "
                        f"{lengths.dtype.name}")
    t = call("arange", start=0, end=steps, step=1, dtype=lengths.dtype.name)
    valid = call("less_than", call("unsqueeze", t, axis=[1]),
                 call("unsqueeze", lengths, axis=[0]))
    return call("cast", valid, dtype=dtype)


def _as_tensor(value):
    from ...tensor.creation import to_tensor
    return to_tensor(value)


def _linear_seq(x, weight):
    """x @ weight^T for x [..., I]; 3-D inputs go through one 2-D GEMM (NumPy runs a
    stacked matmul as many small ones, ~2.5x slower here)."""
    if len(x.shape) != 3:
        return call("matmul", x, weight, transpose_y=True)
    T, B = x.shape[0], x.shape[1]
    rows = -1 if T < 0 or B < 0 else T * B  # a static Program may know T or B only at run time
    flat = call("reshape", x, shape=[rows, x.shape[2]])
    out = call("matmul", flat, weight, transpose_y=True)
    if T < 0 and B < 0:
        raise ValueError(f"RNN: the sequence length and the batch size of x {list(x.shape)} are "
                         f"both unknown; give one of them in the InputSpec")
    return call("reshape", out, shape=[T, B, weight.shape[0]])


# --- cells -----------------------------------------------------------------------------

class RNNCellBase(Layer):
    """Base of recurrent cells: `forward(inputs, states)` -> (outputs, new_states)."""

    def get_initial_states(self, batch_ref, shape=None, dtype=None, init_value: float = 0.0,
                           batch_dim_idx: int = 0):
        """States filled with `init_value`, batch size taken from `batch_ref`.

        Args:
            batch_ref (Tensor): tensor whose dim `batch_dim_idx` is the batch size.
            shape (list|tuple, optional): (nested) state shapes without the batch dim
                (a leading -1 is accepted); `state_shape` by default.
            dtype (str, optional): state dtype; `state_dtype` or the default float dtype.
            init_value (float): fill value. Default 0.0.
            batch_dim_idx (int): batch dim of `batch_ref`. Default 0.

        Returns:
            Tensor or nested tuple of Tensors shaped [batch, ...].
        """
        ref = _flatten(batch_ref)[0]
        shapes = self.state_shape if shape is None else shape
        if dtype is None:
            try:
                dtype = self.state_dtype
            except NotImplementedError:
                dtype = _dt.default_float().name
        dtype = _dt.convert_dtype(dtype).name

        def make(s):
            s = list(s)
            s = s[1:] if s and s[0] == -1 else s
            # the batch dim is read from `ref` when the op runs (a static Program may know it
            # only then)
            return call("_full_batch_like", ref, shape=[1, *s], fill_value=float(init_value),
                        dtype=dtype, input_dim_idx=batch_dim_idx, output_dim_idx=0)

        def walk(s):
            if isinstance(s, (list, tuple)) and s and all(isinstance(d, int) for d in s):
                return make(s)
            if isinstance(s, (list, tuple)) and not s:
                return make(s)
            return type(s)(walk(part) for part in s)
        return walk(shapes)

    @property
    def state_shape(self):
        raise NotImplementedError(f"{type(self).__name__} must define state_shape to use "
                                  f"get_initial_states")

    @property
    def state_dtype(self):
        raise NotImplementedError(f"{type(self).__name__} defines no state_dtype")

    def _create_weights(self, gates: int, input_size: int, hidden_size: int, attrs: tuple,
                        hh_cols: int | None = None) -> None:
        """weight_ih [g*H, I], weight_hh [g*H, H], bias_ih/bias_hh [g*H], Paddle's init.

        A False attr gives a frozen parameter (weights 1.0, biases 0.0) as Paddle does.
        """
        name = type(self).__name__
        if not isinstance(input_size, int) or input_size <= 0:
            raise ValueError(f"{name}: input_size must be a positive int, got {input_size!r}")
        if not isinstance(hidden_size, int) or hidden_size <= 0:
            raise ValueError(f"hidden_size of {name} must be greater than 0, but now equals "
                             f"to {hidden_size!r}")
        std = 1.0 / math.sqrt(hidden_size)
        rows = gates * hidden_size
        specs = (("weight_ih", (rows, input_size), False),
                 ("weight_hh", (rows, hh_cols or hidden_size), False),
                 ("bias_ih", (rows,), True), ("bias_hh", (rows,), True))
        for (pname, shape, is_bias), attr in zip(specs, attrs):
            if attr is False:
                p = self.create_parameter(shape, None, is_bias=is_bias,
                                          default_initializer=I.Constant(0.0 if is_bias
                                                                         else 1.0))
                p.stop_gradient = True
            else:
                p = self.create_parameter(shape, attr, is_bias=is_bias,
                                          default_initializer=I.Uniform(-std, std))
            setattr(self, pname, p)
        self.input_size = input_size
        self.hidden_size = hidden_size

    def _check_features(self, x) -> None:
        if x.shape[-1] != self.input_size:
            raise ValueError(f"{type(self).__name__}: the last dim of inputs (shape "
                             f"{list(x.shape)}) must equal input_size ({self.input_size})")
        if x.dtype != self.weight_ih.dtype:
            raise TypeError(f"{type(self).__name__}: inputs ({x.dtype.name}) must have the "
                            f"dtype of the parameters ({self.weight_ih.dtype.name})")

    def _check_states(self, inputs, states) -> None:
        """states must nest like state_shape, each [batch, *shape] (one step's call)."""
        name = type(self).__name__
        nested = isinstance(self.state_shape[0], (tuple, list))
        shapes = self.state_shape if nested else (self.state_shape,)
        parts = states if nested else (states,)
        if nested and (not isinstance(states, (tuple, list)) or len(states) != len(shapes)):
            raise ValueError(f"{name}: states must be a tuple of {len(shapes)} tensors "
                             f"(h, c), got {type(states).__name__}")
        batch = inputs.shape[0]
        for part, shape in zip(parts, shapes):
            want = [batch, *shape]
            got = list(getattr(part, "shape", []))
            if len(got) != len(want) or any(-1 not in (a, b) and a != b
                                            for a, b in zip(got, want)):
                raise ValueError(f"{name}: each state must have shape [batch, "
                                 f"hidden_size] = {want}, got {got}")

    def _default_states(self, inputs):
        return self.get_initial_states(inputs, dtype=inputs.dtype.name)


class SimpleRNNCell(RNNCellBase):
    """Elman cell: h' = act(x @ W_ih^T + b_ih + h @ W_hh^T + b_hh), act tanh or relu.

    Weights and biases are initialised with Uniform(-1/sqrt(hidden_size), 1/sqrt(hidden_size)).

    Args:
        input_size (int): input feature size.
        hidden_size (int): hidden state size.
        activation (str): "tanh" (default) or "relu".
        weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr (ParamAttr, optional):
            parameter attributes; False freezes the parameter at 1 (weights) / 0 (biases).
        name: unused.

    Examples:
        >>> import sampan as paddle
        >>> cell = paddle.nn.SimpleRNNCell(4, 3)
        >>> h, _ = cell(paddle.ones([2, 4]))
        >>> h.shape
        paddle.Size([2, 3])
    """

    def __init__(self, input_size: int, hidden_size: int, activation: str = "tanh",
                 weight_ih_attr=None, weight_hh_attr=None, bias_ih_attr=None,
                 bias_hh_attr=None, name=None) -> None:
        super().__init__()
        self._create_weights(1, input_size, hidden_size,
                             (weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr))
        if activation not in ("tanh", "relu"):
            raise ValueError(f"activation for SimpleRNNCell should be tanh or relu, but get "
                             f"{activation}")
        self.activation = activation

    def _project(self, x):
        self._check_features(x)
        return _linear_seq(x, self.weight_ih) + (self.bias_ih + self.bias_hh)

    def _scan(self, x_proj, states, mask):
        h = call("_rnn_scan", x_proj, states, self.weight_hh, mask,
                 activation=self.activation)
        return h, h[-1] if h.shape[0] else states

    def forward(self, inputs, states=None):
        if states is None:
            states = self._default_states(inputs)
        self._check_states(inputs, states)
        h = call("_rnn_scan", call("unsqueeze", self._project(inputs), axis=[0]), states,
                 self.weight_hh, None, activation=self.activation)
        h = call("squeeze", h, axis=[0])
        return h, h

    @property
    def state_shape(self):
        return (self.hidden_size,)

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        return s + f", activation={self.activation}" if self.activation != "tanh" else s


class LSTMCell(RNNCellBase):
    """LSTM cell with Paddle's gate order i, f, g(cell), o:
    c' = f * c + i * g, h' = o * tanh(c') (then h' @ weight_ho when proj_size > 0).

    Weights and biases are initialised with Uniform(-1/sqrt(hidden_size), 1/sqrt(hidden_size)).

    Args:
        input_size (int): input feature size.
        hidden_size (int): cell state size.
        weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr (ParamAttr, optional):
            parameter attributes; False freezes the parameter at 1 (weights) / 0 (biases).
        proj_size (int): if > 0, project h to this size with weight_ho [hidden, proj].
        name: unused.

    Returns (forward):
        (h, (h, c)).

    Examples:
        >>> import sampan as paddle
        >>> cell = paddle.nn.LSTMCell(4, 3)
        >>> h, (h, c) = cell(paddle.ones([2, 4]))
        >>> c.shape
        paddle.Size([2, 3])
    """

    def __init__(self, input_size: int, hidden_size: int, weight_ih_attr=None,
                 weight_hh_attr=None, bias_ih_attr=None, bias_hh_attr=None,
                 proj_size: int = 0, name=None) -> None:
        super().__init__()
        if not isinstance(proj_size, int) or proj_size < 0:
            raise ValueError(f"proj_size of LSTMCell must be a non-negative int, got "
                             f"{proj_size!r}")
        if proj_size and isinstance(hidden_size, int) and proj_size >= hidden_size:
            raise ValueError("proj_size must be smaller than hidden_size")
        self._create_weights(4, input_size, hidden_size,
                             (weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr),
                             hh_cols=proj_size or None)
        self.proj_size = proj_size
        if proj_size > 0:
            std = 1.0 / math.sqrt(hidden_size)
            self.weight_ho = self.create_parameter((hidden_size, proj_size), weight_hh_attr,
                                                   default_initializer=I.Uniform(-std, std))

    def _project(self, x):
        self._check_features(x)
        return _linear_seq(x, self.weight_ih) + (self.bias_ih + self.bias_hh)

    def _scan(self, x_proj, states, mask):
        h, c = call("_lstm_scan", x_proj, states[0], states[1], self.weight_hh, mask)
        return h, ((h[-1], c[-1]) if h.shape[0] else tuple(states))

    def forward(self, inputs, states=None):
        if states is None:
            states = self._default_states(inputs)
        self._check_states(inputs, states)
        pre_h, pre_c = states
        if self.proj_size:
            gates = self._project(inputs) + call("matmul", pre_h, self.weight_hh,
                                                 transpose_y=True)
            i, f, g, o = call("split", gates, num_or_sections=4, axis=-1)
            c = call("sigmoid", f) * pre_c + call("sigmoid", i) * call("tanh", g)
            h = call("matmul", call("sigmoid", o) * call("tanh", c), self.weight_ho)
            return h, (h, c)
        x = call("unsqueeze", self._project(inputs), axis=[0])
        h, c = call("_lstm_scan", x, pre_h, pre_c, self.weight_hh, None)
        h, c = call("squeeze", h, axis=[0]), call("squeeze", c, axis=[0])
        return h, (h, c)

    @property
    def state_shape(self):
        return ((self.proj_size or self.hidden_size,), (self.hidden_size,))

    def extra_repr(self) -> str:
        return f"{self.input_size}, {self.hidden_size}"


class GRUCell(RNNCellBase):
    """GRU cell with Paddle's gate order r, z, c and the reset gate applied after the
    matmul: c = tanh(x_c + r * (h @ W_hc^T + b_hc)), h' = (h - c) * z + c.

    Weights and biases are initialised with Uniform(-1/sqrt(hidden_size), 1/sqrt(hidden_size)).

    Args:
        input_size (int): input feature size.
        hidden_size (int): hidden state size.
        weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr (ParamAttr, optional):
            parameter attributes; False freezes the parameter at 1 (weights) / 0 (biases).
        name: unused.

    Examples:
        >>> import sampan as paddle
        >>> cell = paddle.nn.GRUCell(4, 3)
        >>> h, _ = cell(paddle.ones([2, 4]))
        >>> h.shape
        paddle.Size([2, 3])
    """

    def __init__(self, input_size: int, hidden_size: int, weight_ih_attr=None,
                 weight_hh_attr=None, bias_ih_attr=None, bias_hh_attr=None,
                 name=None) -> None:
        super().__init__()
        self._create_weights(3, input_size, hidden_size,
                             (weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr))

    def _project(self, x):
        self._check_features(x)
        return _linear_seq(x, self.weight_ih) + self.bias_ih

    def _scan(self, x_proj, states, mask):
        h = call("_gru_scan", x_proj, states, self.weight_hh, self.bias_hh, mask)
        return h, h[-1] if h.shape[0] else states

    def forward(self, inputs, states=None):
        if states is None:
            states = self._default_states(inputs)
        self._check_states(inputs, states)
        x = call("unsqueeze", self._project(inputs), axis=[0])
        h = call("squeeze", call("_gru_scan", x, states, self.weight_hh, self.bias_hh, None),
                 axis=[0])
        return h, h

    @property
    def state_shape(self):
        return (self.hidden_size,)

    def extra_repr(self) -> str:
        return f"{self.input_size}, {self.hidden_size}"
