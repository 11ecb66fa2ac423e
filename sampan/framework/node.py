"""The tape record: one GradNode per recorded op call. Created by dispatch, run by autograd.

Holds references only (op, attrs, input edges, saved values); it imports no op and runs
nothing. The backward engine in `sampan.autograd` walks these nodes.
"""
from __future__ import annotations


class GradNode:
    """One recorded call of an OpDef in eager mode.

    edges: per flattened input, None (no grad needed), a (node, out_idx) pair, or the leaf
    Tensor that accumulates the gradient.
    out_meta: per output, (shape, numpy dtype): zero-filling, and an input's shape for
    reducing broadcast grads (a leaf's shape is read from the leaf).
    saved: {name: value} for the inputs `op.saves` names (Tensors, kept with their version).
    saved_out: [(name, array, weakref-to-tensor, version)] for outputs the vjp reads.
    """

    __slots__ = ("op", "attrs", "edges", "saved", "versions", "saved_out", "out_meta",
                 "hooks", "freed", "__weakref__")

    def __init__(self, op, attrs, edges) -> None:
        self.op = op
        self.attrs = attrs
        self.edges = edges
        self.saved = None
        self.versions = None
        self.saved_out = None
        self.out_meta = None
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


class Packed:
    """A saved value replaced by `pack_hook(tensor)` under saved_tensors_hooks; backward
    gets the tensor back from `unpack_hook(packed)`."""

    __slots__ = ("value", "unpack")

    def __init__(self, value, unpack) -> None:
        self.value = value
        self.unpack = unpack

    def get(self):
        return self.unpack(self.value)


def pack_saved(node: GradNode, hooks: tuple, wrap) -> None:
    """Pass every value `node` saved for its vjp through the active pack hook."""
    pack, unpack = hooks

    def one(value):
        if isinstance(value, list):
            return [one(v) for v in value]
        return value if value is None else Packed(pack(value), unpack)

    if node.saved:
        node.saved = {name: one(value) for name, value in node.saved.items()}
    if node.saved_out:
        node.saved_out = [(name, Packed(pack(wrap(arr)), unpack), ref, version)
                          for name, arr, ref, version in node.saved_out]
