"""Op database entries: the sequence (LoD) ops of sampan/ops/sequence*.py.

The references loop over sequences in plain Python/NumPy (independent of the vectorised
kernels). The LoD is an explicit int64 offsets input; row-map outputs are checked too.
"""
import numpy as np

import sampan.ops.sequence  # noqa: F401  (registers the ops)
from sampan.ops.dispatch import call
from tests.ops.op_db import OpEntry, Sample

LODS = ([0, 2, 5], [0, 1, 1, 4], [0, 3], [0, 0, 2, 2])   # includes empty sequences


def _op(name):
    return lambda *args, **kw: call(name, *args, **kw)


def _seqs(x, lod):
    return [x[lod[i]:lod[i + 1]] for i in range(len(lod) - 1)]


def _lod(lod):
    return np.asarray(lod, np.int64)


def _rows(rng, dtype, n, *rest):
    return rng.standard_normal((n,) + rest).astype(dtype)


# --- pool / softmax / expand / conv -----------------------------------------------------------

def _pool_ref(x, lod, pool_type="average", pad_value=0.0):
    out, idx = [], []
    for i, s in enumerate(_seqs(x, lod)):
        if len(s) == 0:
            out.append(np.full(x.shape[1:], pad_value, x.dtype))
            idx.append(np.full(x.shape[1:], -1))
            continue
        start = lod[i]
        pick = {"first": 0, "last": len(s) - 1}.get(pool_type)
        if pick is not None:
            out.append(s[pick])
            idx.append(np.full(x.shape[1:], start + pick))
        elif pool_type == "max":
            out.append(s.max(0))
            idx.append(start + s.argmax(0))
        else:
            div = {"sum": 1, "average": len(s), "sqrt": np.sqrt(len(s))}[pool_type]
            out.append(s.sum(0) / div)
            idx.append(np.full(x.shape[1:], -1))
    return (np.asarray(out, x.dtype).reshape((len(lod) - 1,) + x.shape[1:]),
            np.asarray(idx, np.int64).reshape((len(lod) - 1,) + x.shape[1:]))


def _pool_samples(rng, dtype):
    out = []
    for k, pt in enumerate(("sum", "average", "sqrt", "max", "last", "first")):
        lod = LODS[k % len(LODS)]
        out.append(Sample((_rows(rng, dtype, lod[-1], 3), _lod(lod)),
                          {"pool_type": pt, "pad_value": 0.5}))
    out.append(Sample((_rows(rng, dtype, 5, 2, 2), _lod(LODS[0])), {"pool_type": "max"}))
    out.append(Sample((_rows(rng, dtype, 4), _lod(LODS[1])), {"pool_type": "average"}))
    return out


def _softmax_ref(x, lod):
    out = np.empty_like(x)
    for i in range(len(lod) - 1):
        s = x[lod[i]:lod[i + 1]]
        e = np.exp(s - s.max()) if len(s) else s
        out[lod[i]:lod[i + 1]] = e / e.sum() if len(s) else s
    return out


def _softmax_samples(rng, dtype):
    return [Sample((_rows(rng, dtype, 5, 1), _lod(LODS[0]))),
            Sample((_rows(rng, dtype, 4), _lod(LODS[1]))),
            Sample((_rows(rng, dtype, 2, 1), _lod(LODS[3])))]


def _expand_as_ref(x, lod):
    return np.concatenate([np.repeat(x[i:i + 1], lod[i + 1] - lod[i], 0)
                           for i in range(len(lod) - 1)] + [x[:0]])


def _expand_as_samples(rng, dtype):
    return [Sample((_rows(rng, dtype, 2, 3), _lod(LODS[0]))),
            Sample((_rows(rng, dtype, 3), _lod(LODS[1])))]


def _expand_ref(x, x_lod, y_lod):
    x_lod = np.arange(len(x) + 1) if x_lod is None else x_lod
    parts, lens, index = [], [], []
    for i in range(len(y_lod) - 1):
        for _ in range(y_lod[i + 1] - y_lod[i]):
            parts.append(x[x_lod[i]:x_lod[i + 1]])
            lens.append(x_lod[i + 1] - x_lod[i])
            index.extend(range(x_lod[i], x_lod[i + 1]))
    out = np.concatenate(parts + [x[:0]])
    return out, np.cumsum([0] + lens).astype(np.int64), np.asarray(index, np.int64)


