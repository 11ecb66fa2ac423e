"""paddle.sparse.nn.functional: activations and softmax on the stored values, and sparse 3-D
convolution / submanifold convolution / max pooling over COO tensors [N, D, H, W, C] (sparse
dims N, D, H, W; channels dense). A NumPy "rulebook" pairs input and output sites per kernel
offset; values flow through index_select / matmul / index_add so gradients reach the input
values, the weight and the bias."""
from __future__ import annotations

import itertools
from typing import Optional

import numpy as np

from ... import tensor as T
from ...framework.tensor import Tensor
from ..tensor import SparseCooTensor, SparseCsrTensor, _linear, _Sparse
from ..binary import masked_matmul, matmul
from ..unary import check_sparse

__all__ = ["relu", "relu6", "leaky_relu", "softmax", "conv2d", "conv3d", "subm_conv2d",
           "subm_conv2d_igemm", "subm_conv3d", "subm_conv3d_igemm", "max_pool3d", "attention"]


def relu(x: _Sparse, name: Optional[str] = None) -> _Sparse:
    """max(x, 0) on the stored values.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.sparse.sparse_coo_tensor([[0, 2]], [-1.0, 2.0], [3])
        >>> paddle.sparse.nn.functional.relu(x).values().numpy().tolist()
        [0.0, 2.0]
    """
    return check_sparse("nn.functional.relu", x)._with_values(T.maximum(
        x.values(), T.zeros([], dtype=x.dtype)))


def relu6(x: _Sparse, name: Optional[str] = None) -> _Sparse:
    """min(max(x, 0), 6) on the stored values."""
    return check_sparse("nn.functional.relu6", x)._with_values(T.clip(x.values(), 0.0, 6.0))


def leaky_relu(x: _Sparse, negative_slope: float = 0.01, name: Optional[str] = None):
    """x if x > 0 else negative_slope * x, on the stored values."""
    v = check_sparse("nn.functional.leaky_relu", x).values()
    return x._with_values(T.where(v > 0, v, v * negative_slope))


def softmax(x: _Sparse, axis: int = -1, name: Optional[str] = None) -> _Sparse:
    """Softmax over the stored entries of each row (the last axis); absent entries count as
    -inf, as in Paddle.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.sparse.sparse_csr_tensor([0, 2, 3], [0, 1, 0], [1., 1., 5.], [2, 2])
        >>> paddle.sparse.nn.functional.softmax(x).values().numpy().tolist()
        [0.5, 0.5, 1.0]
    """
    check_sparse("nn.functional.softmax", x)
    if axis not in (-1, x.ndim - 1):
        raise ValueError(f"paddle.sparse.nn.functional.softmax: only axis=-1 is supported, "
                         f"got {axis}")
    coo = x.to_sparse_coo()
    if coo._sdim != coo.ndim:
        raise ValueError(f"paddle.sparse.nn.functional.softmax: x must have no dense dims, "
                         f"got shape {list(coo.shape)}")
    rows = _linear(coo._idx[:-1], coo.shape[:-1])
    nrows = int(np.prod(coo.shape[:-1]))
    v = coo.values()
    # shift by the row max (a constant: softmax is shift invariant, so gradients are exact)
    top = np.full(nrows, -np.inf, v.numpy().dtype)
    np.maximum.at(top, rows, v.numpy())
    e = T.exp(v - Tensor(top[rows]))
    total = T.index_add(T.zeros([nrows], dtype=v.dtype), Tensor(rows), 0, e)
    out = coo._with_values(e / T.index_select(total, Tensor(rows), 0))
    return out.to_sparse_csr() if isinstance(x, SparseCsrTensor) else out


def _ntuple(api: str, name: str, value, n: int = 3) -> tuple:
    if isinstance(value, int):
        return (value,) * n
    value = tuple(int(v) for v in value)
    if len(value) != n:
        raise ValueError(f"paddle.sparse.nn.functional.{api}: {name} must be an int or {n} "
                         f"ints, got {value}")
    return value


_LAYOUT = {3: ("NDHWC", "[N, D, H, W, C]"), 2: ("NHWC", "[N, H, W, C]")}


