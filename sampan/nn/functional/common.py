"""Common functions: linear, bilinear, the dropout family, label_smooth, cosine_similarity.

Calls OpDefs through dispatch and composes public tensor functions; no mode checks.
"""
from __future__ import annotations

from ...framework.random import op_seed
from ...framework.tensor import Tensor, is_variable
from ...ops.dispatch import call, dispatch
from ...ops.opdef import REGISTRY, broadcast_shapes
from ...tensor._helpers import NotTensorError, make_inplace
from ...tensor.math import clip

__all__ = ["linear", "bilinear", "dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout",
           "feature_alpha_dropout", "label_smooth", "cosine_similarity", "class_center_sample"]

_LINEAR = REGISTRY["linear"]
_DROPOUT = REGISTRY["dropout"]

# SELU constants (alpha_dropout keeps SELU's self-normalising mean and variance)
_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _tensor(api: str, arg: str, x) -> None:
    if not isinstance(x, Tensor) and not is_variable(x):  # Paddle 3: ValueError for ndarrays
        raise NotTensorError(f"{api}: {arg} must be a Tensor, got {type(x).__name__}")


def linear(x, weight, bias=None, name=None) -> Tensor:
    """Fully connected transform: out = x @ weight + bias.

    Args:
        x (Tensor): input of shape [..., in_features], float.
        weight (Tensor): [in_features, out_features], x's dtype.
        bias (Tensor, optional): [out_features]; default None (no bias).
        name (str, optional): unused; kept for Paddle compatibility.

    Returns:
        Tensor: [..., out_features].

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.ones([2, 3])
        >>> w = paddle.full([3, 2], 0.5)
        >>> paddle.nn.functional.linear(x, w, paddle.to_tensor([0.0, 1.0])).tolist()
        [[1.5, 2.5], [1.5, 2.5]]
    """
    return dispatch(_LINEAR, (x, weight, bias))


def bilinear(x1, x2, weight, bias=None, name=None) -> Tensor:
    """Bilinear transform: out[n, o] = sum_ij x1[n, i] * weight[o, i, j] * x2[n, j] + bias[o].

    Args:
        x1 (Tensor): [N, in1_features].
        x2 (Tensor): [N, in2_features].
        weight (Tensor): [out_features, in1_features, in2_features].
        bias (Tensor, optional): [1, out_features] (or [out_features]); default None.
        name (str, optional): unused.

    Returns:
        Tensor: [N, out_features].
    """
    for arg, t in (("x1", x1), ("x2", x2), ("weight", weight)):
        _tensor("bilinear", arg, t)
    if len(x1.shape) != 2 or len(x2.shape) != 2 or len(weight.shape) != 3:
        raise ValueError(f"bilinear: expected x1 [N, in1], x2 [N, in2] and weight [out, in1, "
                         f"in2], got shapes {list(x1.shape)}, {list(x2.shape)} and "
                         f"{list(weight.shape)}")
    for arg, t, dim, wdim in (("x1", x1, 1, 1), ("x2", x2, 1, 2), ("x2", x2, 0, None)):
        want = x1.shape[0] if wdim is None else weight.shape[wdim]
        if -1 not in (t.shape[dim], want) and t.shape[dim] != want:
            what = "the batch size of x1" if wdim is None else f"weight.shape[{wdim}]"
            raise ValueError(f"bilinear: {arg}.shape[{dim}] must equal {what}; got {arg} "
                             f"shape {list(t.shape)}, x1 shape {list(x1.shape)}, weight shape "
                             f"{list(weight.shape)}")
    out = call("einsum", [x1, weight, x2], equation="ni,oij,nj->no")
    return out if bias is None else out + bias


def _check_p(api: str, p) -> float:
    if isinstance(p, bool) or not isinstance(p, (int, float)):
        raise TypeError(f"{api}: p must be a float in [0, 1], got {type(p).__name__}")
    if not 0 <= p <= 1:
        raise ValueError(f"{api}: p must be in [0, 1], got {p}")
    return float(p)


