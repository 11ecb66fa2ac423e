"""Recurrent and attention operators with dedicated kernels (whole-sequence LSTM/GRU/simple
RNN scans, scaled dot-product attention).

The scans take the input projection of every time step precomputed (one big matmul done by
the caller) and run only the recurrence in a NumPy loop; their vjps are written in sampan ops
(backpropagation through time with the per-step factors computed for all steps at once).
Imports only `framework` and sibling op modules.
"""
from __future__ import annotations

import math

from .dispatch import call
from .opdef import OpDef, TensorSpec, broadcast_shapes, register, require_float


# --- shared helpers ------------------------------------------------------------------------

def _sigmoid_(xp, a):
    """sigmoid(a) in place, as 0.5 * (1 + tanh(a / 2)) (no overflow, keeps the dtype)."""
    a *= 0.5
    xp.tanh(a, out=a)
    a += 1.0
    a *= 0.5


def _check_scan(api: str, x, states, weight_hh, mask, gates: int):
    """Validate a scan's specs; returns (T, B, H)."""
    require_float(api, x, "x")
    if x.ndim != 3:
        raise ValueError(f"{api}: x must be [time_steps, batch, {gates} * hidden] (3-D), "
                         f"got shape {list(x.shape)}")
    T, B, G = x.shape
    if weight_hh.ndim != 2:
        raise ValueError(f"{api}: weight_hh must be 2-D [{gates} * hidden, hidden], got shape "
                         f"{list(weight_hh.shape)}")
    H = weight_hh.shape[1]
    if -1 not in (H, weight_hh.shape[0]) and weight_hh.shape[0] != gates * H:
        raise ValueError(f"{api}: weight_hh must have shape [{gates} * hidden, hidden], got "
                         f"{list(weight_hh.shape)}")
    if -1 not in (G, H) and G != gates * H:
        raise ValueError(f"{api}: the last dim of x ({G}) must be {gates} * hidden "
                         f"({gates * H}) for weight_hh of shape {list(weight_hh.shape)}")
    for name, s in states:
        if s.ndim != 2 or any(a != b and -1 not in (a, b) for a, b in zip(s.shape, (B, H))):
            raise ValueError(f"{api}: {name} must have shape [batch, hidden] = {[B, H]}, got "
                             f"{list(s.shape)}")
        if s.dtype is not x.dtype:
            raise TypeError(f"{api}: {name} must have the dtype of x ({x.dtype.name}), got "
                            f"{s.dtype.name}")
    if weight_hh.dtype is not x.dtype:
        raise TypeError(f"{api}: weight_hh must have the dtype of x ({x.dtype.name}), got "
                        f"{weight_hh.dtype.name}")
    if mask is not None and (mask.ndim != 2 or any(
            a != b and -1 not in (a, b) for a, b in zip(mask.shape, (T, B)))):
        raise ValueError(f"{api}: mask must have shape [time_steps, batch] = {[T, B]}, got "
                         f"{list(mask.shape)}")
    return T, B, H


def _prev(h0, hs):
    """The state entering each step: [h0, h_0, ..., h_{T-2}] stacked on axis 0."""
    return call("concat", [call("unsqueeze", h0, axis=[0]), hs[:-1]], axis=0)


def _steps(t, with_col: bool = False):
    """The per-step slices of a [T, ...] tensor (a [T, B] mask gets a trailing unit dim)."""
    if with_col:
        t = call("unsqueeze", t, axis=[-1])
    n = t.shape[0]
    if n == 0:
        return []
    return [call("squeeze", p, axis=[0]) for p in call("split", t, num_or_sections=n, axis=0)]


def _stack_steps(states: list, h0):
    """Stack per-step states on a new axis 0; no steps gives an empty [0, *h0.shape]."""
    if not states:
        return call("unsqueeze", h0, axis=[0])[:0]
    return call("stack", states, axis=0)


def _times_wt(seq, w):
    """seq [T, B, H] @ w^T as one 2-D GEMM, reshaped back to [T, B, G]."""
    T, B, H = seq.shape
    out = call("matmul", call("reshape", seq, shape=[T * B, H]), w, transpose_y=True)
    return call("reshape", out, shape=[T, B, w.shape[0]])


