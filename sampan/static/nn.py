"""paddle.static.nn: layer functions that create their parameters in the current Programs.

Only `fc` so far; the rest (conv2d, batch_norm, embedding, cond, while_loop, ...) will follow
the same pattern: create_parameter + functional ops. Imports `tensor` and `static`.
"""
from __future__ import annotations

from ..ops.dispatch import call
from ..utils import unique_name
from .input import create_parameter

__all__ = ["fc"]


def _activation(x, act: str | None):
    if act is None:
        return x
    if act == "relu":
        return call("maximum", x, call("full_like", x, fill_value=0.0, dtype=None))
    if act in ("tanh", "sigmoid", "exp"):
        return call(act, x)
    try:
        from ..nn import functional as F
        fn = getattr(F, act)
    except (ImportError, AttributeError):
        raise ValueError(f"fc: unknown activation {act!r}") from None
    return fn(x)


def fc(x, size: int, num_flatten_dims: int = 1, weight_attr=None, bias_attr=None,
       activation: str | None = None, name: str | None = None):
    """Fully connected layer: out = activation(flatten(x) @ W + b).

    Args:
        x (Variable|list): input(s); a list gets one weight each and the products are summed.
        size (int): output features.
        num_flatten_dims (int): leading dims kept; the rest are flattened into the features.
        weight_attr, bias_attr: ParamAttr-like (name, initializer, trainable); bias_attr=False
            means no bias.
        activation (str, optional): e.g. 'relu', 'tanh', 'sigmoid', 'softmax'.

    Returns:
        Variable of shape x.shape[:num_flatten_dims] + [size].
    """
    if not isinstance(size, int) or size <= 0:
        raise ValueError(f"fc: size must be a positive int, got {size!r}")
    inputs = list(x) if isinstance(x, (list, tuple)) else [x]
    prefix = name or unique_name.generate("fc")
    total = None
    for i, inp in enumerate(inputs):
        shape = inp.shape
        if not 1 <= num_flatten_dims < len(shape) + (1 if len(shape) == 1 else 0):
            raise ValueError(f"fc: num_flatten_dims must be in [1, {len(shape) - 1}] for an "
                             f"input of shape {shape}, got {num_flatten_dims}")
        features = 1
        for d in shape[num_flatten_dims:]:
            if d < 0:
                raise ValueError(f"fc: the feature dims {shape[num_flatten_dims:]} of the "
                                 f"input must be known")
            features *= d
        w = create_parameter([features, size], inp.dtype, name=f"{prefix}.w_{i}",
                             attr=weight_attr)
        if len(shape) != num_flatten_dims + 1:
            inp = call("reshape", inp, shape=[0 if d < 0 else d
                                              for d in shape[:num_flatten_dims]] + [features])
        out = call("matmul", inp, w)
        total = out if total is None else total + out
    if bias_attr is not False:
        b = create_parameter([size], inputs[0].dtype, name=f"{prefix}.b_0",
                             attr=bias_attr if bias_attr is not None else None, is_bias=True)
        total = total + b
    return _activation(total, activation)
