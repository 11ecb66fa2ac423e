"""In-place / buffer reuse: mark elementwise ops whose result may be written into the
buffer of an input that dies at that op (attr `inplace` = the input's index).

The mark is a promise checked twice: here (the input is a temporary made by an op that
returns fresh memory, every reader of it returns fresh memory, and this op is its last
reader) and by the Executor at plan time (the input is not fetched, fed or persistable,
and its lifetime ends at this step; otherwise the mark is ignored). Single ufunc ops are
wrapped into a one-node `fused_elementwise` so that their kernel can honour the mark.
"""
from __future__ import annotations

from ...ops.fused import _UFUNCS, ELEMENTWISE
from ..program import Program
from . import register_pass
from ._graph import consumers, is_opaque, protected
from .fuse_elementwise import eligible, fused_op

# ops whose output never aliases an input buffer (fresh arrays)
FRESH = ELEMENTWISE | frozenset({
    "fused_elementwise", "fused_linear", "matmul", "linear", "conv2d", "conv1d", "conv3d",
    "sum", "mean", "logsumexp", "softmax", "log_softmax", "add_n", "max", "min", "prod"})


@register_pass("inplace")
def inplace(program: Program, keep=()) -> Program:
    """Return a copy of `program` whose eligible elementwise ops may reuse a dead input.

    Args:
        keep: variable names (or Variables) read after the run (fetch targets).
    """
    new = program.clone()
    block = new.global_block()
    ops = block.ops
    cons = consumers(new)
    prot = protected(new, keep)
    prod = {}
    for op in ops:
        for n in op.output_arg_names:
            prod[n] = op
    pos = {id(op): k for k, op in enumerate(ops)}
    for k, op in enumerate(ops):
        if op.type == "fused_elementwise":
            target = op
        elif (op.type in _UFUNCS or op.type == "relu") and eligible(block, op):
            target = fused_op(block, [op])
        else:
            continue
        out = block.var(target.output_arg_names[0])
        if out.dtype.kind != "f":
            continue
        for i, n in enumerate(target.inputs["xs"]):
            v = block.var(n)
            p = prod.get(n)
            readers = cons.get(n, ())
            if (n in prot or p is None or p.type not in FRESH or is_opaque(p)
                    or v.dtype is not out.dtype or v._shape != out._shape
                    or any(r.block is not block for r in readers)
                    or max(pos[id(r)] for r in readers) != k
                    or any(r.type not in FRESH for r in readers)):
                continue
            target.attrs["inplace"] = i
            ops[k] = target
            break
    new._bump()
    return new