def _blend(mask_t, new, old):
    """new where the step is valid (mask 1), old where it is padding (mask 0)."""
    return old + mask_t * (new - old)


# --- LSTM ----------------------------------------------------------------------------------

@register
class LstmScan(OpDef):
    """LSTM recurrence over a whole sequence (time-major), Paddle's gate order i, f, g, o.

    x is the precomputed input projection x_t @ W_ih^T + b_ih + b_hh, shape [T, B, 4H];
    per step gates = x_t + h @ weight_hh^T, c' = f * c + i * g, h' = o * tanh(c').
    mask ([T, B], 1 = valid step, 0 = padding) keeps the previous states at padded steps.
    Returns the states after every step: h [T, B, H] and c [T, B, H].
    """

    name = "_lstm_scan"
    inputs = ("x", "h0", "c0", "weight_hh", "mask?")
    outputs = ("h", "c")
    saves = ("x", "h0", "c0", "weight_hh", "mask", "h", "c")
    check = True

    def infer(self, x, h0, c0, weight_hh, mask=None):
        T, B, H = _check_scan(self.name, x, [("h0", h0), ("c0", c0)], weight_hh, mask, 4)
        return TensorSpec((T, B, H), x.dtype), TensorSpec((T, B, H), x.dtype)

    def compute(self, xp, x, h0, c0, weight_hh, mask=None):
        T, B, _ = x.shape
        H = weight_hh.shape[1]
        hs = xp.empty((T, B, H), x.dtype)
        cs = xp.empty((T, B, H), x.dtype)
        wt = weight_hh.T
        gates = xp.empty((B, 4 * H), x.dtype)
        h, c = h0, c0
        for t in range(T):
            xp.matmul(h, wt, out=gates)
            gates += x[t]
            _sigmoid_(xp, gates[:, :2 * H])
            _sigmoid_(xp, gates[:, 3 * H:])
            xp.tanh(gates[:, 2 * H:3 * H], out=gates[:, 2 * H:3 * H])
            ct, ht = cs[t], hs[t]
            xp.multiply(gates[:, H:2 * H], c, out=ct)
            ct += gates[:, :H] * gates[:, 2 * H:3 * H]
            xp.tanh(ct, out=ht)
            ht *= gates[:, 3 * H:]
            if mask is not None:
                m = mask[t][:, None]
                ct -= c
                ct *= m
                ct += c
                ht -= h
                ht *= m
                ht += h
            h, c = ht, ct
        return hs, cs

    def vjp(self, ctx, gh, gc):
        x, w, mask = ctx.x, ctx.weight_hh, ctx.mask
        T = x.shape[0]
        if T == 0:
            return x * 0.0, ctx.h0 * 0.0, ctx.c0 * 0.0, w * 0.0, None
        hp, cp = _prev(ctx.h0, ctx.h), _prev(ctx.c0, ctx.c)
        gates = x + _times_wt(hp, w)
        gi, gf, gg, go = call("split", gates, num_or_sections=4, axis=-1)
        i, f, o = call("sigmoid", gi), call("sigmoid", gf), call("sigmoid", go)
        g = call("tanh", gg)
        tc = call("tanh", f * cp + i * g)
        dtanh_c = o * (1.0 - tc * tc)
        factors = call("concat", [g * i * (1.0 - i), cp * f * (1.0 - f), i * (1.0 - g * g),
                                  tc * o * (1.0 - o)], axis=-1)
        gh_t, gc_t, a_t, k_t, f_t = (_steps(v) for v in (gh, gc, dtanh_c, factors, f))
        m_t = _steps(mask, True) if mask is not None else None
        dgs = [None] * T
        dh = dc = None
        for t in range(T - 1, -1, -1):
            dh = gh_t[t] if dh is None else gh_t[t] + dh
            dc = gc_t[t] if dc is None else gc_t[t] + dc
            dh_new, dc_new = dh, dc
            if m_t is not None:
                dh_new, dc_new = dh * m_t[t], dc * m_t[t]
            dc_new = dc_new + dh_new * a_t[t]
            dg = call("concat", [dc_new, dc_new, dc_new, dh_new], axis=-1) * k_t[t]
            dgs[t] = dg
            carry_h = call("matmul", dg, w)
            carry_c = dc_new * f_t[t]
            if m_t is not None:
                keep = 1.0 - m_t[t]
                carry_h = carry_h + dh * keep
                carry_c = carry_c + dc * keep
            dh, dc = carry_h, carry_c
        dx = call("stack", dgs, axis=0)
        dw = None
        if ctx.needs[3]:
            H = w.shape[1]
            dw = call("matmul", call("reshape", dx, shape=[-1, 4 * H]),
                      call("reshape", hp, shape=[-1, H]), transpose_x=True)
        return dx, dh, dc, dw, None

    @staticmethod
    def decompose(x, h0, c0, weight_hh, mask=None):
        """The same recurrence as per-step sampan ops."""
        hs, cs = [], []
        h, c = h0, c0
        steps = _steps(mask, True) if mask is not None else None
        for t, xt in enumerate(_steps(x)):
            gates = xt + call("matmul", h, weight_hh, transpose_y=True)
            gi, gf, gg, go = call("split", gates, num_or_sections=4, axis=-1)
            c_new = call("sigmoid", gf) * c + call("sigmoid", gi) * call("tanh", gg)
            h_new = call("sigmoid", go) * call("tanh", c_new)
            if steps is not None:
                h_new, c_new = _blend(steps[t], h_new, h), _blend(steps[t], c_new, c)
            h, c = h_new, c_new
            hs.append(h)
            cs.append(c)
        return _stack_steps(hs, h0), _stack_steps(cs, c0)


