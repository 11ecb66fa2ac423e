"""Loss functions (paddle.nn.functional.*_loss, cross_entropy & co).

Softmax cross entropy and CTC call their OpDefs (sampan/ops/nn_loss.py); every other loss is
a composite of public tensor ops, so it gets gradients and static mode for free. This module
holds the shared argument checks, the cross-entropy family and hsigmoid; the regression and
binary losses are in loss_pointwise.py, the margin/embedding losses in loss_margin.py.
"""
from __future__ import annotations

import numpy as np

from ... import tensor as T
from ...framework.tensor import Tensor, is_variable
from ...ops.dispatch import call

__all__ = ["cross_entropy", "softmax_with_cross_entropy", "nll_loss", "hsigmoid_loss"]

_REDUCTIONS = ("mean", "sum", "none")
# Paddle's kernels clamp an infinite -log(p) to this value ("TolerableValue").
_APPROX_INF = 1e20


def _check_reduction(api: str, reduction, extra: tuple = ()) -> None:
    if reduction not in _REDUCTIONS + extra:
        allowed = ", ".join(repr(r) for r in _REDUCTIONS + extra)
        raise ValueError(f"{api}: reduction must be one of {allowed}, got {reduction!r}")


def _reduce(loss: Tensor, reduction: str) -> Tensor:
    if reduction == "mean":
        return T.mean(loss)
    if reduction == "sum":
        return T.sum(loss)
    return loss


def _check_float(api: str, x, arg: str) -> None:
    dtype = getattr(x, "dtype", None)
    if not hasattr(dtype, "kind"):
        raise TypeError(f"{api}: {arg} must be a Tensor, got {type(x).__name__}")
    if dtype.kind != "f":
        raise LossDtypeError(f"{api}: {arg} must be a float16, float32 or float64 tensor, got "
                             f"{x.dtype.name}")


class LossDtypeError(TypeError, ValueError):
    """A loss input of a non-float dtype (Paddle raises ValueError in some losses, e.g.
    gaussian_nll_loss and cosine_embedding_loss, TypeError in others; this is both)."""


def _check_same_shape(api: str, x, y, names=("input", "label")) -> None:
    if list(x.shape) != list(y.shape):
        raise ValueError(f"{api}: {names[0]} and {names[1]} must have the same shape, got "
                         f"{list(x.shape)} and {list(y.shape)}")


def _concrete(t) -> bool:
    """True for an eager Tensor (values can be inspected), False for a static Variable."""
    return isinstance(t, Tensor) and not is_variable(t)


def _check_label_range(api: str, label, classes: int, ignore_index: int,
                       error: type = IndexError) -> None:
    if not _concrete(label) or label.size == 0:
        return
    arr = label.numpy()
    bad = arr[(arr != ignore_index) & ((arr < 0) | (arr >= classes))]
    if bad.size:
        raise error(f"{api}: label value {int(bad.flat[0])} is out of range for "
                         f"{classes} classes (expected 0 <= label < {classes} or label == "
                         f"ignore_index {ignore_index})")


def _as_float(x: Tensor, like: Tensor) -> Tensor:
    return x if x.dtype is like.dtype else T.cast(x, like.dtype)


def _softplus(x: Tensor) -> Tensor:
    """log(1 + exp(x)) computed without overflow."""
    return T.clip(x, min=0.0) + T.log1p(T.exp(-T.abs(x)))


def _log_sigmoid(x: Tensor) -> Tensor:
    return -_softplus(-x)


def _onehot(label: Tensor, classes: int, axis: int, ndim: int, dtype) -> Tensor:
    """Float one-hot of integer `label` (size 1 along `axis`) with `classes` along `axis`."""
    shape = [1] * ndim
    shape[axis] = classes
    iota = T.reshape(T.arange(0, classes, dtype=label.dtype), shape)
    return T.cast(T.equal(label, iota), dtype)


def _class_dim_label(api: str, input: Tensor, label: Tensor, axis: int) -> tuple:
    """Label with the class axis as a dim of size 1, and whether it had to be added."""
    nd, ld = input.ndim, label.ndim
    if ld == nd - 1:
        return T.unsqueeze(label, axis), True
    if ld == nd:
        return label, False
    raise ValueError(f"{api}: label must have rank {nd - 1} or {nd} for input of shape "
                     f"{list(input.shape)} (input_dims - 1 == label_dims or input_dims == "
                     f"label_dims); got label shape {list(label.shape)}")


