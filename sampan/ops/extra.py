"""Operators behind the miscellaneous tensor functions of tensor/extra.py: top_p_sampling
(nucleus sampling, a random kernel). Imports `framework` and `ops` only.
"""
from __future__ import annotations

from ..framework import dtype as _dt
from ..framework.random import rng
from .opdef import OpDef, TensorSpec, register

_MODES = ("truncated", "non-truncated")


@register
class TopPSampling(OpDef):
    """Nucleus sampling per row of the probabilities x [batch, vocab]: sort descending, keep
    the shortest prefix whose cumulative mass reaches ps[b] (at least the top token), drop
    kept tokens below threshold[b] (never the top one), and draw one token with probability
    proportional to its score. 'truncated' renormalises over the kept tokens; 'non-truncated'
    draws u ~ U(0, ps[b]) over the sorted cumulative sums and falls back to the last kept
    token. Row b uses topp_seed[b] when given, else the op seed. Outputs: the drawn score
    and id [batch, 1], and the top-k scores and ids [batch, k]. No gradient."""

    name = "top_p_sampling"
    inputs = ("x", "ps", "threshold?", "topp_seed?")
    outputs = ("out", "ids", "topk_scores", "topk_ids")
    attrs = {"seed": 0, "k": 0, "mode": "truncated"}
    random = True
    check = True

    def infer(self, x, ps, threshold=None, topp_seed=None, seed=0, k=0, mode="truncated"):
        if x.ndim != 2:
            raise ValueError(f"{self.name}: x must be a 2-D tensor [batch, vocab], got shape "
                             f"{list(x.shape)}")
        if x.dtype.kind != "f":
            raise TypeError(f"{self.name}: x must be a floating point tensor, got "
                            f"{x.dtype.name}")
        batch = x.shape[0]
        for arg, spec in (("ps", ps), ("threshold", threshold), ("topp_seed", topp_seed)):
            if spec is None:
                continue
            n = 1
            for d in spec.shape:
                n *= d
            if -1 not in spec.shape and batch != -1 and n != batch:
                raise ValueError(f"{self.name}: {arg} must hold one value per row of x "
                                 f"(batch {batch}), got shape {list(spec.shape)}")
        if mode not in _MODES:
            raise ValueError(f"{self.name}: mode must be 'truncated' or 'non-truncated', "
                             f"got {mode!r}")
        if k < 0 or (x.shape[1] != -1 and k > x.shape[1]):
            raise ValueError(f"{self.name}: k must be in [0, {x.shape[1]}] (the vocab size), "
                             f"got {k}")
        return (TensorSpec((batch, 1), x.dtype), TensorSpec((batch, 1), _dt.int64),
                TensorSpec((batch, k), x.dtype), TensorSpec((batch, k), _dt.int64))

    def compute(self, xp, x, ps, threshold=None, topp_seed=None, seed=0, k=0,
                mode="truncated"):
        batch, vocab = x.shape
        ps = ps.reshape(-1).astype(xp.float64)
        thr = None if threshold is None else threshold.reshape(-1).astype(xp.float64)
        seeds = None if topp_seed is None else topp_seed.reshape(-1)
        order = xp.argsort(-x, axis=1, kind="stable")
        ranked = xp.take_along_axis(x, order, axis=1)
        out = xp.zeros((batch, 1), x.dtype)
        ids = xp.zeros((batch, 1), xp.int64)
        shared = rng(seed)
        for b in range(batch):
            gen = shared if seeds is None else rng(int(seeds[b]))
            probs = ranked[b].astype(xp.float64)
            cum = xp.cumsum(probs)
            count = min(int(xp.searchsorted(cum, ps[b], side="left")) + 1, vocab)
            keep = probs[:count]
            if thr is not None:
                keep = xp.where(xp.arange(count) == 0, keep, xp.where(keep >= thr[b], keep, 0.0))
            if mode == "truncated" or keep.sum() <= 0:
                total = keep.sum()
                pick = 0 if total <= 0 else int(gen.choice(count, p=keep / total))
            else:
                u = gen.uniform(0.0, max(float(ps[b]), 0.0))
                pick = min(int(xp.searchsorted(xp.cumsum(keep), u, side="right")), count - 1)
                while pick > 0 and keep[pick] == 0:
                    pick -= 1
            out[b, 0] = ranked[b, pick]
            ids[b, 0] = order[b, pick]
        return out, ids, ranked[:, :k].copy(), order[:, :k].astype(xp.int64)
