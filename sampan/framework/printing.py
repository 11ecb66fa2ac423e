"""Paddle-style tensor printing (`Tensor(shape=[2], dtype=float32, place=..., ...)`).

Imports only numpy and `framework` modules.
"""
from __future__ import annotations

import numpy as np

_OPTIONS = {"precision": 8, "threshold": 1000, "edgeitems": 3, "linewidth": 80,
            "sci_mode": False}


def set_printoptions(precision=None, threshold=None, edgeitems=None, sci_mode=None,
                     linewidth=None) -> None:
    """Set how tensors print (paddle.set_printoptions)."""
    for key, value in (("precision", precision), ("threshold", threshold),
                       ("edgeitems", edgeitems), ("sci_mode", sci_mode),
                       ("linewidth", linewidth)):
        if value is not None:
            _OPTIONS[key] = value


def _body(data: np.ndarray, indent: str) -> str:
    if data.dtype.name == "bfloat16":
        data = data.astype(np.float32)
    kwargs = dict(precision=_OPTIONS["precision"], threshold=_OPTIONS["threshold"],
                  edgeitems=_OPTIONS["edgeitems"], max_line_width=_OPTIONS["linewidth"],
                  separator=", ", prefix=indent)
    if _OPTIONS["sci_mode"] and data.dtype.kind == "f":
        kwargs["floatmode"] = "maxprec"
        kwargs["formatter"] = {"float_kind": lambda v: f"{v:.{_OPTIONS['precision']}e}"}
    if data.dtype == np.bool_:  # Paddle left-justifies bools: [True , False]
        width = 5 if data.size and not data.all() else 4
        kwargs["formatter"] = {"bool": lambda v: str(bool(v)).ljust(width)}
    text = np.array2string(data, **kwargs)
    return text


def tensor_repr(t) -> str:
    data = t._data
    head = (f"Tensor(shape={list(data.shape)}, dtype={t.dtype.name}, place={t.place}, "
            f"stop_gradient={t.stop_gradient},")
    indent = " " * 7
    return f"{head}\n{indent}{_body(data, indent)})"
