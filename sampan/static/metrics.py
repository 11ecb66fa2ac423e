"""static.accuracy and static.auc (they also run eagerly, as in Paddle); `top_k_accuracy`
is also paddle.metric.accuracy's computation.

Imports `framework`, `ops` and `static`.
"""
from __future__ import annotations

from ..framework.tensor import Tensor, is_variable
from ..ops.metric_ops import auc_stat_shape
from ..ops.dispatch import call
from ..ops.opdef import REGISTRY
from ..utils import unique_name
from .builder import append_op, build_into
from .program import default_startup_program


def _is_var(x) -> bool:
    return is_variable(x)


def _check(api: str, arg: str, x) -> None:
    if not (_is_var(x) or isinstance(x, Tensor)):
        raise TypeError(f"{api}: {arg} must be a Tensor or Variable, got {type(x).__name__}")


def accuracy(input, label, k: int = 1, correct=None, total=None):
    """Top-k accuracy: the fraction of rows whose label is among the k largest scores
    (`paddle.static.accuracy`; it also runs eagerly, as in Paddle).

    Args:
        input (Tensor): [N, C] scores.
        label (Tensor): [N, 1] (or [N]) int64 class indices.
        k (int): how many of the top scores count. Default 1.
        correct, total (Tensor, optional): written with the number of correct rows and N.

    Returns:
        Tensor: 0-D float32 accuracy.

    Examples:
        >>> import numpy as np
        >>> import sampan as paddle
        >>> paddle.enable_static()
        >>> main = paddle.static.Program()
        >>> with paddle.static.program_guard(main):
        ...     x = paddle.static.data("x", [None, 3], "float32")
        ...     y = paddle.static.data("y", [None, 1], "int64")
        ...     acc = paddle.static.accuracy(x, y, k=1)
        >>> scores = np.array([[0.1, 0.8, 0.1], [0.6, 0.3, 0.1]], "float32")
        >>> paddle.static.Executor().run(main, feed={"x": scores, "y": np.array([[1], [2]])},
        ...                              fetch_list=[acc])
        [array(0.5, dtype=float32)]
        >>> paddle.disable_static()
    """
    return top_k_accuracy("paddle.static.accuracy", input, label, k, correct, total)


def top_k_accuracy(api: str, input, label, k: int, correct=None, total=None):
    """The one accuracy computation behind paddle.static.accuracy and
    paddle.metric.accuracy, in ops (eager Tensors or static Variables alike)."""
    _check(api, "input", input)
    _check(api, "label", label)
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(f"{api}: k must be a positive int, got {k!r}")
    if len(input.shape) != 2:
        raise ValueError(f"{api}: input must be 2-D [N, C], got shape {list(input.shape)}")
    if label.dtype.kind not in "iu":
        raise TypeError(f"{api}: label must be an integer tensor, got {label.dtype.name}")
    _, idx = call("topk", input, k=k, axis=-1, largest=True, sorted=False)
    lab = call("reshape", label, shape=[-1, 1])
    hit = call("any", call("equal", idx, call("cast", lab, dtype=idx.dtype.name)), axis=[1],
               keepdim=False)
    n_correct = call("sum", call("cast", hit, dtype="float32"), axis=None, keepdim=False,
                     dtype=None)
    n_total = call("cast", call("numel", lab), dtype="float32")
    acc = n_correct / call("maximum", n_total, call("full", shape=[], fill_value=1.0,
                                                     dtype="float32"))
    for dst, val in ((correct, n_correct), (total, n_total)):
        if dst is not None:
            _write(dst, val)
    return acc


def _write(dst, val) -> None:
    """Store `val` into the given correct/total tensor or variable."""
    val = call("cast", call("reshape", val, shape=list(dst.shape)), dtype=dst.dtype.name)
    if _is_var(dst):
        block = dst.block
        tmp = append_op(REGISTRY["assign"], (val,), {}, block=block)
        del block.vars[tmp.name]
        block.ops[-1].outputs["out"] = [dst.name]
        block.program._bump()
        return
    dst.set_value(val)


def _stat_var(program, shape: list):
    """A persistable int64 buffer of `program`, zeroed by the startup program."""
    name = unique_name.generate("_generated_var")
    var = program.global_block().create_var(
        name, shape, "int64", persistable=True, stop_gradient=True)
    with build_into(default_startup_program().global_block()):
        append_op(REGISTRY["full"], (), {"shape": shape, "fill_value": 0, "dtype": "int64"},
                  out_names=[name]).persistable = True
    return var


def auc(input, label, curve: str = "ROC", num_thresholds: int = 4095, topk: int = 1,
        slide_steps: int = 1, ins_tag_weight=None):
    """Area under the ROC curve, accumulated over runs (static) or of one batch (eager).

    Args:
        input (Tensor): [N, 2] (or [N, C]) probabilities; the last column is the positive
            class.
        label (Tensor): [N, 1] int labels (non-zero = positive).
        curve (str): 'ROC' (Paddle also accepts 'PR' and computes the ROC area).
        num_thresholds (int): buckets - 1. Default 4095.
        topk (int): unused, as in Paddle.
        slide_steps (int): the batch AUC covers the last slide_steps batches.
        ins_tag_weight: unused (Paddle's tag weights must be 1).

    Returns:
        (auc, batch_auc, [batch_stat_pos, batch_stat_neg, stat_pos, stat_neg]): the AUC of
        everything seen, of the sliding window, and the persistable int64 stat buffers.
    """
    api = "paddle.static.auc"
    _check(api, "input", input)
    _check(api, "label", label)
    for arg, v, lo in (("num_thresholds", num_thresholds, 1), ("slide_steps", slide_steps, 0)):
        if isinstance(v, bool) or not isinstance(v, int) or v < lo:
            raise ValueError(f"{api}: {arg} must be an int >= {lo}, got {v!r}")
    if curve not in ("ROC", "PR"):
        raise ValueError(f"{api}: curve must be 'ROC' or 'PR', got {curve!r}")
    batch_shape = auc_stat_shape(num_thresholds, slide_steps)
    glob_shape = auc_stat_shape(num_thresholds, 0)
    attrs = {"curve": curve, "num_thresholds": num_thresholds}
    if not _is_var(input):  # eager: fresh buffers, the AUC of this batch
        stats = [call("full", shape=s, fill_value=0, dtype="int64") for s in
                 (batch_shape, batch_shape, glob_shape, glob_shape)]
        b_auc, bp, bn = call("auc", input, label, stats[0], stats[1], slide_steps=slide_steps,
                             **attrs)
        g_auc, gp, gn = call("auc", input, label, stats[2], stats[3], slide_steps=0, **attrs)
        return g_auc, b_auc, [bp, bn, gp, gn]
    program = input.block.program
    stats = [_stat_var(program, s) for s in (batch_shape, batch_shape, glob_shape, glob_shape)]
    block = program.current_block()
    outs = []
    for pos, neg, slide in ((stats[0], stats[1], slide_steps), (stats[2], stats[3], 0)):
        res = call("auc", input, label, pos, neg, slide_steps=slide, **attrs)
        op = block.ops[-1]
        for slot, target, tmp in (("stat_pos_out", pos, res[1]), ("stat_neg_out", neg, res[2])):
            op.outputs[slot] = [target.name]
            del block.vars[tmp.name]
        outs.append(res[0])
    block.program._bump()
    return outs[1], outs[0], stats
