"""Paddle 3.x's fixed-mode pad layers: ConstantPad1D/2D/3D, ReflectionPad*, ReplicationPad*
and CircularPad* (paddle.nn also binds their PyTorch `*d` spellings to the same classes).

Each is Pad1D/2D/3D with the mode fixed. Imports `nn.layer.vision`.
"""
from __future__ import annotations

from .vision import Pad1D, Pad2D, Pad3D

__all__ = [f"{kind}Pad{nd}D" for kind in ("Constant", "Reflection", "Replication", "Circular")
           for nd in (1, 2, 3)]

_BASES = {1: (Pad1D, "NCL"), 2: (Pad2D, "NCHW"), 3: (Pad3D, "NCDHW")}


def _constant(nd: int) -> type:
    base, fmt = _BASES[nd]

    def __init__(self, padding, value: float, data_format: str = fmt, name=None) -> None:
        base.__init__(self, padding, "constant", value, data_format, name)

    doc = (f"Pad the {nd} spatial dim(s) of a {nd + 2}-D input with the constant `value`.\n\n"
           f"    Args:\n        padding (int|list|Tensor): an int (every side) or {2 * nd} "
           f"sizes [left, right{', top, bottom' if nd > 1 else ''}"
           f"{', front, back' if nd > 2 else ''}].\n        value (float): the fill "
           f"(required).\n        data_format (str): default {fmt!r}.\n")
    return type(f"ConstantPad{nd}D", (base,), {"__init__": __init__, "__doc__": doc,
                                              "__module__": __name__})


def _fixed(kind: str, mode: str, nd: int) -> type:
    base, fmt = _BASES[nd]

    def __init__(self, padding, data_format: str = fmt, name=None) -> None:
        base.__init__(self, padding, mode, 0.0, data_format, name)

    doc = (f"Pad the {nd} spatial dim(s) of a {nd + 2}-D input in {mode!r} mode.\n\n"
           f"    Args:\n        padding (int|list|Tensor): an int (every side) or {2 * nd} "
           f"sizes.\n        data_format (str): default {fmt!r}.\n")
    return type(f"{kind}Pad{nd}D", (base,), {"__init__": __init__, "__doc__": doc,
                                            "__module__": __name__})


ConstantPad1D, ConstantPad2D, ConstantPad3D = (_constant(nd) for nd in (1, 2, 3))
ReflectionPad1D, ReflectionPad2D, ReflectionPad3D = (
    _fixed("Reflection", "reflect", nd) for nd in (1, 2, 3))
ReplicationPad1D, ReplicationPad2D, ReplicationPad3D = (
    _fixed("Replication", "replicate", nd) for nd in (1, 2, 3))
CircularPad1D, CircularPad2D, CircularPad3D = (
    _fixed("Circular", "circular", nd) for nd in (1, 2, 3))
