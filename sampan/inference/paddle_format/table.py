"""The one table from Paddle op type (legacy spelling; PIR ops are renamed onto it by
`pir_json.PIR_OPS`) to its translator, plus PIR's builtin and constant ops.
Imports its package's modules.
"""
from __future__ import annotations

import numpy as np

from . import ops_nn, ops_tensor
from .ops_tensor import dtype_of


def _combine(c, op):
    return {"Out": [c.value(n) for n in op.inputs["X"]]}


def _split(c, op):
    items = c.value(op.inputs["X"][0])
    return {"Out": list(items)}


def _full(c, op):
    a = op.attrs
    return {"Out": np.full([int(d) for d in a.get("shape", [])], a.get("value", 0.0),
                           np.dtype(dtype_of(a.get("dtype", "float32"))))}


def _full_int_array(c, op):
    a = op.attrs
    return {"Out": np.asarray(a.get("value", []), np.dtype(dtype_of(a.get("dtype", "int64"))))}


TABLE = {**ops_tensor.TABLE, **ops_nn.TABLE,
         "builtin.combine": _combine, "builtin.split": _split,
         "pir.full": _full, "pir.full_int_array": _full_int_array}