def _expand_samples(rng, dtype):
    return [Sample((_rows(rng, dtype, 4, 2), _lod([0, 2, 4]), _lod([0, 2, 4]))),
            Sample((_rows(rng, dtype, 3, 1), _lod([0, 1, 1, 3]), _lod([0, 1, 3, 3]))),
            Sample((_rows(rng, dtype, 4, 2), None, _lod([0, 3, 6, 7, 8])))]


def _conv_ref(x, lod, w, context_length=3, context_start=-1, context_stride=1):
    n, d = x.shape
    col = np.zeros((n, context_length * d), x.dtype)
    idx = np.full((n, context_length), -1, np.int64)
    for i in range(len(lod) - 1):
        for t in range(lod[i], lod[i + 1]):
            for k in range(context_length):
                r = t + context_start + k
                if lod[i] <= r < lod[i + 1]:
                    col[t, k * d:(k + 1) * d] = x[r]
                    idx[t, k] = r
    return col @ w, idx


def _conv_samples(rng, dtype):
    return [Sample((_rows(rng, dtype, 5, 2), _lod(LODS[0]), _rows(rng, dtype, 6, 3))),
            Sample((_rows(rng, dtype, 4, 3), _lod(LODS[1]), _rows(rng, dtype, 6, 2)),
                   {"context_length": 2, "context_start": 0}),
            Sample((_rows(rng, dtype, 3, 1), _lod(LODS[2]), _rows(rng, dtype, 4, 2)),
                   {"context_length": 4, "context_start": -3})]


# --- row-moving ops ---------------------------------------------------------------------------

def _concat_ref(x, x_lod, y, y_lod):
    parts, xp_, yp_, pos = [], [], [], 0
    for i in range(len(x_lod) - 1):
        a, b = x[x_lod[i]:x_lod[i + 1]], y[y_lod[i]:y_lod[i + 1]]
        parts += [a, b]
        xp_ += list(range(pos, pos + len(a)))
        yp_ += list(range(pos + len(a), pos + len(a) + len(b)))
        pos += len(a) + len(b)
    return (np.concatenate(parts + [x[:0]]), _lod(np.asarray(x_lod) + np.asarray(y_lod)),
            _lod(xp_), _lod(yp_))


def _concat_samples(rng, dtype):
    return [Sample((_rows(rng, dtype, 5, 2), _lod(LODS[0]), _rows(rng, dtype, 3, 2),
                    _lod([0, 1, 3]))),
            Sample((_rows(rng, dtype, 4), _lod(LODS[1]), _rows(rng, dtype, 2),
                    _lod([0, 0, 2, 2])))]


def _pad_ref(x, lod, pad_value, maxlen=-1):
    seqs = _seqs(x, lod)
    L = maxlen if maxlen >= 0 else max([len(s) for s in seqs] + [0])
    out = np.empty((len(seqs), L) + x.shape[1:], x.dtype)
    out[...] = pad_value.reshape(()) if pad_value.size == 1 else pad_value
    for i, s in enumerate(seqs):
        out[i, :len(s)] = s
    return out, _lod([len(s) for s in seqs])


def _pad_samples(rng, dtype):
    return [Sample((_rows(rng, dtype, 5, 2), _lod(LODS[0]), _rows(rng, dtype, 1))),
            Sample((_rows(rng, dtype, 4, 3), _lod(LODS[1]), _rows(rng, dtype, 3)),
                   {"maxlen": 4}),
            Sample((_rows(rng, dtype, 2), _lod(LODS[3]), np.zeros([1], dtype)))]


def _unpad_ref(x, length):
    rows, index, k = [], np.full(x.shape[:2], -1, np.int64), 0
    for i, n in enumerate(np.ravel(length)):
        rows.extend(x[i, :n])
        index[i, :n] = range(k, k + n)
        k += n
    out = np.asarray(rows, x.dtype).reshape((-1,) + x.shape[2:])
    return out, np.cumsum([0] + list(np.ravel(length))).astype(np.int64), index


def _unpad_samples(rng, dtype):
    return [Sample((_rows(rng, dtype, 3, 4, 2), _lod([2, 0, 4]))),
            Sample((_rows(rng, dtype, 2, 3), _lod([[3], [1]])))]


def _reverse_ref(x, lod):
    return np.concatenate([s[::-1] for s in _seqs(x, lod)] + [x[:0]])


def _reverse_samples(rng, dtype):
    return [Sample((_rows(rng, dtype, 5, 2), _lod(LODS[0]))),
            Sample((_rows(rng, dtype, 4), _lod(LODS[1])))]


