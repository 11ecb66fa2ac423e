"""static.nn.static_pylayer (a forward function with a user-given backward, as one py_layer
op) and static.nn.nce (noise-contrastive estimation loss as a composition of ops with the
negative classes drawn by a multinomial op at run time). Part of the static.nn face.
"""
from __future__ import annotations

import itertools
import math

import numpy as np

from .. import tensor as T
from ..autograd import PyLayer
from ..framework.tensor import Tensor, is_variable
from ..utils import unique_name
from .nn import _F, _param, _static_layer

__all__ = ["static_pylayer", "nce"]

_COUNT = itertools.count()


def _pylayer_class(forward_fn, backward_fn):
    """A PyLayer subclass with a unique qualname, so its py_layer op finds it again."""
    def forward(ctx, *xs):
        return forward_fn(*xs)

    def backward(ctx, *grads):
        return backward_fn(*grads)

    n = next(_COUNT)
    cls = type(f"static_pylayer_{n}", (PyLayer,), {
        "forward": staticmethod(forward), "backward": staticmethod(backward)})
    cls.__qualname__ = f"static_pylayer_{n}"
    cls.__module__ = __name__
    return cls


def static_pylayer(forward_fn, inputs, backward_fn=None, name=None):
    """Run forward_fn(*inputs) as one op whose gradient is backward_fn(*output_grads).

    Args:
        forward_fn (callable): builds the forward from the input Variables.
        inputs (list[Variable]): its inputs.
        backward_fn (callable, optional): output grads -> input grads (as many as inputs).
            None: no gradient; every input must then have stop_gradient=True.
        name (str, optional): unused.

    Returns:
        What forward_fn returns.

    Examples:
        >>> import numpy as np
        >>> import sampan as paddle
        >>> paddle.enable_static()
        >>> main, start = paddle.static.Program(), paddle.static.Program()
        >>> with paddle.static.program_guard(main, start):
        ...     x = paddle.static.data("X", [None, 2], "float32")
        ...     x.stop_gradient = False
        ...     y = paddle.static.nn.static_pylayer(lambda v: paddle.exp(v), [x],
        ...                                         lambda dy: 2 * dy)
        ...     g = paddle.static.gradients([y], x)[0]
        >>> exe = paddle.static.Executor()
        >>> exe.run(main, feed={"X": np.zeros([1, 2], "float32")}, fetch_list=[y, g])[1]
        array([[2., 2.]], dtype=float32)
        >>> paddle.disable_static()
    """
    if not callable(forward_fn):
        raise TypeError(f"static_pylayer: forward_fn must be callable, got "
                        f"{type(forward_fn).__name__}")
    inputs = list(inputs)
    for v in inputs:
        if not (is_variable(v) or isinstance(v, Tensor)):
            raise TypeError(f"static_pylayer: inputs must be Variables, got {type(v).__name__}")
    if backward_fn is None:
        for v in inputs:
            if not v.stop_gradient:
                raise ValueError("static_pylayer: stop_gradient of every input must be True "
                                 f"when backward_fn is None, but {v.name} has False")
        return forward_fn(*inputs)
    if not callable(backward_fn):
        raise TypeError(f"static_pylayer: backward_fn must be callable, got "
                        f"{type(backward_fn).__name__}")
    return _pylayer_class(forward_fn, backward_fn).apply(*inputs)


_SAMPLERS = ("uniform", "log_uniform", "custom_dist")


def _noise_probs(api: str, sampler: str, n: int, custom_dist) -> np.ndarray:
    """The probability of each class under the negative sampler."""
    if sampler == "uniform":
        return np.full([n], 1.0 / n)
    if sampler == "log_uniform":     # P(k) = log((k + 2) / (k + 1)) / log(n + 1)
        k = np.arange(n, dtype="float64")
        return np.log((k + 2) / (k + 1)) / math.log(n + 1)
    if custom_dist is None or len(custom_dist) != n:
        raise ValueError(f"{api}: custom_dist must hold num_total_classes ({n}) probabilities"
                         f", got {None if custom_dist is None else len(custom_dist)}")
    probs = np.asarray(custom_dist, dtype="float64")
    if np.any(probs < 0) or not np.isclose(probs.sum(), 1.0):
        raise ValueError(f"{api}: custom_dist must be non-negative and sum to 1, got sum "
                         f"{probs.sum()}")
    return probs