def _check_integral_label(api: str, input: Tensor, label: Tensor, axis: int) -> None:
    """Float hard labels must hold class ids; a fraction means a distribution was passed
    without soft_label=True (Paddle would truncate it silently)."""
    if label.__class__ is not Tensor or label.size == 0:
        return  # a static Variable has no values to look at
    data = label.numpy()
    frac = data != np.floor(data)
    if frac.any():
        bad = data[frac].flat[0]
        hint = (" (it has the input's shape: pass soft_label=True for a distribution)"
                if list(label.shape) == list(input.shape) and input.shape[axis] != 1 else
                "; for probability/soft labels pass soft_label=True with label shaped like "
                "input")
        raise ValueError(f"{api}: hard labels (soft_label=False) must be integer class ids, "
                         f"got a {label.dtype.name} label with the non-integral value {bad}"
                         f"{hint}")


# --- softmax cross entropy ------------------------------------------------------------

def softmax_with_cross_entropy(logits: Tensor, label: Tensor, soft_label: bool = False,
                               ignore_index: int = -100, numeric_stable_mode: bool = True,
                               return_softmax: bool = False, axis: int = -1):
    """Softmax of `logits` along `axis` followed by cross entropy with `label`.

    Args:
        logits (Tensor): unscaled log probabilities, float.
        label (Tensor): int class ids with the shape of logits but 1 along `axis` (hard
            labels), or a float distribution of the logits' shape (soft_label=True).
        soft_label (bool): whether `label` is a distribution. Default False.
        ignore_index (int): hard label value with loss 0 and no gradient. Default -100.
        numeric_stable_mode (bool): kept for compatibility; always stable.
        return_softmax (bool): also return softmax(logits). Default False.
        axis (int): class axis. Default -1.

    Returns:
        Tensor: the loss, shaped like logits with 1 along `axis`; (loss, softmax) when
        return_softmax.

    Examples:
        >>> import sampan as paddle
        >>> import sampan.nn.functional as F
        >>> x = paddle.to_tensor([[1.0, 2.0, 3.0]])
        >>> F.softmax_with_cross_entropy(x, paddle.to_tensor([[2]])).numpy().round(4)
        array([[0.4076]], dtype=float32)
    """
    api = "softmax_with_cross_entropy"
    _check_float(api, logits, "logits")
    if logits.ndim == 0:
        raise ValueError(f"{api}: logits must have at least 1 dim, got a 0-D tensor")
    if not soft_label:
        label, _ = _class_dim_label(api, logits, label, axis)
        if label.dtype.kind == "f":
            label = T.cast(label, "int64")
    loss, softmax = call(api, logits, label, soft_label=bool(soft_label),
                         ignore_index=int(ignore_index), axis=int(axis))
    return (loss, softmax) if return_softmax else loss


