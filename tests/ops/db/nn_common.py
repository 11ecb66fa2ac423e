"""Op database entries for sampan/ops/nn_common.py (linear, dropout, embedding, gather_tree)."""
import numpy as np

import sampan as paddle
from sampan.ops import REGISTRY
from sampan.ops.dispatch import dispatch
from tests.ops.op_db import OpEntry, Sample

F = paddle.nn.functional
_SEED = 1234


def _linear_samples(rng, dtype):
    def r(*shape):
        return rng.uniform(-1, 1, shape).astype(dtype)
    return [Sample((r(3, 4), r(4, 2), r(2)), name="2-d"),
            Sample((r(2, 3, 4), r(4, 2), r(2)), name="3-d"),
            Sample((r(4), r(4, 3), r(3)), name="1-d"),
            Sample((r(3, 4), r(4, 2)), name="no-bias"),
            Sample((r(4, 3).T, r(2, 4).T, r(2)), name="non-contiguous"),
            Sample((r(3, 4), r(4, 2), r(1, 2)), name="bias-[1,out]"),
            Sample((r(0, 4), r(4, 2), r(2)), name="empty")]


def _linear_ref(x, w, b=None):
    out = x @ w
    return out if b is None else out + b


def _dropout_fn(x, **kw):
    """The op with a fixed seed (deterministic, so finite differences apply)."""
    return dispatch(REGISTRY["dropout"], (x,), {**kw, "seed": _SEED})


def _dropout_ref(x, p=0.5, axis=None, mode="upscale_in_train"):
    # the kernel's documented stream: 16-bit uniforms, four per raw 64-bit PCG64 draw
    shape = [d if axis is None or i in [a % x.ndim for a in axis] else 1
             for i, d in enumerate(x.shape)]
    n = int(np.prod(shape))
    raw = np.random.PCG64(_SEED).random_raw((n + 3) // 4)
    keep = raw.view(np.uint16)[:n].reshape(shape) >= round(p * 65536)
    mask = keep.astype(x.dtype)
    if mode == "upscale_in_train" and p < 1:
        mask = mask / x.dtype.type(1 - p)
    return x * mask, mask


def _dropout_eval_ref(x, p=0.5, mode="upscale_in_train", training=False):
    keep = 1.0 if mode == "upscale_in_train" else 1.0 - p
    return x * x.dtype.type(keep), np.full(x.shape, keep, x.dtype)


def _dropout_eval_samples(rng, dtype):
    x = rng.uniform(-1, 1, (4, 6)).astype(dtype)
    return [Sample((x,), {"p": 0.3, "training": False}, name="upscale"),
            Sample((x,), {"p": 0.4, "mode": "downscale_in_infer", "training": False},
                   name="downscale")]


def _dropout_samples(rng, dtype):
    x = rng.uniform(-1, 1, (4, 6)).astype(dtype)
    return [Sample((x,), {"p": 0.3}), Sample((x,), {"p": 0.5, "mode": "downscale_in_infer"},
                                             name="downscale"),
            Sample((x,), {"p": 0.4, "axis": [1]}, name="axis"),
            Sample((rng.uniform(-1, 1, (2, 3, 2)).astype(dtype),), {"p": 0.5, "axis": [0, -2]},
                   name="axis-2"),
            Sample((x,), {"p": 1.0}, name="p=1"),
            Sample((rng.uniform(-1, 1, (6, 4)).astype(dtype).T,), {"p": 0.2},
                   name="non-contiguous"),
            Sample((np.asarray(1.5, dtype),), {"p": 0.5}, name="0-d"),
            Sample((np.zeros((0, 3), dtype),), {"p": 0.5}, name="empty")]


def _embedding_samples(rng, dtype):
    w = rng.uniform(-1, 1, (5, 3)).astype(dtype)
    ids = np.array([[0, 2, 4], [2, 2, 1]], np.int64)
    return [Sample((ids, w)), Sample((ids, w), {"padding_idx": 2}, name="padding"),
            Sample((ids.astype(np.int32), w), {"padding_idx": -1}, name="padding-negative"),
            Sample((np.asarray(3, np.int64), w), name="0-d"),
            Sample((np.zeros((0, 2), np.int64), w), name="empty")]


def _embedding_ref(ids, w, padding_idx=None):
    out = w[ids]
    if padding_idx is not None:
        out[ids == padding_idx % w.shape[0]] = 0
    return out


def _gather_tree_samples(rng, dtype):
    ids = rng.integers(0, 10, (4, 2, 3)).astype(dtype)
    parents = rng.integers(0, 3, (4, 2, 3)).astype(dtype)
    return [Sample((ids, parents)), Sample((ids[:1], parents[:1]), name="one-step"),
            Sample((ids[:0], parents[:0]), name="empty")]


def _gather_tree_ref(ids, parents):
    out = np.empty_like(ids)
    steps, batch, beam = ids.shape
    for b in range(batch):
        for k in range(beam):
            p = k
            for t in range(steps - 1, -1, -1):
                out[t, b, k] = ids[t, b, p]
                p = parents[t, b, p]
    return out


ENTRIES = [
    OpEntry("linear", F.linear, _linear_ref, _linear_samples, double_grad=True),
    # training-mode samples draw random masks, which an inference graph cannot (dropout-eval)
    OpEntry("dropout", _dropout_fn, _dropout_ref, _dropout_samples, onnx=False),
    OpEntry("dropout", _dropout_fn, _dropout_eval_ref, _dropout_eval_samples, grad=False,
            name="dropout-eval", onnx=(0,)),
    OpEntry("embedding", F.embedding, _embedding_ref, _embedding_samples, grad_args=(1,)),
    OpEntry("gather_tree", F.gather_tree, _gather_tree_ref, _gather_tree_samples,
            dtypes=("int64", "int32"), grad=False),
]
