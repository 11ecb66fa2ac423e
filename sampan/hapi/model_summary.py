"""paddle.summary: a table of a network's layers, their input/output shapes and parameters.

Runs one forward pass on random inputs (or `input`) with post-hooks on every layer that is
not a container; the totals come from the network's parameters. Imports `framework`, `nn`, `tensor`.
"""
from __future__ import annotations

import numpy as np

from ..framework.tensor import Tensor, is_variable

_MIN_WIDTHS = (15, 20, 20, 15)  # layer, input shape, output shape, params
_MIN_TABLE = 75


def summary(net, input_size=None, dtypes=None, input=None) -> dict:
    """Print the layers of `net` with their shapes and parameter counts.

    Args:
        net (Layer): the network.
        input_size (tuple|list|InputSpec|list of them): the input shape(s), batch dim
            included (-1/None become 1); ignored when `input` is given.
        dtypes (str|list, optional): input dtype(s); "float32" by default.
        input (Tensor|list|dict, optional): a real input to run instead of random ones;
            as in Paddle it is passed as one argument (`net(input)`), a list or dict
            included.

    Returns:
        dict: {"total_params": np.int64, "trainable_params": np.int64} (as Paddle)

    Examples:
        >>> import sampan as paddle
        >>> net = paddle.nn.Sequential(paddle.nn.Linear(4, 3), paddle.nn.ReLU())
        >>> info = paddle.summary(net, (2, 4))  # doctest: +ELLIPSIS
        ---...
         Layer (type)       Input Shape          Output Shape         Param #...
        ...
        >>> info
        {'total_params': np.int64(15), 'trainable_params': np.int64(15)}
    """
    from ..nn import Layer, LayerList, Sequential
    from ..nn.layer.rnn import RNNBase
    if not isinstance(net, Layer):
        raise TypeError(f"summary: net must be a paddle.nn.Layer, got {type(net).__name__}")
    if input is None and input_size is None:
        raise ValueError("summary: give input_size or input")
    rows, handles = {}, []  # one row per layer name: a layer called again (a Dropout used
    #                         twice) keeps its first place and shows its last call, as Paddle

    def record(layer, inputs, outputs):
        own = _own_params(layer)
        name = f"{type(layer).__name__}-{_layer_index(layer, len(rows))}"
        rows[name] = {
            "name": name,
            "input": _shapes(inputs),
            "output": _shapes(outputs),
            "params": sum(int(np.prod(p.shape)) for p in own),
            "trainable": sum(int(np.prod(p.shape)) for p in own if not p.stop_gradient),
        }

    hidden_top = bool(net._sub_layers) and not isinstance(net, RNNBase)
    for layer in net.sublayers(include_self=True):
        if layer is net and hidden_top:
            continue  # Paddle: the network itself is a row only without sublayers (or an RNN)
        if isinstance(layer, (Sequential, LayerList)) and not _own_params(layer):
            continue  # shown through its sublayers; an RNN (a LayerList) owns its weights
        handles.append(layer.register_forward_post_hook(record))
    try:
        args = _inputs(input, input_size, dtypes)
        was_training = net.training
        net.eval()
        from ..autograd import no_grad
        with no_grad():
            net(*args)
        if was_training:
            net.train()
    finally:
        for h in handles:
            h.remove()
    # Paddle sums the rows: parameters the network holds itself (beside sublayers) are in
    # no row, so not in the totals (ViT's cls_token / pos_embedding)
    totals = _count(net, skip=_own_params(net) if hidden_top else [])
    print(_table(list(rows.values()), _input_mb(input, input_size), totals))
    return totals


def _own_params(layer) -> list:
    return [p for p in layer._parameters.values() if p is not None]


def _count(net, skip=()) -> dict:
    """Totals from the network's (unique) parameters, not from the rows: a layer whose
    forward runs inside another's (RNN cells in a fused scan), that runs twice, or that
    shares weights is counted exactly once."""
    params = [p for p in net.parameters() if all(p is not q for q in skip)]
    # NumPy ints, as Paddle 3.3.1 returns them (they print as np.int64(...))
    return {"total_params": np.int64(sum(int(np.prod(p.shape)) for p in params)),
            "trainable_params": np.int64(sum(int(np.prod(p.shape)) for p in params
                                             if not p.stop_gradient))}