def cross_entropy(input: Tensor, label: Tensor, weight: Tensor | None = None,
                  ignore_index: int = -100, reduction: str = "mean", soft_label: bool = False,
                  axis: int = -1, use_softmax: bool = True, label_smoothing: float = 0.0,
                  name: str | None = None) -> Tensor:
    """Cross entropy between `input` (logits, or probabilities when use_softmax=False) and
    `label`, with Paddle's weighting and reduction rules.

    Args:
        input (Tensor): float [N_1, ..., N_k, C] (class axis `axis`).
        label (Tensor): int class ids of shape [N_1, ..., N_k] or with a size-1 class dim, or
            a float distribution shaped like input (soft_label=True).
        weight (Tensor, optional): per-class weights [C].
        ignore_index (int): hard label value that contributes no loss. Default -100.
        reduction (str): 'mean' (weighted mean; with ignore_index >= 0 over the kept
            entries), 'sum' or 'none'. Default 'mean'.
        soft_label (bool): label is a distribution. Default False.
        axis (int): class axis. Default -1.
        use_softmax (bool): apply softmax to input first. Default True.
        label_smoothing (float): mix the (one-hot) label with the uniform distribution.
        name (str, optional): unused.

    Returns:
        Tensor: 0-D for 'mean'/'sum'; with 'none' the label's shape (hard) or input's shape
        with 1 along `axis` (soft).

    Examples:
        >>> import sampan as paddle
        >>> import sampan.nn.functional as F
        >>> x = paddle.to_tensor([[1.0, 2.0, 3.0], [1.0, 1.0, 1.0]])
        >>> print(round(float(F.cross_entropy(x, paddle.to_tensor([2, 0]))), 4))
        0.7531
    """
    api = "cross_entropy"
    _check_reduction(api, reduction)
    _check_float(api, input, "input")
    if input.ndim == 0:
        raise ValueError(f"{api}: input must have at least 1 dim, got a 0-D tensor")
    if soft_label and ignore_index > 0:
        raise ValueError(f"{api}: ignore_index must be -100 with soft_label=True, got "
                         f"{ignore_index}")
    ax = axis + input.ndim if axis < 0 else axis
    if not 0 <= ax < input.ndim:
        raise IndexError(f"{api}: axis {axis} is out of range for input of rank {input.ndim}")
    classes = input.shape[ax]
    squeeze = False
    if label_smoothing > 0.0:
        label = _smoothed_label(api, input, label, ax, label_smoothing)
        soft_label = True
    elif not soft_label:
        label, squeeze = _class_dim_label(api, input, label, ax)
        if label.dtype.kind == "f":
            _check_integral_label(api, input, label, ax)
            label = T.cast(label, "int64")
        if not use_softmax:  # the fused op checks the range itself
            _check_label_range(api, label, classes, ignore_index)
    if weight is not None and not soft_label and weight.shape[-1] != classes:
        raise ValueError(f"{api}: weight has {weight.shape[-1]} classes but input has "
                         f"{classes} along axis {axis} (input shape {list(input.shape)})")
    if use_softmax:
        out = call("softmax_with_cross_entropy", input, label, soft_label=bool(soft_label),
                   ignore_index=int(ignore_index), axis=ax)[0]
    else:
        out = _cross_entropy_probs(input, label, soft_label, ignore_index, ax)
    return _weighted_reduce(out, input, label, weight, ignore_index, reduction, soft_label,
                            ax, squeeze)


def _smoothed_label(api, input, label, ax, epsilon):
    classes = input.shape[ax]
    if label.ndim == input.ndim and label.dtype.kind == "f" and label.shape[ax] == classes:
        dist = label
    else:
        label, _ = _class_dim_label(api, input, label, ax)
        dist = _onehot(T.cast(label, "int64"), classes, ax, input.ndim, input.dtype)
    return _as_float(dist * (1.0 - epsilon) + epsilon / classes, input)


def _cross_entropy_probs(input, label, soft_label, ignore_index, ax):
    """-log(p[label]) (or -sum(label * log p)) with -log(0) clamped as Paddle's kernel."""
    if soft_label:
        logp = T.clip(T.log(input), min=-_APPROX_INF)
        return -T.sum(label * logp, axis=ax, keepdim=True)
    keep = T.not_equal(label, T.full_like(label, ignore_index))
    safe = T.where(keep, label, T.zeros_like(label))
    picked = T.take_along_axis(input, safe, ax, broadcast=False)
    loss = T.clip(-T.log(picked), max=_APPROX_INF)
    return loss * T.cast(keep, input.dtype)


def _weighted_reduce(out, input, label, weight, ignore_index, reduction, soft_label, ax,
                     squeeze):
    w = None
    if weight is not None:
        weight = _as_float(weight, out)
        if soft_label:
            shape = [1] * input.ndim
            shape[ax] = weight.shape[-1]
            w = T.sum(label * T.reshape(weight, shape), axis=ax, keepdim=True)
        else:
            keep = T.cast(T.not_equal(label, T.full_like(label, ignore_index)), out.dtype)
            safe = T.where(keep > 0, label, T.zeros_like(label))
            w = T.reshape(T.gather(weight, T.reshape(safe, [-1])), label.shape) * keep
        out = out * w
    if reduction == "sum":
        return T.sum(out)
    if reduction == "mean":
        if 0 in input.shape:
            return T.mean(out)
        if ignore_index >= 0 and not soft_label:
            keep = T.cast(T.not_equal(label, T.full_like(label, ignore_index)), out.dtype)
            total = T.sum(keep if w is None else keep * w)
        elif w is not None:
            total = T.sum(w)
        else:
            return T.mean(out)
        return T.sum(out) / (total + T.cast(T.equal(total, T.zeros_like(total)), total.dtype))
    return T.squeeze(out, ax) if squeeze else out