# --- GRU -----------------------------------------------------------------------------------

@register
class GruScan(OpDef):
    """GRU recurrence over a whole sequence (time-major), Paddle's gate order r, z, c.

    x is the precomputed x_t @ W_ih^T + b_ih, shape [T, B, 3H]; per step
    hg = h @ weight_hh^T + bias_hh, r = sigmoid(x_r + hg_r), z = sigmoid(x_z + hg_z),
    c = tanh(x_c + r * hg_c), h' = (h - c) * z + c (the reset gate applies after the matmul).
    mask ([T, B], 1 = valid) keeps the previous state at padded steps. Returns h [T, B, H].
    """

    name = "_gru_scan"
    inputs = ("x", "h0", "weight_hh", "bias_hh?", "mask?")
    outputs = ("h",)
    saves = ("x", "h0", "weight_hh", "bias_hh", "mask", "h")
    check = True

    def infer(self, x, h0, weight_hh, bias_hh=None, mask=None):
        T, B, H = _check_scan(self.name, x, [("h0", h0)], weight_hh, mask, 3)
        if bias_hh is not None and (bias_hh.ndim != 1 or bias_hh.shape[0] not in (-1, 3 * H)):
            raise ValueError(f"{self.name}: bias_hh must have shape [{3 * H}], got "
                             f"{list(bias_hh.shape)}")
        return TensorSpec((T, B, H), x.dtype)

    def compute(self, xp, x, h0, weight_hh, bias_hh=None, mask=None):
        T, B, _ = x.shape
        H = weight_hh.shape[1]
        hs = xp.empty((T, B, H), x.dtype)
        wt = weight_hh.T
        hg = xp.empty((B, 3 * H), x.dtype)
        rz = xp.empty((B, 2 * H), x.dtype)
        h = h0
        for t in range(T):
            xp.matmul(h, wt, out=hg)
            if bias_hh is not None:
                hg += bias_hh
            xt = x[t]
            xp.add(xt[:, :2 * H], hg[:, :2 * H], out=rz)
            _sigmoid_(xp, rz)
            ht = hs[t]
            xp.multiply(rz[:, :H], hg[:, 2 * H:], out=ht)
            ht += xt[:, 2 * H:]
            xp.tanh(ht, out=ht)                     # ht holds c
            new = (h - ht) * rz[:, H:]
            ht += new                               # h' = (h - c) * z + c
            if mask is not None:
                m = mask[t][:, None]
                ht -= h
                ht *= m
                ht += h
            h = ht
        return hs

    def vjp(self, ctx, gh):
        x, w, b, mask = ctx.x, ctx.weight_hh, ctx.bias_hh, ctx.mask
        T = x.shape[0]
        if T == 0:
            return (x * 0.0, ctx.h0 * 0.0, w * 0.0, None if b is None else b * 0.0, None)
        H = w.shape[1]
        hp = _prev(ctx.h0, ctx.h)
        hg = _times_wt(hp, w)
        if b is not None:
            hg = hg + b
        xr, xz, xc = call("split", x, num_or_sections=3, axis=-1)
        hr, hz, hc = call("split", hg, num_or_sections=3, axis=-1)
        r, z = call("sigmoid", xr + hr), call("sigmoid", xz + hz)
        c = call("tanh", xc + r * hc)
        k_z = (hp - c) * z * (1.0 - z)
        k_c = (1.0 - z) * (1.0 - c * c)
        k_r = k_c * hc * r * (1.0 - r)
        k_h = call("concat", [k_r, k_z, k_c * r], axis=-1)
        gh_t, kh_t, z_t = _steps(gh), _steps(k_h), _steps(z)
        m_t = _steps(mask, True) if mask is not None else None
        dhgs, dnews = [None] * T, [None] * T
        dh = None
        for t in range(T - 1, -1, -1):
            dh = gh_t[t] if dh is None else gh_t[t] + dh
            dnew = dh * m_t[t] if m_t is not None else dh
            dhg = call("concat", [dnew, dnew, dnew], axis=-1) * kh_t[t]
            dhgs[t], dnews[t] = dhg, dnew
            carry = call("matmul", dhg, w) + dnew * z_t[t]
            if m_t is not None:
                carry = carry + dh * (1.0 - m_t[t])
            dh = carry
        dhg_all = call("stack", dhgs, axis=0)
        dnew_all = call("stack", dnews, axis=0)
        dx = call("concat", [dnew_all, dnew_all, dnew_all], axis=-1) * call(
            "concat", [k_r, k_z, k_c], axis=-1) if ctx.needs[0] else None
        dw = call("matmul", call("reshape", dhg_all, shape=[-1, 3 * H]),
                  call("reshape", hp, shape=[-1, H]), transpose_x=True) if ctx.needs[2] else None
        db = call("sum", dhg_all, axis=[0, 1], keepdim=False, dtype=None) \
            if b is not None and ctx.needs[3] else None
        return dx, dh, dw, db, None

    @staticmethod
    def decompose(x, h0, weight_hh, bias_hh=None, mask=None):
        """The same recurrence as per-step sampan ops."""
        hs = []
        h = h0
        steps = _steps(mask, True) if mask is not None else None
        for t, xt in enumerate(_steps(x)):
            hg = call("matmul", h, weight_hh, transpose_y=True)
            if bias_hh is not None:
                hg = hg + bias_hh
            xr, xz, xc = call("split", xt, num_or_sections=3, axis=-1)
            hr, hz, hc = call("split", hg, num_or_sections=3, axis=-1)
            r, z = call("sigmoid", xr + hr), call("sigmoid", xz + hz)
            c = call("tanh", xc + r * hc)
            h_new = (h - c) * z + c
            h = _blend(steps[t], h_new, h) if steps is not None else h_new
            hs.append(h)
        return _stack_steps(hs, h0)