def _dropout(x, p, axis, mode):
    attrs = {"p": p, "axis": axis, "mode": mode, "seed": op_seed(program=True)}
    return dispatch(_DROPOUT, (x,), attrs)[0]


_dropout_ = make_inplace(lambda x, p, axis, mode: _dropout(x, p, axis, mode), "dropout_")


def dropout(x, p=0.5, axis=None, training=True, inplace=False, mode="upscale_in_train",
            name=None) -> Tensor:
    """Randomly zero elements of x with probability p (the same draw seeds its gradient).

    Args:
        x (Tensor): float input.
        p (float): drop probability in [0, 1]; default 0.5.
        axis (int|list|tuple, optional): draw one mask value per index of these axes and
            broadcast it over the others (e.g. [0, 1] drops whole channels); default None
            (every element independently).
        training (bool): apply dropout (True) or the inference rule (False); default True.
        inplace (bool): write the result into x; default False.
        mode (str): 'upscale_in_train' (kept values scaled by 1 / (1 - p) in training,
            identity at inference) or 'downscale_in_infer' (no scaling in training, x *
            (1 - p) at inference); default 'upscale_in_train'.
        name (str, optional): unused.

    Returns:
        Tensor: x's shape and dtype.
    """
    _tensor("dropout", "x", x)
    p = _check_p("dropout", p)
    if mode not in ("upscale_in_train", "downscale_in_infer"):
        raise ValueError(f"dropout: mode must be 'upscale_in_train' or 'downscale_in_infer', "
                         f"got {mode!r}")
    if axis is not None:
        if isinstance(axis, bool) or not isinstance(axis, (int, list, tuple)):
            raise TypeError(f"dropout: axis must be an int, list or tuple, got "
                            f"{type(axis).__name__}")
        axis = [int(axis)] if isinstance(axis, int) else [int(a) for a in axis]
        if inplace:
            raise NotImplementedError("dropout: inplace=True is not supported with axis")
    if p == 0:
        return x
    if not training:
        if mode == "upscale_in_train":
            return x
        return call("scale", x, scale=1.0 - p, bias=0.0, bias_after_scale=True)
    if inplace:
        return _dropout_(x, p, axis, mode)
    return _dropout(x, p, axis, mode)


def _channel_dropout(api: str, x, p, training, data_format, ndim: int, formats: tuple):
    _tensor(api, "x", x)
    if len(x.shape) != ndim:
        raise ValueError(f"{api}: x must be {ndim}-D, got shape {list(x.shape)}")
    if data_format not in formats:
        raise ValueError(f"{api}: data_format must be {formats[0]!r} or {formats[1]!r}, got "
                         f"{data_format!r}")
    axis = [0, 1] if data_format == formats[0] else [0, ndim - 1]
    return dropout(x, p=p, axis=axis, training=training, mode="upscale_in_train")


def dropout1d(input, p=0.5, training=True, inplace=False) -> Tensor:
    """Zero whole channels of a [N, C, L] (or unbatched [C, L]) input with probability p,
    scaling the kept ones by 1 / (1 - p).

    Args:
        input (Tensor): 2-D or 3-D float input.
        p (float): drop probability; default 0.5.
        training (bool): default True; identity when False.
        inplace (bool): write the result into input; default False.

    Returns:
        Tensor: input's shape.
    """
    _tensor("dropout1d", "input", input)
    p = _check_p("dropout1d", p)
    if len(input.shape) not in (2, 3):
        raise ValueError(f"dropout1d: input must be 2-D or 3-D, got shape {list(input.shape)}")
    if not training or p == 0:
        return input
    axis = [0] if len(input.shape) == 2 else [0, 1]
    if inplace:
        return _dropout_(input, p, axis, "upscale_in_train")
    return _dropout(input, p, axis, "upscale_in_train")


def dropout2d(x, p=0.5, training=True, data_format="NCHW", name=None) -> Tensor:
    """Zero whole channels of a 4-D x with probability p (scaled by 1 / (1 - p)).

    Args:
        x (Tensor): [N, C, H, W] (or [N, H, W, C] with data_format 'NHWC').
        p (float): drop probability; default 0.5.
        training (bool): default True; identity when False.
        data_format (str): 'NCHW' (default) or 'NHWC'.
        name (str, optional): unused.

    Returns:
        Tensor: x's shape.
    """
    return _channel_dropout("dropout2d", x, p, training, data_format, 4, ("NCHW", "NHWC"))