def nll_loss(input: Tensor, label: Tensor, weight: Tensor | None = None,
             ignore_index: int = -100, reduction: str = "mean",
             name: str | None = None) -> Tensor:
    """Negative log likelihood: -input[n, label[n], ...] * weight[label[n]].

    Args:
        input (Tensor): log probabilities [N, C] or [N, C, d_1, ...] (class axis 1).
        label (Tensor): int class ids [N] or [N, d_1, ...] (also [N, 1] or [N, 1, d_1, ...]).
        weight (Tensor, optional): per-class weights [C].
        ignore_index (int): label value with no loss. Default -100.
        reduction (str): 'mean' (divided by the sum of the kept weights), 'sum' or 'none'.
        name (str, optional): unused.

    Returns:
        Tensor: 0-D, or [N, d_1, ...] for reduction='none'.

    Examples:
        >>> import sampan as paddle
        >>> import sampan.nn.functional as F
        >>> logp = paddle.log(paddle.to_tensor([[0.2, 0.8], [0.5, 0.5]]))
        >>> print(round(float(F.nll_loss(logp, paddle.to_tensor([1, 0]))), 4))
        0.4581
    """
    api = "nll_loss"
    _check_reduction(api, reduction)
    _check_float(api, input, "input")
    if input.ndim < 2:
        raise ValueError(f"{api}: input must have at least 2 dims [N, C, ...], got shape "
                         f"{list(input.shape)}")
    want = [input.shape[0]] + list(input.shape[2:])
    if list(label.shape) == want[:1] + [1] + want[1:]:  # [N, 1, ...] as Paddle accepts
        label = T.squeeze(label, 1)
    if list(label.shape) != want:
        raise ValueError(f"{api}: label must have shape {want} for input of shape "
                         f"{list(input.shape)}; got label shape {list(label.shape)}")
    if label.dtype.kind not in "iu":
        raise TypeError(f"{api}: label must be an int32 or int64 tensor, got "
                        f"{label.dtype.name}")
    classes = input.shape[1]
    _check_label_range(api, label, classes, ignore_index, ValueError)
    keep = T.not_equal(label, T.full_like(label, ignore_index))
    safe = T.where(keep, label, T.zeros_like(label))
    picked = T.squeeze(T.take_along_axis(input, T.unsqueeze(safe, 1), 1, broadcast=False), 1)
    w = T.cast(keep, input.dtype)
    if weight is not None:
        if list(weight.shape) != [classes]:
            raise ValueError(f"{api}: weight must have shape [{classes}], got "
                             f"{list(weight.shape)}")
        w = T.reshape(T.gather(_as_float(weight, input), T.reshape(safe, [-1])),
                      label.shape) * w
    out = -picked * w
    if reduction == "sum":
        return T.sum(out)
    if reduction == "mean":
        total = T.sum(w)
        return T.sum(out) / (total + T.cast(T.equal(total, T.zeros_like(total)), total.dtype))
    return out


# --- hierarchical sigmoid ---------------------------------------------------------------

def _hsigmoid_default_path(label: Tensor, num_classes: int) -> tuple:
    """Paddle's default complete binary tree: with c = label + num_classes, step j (j <
    bit_length(num_classes - 1)) visits internal node (c >> (j + 1)) - 1 with code bit
    (c >> j) & 1; steps whose node index is negative are past the end of the path."""
    depth = max(int(num_classes - 1).bit_length(), 1)
    code = T.reshape(label, [-1, 1]) + num_classes
    shift = T.to_tensor([2 ** j for j in range(depth)], dtype=code.dtype)
    node = T.floor_divide(code, shift * 2) - 1
    bit = T.remainder(T.floor_divide(code, shift), T.full_like(shift, 2))
    return node, bit, T.greater_equal(node, T.zeros_like(node))


