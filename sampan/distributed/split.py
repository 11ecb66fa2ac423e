"""paddle.distributed.split: a linear or embedding layer whose weight is split across the
ranks of the global group (model parallelism), joined with all_reduce / all_gather ops.
"""
from __future__ import annotations

from ..initializer.parameter import create_parameter
from ..nn import functional as F
from ..ops.dispatch import call
from .env import _group


def _check(size, operation, axis, num_partitions, nranks) -> None:
    if operation not in ("linear", "embedding"):
        raise ValueError(f"split: operation must be 'linear' or 'embedding', got "
                         f"{operation!r}")
    if not isinstance(size, (list, tuple)) or len(size) != 2:
        raise ValueError(f"split: size must be a pair of ints, got {size!r}")
    if axis not in (0, 1) or (operation == "embedding" and axis != 0):
        raise ValueError(f"split: axis must be 0 or 1 (0 for embedding), got {axis!r}")
    if num_partitions != nranks:
        raise ValueError(f"split: num_partitions ({num_partitions}) must equal the number "
                         f"of ranks ({nranks})")
    if size[axis] % num_partitions:
        raise ValueError(f"split: size[{axis}]={size[axis]} is not divisible by "
                         f"num_partitions={num_partitions}")


def split(x, size, operation, axis=0, num_partitions=1, gather_out=True, weight_attr=None,
          bias_attr=None, name=None):
    """Create this rank's shard of a linear (weight [in, out]) or embedding (weight
    [vocab, dim]) layer and apply it to `x`; the result equals the unsplit layer.

    Args:
        x (Tensor): input (the full input on every rank; int ids for embedding).
        size (tuple): (in_features, out_features) or (num_embeddings, embedding_dim).
        operation (str): 'linear' or 'embedding'.
        axis (int): the weight dimension that is split (0: rows, 1: columns).
        num_partitions (int): number of shards; must equal the world size.
        gather_out (bool): linear with axis=1: all_gather the column shards (else each rank
            returns its own columns).
        weight_attr, bias_attr (ParamAttr, optional): parameter attributes (bias_attr=False:
            no bias; embeddings have none).
        name (str, optional): unused.

    Returns:
        Tensor.

    NOTE: every call creates the shard's parameters, so (as in Paddle) it is meant for
    building a static Program once; in dynamic mode keep the parameters yourself.
    """
    g = _group("split", None)
    _check(size, operation, axis, num_partitions, g.nranks)
    rows, cols = int(size[0]), int(size[1])
    part = size[axis] // num_partitions
    dtype = "float32" if operation == "embedding" else x.dtype.name
    shape = [part, cols] if axis == 0 else [rows, part]
    weight = create_parameter(shape, dtype, attr=weight_attr)
    if operation == "embedding":
        start = g.rank * part
        local = x - start
        inside = call("logical_and", local >= 0, local < part)
        ids = call("where", inside, local, call("full_like", local, fill_value=0))
        out = F.embedding(ids, weight) * inside.unsqueeze(-1).astype(dtype)
        return call("all_reduce", out, op="sum", ring_id=g.id)
    bias = None
    if bias_attr is not False:
        bias = create_parameter([cols if axis == 0 else part], dtype, attr=bias_attr,
                                is_bias=True)
    if axis == 0:
        piece = x[..., g.rank * part:(g.rank + 1) * part]
        out = call("all_reduce", F.linear(piece, weight), op="sum", ring_id=g.id)
        return out if bias is None else out + bias
    out = F.linear(x, weight, bias)
    if not gather_out:
        return out
    stacked = call("all_gather", out, ring_id=g.id)
    return call("concat", [stacked[i] for i in range(g.nranks)], axis=-1)
