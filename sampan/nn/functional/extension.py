"""sequence_mask, temporal_shift, gather_tree, diag_embed.

Composes public tensor functions and calls OpDefs through dispatch; no mode checks.
"""
from __future__ import annotations

from ...framework import dtype as _dt
from ...framework.tensor import Tensor
from ...ops.dispatch import call, dispatch
from ...ops.opdef import REGISTRY
from ...tensor.creation import diag_embed as _diag_embed

__all__ = ["sequence_mask", "temporal_shift", "gather_tree", "diag_embed"]


def sequence_mask(x, maxlen=None, dtype="int64", name=None) -> Tensor:
    """Masks from lengths: out[..., j] = (j < x[...]).

    Args:
        x (Tensor): integer lengths, any shape.
        maxlen (int|Tensor, optional): the mask length; default max(x).
        dtype (str): the output dtype; default 'int64'.
        name (str, optional): unused.

    Returns:
        Tensor: x.shape + [maxlen] of `dtype`.

    Examples:
        >>> import sampan as paddle
        >>> paddle.nn.functional.sequence_mask(paddle.to_tensor([1, 3]), maxlen=4).tolist()
        [[1, 0, 0, 0], [1, 1, 1, 0]]
    """
    if maxlen is None:
        maxlen = int(x.max().item()) if x.size else 0
    elif isinstance(maxlen, Tensor):
        maxlen = int(maxlen.item())
    steps = call("arange", start=0, end=int(maxlen), step=1, dtype=x.dtype.name)
    mask = call("less_than", steps, call("unsqueeze", x, axis=[-1]))
    return call("cast", mask, dtype=_dt.convert_dtype(dtype).name)


def temporal_shift(x, seg_num, shift_ratio=0.25, name=None, data_format="NCHW") -> Tensor:
    """Shift part of the channels along time (TSM): x is [N * seg_num, C, H, W]; the first
    C * shift_ratio channels take the previous segment's values, the next C * shift_ratio
    the following segment's (zeros at the ends); the rest are unchanged.

    Args:
        x (Tensor): 4-D input, batch = N * seg_num.
        seg_num (int): segments (time steps) per sample.
        shift_ratio (float): fraction of channels shifted each way; default 0.25.
        name (str, optional): unused.
        data_format (str): 'NCHW' (default) or 'NHWC'.

    Returns:
        Tensor: x's shape.
    """
    if data_format not in ("NCHW", "NHWC"):
        raise ValueError(f"temporal_shift: data_format must be 'NCHW' or 'NHWC', got "
                         f"{data_format!r}")
    if len(x.shape) != 4:
        raise ValueError(f"temporal_shift: x must be 4-D, got shape {list(x.shape)}")
    if not isinstance(seg_num, int) or seg_num <= 0 or x.shape[0] % seg_num:
        raise ValueError(f"temporal_shift: seg_num must be a positive int dividing the batch "
                         f"size {x.shape[0]}, got {seg_num}")
    if data_format == "NHWC":
        x = call("transpose", x, perm=[0, 3, 1, 2])
    nt, c, h, w = x.shape
    v = call("reshape", x, shape=[nt // seg_num, seg_num, c, h, w])
    c1 = int(c * shift_ratio)
    c2 = int(c * 2 * shift_ratio)
    # channels [0, c1) come from t - 1, [c1, c2) from t + 1
    back = call("pad", v[:, :-1, :c1], pad=[0, 0, 1, 0, 0, 0, 0, 0, 0, 0], mode="constant",
                value=0.0)
    fwd = call("pad", v[:, 1:, c1:c2], pad=[0, 0, 0, 1, 0, 0, 0, 0, 0, 0], mode="constant",
               value=0.0)
    out = call("concat", [back, fwd, v[:, :, c2:]], axis=2)
    out = call("reshape", out, shape=[nt, c, h, w])
    if data_format == "NHWC":
        out = call("transpose", out, perm=[0, 2, 3, 1])
    return out


def gather_tree(ids, parents) -> Tensor:
    """Full beam-search sequences from per-step ids and parent beam indices.

    Args:
        ids (Tensor): [max_time, batch, beam] int ids chosen at each step.
        parents (Tensor): [max_time, batch, beam] parent beam of each choice.

    Returns:
        Tensor: ids' shape and dtype.
    """
    return dispatch(REGISTRY["gather_tree"], (ids, parents))


def diag_embed(input, offset=0, dim1=-2, dim2=-1) -> Tensor:
    """Place the last dim of `input` on diagonals of planes (dim1, dim2) of a new tensor.

    Args:
        input (Tensor): at least 1-D.
        offset (int): diagonal offset (> 0 above the main diagonal); default 0.
        dim1 (int): first dim of the planes; default -2.
        dim2 (int): second dim of the planes; default -1.

    Returns:
        Tensor: one more dim than input.
    """
    return _diag_embed(input, offset, dim1, dim2)