@_static_layer
def nce(input, label, num_total_classes: int, sample_weight=None, param_attr=None,
        bias_attr=None, num_neg_samples=None, name=None, sampler: str = "uniform",
        custom_dist=None, seed: int = 0, is_sparse: bool = False):
    """Noise-contrastive estimation loss (Gutmann & Hyvarinen), one value per sample.

    For each sample the true classes and num_neg_samples classes drawn from the noise
    distribution P are scored o = sigmoid(x . w_c + b_c); with q = P(c) * num_neg_samples
    the cost is sum(-log(o / (o + q))) over true classes plus sum(-log(q / (o + q))) over
    the negatives, times sample_weight, divided by (num_neg_samples + 1) as in Paddle.

    Args:
        input (Variable): [batch, dim] float features.
        label (Variable): [batch, num_true] int64 classes.
        num_total_classes (int): number of classes (weight [classes, dim], bias [classes]).
        sample_weight (Variable, optional): [batch, 1] weights (default 1).
        param_attr, bias_attr: ParamAttr of the weight and bias (bias_attr=False: none).
        num_neg_samples (int, optional): negatives per sample, default 10.
        sampler (str): "uniform", "log_uniform" or "custom_dist".
        custom_dist (list[float], optional): the class probabilities of "custom_dist".
        seed, is_sparse: accepted for compatibility (negatives follow paddle.seed).

    Returns:
        Variable of shape [batch, 1].
    """
    api = "nce"
    if input.ndim != 2:
        raise ValueError(f"{api}: input must be 2-D [batch, dim], got {list(input.shape)}")
    if label.ndim != 2 or "int" not in str(label.dtype):
        raise ValueError(f"{api}: label must be 2-D int64 [batch, num_true], got shape "
                         f"{list(label.shape)} dtype {label.dtype}")
    if sampler not in _SAMPLERS:
        raise ValueError(f"{api}: sampler must be one of {_SAMPLERS}, got {sampler!r}")
    num_neg = 10 if num_neg_samples is None else int(num_neg_samples)
    probs = _noise_probs(api, sampler, num_total_classes, custom_dist)
    prefix = name or unique_name.generate("nce")
    dim = input.shape[1]
    weight = _param(prefix, "w_0", [num_total_classes, dim], input.dtype, param_attr)
    bias = _param(prefix, "b_0", [num_total_classes], input.dtype, bias_attr, is_bias=True)
    # one row of noise probabilities per sample (broadcast keeps the batch dim dynamic)
    noise = T.zeros_like(T.cast(input[:, :1], "float32")) + \
        T.to_tensor(probs.astype("float32"))[None, :]
    neg = T.multinomial(noise, num_neg, replacement=True)
    labels = T.concat([T.cast(label, "int64"), neg], axis=1)          # [batch, S]
    lookup = _F().embedding          # gathers rows for an index of any shape
    logits = T.sum(lookup(labels, weight) * T.unsqueeze(input, 1), axis=-1)
    if bias is not None:
        logits = logits + T.squeeze(lookup(labels, T.unsqueeze(bias, 1)), -1)
    o = _F().sigmoid(logits)
    q = T.squeeze(lookup(labels, T.to_tensor(probs[:, None].astype(input.dtype.name))),
                  -1) * num_neg
    true_mask = T.to_tensor(np.arange(label.shape[1] + num_neg) < label.shape[1])
    # log(o + q) - log(o | q): one log per entry, so no inf of the other branch reaches
    # the gradient (a true class may have q = 0)
    cost = T.log(o + q) - T.log(T.where(true_mask, o, q))
    cost = T.sum(cost, axis=1, keepdim=True)
    if sample_weight is not None:
        cost = cost * sample_weight
    return cost / (num_neg + 1)