# --- simple (Elman) RNN --------------------------------------------------------------------

@register
class RnnScan(OpDef):
    """Elman RNN recurrence over a whole sequence (time-major): h' = act(x_t + h @ W_hh^T).

    x is the precomputed x_t @ W_ih^T + b_ih + b_hh, shape [T, B, H]; activation is "tanh"
    or "relu" (subgradient 0 at 0). mask ([T, B], 1 = valid) keeps the previous state at
    padded steps. Returns h [T, B, H].
    """

    name = "_rnn_scan"
    inputs = ("x", "h0", "weight_hh", "mask?")
    outputs = ("h",)
    attrs = {"activation": "tanh"}
    saves = ("x", "h0", "weight_hh", "mask", "h")
    check = True

    def infer(self, x, h0, weight_hh, mask=None, activation="tanh"):
        if activation not in ("tanh", "relu"):
            raise ValueError(f"{self.name}: activation must be 'tanh' or 'relu', got "
                             f"{activation!r}")
        T, B, H = _check_scan(self.name, x, [("h0", h0)], weight_hh, mask, 1)
        return TensorSpec((T, B, H), x.dtype)

    def compute(self, xp, x, h0, weight_hh, mask=None, activation="tanh"):
        T, B, H = x.shape
        hs = xp.empty((T, B, H), x.dtype)
        wt = weight_hh.T
        h = h0
        for t in range(T):
            ht = hs[t]
            xp.matmul(h, wt, out=ht)
            ht += x[t]
            if activation == "tanh":
                xp.tanh(ht, out=ht)
            else:
                xp.maximum(ht, 0, out=ht)
            if mask is not None:
                m = mask[t][:, None]
                ht -= h
                ht *= m
                ht += h
            h = ht
        return hs

    def vjp(self, ctx, gh):
        x, w, mask = ctx.x, ctx.weight_hh, ctx.mask
        T = x.shape[0]
        if T == 0:
            return x * 0.0, ctx.h0 * 0.0, w * 0.0, None
        H = w.shape[1]
        hp = _prev(ctx.h0, ctx.h)
        pre = x + _times_wt(hp, w)
        if ctx.activation == "tanh":
            new = call("tanh", pre)
            slope = 1.0 - new * new
        else:
            slope = call("cast", call("greater_than", pre, pre * 0.0), dtype=x.dtype.name)
        gh_t, s_t = _steps(gh), _steps(slope)
        m_t = _steps(mask, True) if mask is not None else None
        dpres = [None] * T
        dh = None
        for t in range(T - 1, -1, -1):
            dh = gh_t[t] if dh is None else gh_t[t] + dh
            dnew = dh * m_t[t] if m_t is not None else dh
            dpre = dnew * s_t[t]
            dpres[t] = dpre
            carry = call("matmul", dpre, w)
            if m_t is not None:
                carry = carry + dh * (1.0 - m_t[t])
            dh = carry
        dx = call("stack", dpres, axis=0)
        dw = call("matmul", call("reshape", dx, shape=[-1, H]),
                  call("reshape", hp, shape=[-1, H]), transpose_x=True) if ctx.needs[2] else None
        return dx, dh, dw, None

    @staticmethod
    def decompose(x, h0, weight_hh, mask=None, activation="tanh"):
        """The same recurrence as per-step sampan ops."""
        hs = []
        h = h0
        steps = _steps(mask, True) if mask is not None else None
        for t, xt in enumerate(_steps(x)):
            pre = xt + call("matmul", h, weight_hh, transpose_y=True)
            h_new = call("tanh", pre) if activation == "tanh" else call("maximum", pre, pre * 0.0)
            h = _blend(steps[t], h_new, h) if steps is not None else h_new
            hs.append(h)
        return _stack_steps(hs, h0)


