"""Paddle-style tensor printing (`Tensor(shape=[2], dtype=float32, place=..., ...)`).

Follows Paddle's own formatter, not NumPy's: floats print with fixed `precision` digits
unless every shown value is integral (`[1.50000000, 2.25000000]`, `[3., 4.]`), scientific
notation only under `sci_mode`, one column width for all elements (taken from the edge
items), and `...` summaries above `threshold` elements. Imports only numpy and `framework`.
"""
from __future__ import annotations

import numpy as np

_OPTIONS = {"precision": 8, "threshold": 1000, "edgeitems": 3, "linewidth": 80,
            "sci_mode": False}


def set_printoptions(precision: int | None = None, threshold: int | None = None,
                     edgeitems: int | None = None, sci_mode: bool | None = None,
                     linewidth: int | None = None) -> None:
    """Set the printing options for Tensor.

    Args:
        precision (int|None, optional): Digits after the decimal point of floats. Default 8.
        threshold (int|None, optional): Tensors with more elements than this are summarised
            with ``...``. Default 1000.
        edgeitems (int|None, optional): Items kept at the start and end of each summarised
            dimension. Default 3.
        sci_mode (bool|None, optional): Print floats in scientific notation. Default False.
        linewidth (int|None, optional): Characters per line. Default 80.

    Returns:
        None.

    Examples:
        .. code-block:: python

            >>> import sampan as paddle
            >>> paddle.set_printoptions(precision=4, threshold=5, edgeitems=2)
            >>> print(paddle.arange(10).astype('float32') / 3)
            Tensor(shape=[10], dtype=float32, place=Place(cpu), stop_gradient=True,
                   [0.    , 0.3333, ..., 2.6667, 3.    ])
            >>> paddle.set_printoptions(precision=8, threshold=1000, edgeitems=3)
    """
    new = {"precision": precision, "threshold": threshold, "edgeitems": edgeitems,
           "linewidth": linewidth, "sci_mode": sci_mode}
    for key, value in new.items():
        if value is None:
            continue
        want = bool if key == "sci_mode" else int
        if type(value) is not want and not (want is int and isinstance(value, np.integer)):
            raise TypeError(f"paddle.set_printoptions: '{key}' must be {want.__name__}, "
                            f"got {value!r} of type {type(value).__name__}")
        if want is int and value < 0:
            raise ValueError(f"paddle.set_printoptions: '{key}' must be >= 0, got {value}")
    for key, value in new.items():
        if value is not None:
            _OPTIONS[key] = value if key == "sci_mode" else int(value)


def _real_text(v, precision: int, sci: bool) -> str:
    if sci:
        return f"{v:.{precision}e}"
    if np.ceil(v) == v:  # integral (and +-inf): no fractional digits, keep the point
        return f"{v:.0f}."
    return f"{v:.{precision}f}"


def _item_text(v) -> str:
    """One element as Paddle writes it, before padding."""
    kind = v.dtype.kind
    precision, sci = _OPTIONS["precision"], _OPTIONS["sci_mode"]
    if kind == "f":
        return _real_text(v, precision, sci)
    if kind == "c":
        style = "e" if sci else "f"
        re, im = f"{v.real:.{precision}{style}}", f"{v.imag:.{precision}{style}}"
        return f"({re}{'+' if v.imag >= 0 else ''}{im}j)"
    return str(v)


def _padded(v, width: int, signed: bool) -> str:
    text = _item_text(v)
    if width <= len(text):
        return text
    if signed and not v < 0:  # reserve the sign column for non-negative values
        return " " + text.ljust(width - 1)
    return text.ljust(width)


def _edges(data: np.ndarray, edge: int) -> np.ndarray:
    """The elements a summary would show: the first and last `edge` along every axis."""
    for axis, size in enumerate(data.shape):
        if size > 2 * edge:
            keep = list(range(edge)) + list(range(size - edge, size))
            data = np.take(data, keep, axis=axis)
    return data


def _column(data: np.ndarray) -> tuple[int, bool]:
    """Column width and whether any shown value is negative (Paddle measures edges only)."""
    width, signed = 0, False
    for v in _edges(data, _OPTIONS["edgeitems"]).reshape(-1):
        signed = signed or bool(v < 0)
        width = max(width, len(_item_text(v)))
    return width, signed


def _rows(n: int, summary: bool) -> list:
    edge = _OPTIONS["edgeitems"]
    if summary and n > 2 * edge:
        return list(range(edge)) + [None] + list(range(n - edge, n))
    return list(range(n))


def _format(data: np.ndarray, summary: bool, indent: int, width: int, signed: bool) -> str:
    if data.ndim == 0:
        return _padded(data[()], width, signed)
    picks = _rows(data.shape[0], summary)
    if data.ndim == 1:
        items = ["..." if i is None else _padded(data[i], width, signed) for i in picks]
        per_line = max(1, (_OPTIONS["linewidth"] - indent) // (width + 2))
        lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    parts = ["..." if i is None else _format(data[i], summary, indent + 1, width, signed)
             for i in picks]
    sep = "," + "\n" * (data.ndim - 1) + " " * (indent + 1)
    return "[" + sep.join(parts) + "]"


def format_data(data: np.ndarray, indent: int) -> str:
    """The bracketed values of an array as Paddle prints them after `indent` spaces."""
    if data.dtype.kind == "V" or data.dtype.name == "bfloat16":
        data = data.astype(np.float32)
    summary = data.ndim > 0 and data.size > _OPTIONS["threshold"]
    width, signed = _column(data)
    return _format(data, summary, indent, width, signed)


def tensor_repr(t, prefix: str = "Tensor") -> str:
    """`Tensor(shape=..., dtype=..., place=..., stop_gradient=...,` + the values."""
    data = t.numpy()  # host values (a device tensor is copied)
    indent = len(prefix) + 1
    head = (f"{prefix}(shape={list(data.shape)}, dtype={t.dtype.name}, place={t.place}, "
            f"stop_gradient={t.stop_gradient},")
    dist = getattr(t, "_dist_attr", None)   # distributed.shard_tensor's record
    fields = dist.print_fields() if dist is not None else None
    if fields is not None and list(dist.global_shape) == list(data.shape):
        head = f"{head} {fields}"
    return f"{head}\n{' ' * indent}{format_data(data, indent)})"