def dropout3d(x, p=0.5, training=True, data_format="NCDHW", name=None) -> Tensor:
    """Zero whole channels of a 5-D x with probability p (scaled by 1 / (1 - p)).

    Args:
        x (Tensor): [N, C, D, H, W] (or channels last with data_format 'NDHWC').
        p (float): drop probability; default 0.5.
        training (bool): default True; identity when False.
        data_format (str): 'NCDHW' (default) or 'NDHWC'.
        name (str, optional): unused.

    Returns:
        Tensor: x's shape.
    """
    return _channel_dropout("dropout3d", x, p, training, data_format, 5, ("NCDHW", "NDHWC"))


def _alpha_dropout(api: str, x, p, training, feature: bool):
    _tensor(api, "x", x)
    p = _check_p(api, p)
    if not training or p == 0:
        return x
    if p == 1:
        return call("scale", x, scale=0.0, bias=0.0, bias_after_scale=True)
    shape = list(x.shape)
    if feature:
        if len(shape) < 2:
            raise ValueError(f"{api}: x must be at least 2-D, got shape {shape}")
        shape = shape[:2] + [1] * (len(shape) - 2)
    alpha_p = -_SELU_ALPHA * _SELU_SCALE
    a = ((1 - p) * (1 + p * alpha_p ** 2)) ** -0.5
    b = -a * alpha_p * p
    u = call("uniform", shape=shape, dtype=x.dtype.name, min=0.0, max=1.0, seed=op_seed())
    keep = call("cast", call("greater_equal", u, call("full_like", u, fill_value=p,
                                                      dtype=None)), dtype=x.dtype.name)
    # kept: a * x + b; dropped: a * alpha_p + b
    drop_value = call("scale", keep, scale=-a * alpha_p, bias=a * alpha_p + b,
                      bias_after_scale=True)
    return x * call("scale", keep, scale=a, bias=0.0, bias_after_scale=True) + drop_value


def alpha_dropout(x, p=0.5, training=True, name=None) -> Tensor:
    """Dropout for SELU networks: dropped elements take SELU's negative saturation value
    and an affine correction keeps the mean and variance.

    Args:
        x (Tensor): float input.
        p (float): drop probability; default 0.5.
        training (bool): default True; identity when False.
        name (str, optional): unused.

    Returns:
        Tensor: x's shape.
    """
    return _alpha_dropout("alpha_dropout", x, p, training, False)


def feature_alpha_dropout(x, p=0.5, training=True, name=None) -> Tensor:
    """alpha_dropout that drops whole channels (one draw per [N, C] index).

    Args:
        x (Tensor): input of at least 2 dims, [N, C, ...].
        p (float): drop probability; default 0.5.
        training (bool): default True; identity when False.
        name (str, optional): unused.

    Returns:
        Tensor: x's shape.
    """
    return _alpha_dropout("feature_alpha_dropout", x, p, training, True)


def label_smooth(label, prior_dist=None, epsilon=0.1, name=None) -> Tensor:
    """Label smoothing: (1 - epsilon) * label + epsilon * prior_dist, where prior_dist
    defaults to the uniform distribution 1 / num_classes (num_classes = label.shape[-1]).

    Args:
        label (Tensor): [..., num_classes] float (e.g. one-hot) labels.
        prior_dist (Tensor, optional): [1, num_classes] prior; default uniform.
        epsilon (float): smoothing weight in [0, 1]; default 0.1.
        name (str, optional): unused.

    Returns:
        Tensor: label's shape and dtype.
    """
    _tensor("label_smooth", "label", label)
    if not 0.0 <= float(epsilon) <= 1.0:
        raise ValueError(f"label_smooth: epsilon must be in [0, 1], got {epsilon}")
    eps = float(epsilon)
    if prior_dist is None:
        n = label.shape[-1]
        return call("scale", label, scale=1.0 - eps, bias=eps / n, bias_after_scale=True)
    smooth = call("scale", label, scale=1.0 - eps, bias=0.0, bias_after_scale=True)
    return smooth + call("scale", prior_dist, scale=eps, bias=0.0, bias_after_scale=True)


