"""Sequence decoding ops of paddle.text: `viterbi_decode`. Imports only `ops.opdef`."""
from __future__ import annotations

from .opdef import OpDef, TensorSpec, register


@register
class ViterbiDecode(OpDef):
    """scores, path = viterbi_decode(potentials [B, T, N], transition_params [N, N],
    lengths [B]): the highest scoring tag sequence of each batch row under emission scores
    and transition[j, k] (tag j -> tag k) scores.

    With include_bos_eos_tag, row N-1 of the transitions is added as the start scores and,
    as in Paddle's kernel, row N-2 is added as the stop scores after each row's last step.
    path is [B, max(lengths)] int64, zero past each row's length; a zero-length row scores
    max(potentials[b, 0] (+ start)) with an all-zero path, as Paddle's kernel does. Ties pick
    the lowest tag. Not differentiable."""
    name = "viterbi_decode"
    inputs = ("potentials", "transition_params", "lengths")
    outputs = ("scores", "path")
    attrs = {"include_bos_eos_tag": True}
    check = True

    def infer(self, potentials, transition_params, lengths, include_bos_eos_tag=True):
        p, t, n = potentials, transition_params, lengths
        if p.ndim != 3 or p.dtype.name not in ("float32", "float64"):
            raise ValueError(f"viterbi_decode: potentials must be a 3-D float32/float64 tensor "
                             f"[batch, seq_len, num_tags], got shape {list(p.shape)} dtype "
                             f"{p.dtype.name}")
        if t.ndim != 2 or t.shape[0] != t.shape[1] or t.shape[0] != p.shape[2]:
            raise ValueError(f"viterbi_decode: transition_params must be [num_tags, num_tags] "
                             f"with num_tags = {p.shape[2]} (potentials' last dim), got shape "
                             f"{list(t.shape)}")
        if t.dtype is not p.dtype:
            raise TypeError(f"viterbi_decode: transition_params dtype {t.dtype.name} differs "
                            f"from potentials dtype {p.dtype.name}")
        if n.ndim != 1 or n.shape[0] != p.shape[0] or n.dtype.name != "int64":
            raise ValueError(f"viterbi_decode: lengths must be a 1-D int64 tensor with one "
                             f"length per batch row ({p.shape[0]}), got shape {list(n.shape)} "
                             f"dtype {n.dtype.name}")
        if include_bos_eos_tag and p.shape[2] >= 0 and p.shape[2] < 2:
            raise ValueError(f"viterbi_decode: include_bos_eos_tag=True needs at least 2 tags "
                             f"(start and stop), got {p.shape[2]}")
        return TensorSpec((p.shape[0],), p.dtype), TensorSpec((p.shape[0], -1), "int64")

    def compute(self, xp, potentials, transition_params, lengths, include_bos_eos_tag=True):
        b, seq_len, _ = potentials.shape
        bad = (lengths < 0) | (lengths > seq_len)
        if bad.any():
            raise ValueError(f"viterbi_decode: lengths must lie in [0, seq_len={seq_len}], got "
                             f"{lengths[bad].tolist()}")
        max_len = int(lengths.max()) if b else 0
        if seq_len == 0:
            return xp.zeros((b,), potentials.dtype), xp.zeros((b, 0), xp.int64)
        trans = transition_params
        alpha = potentials[:, 0] + (trans[-1] if include_bos_eos_tag else 0)
        alpha = self._stop(xp, alpha, trans, lengths, 1, include_bos_eos_tag)
        history = []
        for t in range(1, max_len):
            total = alpha[:, :, None] + trans[None]
            history.append(total.argmax(axis=1))
            step = total.max(axis=1) + potentials[:, t]
            alpha = xp.where((lengths > t)[:, None], step, alpha)
            alpha = self._stop(xp, alpha, trans, lengths, t + 1, include_bos_eos_tag)
        last = alpha.argmax(axis=1)
        scores = alpha.max(axis=1)
        return scores.astype(potentials.dtype), self._backtrack(xp, history, last, lengths, max_len)

    @staticmethod
    def _stop(xp, alpha, trans, lengths, length, include_bos_eos_tag):
        if not include_bos_eos_tag:
            return alpha
        return alpha + xp.where((lengths == length)[:, None], trans[-2][None], 0)

    @staticmethod
    def _backtrack(xp, history, last, lengths, max_len):
        rows = xp.arange(last.shape[0])
        path = xp.zeros((last.shape[0], max_len), xp.int64)
        cur = last
        for t in range(max_len - 1, -1, -1):
            cur = xp.where(lengths - 1 == t, last, cur)
            path[:, t] = xp.where(t < lengths, cur, 0)
            if t > 0:
                cur = xp.where(t < lengths, history[t - 1][rows, cur], cur)
        return path
