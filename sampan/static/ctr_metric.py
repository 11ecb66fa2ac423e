"""paddle.static.ctr_metric_bundle: running sums of the CTR metrics (squared and absolute
error, predicted CTR, q value, positives, instances) in persistable variables a static
Program accumulates over runs. Imports `framework`, `ops` and `static`.
"""
from __future__ import annotations

from ..framework.tensor import is_variable
from ..ops.dispatch import call
from ..ops.opdef import REGISTRY
from ..utils import unique_name
from .builder import append_op, build_into
from .program import default_startup_program

__all__ = ["ctr_metric_bundle"]


def _accumulator(program, shape: list):
    """A persistable float32 variable of `program`, zeroed by the startup program."""
    name = unique_name.generate("_generated_var")
    var = program.global_block().create_var(name, shape, "float32", persistable=True,
                                            stop_gradient=True)
    with build_into(default_startup_program().global_block()):
        append_op(REGISTRY["full"], (), {"shape": shape, "fill_value": 0.0,
                                         "dtype": "float32"},
                  out_names=[name]).persistable = True
    return var


def _add_into(acc, batch) -> None:
    """acc += batch, written back into the persistable variable `acc`."""
    block = acc.block
    total = acc + call("reshape", batch, shape=list(acc.shape))
    out = append_op(REGISTRY["assign"], (total,), {}, block=block)
    del block.vars[out.name]
    block.ops[-1].outputs["out"] = [acc.name]
    block.program._bump()


def ctr_metric_bundle(input, label, ins_tag_weight=None):
    """CTR metrics summed over every run of the program (static graph only).

    With N the instance count: MAE = local_abserr / N, RMSE = sqrt(local_sqrerr / N),
    predicted CTR = local_prob / N, q = local_q / N. In a distributed job all-reduce the
    sums and N first. As in Paddle, q sums sigmoid(input), and ins_tag_weight (its first
    row: 1 real data, 0 fake) scales only the q and instance sums.

    Args:
        input (Variable): [N, 1] float32 predicted probabilities.
        label (Variable): [N, 1] labels (0 or 1), same shape as input.
        ins_tag_weight (Variable, optional): [N, 1] float; default a constant 1.

    Returns:
        tuple: (local_sqrerr [1], local_abserr [1], local_prob [1], local_q [1, 1],
        local_pos_num [1], local_ins_num [1, 1]), persistable float32 variables.

    Examples:
        >>> import numpy as np
        >>> import sampan as paddle
        >>> paddle.enable_static()
        >>> main, startup = paddle.static.Program(), paddle.static.Program()
        >>> with paddle.static.program_guard(main, startup):
        ...     p = paddle.static.data("p", [None, 1], "float32")
        ...     y = paddle.static.data("y", [None, 1], "float32")
        ...     sums = paddle.static.ctr_metric_bundle(p, y)
        >>> exe = paddle.static.Executor()
        >>> _ = exe.run(startup)
        >>> feed = {"p": np.array([[0.2], [0.9]], "float32"),
        ...         "y": np.array([[0.0], [1.0]], "float32")}
        >>> [round(float(v.sum()), 4) for v in exe.run(main, feed=feed, fetch_list=sums)]
        [0.05, 0.3, 1.1, 1.2608, 1.0, 2.0]
        >>> paddle.disable_static()
    """
    api = "paddle.static.ctr_metric_bundle"
    for arg, v in (("input", input), ("label", label), ("ins_tag_weight", ins_tag_weight)):
        if v is not None and not is_variable(v):
            raise TypeError(f"{api}: {arg} must be a static Variable (the metric is static "
                            f"graph only), got {type(v).__name__}")
    if list(input.shape) != list(label.shape) or len(input.shape) != 2 \
            or input.shape[1] != 1:
        raise ValueError(f"{api}: input and label must both have shape [N, 1], got "
                         f"{list(input.shape)} and {list(label.shape)}")
    program = input.block.program
    lab = call("cast", label, dtype=input.dtype.name)
    if ins_tag_weight is None:
        weight = call("full", shape=[1, 1], fill_value=1.0, dtype="float32")
    else:
        weight = call("cast", ins_tag_weight[0:1], dtype="float32")
    diff = input - lab
    batches = [(call("sum", diff * diff), [1]),
               (call("sum", call("abs", diff)), [1]),
               (call("sum", input, axis=[0]), [1]),
               (call("sum", call("sigmoid", input), axis=[0]) * weight, [1, 1]),
               (call("sum", lab, axis=[0]), [1]),
               (call("sum", call("full_like", lab, fill_value=1.0), axis=[0]) * weight, [1, 1])]
    sums = []
    for batch, shape in batches:
        acc = _accumulator(program, shape)
        _add_into(acc, call("cast", batch, dtype="float32"))
        sums.append(acc)
    return tuple(sums)