# --- attention -----------------------------------------------------------------------------

def _causal_bias(lq: int, lk: int, dtype):
    """[lq, lk] additive mask: 0 on and below the diagonal, -inf above (top-left aligned)."""
    return call("triu", call("full", shape=[lq, lk], fill_value=float("-inf"), dtype=dtype),
                diagonal=1)


@register
class ScaledDotProductAttention(OpDef):
    """softmax(q @ k^T * scale + mask) @ v per batch and head, Paddle's layout.

    query [B, Lq, H, D], key [B, Lk, H, D], value [B, Lk, H, Dv] -> out [B, Lq, H, Dv].
    attn_mask (float, additive) broadcasts to [B, H, Lq, Lk]; is_causal adds -inf above the
    diagonal instead (the mask is then ignored, as Paddle's CPU path does). scale None means
    1 / sqrt(D). Rows whose every score is -inf give nan. Dropout is not part of the op.
    """

    name = "scaled_dot_product_attention"
    inputs = ("query", "key", "value", "attn_mask?")
    attrs = {"is_causal": False, "scale": None}
    check = True

    def infer(self, query, key, value, attn_mask=None, is_causal=False, scale=None):
        api = self.name
        for arg, s in (("query", query), ("key", key), ("value", value)):
            require_float(api, s, arg)
            if s.ndim != 4:
                raise ValueError(f"{api}: {arg} must be 4-D [batch, seq_len, num_heads, "
                                 f"head_dim], got shape {list(s.shape)}")
            if s.dtype is not query.dtype:
                raise TypeError(f"{api}: {arg} must have the dtype of query "
                                f"({query.dtype.name}), got {s.dtype.name}")
        B, Lq, H, D = query.shape
        if not _same(key.shape[0], B) or not _same(key.shape[2], H) or not _same(
                key.shape[3], D):
            raise ValueError(f"{api}: key (shape {list(key.shape)}) must match query (shape "
                             f"{list(query.shape)}) in batch, num_heads and head_dim")
        if not all(_same(a, b) for a, b in zip(value.shape[:3], key.shape[:3])):
            raise ValueError(f"{api}: value (shape {list(value.shape)}) must match key (shape "
                             f"{list(key.shape)}) in batch, seq_len and num_heads")
        if attn_mask is not None:
            require_float(api, attn_mask, "attn_mask")
            broadcast_shapes(api, (B, H, Lq, key.shape[1]), attn_mask.shape,
                             ("the scores [batch, num_heads, seq_len_q, seq_len_k]",
                              "attn_mask"))
        return TensorSpec((B, Lq, H, value.shape[3]), query.dtype)

    def compute(self, xp, query, key, value, attn_mask=None, is_causal=False, scale=None):
        if scale is None:
            scale = _default_scale(query.shape[-1])
        s = xp.matmul(query.transpose(0, 2, 1, 3), key.transpose(0, 2, 3, 1))
        s *= s.dtype.type(scale)
        if is_causal:
            lq, lk = s.shape[-2:]
            s[..., xp.triu(xp.ones((lq, lk), dtype=bool), 1)] = -xp.inf
        elif attn_mask is not None:
            s = s + attn_mask.astype(s.dtype, copy=False)
        if s.size:
            s -= s.max(axis=-1, keepdims=True)
            xp.exp(s, out=s)
            s /= s.sum(axis=-1, keepdims=True)
        out = xp.matmul(s, value.transpose(0, 2, 1, 3))
        return out.transpose(0, 2, 1, 3)

    def _probs(self, q, k, mask, is_causal, scale):
        """Recompute the attention weights [B, H, Lq, Lk] in sampan ops."""
        s = call("matmul", q, k, transpose_y=True) * scale
        if is_causal:
            s = s + _causal_bias(s.shape[-2], s.shape[-1], s.dtype.name)
        elif mask is not None:
            s = s + mask
        return call("softmax", s, axis=-1)

    def vjp(self, ctx, g):
        perm = [0, 2, 1, 3]
        q, k, v = (call("transpose", t, perm=perm) for t in (ctx.query, ctx.key, ctx.value))
        scale = _default_scale(q.shape[-1]) if ctx.scale is None else ctx.scale
        p = self._probs(q, k, ctx.attn_mask, ctx.is_causal, scale)
        gt = call("transpose", g, perm=perm)
        dv = call("transpose", call("matmul", p, gt, transpose_x=True), perm=perm) \
            if ctx.needs[2] else None
        dp = call("matmul", gt, v, transpose_y=True)
        ds = p * (dp - call("sum", dp * p, axis=[-1], keepdim=True, dtype=None))
        dq = call("transpose", call("matmul", ds, k) * scale, perm=perm) \
            if ctx.needs[0] else None
        dk = call("transpose", call("matmul", ds, q, transpose_x=True) * scale, perm=perm) \
            if ctx.needs[1] else None
        dmask = ds if len(ctx.needs) > 3 and ctx.needs[3] and not ctx.is_causal else None
        return dq, dk, dv, dmask

    def decompose(self, query, key, value, attn_mask=None, is_causal=False, scale=None):
        perm = [0, 2, 1, 3]
        q, k, v = (call("transpose", t, perm=perm) for t in (query, key, value))
        scale = _default_scale(q.shape[-1]) if scale is None else scale
        p = self._probs(q, k, attn_mask, is_causal, scale)
        return call("transpose", call("matmul", p, v), perm=perm)


def _same(a: int, b: int) -> bool:
    return a == b or -1 in (a, b)


def _default_scale(head_dim: int) -> float:
    return 1.0 / math.sqrt(head_dim) if head_dim > 0 else 1.0