def _slice_ref(x, lod, offset, length):
    rows, index, k = [], np.full(len(x), -1, np.int64), 0
    for i in range(len(lod) - 1):
        a, n = lod[i] + int(np.ravel(offset)[i]), int(np.ravel(length)[i])
        rows.append(x[a:a + n])
        index[a:a + n] = range(k, k + n)
        k += n
    return (np.concatenate(rows + [x[:0]]), np.cumsum([0] + list(np.ravel(length))),
            index)


def _slice_samples(rng, dtype):
    return [Sample((_rows(rng, dtype, 5, 2), _lod(LODS[0]), _lod([[0], [1]]),
                    _lod([[2], [1]]))),
            Sample((_rows(rng, dtype, 4), _lod(LODS[1]), _lod([1, 0, 1]), _lod([0, 0, 2])))]


def _reshape_ref(x, lod, new_dim=1):
    return x.reshape(-1, new_dim), np.asarray(lod) * x.shape[1] // new_dim


def _reshape_samples(rng, dtype):
    return [Sample((_rows(rng, dtype, 6, 2), _lod([0, 2, 6])), {"new_dim": 4}),
            Sample((_rows(rng, dtype, 3, 4), _lod([0, 1, 3])), {"new_dim": 2})]


def _enumerate_ref(x, lod, win_size=2, pad_value=0):
    flat = np.ravel(x)
    out = np.full((len(flat), win_size), pad_value, x.dtype)
    for i in range(len(lod) - 1):
        for t in range(lod[i], lod[i + 1]):
            for k in range(win_size):
                if t + k < lod[i + 1]:
                    out[t, k] = flat[t + k]
    return out


def _enumerate_samples(rng, dtype):
    ids = rng.integers(0, 9, (5, 1))
    return [Sample((ids, _lod(LODS[0])), {"win_size": 3, "pad_value": -1}),
            Sample((ids.ravel().astype(np.int32)[:4], _lod(LODS[1])), {"win_size": 2})]


def _scatter_ref(x, index, index_lod, updates):
    out, flat = x.copy(), []
    for i in range(len(index_lod) - 1):
        for j in range(index_lod[i], index_lod[i + 1]):
            c = int(np.ravel(index)[j])
            out[i, c] += np.ravel(updates)[j]
            flat.append(i * x.shape[1] + c)
    return out, _lod(flat)


def _scatter_samples(rng, dtype):
    return [Sample((_rows(rng, dtype, 3, 6), _lod([[0], [1], [2], [5], [4], [3], [2], [1],
                                                   [3], [2], [5], [4]]),
                    _lod([0, 3, 8, 12]), _rows(rng, dtype, 12, 1))),
            Sample((_rows(rng, dtype, 2, 3), _lod([1, 1, 0]), _lod([0, 0, 3]),
                    _rows(rng, dtype, 3)))]


ENTRIES = [
    OpEntry("sequence_pool", _op("sequence_pool"), _pool_ref, _pool_samples, onnx=False),
    OpEntry("sequence_softmax", _op("sequence_softmax"), _softmax_ref, _softmax_samples,
            onnx=False),
    OpEntry("sequence_expand_as", _op("sequence_expand_as"), _expand_as_ref,
            _expand_as_samples, onnx=False),
    OpEntry("sequence_expand", _op("sequence_expand"), _expand_ref, _expand_samples,
            onnx=False),
    OpEntry("sequence_conv", _op("sequence_conv"), _conv_ref, _conv_samples, onnx=False),
    OpEntry("sequence_concat", _op("sequence_concat"), _concat_ref, _concat_samples,
            onnx=False),
    OpEntry("sequence_pad", _op("sequence_pad"), _pad_ref, _pad_samples, onnx=False),
    OpEntry("sequence_unpad", _op("sequence_unpad"), _unpad_ref, _unpad_samples, onnx=False),
    OpEntry("sequence_reverse", _op("sequence_reverse"), _reverse_ref, _reverse_samples,
            onnx=False),
    OpEntry("sequence_slice", _op("sequence_slice"), _slice_ref, _slice_samples, onnx=False),
    OpEntry("sequence_reshape", _op("sequence_reshape"), _reshape_ref, _reshape_samples,
            onnx=False),
    OpEntry("sequence_enumerate", _op("sequence_enumerate"), _enumerate_ref,
            _enumerate_samples, dtypes=("int64",), grad=False, double_grad=False, onnx=False),
    OpEntry("sequence_scatter", _op("sequence_scatter"), _scatter_ref, _scatter_samples,
            onnx=False),
]
# onnx=False throughout: the LoD offsets drive data-dependent row maps (no opset-17 lowering
# is defined for these ops).