def cosine_similarity(x1, x2, axis=1, eps=1e-8) -> Tensor:
    """Cosine of the angle between x1 and x2 along `axis` (broadcast):
    sum(x1 * x2) / sqrt(max(sum(x1 ** 2) * sum(x2 ** 2), eps ** 2)).

    Args:
        x1 (Tensor): first input.
        x2 (Tensor): second input, broadcastable to x1.
        axis (int): the reduced axis; default 1.
        eps (float): lower bound of the norm product; default 1e-8.

    Returns:
        Tensor: the broadcast shape without `axis`.
    """
    _tensor("cosine_similarity", "x1", x1)
    _tensor("cosine_similarity", "x2", x2)
    broadcast_shapes("cosine_similarity", tuple(x1.shape), tuple(x2.shape), ("x1", "x2"))
    w12 = call("sum", x1 * x2, axis=[axis], keepdim=False, dtype=None)
    if x1.shape[axis] == 0 or x2.shape[axis] == 0:
        return w12
    w1 = call("sum", x1 * x1, axis=[axis], keepdim=False, dtype=None)
    w2 = call("sum", x2 * x2, axis=[axis], keepdim=False, dtype=None)
    n = max(x1.shape[axis], x2.shape[axis])
    if x1.shape[axis] != n:  # x1 broadcast along axis: its squared norm counts n times
        w1 = w1 * float(n / x1.shape[axis])
    if x2.shape[axis] != n:
        w2 = w2 * float(n / x2.shape[axis])
    return w12 / call("sqrt", clip(w1 * w2, min=float(eps) ** 2))


def class_center_sample(label, num_classes, num_samples, group=None):
    """Sample class centers for margin losses (PartialFC), single process: the positive
    classes (the sorted unique labels) and, when fewer than num_samples, randomly drawn
    other classes up to num_samples.

    Args:
        label (Tensor): 1-D int32/int64 class ids in [0, num_classes).
        num_classes (int): number of classes.
        num_samples (int): number of class centers to sample (all positives are kept even
            when there are more).
        group: only None (no model parallelism) is supported.

    Returns:
        (Tensor, Tensor): remapped_label (label's index into the sampled centers) and
        sampled_class_center (positives ascending, then the drawn negatives); no gradient.
    """
    from ...autograd import no_grad
    from ...tensor.creation import ones
    from ...tensor.random import randperm
    from ...tensor.search import nonzero, unique
    api = "class_center_sample"
    _tensor(api, "label", label)
    if group not in (None, False):
        raise NotImplementedError(f"{api}: model-parallel groups are not supported")
    if label.dtype.kind not in "iu" or len(label.shape) != 1:
        raise TypeError(f"{api}: label must be a 1-D int32/int64 tensor, got "
                        f"{label.dtype.name} of shape {list(label.shape)}")
    for arg, v in (("num_classes", num_classes), ("num_samples", num_samples)):
        if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
            raise ValueError(f"{api}: {arg} must be a positive int, got {v!r}")
    if num_samples > num_classes:
        raise ValueError(f"{api}: num_samples ({num_samples}) must not exceed num_classes "
                         f"({num_classes})")
    with no_grad():
        if label.size and (int(label.min()) < 0 or int(label.max()) >= num_classes):
            raise ValueError(f"{api}: label values must be in [0, {num_classes}), got "
                             f"[{int(label.min())}, {int(label.max())}]")
        positive, remapped = unique(label, return_inverse=True)
        extra = num_samples - positive.shape[0]
        if extra <= 0:
            return remapped.astype(label.dtype), positive
        free = ones([num_classes], dtype="bool")
        free[positive] = False
        candidates = nonzero(free).flatten().astype(label.dtype)
        drawn = candidates[randperm(candidates.shape[0])[:extra]]
        return remapped.astype(label.dtype), call("concat", [positive, drawn], axis=0)
