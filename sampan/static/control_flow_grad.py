"""The block builder the static backward hands to the vjp of a sub-block op (`ctx.blocks`; the
protocol and the cond / while_loop gradient rules are in sampan/ops/control_flow.py): new
closed sub-blocks into which a branch/body is *replayed* (its ops copied with fresh names)
and where the ordinary static backward appends its vjp ops.

Imports `ops` and `static` (the backward function is passed in, not imported).
"""
from __future__ import annotations

import copy

from ..ops.dispatch import call
from .builder import build_into
from .control_flow_block import _append_cond, _append_while, _Sub


class StaticBlocks:
    """`ctx.blocks` in the static backward: builds gradient sub-blocks into `program`.
    `backward(block, targets, seeds, wrt, no_grad) -> grads` is the static backward."""

    def __init__(self, program, backward) -> None:
        self.program = program
        self.backward = backward

    def new(self) -> "GradSub":
        """A new closed sub-block under the block being built."""
        return GradSub(self.program, self.program.current_block().idx, self.backward)

    def append_cond(self, pred, true_sub, false_sub, api: str = "cond") -> list:
        return _append_cond(pred, true_sub, false_sub, api)

    def append_while(self, inits, cond_sub, body_sub, shapes, save_states: bool,
                     is_test: bool) -> tuple:
        return _append_while(inits, cond_sub, body_sub, shapes, save_states, is_test)


class GradSub(_Sub):
    """A sub-block for gradients: `_Sub` plus replay, backward and pruning."""

    def __init__(self, program, parent_idx: int, backward) -> None:
        super().__init__(program, parent_idx)
        self._backward = backward

    def var(self, name: str):
        return self.block.vars[name]

    def replay(self, block_idx: int, rename: dict) -> None:
        """Copy block `block_idx`'s ops into this block; `rename` maps its names to ours
        (filled in with fresh names for every op output)."""
        src = self.program.block(block_idx)
        for op in src.ops:
            ins = {slot: [rename[n] for n in names] for slot, names in op.inputs.items()}
            outs = {}
            for key, names in op.outputs.items():
                new = []
                for n in names:
                    nv = self._local(src.vars[n], n.split("@b")[0] + "@r")
                    rename[n] = nv.name
                    new.append(nv.name)
                outs[key] = new
            self.block.append_op(op.type, ins, outs, copy.deepcopy(op.attrs))

    def gradients(self, targets, seeds, wrt) -> list:
        """The gradients of sum(targets * seeds) w.r.t. `wrt`, appended to this block (zeros
        where no path)."""
        with build_into(self.block):
            grads = (self._backward(self.block, targets, seeds, wrt, set()) if targets
                     else [None] * len(wrt))
            return [g if g is not None else call("full_like", v, fill_value=0.0, dtype=None)
                    for g, v in zip(grads, wrt)]

    def finish(self, outputs, api: str) -> None:
        """Hand back `outputs`, close over outer values, drop the ops they do not use."""
        self.set_outputs(outputs, api)
        self.close(api)
        self._prune()

    def _prune(self) -> None:
        needed = set(self.outputs)
        live = []
        for op in reversed(self.block.ops):
            if any(n in needed for n in op.output_arg_names):
                live.append(op)
                needed.update(op.input_arg_names)
        live.reverse()
        kept = {id(op) for op in live}
        dead = {n for op in self.block.ops if id(op) not in kept for n in op.output_arg_names}
        self.block.ops = live
        for n in dead:
            self.block.vars.pop(n, None)
        self.program._bump()
