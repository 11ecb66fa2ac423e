"""Op database entries for sampan/ops/nn_rnn.py (recurrent scans, attention)."""
import numpy as np

from sampan.ops.dispatch import call
from tests.ops.op_db import OpEntry, Sample


def _sig(a):
    return 1.0 / (1.0 + np.exp(-a))


def _lstm_ref(x, h0, c0, w, mask=None):
    H = w.shape[1]
    h, c = h0, c0
    hs, cs = [], []
    for t in range(x.shape[0]):
        g = x[t] + h @ w.T
        i, f, gg, o = _sig(g[:, :H]), _sig(g[:, H:2 * H]), np.tanh(g[:, 2 * H:3 * H]), \
            _sig(g[:, 3 * H:])
        c_new = f * c + i * gg
        h_new = o * np.tanh(c_new)
        if mask is not None:
            m = mask[t][:, None]
            h_new, c_new = m * h_new + (1 - m) * h, m * c_new + (1 - m) * c
        h, c = h_new, c_new
        hs.append(h)
        cs.append(c)
    shape = (x.shape[0], x.shape[1], H)
    return (np.stack(hs).astype(x.dtype) if hs else np.zeros(shape, x.dtype),
            np.stack(cs).astype(x.dtype) if cs else np.zeros(shape, x.dtype))


def _gru_ref(x, h0, w, b=None, mask=None):
    H = w.shape[1]
    h = h0
    hs = []
    for t in range(x.shape[0]):
        hg = h @ w.T + (0 if b is None else b)
        xt = x[t]
        r = _sig(xt[:, :H] + hg[:, :H])
        z = _sig(xt[:, H:2 * H] + hg[:, H:2 * H])
        c = np.tanh(xt[:, 2 * H:] + r * hg[:, 2 * H:])
        h_new = z * h + (1 - z) * c
        if mask is not None:
            m = mask[t][:, None]
            h_new = m * h_new + (1 - m) * h
        h = h_new
        hs.append(h)
    return np.stack(hs).astype(x.dtype) if hs else np.zeros((0, x.shape[1], H), x.dtype)


def _rnn_ref(x, h0, w, mask=None, activation="tanh"):
    h = h0
    hs = []
    for t in range(x.shape[0]):
        pre = x[t] + h @ w.T
        h_new = np.tanh(pre) if activation == "tanh" else np.maximum(pre, 0)
        if mask is not None:
            m = mask[t][:, None]
            h_new = m * h_new + (1 - m) * h
        h = h_new
        hs.append(h)
    return np.stack(hs).astype(x.dtype) if hs else np.zeros(x.shape, x.dtype)


def _mask(T, B, lengths, dtype):
    return (np.arange(T)[:, None] < np.asarray(lengths)[None, :]).astype(dtype)


def _scan_samples(gates, extra=()):
    """Samples for a scan with `gates` gate blocks; `extra` builds trailing weight args."""
    def samples(rng, dtype):
        def r(*shape, scale=1.0):
            return (rng.standard_normal(shape) * scale).astype(dtype)
        T, B, H = 3, 2, 2
        n_states = 2 if gates == 4 else 1
        states = [r(B, H) for _ in range(n_states)]
        w = r(gates * H, H, scale=0.7)
        more = [r(*s, scale=0.5) for s in extra]
        x = r(T, B, gates * H)
        out = [Sample((x, *states, w, *more), name="plain"),
               Sample((x, *states, w, *more), {"mask": _mask(T, B, [3, 1], dtype)},
                      name="mask"),
               Sample((r(B, T, gates * H).transpose(1, 0, 2), *states, w, *more),
                      name="non-contiguous"),
               Sample((r(0, B, gates * H), *states, w, *more), name="empty-time")]
        if extra:
            out.append(Sample((x, *states, w), {"mask": _mask(T, B, [2, 3], dtype)},
                              name="no-bias-mask"))
        return out
    return samples


def _rnn_samples(rng, dtype):
    base = _scan_samples(1)(rng, dtype)
    relu = [Sample(s.args, {"activation": "relu"}, s.name + "-relu") for s in base[:2]]
    return base + relu


# the mask is passed as a keyword (a NumPy constant), so the gradient tests leave it alone
def _lstm(x, h0, c0, w, mask=None):
    return call("_lstm_scan", x, h0, c0, w, mask)


def _gru(x, h0, w, b=None, mask=None):
    return call("_gru_scan", x, h0, w, b, mask)


def _rnn(x, h0, w, mask=None, activation="tanh"):
    return call("_rnn_scan", x, h0, w, mask, activation=activation)


def _sdpa_ref(q, k, v, mask=None, is_causal=False, scale=None):
    q, k, v = (a.transpose(0, 2, 1, 3) for a in (q, k, v))
    scale = 1.0 / np.sqrt(q.shape[-1]) if scale is None else scale
    s = q @ k.transpose(0, 1, 3, 2) * scale
    if is_causal:
        s = s + np.triu(np.full(s.shape[-2:], -np.inf), 1)
    elif mask is not None:
        s = s + mask
    e = np.exp(s - s.max(-1, keepdims=True))
    return ((e / e.sum(-1, keepdims=True)) @ v).transpose(0, 2, 1, 3).astype(q.dtype)


def _sdpa(q, k, v, mask=None, **attrs):
    return call("scaled_dot_product_attention", q, k, v, mask, **attrs)


def _sdpa_samples(rng, dtype):
    def r(*shape):
        return rng.standard_normal(shape).astype(dtype)
    q, k, v = r(1, 3, 2, 2), r(1, 4, 2, 2), r(1, 4, 2, 3)
    return [Sample((q, k, v), name="plain"),
            Sample((q, k, v, r(3, 4)), name="float-mask-broadcast"),
            Sample((q, k, v, r(1, 2, 3, 4)), name="full-mask"),
            Sample((q, k, r(1, 4, 2, 3)), {"is_causal": True, "scale": 0.3}, name="causal"),
            Sample((r(2, 1, 3, 2).transpose(0, 2, 1, 3), r(2, 3, 1, 2), r(2, 3, 1, 2)),
                   name="non-contiguous"),
            Sample((r(0, 3, 2, 2), r(0, 4, 2, 2), r(0, 4, 2, 3)), name="empty")]


ENTRIES = [
    OpEntry("_lstm_scan", _lstm, _lstm_ref, _scan_samples(4)),
    OpEntry("_gru_scan", _gru, _gru_ref, _scan_samples(3, extra=((6,),))),
    OpEntry("_rnn_scan", _rnn, _rnn_ref, _rnn_samples),
    OpEntry("scaled_dot_product_attention", _sdpa, _sdpa_ref, _sdpa_samples),
]