def _layer_index(layer, fallback: int) -> int:
    """Paddle numbers rows by the layer's full-name counter, 1-based (Linear-1, Conv2D-3)."""
    try:
        return int(layer.full_name().rsplit("_", 1)[-1]) + 1
    except ValueError:
        return fallback + 1


def _shapes(value):
    if isinstance(value, Tensor) or is_variable(value):
        return list(value.shape)
    if isinstance(value, (list, tuple)):
        out = [_shapes(v) for v in value]
        return out[0] if len(out) == 1 and isinstance(value, list) else out
    return []


def _inputs(input, input_size, dtypes) -> list:
    from .. import tensor as T
    if input is not None:   # Paddle calls net(input): a list or dict is one argument
        return [input]
    sizes = _size_list(input_size)
    if dtypes is None:
        dtypes = ["float32"] * len(sizes)
    elif isinstance(dtypes, str):
        dtypes = [dtypes] * len(sizes)
    if len(dtypes) != len(sizes):
        raise ValueError(f"summary: got {len(dtypes)} dtypes for {len(sizes)} inputs")
    return [T.rand([1 if d in (None, -1) else int(d) for d in size]).astype(dt)
            for size, dt in zip(sizes, dtypes)]


def _size_list(input_size) -> list:
    if hasattr(input_size, "shape") and not isinstance(input_size, Tensor):  # InputSpec
        return [list(input_size.shape)]
    if isinstance(input_size, (list, tuple)) and input_size and all(
            d is None or isinstance(d, (int, np.integer)) for d in input_size):
        return [list(input_size)]
    if isinstance(input_size, (list, tuple)):
        return [s for item in input_size for s in _size_list(item)]
    raise TypeError(f"summary: input_size must be a shape, an InputSpec or a list of them, "
                    f"got {input_size!r}")


def _input_mb(input, input_size) -> float:
    if input is not None:
        items = list(input.values()) if isinstance(input, dict) else \
            input if isinstance(input, (list, tuple)) else [input]
        return sum(int(np.prod(t.shape)) for t in items) * 4.0 / 1024 ** 2
    return sum(abs(int(np.prod([1 if d in (None, -1) else d for d in s])))
               for s in _size_list(input_size)) * 4.0 / 1024 ** 2


def _elements(shape) -> int:
    if shape and isinstance(shape[0], list):
        return sum(_elements(s) for s in shape)
    return int(np.prod(shape)) if shape else 0


def _table(rows: list, input_mb: float, totals: dict) -> str:
    cells = [(r["name"], str(r["input"]), str(r["output"]), f"{r['params']:,}") for r in rows]
    widths = [max([w] + [len(c[i]) for c in cells]) for i, w in enumerate(_MIN_WIDTHS)]
    widths[3] = max(widths[3], *(len(str(r["params"])) for r in rows)) if rows else widths[3]
    table = max(_MIN_TABLE, sum(widths) + 5)
    head = ("Layer (type)", "Input Shape", "Output Shape", "Param #")
    lines = ["-" * table, " ".join(f"{h:^{w}}" for h, w in zip(head, widths)), "=" * table]
    lines += [" ".join(f"{c:^{w}}" for c, w in zip(cell, widths)) for cell in cells]
    total, trainable = totals["total_params"], totals["trainable_params"]
    outputs_mb = 2.0 * sum(_elements(r["output"]) for r in rows) * 4.0 / 1024 ** 2
    params_mb = total * 4.0 / 1024 ** 2
    lines += ["=" * table, f"Total params: {total:,}", f"Trainable params: {trainable:,}",
              f"Non-trainable params: {total - trainable:,}", "-" * table,
              f"Input size (MB): {input_mb:.2f}",
              f"Forward/backward pass size (MB): {outputs_mb:.2f}",
              f"Params size (MB): {params_mb:.2f}",
              f"Estimated Total Size (MB): {input_mb + outputs_mb + params_mb:.2f}",
              "-" * table, ""]
    return "\n".join(lines)