def _check_input(api: str, x, n: int = 3) -> SparseCooTensor:
    if not isinstance(x, SparseCooTensor) or x.ndim != n + 2 or x._sdim != n + 1:
        raise ValueError(f"paddle.sparse.nn.functional.{api}: x must be a sparse COO tensor "
                         f"{_LAYOUT[n][1]} with {n + 1} sparse dims, got "
                         f"{type(x).__name__} {getattr(x, 'shape', '')}")
    return x


def _rulebook(x: SparseCooTensor, kernel, stride, padding, dilation, subm: bool):
    """(output coords [4, n_out], output spatial shape, [(offset k, in rows, out rows)])."""
    idx = x._idx
    spatial = x.shape[1:-1]
    if subm:
        out_shape = list(spatial)
    else:
        out_shape = [(spatial[i] + 2 * padding[i] - dilation[i] * (kernel[i] - 1) - 1)
                     // stride[i] + 1 for i in range(len(spatial))]
    if min(out_shape) <= 0:
        raise ValueError(f"paddle.sparse.nn.functional: output size {out_shape} is not "
                         f"positive for input {spatial}")
    pairs = []
    for k, offset in enumerate(itertools.product(*[range(n) for n in kernel])):
        num = idx[1:] + np.array(padding)[:, None] - (np.array(offset) * dilation)[:, None]
        ok = (num % np.array(stride)[:, None] == 0).all(axis=0)
        pos = num // np.array(stride)[:, None]
        ok &= ((pos >= 0) & (pos < np.array(out_shape)[:, None])).all(axis=0)
        rows = np.flatnonzero(ok)
        pairs.append((k, rows, np.concatenate([idx[:1, rows], pos[:, rows]])))
    dims = [x.shape[0]] + out_shape
    if subm:
        out_lin = _linear(idx, dims)
    else:
        out_lin = np.unique(np.concatenate([_linear(c, dims) for _, _, c in pairs]))
    order = {v: i for i, v in enumerate(out_lin.tolist())}
    book = []
    for k, rows, coords in pairs:
        lin = _linear(coords, dims)
        keep = np.array([v in order for v in lin.tolist()], bool) if lin.size else \
            np.zeros(0, bool)
        if keep.any():
            book.append((k, rows[keep].astype(np.int64),
                         np.array([order[v] for v in lin[keep].tolist()], np.int64)))
    return np.stack(np.unravel_index(out_lin, dims)), out_shape, book


def _conv(api: str, x, weight, bias, stride, padding, dilation, groups, data_format, subm,
          n: int = 3):
    x = _check_input(api, x, n)
    if data_format != _LAYOUT[n][0]:
        raise ValueError(f"paddle.sparse.nn.functional.{api}: data_format must be "
                         f"'{_LAYOUT[n][0]}', got {data_format!r}")
    if groups != 1:
        raise ValueError(f"paddle.sparse.nn.functional.{api}: only groups=1 is supported, "
                         f"got {groups}")
    cin = x.shape[-1]
    if weight.ndim != n + 2 or weight.shape[n] != cin:
        dims = "kD, kH, kW" if n == 3 else "kH, kW"
        raise ValueError(f"paddle.sparse.nn.functional.{api}: weight must be [{dims}, "
                         f"{cin}, C_out], got {list(weight.shape)}")
    kernel = weight.shape[:n]
    stride, padding, dilation = (_ntuple(api, k, v, n) for k, v in
                                 (("stride", stride), ("padding", padding),
                                  ("dilation", dilation)))
    if subm and stride != (1,) * n:
        raise ValueError(f"paddle.sparse.nn.functional.{api}: stride must be 1, got {stride}")
    coords, out_shape, book = _rulebook(x, kernel, stride, padding, dilation, subm)
    cout = weight.shape[-1]
    w = T.reshape(weight, [-1, cin, cout])
    out = T.zeros([coords.shape[1], cout], dtype=x.dtype)
    for k, rows, outs in book:
        part = T.matmul(T.index_select(x.values(), Tensor(rows), 0), w[k])
        out = T.index_add(out, Tensor(outs), 0, part)
    if bias is not None:
        out = out + bias
    return SparseCooTensor(coords, out, [x.shape[0]] + out_shape + [cout], True)


def conv3d(x: SparseCooTensor, weight: Tensor, bias: Optional[Tensor] = None, stride=1,
           padding=0, dilation=1, groups: int = 1, data_format: str = "NDHWC",
           name: Optional[str] = None) -> SparseCooTensor:
    """Sparse 3-D convolution: every output site some input site reaches is produced.

    Args:
        x (SparseCooTensor): [N, D, H, W, C_in], 4 sparse dims.
        weight (Tensor): [kD, kH, kW, C_in, C_out].
        bias (Tensor, optional): [C_out].
        stride, padding, dilation (int|list): per spatial dim.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.sparse.sparse_coo_tensor([[0], [1], [1], [1]], [[1.0]], [1, 3, 3, 3, 1])
        >>> y = paddle.sparse.nn.functional.conv3d(x, paddle.ones([3, 3, 3, 1, 2]))
        >>> y.shape, y.nnz()
        (paddle.Size([1, 1, 1, 1, 2]), 1)
    """
    return _conv("conv3d", x, weight, bias, stride, padding, dilation, groups, data_format,
                 False)


def subm_conv3d(x: SparseCooTensor, weight: Tensor, bias: Optional[Tensor] = None, stride=1,
                padding=0, dilation=1, groups: int = 1, data_format: str = "NDHWC",
                key=None, name: Optional[str] = None) -> SparseCooTensor:
    """Submanifold sparse 3-D convolution: outputs only at the input's sites (stride 1).

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.sparse.sparse_coo_tensor([[0], [1], [1], [1]], [[1.0]], [1, 3, 3, 3, 1])
        >>> y = paddle.sparse.nn.functional.subm_conv3d(x, paddle.ones([3, 3, 3, 1, 2]),
        ...                                               padding=1)
        >>> y.values().numpy().tolist()
        [[1.0, 1.0]]
    """
    return _conv("subm_conv3d", x, weight, bias, stride, padding, dilation, groups,
                 data_format, True)


def conv2d(x: SparseCooTensor, weight: Tensor, bias: Optional[Tensor] = None, stride=1,
           padding=0, dilation=1, groups: int = 1, data_format: str = "NHWC",
           name: Optional[str] = None) -> SparseCooTensor:
    """Sparse 2-D convolution of a COO tensor [N, H, W, C] (3 sparse dims) with weight
    [kH, kW, C_in, C_out] (see conv3d).

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.sparse.sparse_coo_tensor([[0], [1], [1]], [[1.0]], [1, 3, 3, 1])
        >>> paddle.sparse.nn.functional.conv2d(x, paddle.ones([3, 3, 1, 2])).nnz()
        1
    """
    return _conv("conv2d", x, weight, bias, stride, padding, dilation, groups, data_format,
                 False, 2)


def subm_conv2d(x: SparseCooTensor, weight: Tensor, bias: Optional[Tensor] = None, stride=1,
                padding=0, dilation=1, groups: int = 1, data_format: str = "NHWC",
                key=None, name: Optional[str] = None) -> SparseCooTensor:
    """Submanifold sparse 2-D convolution (outputs at the input's sites, stride 1)."""
    return _conv("subm_conv2d", x, weight, bias, stride, padding, dilation, groups,
                 data_format, True, 2)


def subm_conv2d_igemm(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1,
                      data_format="NHWC", key=None, name=None) -> SparseCooTensor:
    """subm_conv2d (Paddle's implicit-GEMM kernel variant; same result)."""
    return subm_conv2d(x, weight, bias, stride, padding, dilation, groups, data_format, key)


def subm_conv3d_igemm(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1,
                      data_format="NDHWC", key=None, name=None) -> SparseCooTensor:
    """subm_conv3d (Paddle's implicit-GEMM kernel variant; same result)."""
    return subm_conv3d(x, weight, bias, stride, padding, dilation, groups, data_format, key)


def max_pool3d(x: SparseCooTensor, kernel_size, stride=None, padding=0,
               ceil_mode: bool = False, data_format: str = "NDHWC",
               name: Optional[str] = None) -> SparseCooTensor:
    """Sparse 3-D max pooling over the stored sites of each window (absent sites ignored).

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.sparse.sparse_coo_tensor([[0, 0], [0, 1], [0, 1], [0, 1]],
        ...                                     [[1.0], [3.0]], [1, 2, 2, 2, 1])
        >>> paddle.sparse.nn.functional.max_pool3d(x, 2).values().numpy().tolist()
        [[3.0]]
    """
    x = _check_input("max_pool3d", x)
    if ceil_mode or data_format != "NDHWC":
        raise ValueError("paddle.sparse.nn.functional.max_pool3d: ceil_mode must be False "
                         "and data_format 'NDHWC'")
    kernel = _ntuple("max_pool3d", "kernel_size", kernel_size)
    stride = kernel if stride is None else _ntuple("max_pool3d", "stride", stride)
    padding = _ntuple("max_pool3d", "padding", padding)
    coords, out_shape, book = _rulebook(x, kernel, stride, padding, (1, 1, 1), False)
    n_out, c = coords.shape[1], x.shape[-1]
    floor = np.finfo(x.values().numpy().dtype).min
    candidates = []
    for _, rows, outs in book:
        absent = np.full((n_out, c), floor, x.values().numpy().dtype)
        absent[outs] = 0
        placed = T.index_add(T.zeros([n_out, c], dtype=x.dtype), Tensor(outs), 0,
                             T.index_select(x.values(), Tensor(rows), 0))
        candidates.append(placed + Tensor(absent))
    vals = T.max(T.stack(candidates), axis=0)
    return SparseCooTensor(coords, vals, [x.shape[0]] + out_shape + [c], True)


def attention(query: Tensor, key: Tensor, value: Tensor, sparse_mask: SparseCsrTensor,
              key_padding_mask: Optional[Tensor] = None, attn_mask: Optional[Tensor] = None,
              name: Optional[str] = None) -> Tensor:
    """softmax(Q K^T / sqrt(d)) V with the scores evaluated only on `sparse_mask`'s layout.

    Args:
        query, key, value (Tensor): [batch, heads, seq_len, head_dim].
        sparse_mask (SparseCsrTensor): [batch * heads, seq_len, seq_len] layout.
        key_padding_mask (Tensor, optional): [batch, seq_len]; 0 drops that key.
        attn_mask (Tensor, optional): [seq_len, seq_len]; 0 drops that (query, key) pair.

    Returns:
        Tensor: [batch, heads, seq_len, head_dim], dense.

    Examples:
        >>> import sampan as paddle
        >>> q = paddle.ones([1, 1, 2, 4])
        >>> mask = paddle.to_tensor([[[1., 0.], [1., 1.]]]).to_sparse_csr()
        >>> paddle.sparse.nn.functional.attention(q, q, q, mask).shape
        paddle.Size([1, 1, 2, 4])
    """
    if query.ndim != 4 or key.shape != query.shape or value.shape != query.shape:
        raise ValueError(f"paddle.sparse.nn.functional.attention: query, key and value must "
                         f"share one [batch, heads, seq_len, head_dim] shape, got "
                         f"{list(query.shape)}, {list(key.shape)}, {list(value.shape)}")
    b, h, s, d = query.shape
    check_sparse("nn.functional.attention", sparse_mask, "sparse_mask")
    if sparse_mask.shape != [b * h, s, s]:
        raise ValueError(f"paddle.sparse.nn.functional.attention: sparse_mask must be "
                         f"[{b * h}, {s}, {s}], got {list(sparse_mask.shape)}")
    layout = sparse_mask.to_sparse_coo()
    keep = np.ones(layout.nnz(), bool)
    bh, rows, cols = layout._idx
    if key_padding_mask is not None:
        keep &= key_padding_mask.numpy().reshape(b, s)[bh // h, cols] != 0
    if attn_mask is not None:
        keep &= attn_mask.numpy().reshape(s, s)[rows, cols] != 0
    q = T.reshape(query, [b * h, s, d]) * (1.0 / float(d) ** 0.5)
    k = T.transpose(T.reshape(key, [b * h, s, d]), [0, 2, 1])
    kept = SparseCooTensor(layout._idx[:, keep], T.zeros([int(keep.sum())]), layout.shape, True)
    probs = softmax(masked_matmul(q, k, kept))
    return T.reshape(matmul(probs, T.reshape(value, [b * h, s, d])), [b, h, s, d])