def hsigmoid_loss(input: Tensor, label: Tensor, num_classes: int, weight: Tensor,
                  bias: Tensor | None = None, path_table: Tensor | None = None,
                  path_code: Tensor | None = None, is_sparse: bool = False,
                  name: str | None = None) -> Tensor:
    """Hierarchical sigmoid loss: per sample, the binary logistic losses of the internal
    tree nodes on the path to its class, sum_j softplus(z_j) - code_j * z_j with
    z_j = input . weight[node_j] + bias[node_j] (clipped to [-40, 40] as Paddle does).

    Without path_table/path_code the tree is Paddle's default complete binary tree over
    num_classes leaves (num_classes - 1 internal nodes). As in Paddle's kernel, every sample
    has bit_length(num_classes - 1) (or path_table's width) steps; steps past the end of a
    shorter path count log(2) each.

    Args:
        input (Tensor): float [N, D].
        label (Tensor): int [N] or [N, 1] class ids.
        num_classes (int): number of classes (>= 2).
        weight (Tensor): [num_nodes, D] (num_classes - 1 rows for the default tree).
        bias (Tensor, optional): [num_nodes, 1] or [num_nodes].
        path_table (Tensor, optional): int [N, L] node ids of each sample's path (a negative
            id ends the path); needs path_code.
        path_code (Tensor, optional): int [N, L] code bits (0/1) of each step.
        is_sparse (bool): accepted for Paddle compatibility (gradients are dense here).

    Returns:
        Tensor: [N, 1] in the input's dtype.

    Examples:
        >>> import sampan as paddle
        >>> import sampan.nn.functional as F
        >>> x = paddle.ones([1, 2])
        >>> w = paddle.zeros([3, 2])
        >>> round(F.hsigmoid_loss(x, paddle.to_tensor([1]), 4, w).item(), 4)
        1.3863
    """
    api = "hsigmoid_loss"
    if num_classes < 2:
        raise ValueError(f"{api}: num_classes must be >= 2, got {num_classes}")
    _check_float(api, input, "input")
    _check_float(api, weight, "weight")
    if input.ndim != 2:
        raise ValueError(f"{api}: input must be 2-D [N, D], got shape {list(input.shape)}")
    if weight.ndim != 2 or weight.shape[1] != input.shape[1]:
        raise ValueError(f"{api}: weight must be 2-D [num_nodes, {input.shape[1]}] (D of "
                         f"input shape {list(input.shape)}), got shape {list(weight.shape)}")
    if label.dtype.kind not in "iu" or list(label.shape) not in ([input.shape[0]],
                                                                 [input.shape[0], 1]):
        raise ValueError(f"{api}: label must be an int tensor of shape [{input.shape[0]}] or "
                         f"[{input.shape[0]}, 1], got shape {list(label.shape)} dtype "
                         f"{label.dtype.name}")
    nodes = weight.shape[0]
    if (path_table is None) != (path_code is None):
        raise ValueError(f"{api}: path_table and path_code must be given together (custom "
                         f"tree) or both be None (default tree)")
    if path_table is None:
        _check_label_range(api, label, num_classes, -1 if num_classes else 0, ValueError)
        node, bit, valid = _hsigmoid_default_path(label, num_classes)
        if nodes < num_classes - 1:
            raise ValueError(f"{api}: the default tree needs num_classes - 1 = "
                             f"{num_classes - 1} weight rows, got weight shape "
                             f"{list(weight.shape)}")
    else:
        for arg, p in (("path_table", path_table), ("path_code", path_code)):
            if p.dtype.kind not in "iu" or p.ndim != 2 or p.shape[0] != input.shape[0]:
                raise ValueError(f"{api}: {arg} must be an int tensor [{input.shape[0]}, "
                                 f"path_length], got shape {list(p.shape)} dtype "
                                 f"{p.dtype.name}")
        if list(path_table.shape) != list(path_code.shape):
            raise ValueError(f"{api}: path_table and path_code must have the same shape, got "
                             f"{list(path_table.shape)} and {list(path_code.shape)}")
        if _concrete(path_table) and path_table.size and \
                int(path_table.numpy().max()) >= nodes:
            raise ValueError(f"{api}: path_table ids must be < the {nodes} rows of weight, "
                             f"got {int(path_table.numpy().max())}")
        node = T.cast(path_table, "int64")
        started = T.cast(T.greater_equal(node, T.zeros_like(node)), "int64")
        valid = T.cast(T.cumprod(started, dim=1), "bool")  # ends at the first negative id
        bit = path_code
    safe = T.where(valid, node, T.zeros_like(node))
    rows = T.reshape(T.gather(weight, T.reshape(safe, [-1])),
                     [input.shape[0], -1, input.shape[1]])               # [N, L, D]
    z = T.squeeze(T.matmul(rows, T.unsqueeze(input, -1)), -1)           # [N, L]
    if bias is not None:
        z = z + T.reshape(T.gather(T.reshape(bias, [-1]), T.reshape(safe, [-1])),
                          list(safe.shape))
    # Paddle clips the forward value but passes the gradient through unchanged
    z = z + (T.clip(z, -40.0, 40.0) - z).detach()
    z = T.where(valid, z, T.zeros_like(z))
    bit = T.cast(bit, z.dtype) * T.cast(valid, z.dtype)
    return T.sum(_softplus(z) - bit * z, axis=1, keepdim=True)
