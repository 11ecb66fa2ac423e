"""The tape record: one GradNode per recorded op call. Created by dispatch, run by autograd.

Holds references only (op, attrs, input edges, saved values); it imports no op and runs
nothing. The backward engine in `sampan.autograd` walks these nodes.
"""
from __future__ import annotations


class GradNode:
    """One recorded call of an OpDef in eager mode.

    edges: per flattened input, None (no grad needed), a (node, out_idx) pair, or the leaf
    Tensor that accumulates the gradient.
    in_meta: per flattened input, (shape, numpy dtype) used to reduce broadcast grads.
    saved: {name: value} for the inputs `op.saves` names (Tensors, kept with their version).
    saved_out: [(name, array, weakref-to-tensor, version)] for outputs the vjp reads.
    """

    __slots__ = ("op", "attrs", "edges", "in_meta", "saved", "versions", "saved_out",
                 "out_meta", "hooks", "freed", "__weakref__")

    def __init__(self, op, attrs, edges, in_meta, saved, versions, saved_out, out_meta):
        self.op = op
        self.attrs = attrs
        self.edges = edges
        self.in_meta = in_meta
        self.saved = saved
        self.versions = versions
        self.saved_out = saved_out
        self.out_meta = out_meta
        self.hooks = None
        self.freed = False

    def add_hooks(self, out_idx: int, hooks: list) -> None:
        if self.hooks is None:
            self.hooks = {}
        self.hooks[out_idx] = hooks

    def name(self) -> str:
        return self.op.name

    def __repr__(self) -> str:
        return f"<GradNode {self.op.name}>"
