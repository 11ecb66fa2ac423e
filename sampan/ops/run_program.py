"""`run_program`: run a static Program from eager mode as one op (to_static, TranslatedLayer).

The op does not know Programs: its `program` attr is a runner object that sampan.jit builds
(ops never import static or jit), with this protocol:

    runner.forward(x: [arrays], params: [arrays], saved) -> tuple of output arrays
    runner.backward(ctx, grads) -> ([grad or None per x], [grad or None per param])

`saved` is a fresh per-call record (attr `saved`) that the forward fills with the values the
backward Program reads, so they live exactly as long as the tape node that holds the attrs.
`backward` is written in sampan ops: it runs the backward Program through another
`run_program` call, so loss.backward(), paddle.grad and every optimizer work unchanged.
Imports only `ops.opdef`.
"""
from __future__ import annotations

from .opdef import OpDef, TensorSpec, register


class Saved:
    """Per-call state of one run_program call: whether the forward keeps the values its
    backward needs (`train`), which inputs need grads (`mask`), those values, and the
    outputs' run-time (shape, dtype) (`out_meta`, for zero gradients of unused outputs)."""

    __slots__ = ("train", "mask", "values", "out_meta")

    def __init__(self, train: bool = False, mask: tuple = ()) -> None:
        self.train = train
        self.mask = mask
        self.values = None
        self.out_meta = None


@register
class RunProgram(OpDef):
    """outs = the runner's Program applied to x (inputs, in order) and params (the bound
    Parameters it reads); buffers it writes (BatchNorm statistics) are updated in place.
    The gradient runs the runner's backward Program on the saved forward values."""
    name = "run_program"
    inputs = ("*x", "*params")
    outputs = ("*out",)
    attrs = {"program": None, "saved": None, "out_shapes": [], "out_dtypes": []}
    saves = ("x", "params")
    none_grads = True
    side_effects = True

    def infer(self, x, params, **attrs):
        attrs = {**self.attrs, **attrs}
        return tuple(TensorSpec(s, d) for s, d in zip(attrs["out_shapes"],
                                                       attrs["out_dtypes"]))

    def compute(self, xp, x, params, program=None, saved=None, **attrs):
        if program is None:
            raise RuntimeError("run_program: no program runner given (this op is created by "
                               "paddle.jit.to_static and paddle.jit.load, not built by hand)")
        return tuple(program.forward(x, params, saved))

    def vjp(self, ctx, *grads):
        return ctx.program.backward(ctx, grads)
