"""Op database entries for sampan/ops/manipulation.py (and its _join and _reorder parts)."""
import numpy as np

import sampan as paddle
from tests.ops.op_db import OpEntry, Sample


def _r(rng, dtype, *shape):
    return rng.standard_normal(shape).astype(dtype)


def _reshape_samples(rng, dtype):
    x = _r(rng, dtype, 2, 3, 4)
    return [Sample((x,), {"shape": [6, 4]}), Sample((x,), {"shape": [0, -1]}),
            Sample((x,), {"shape": [-1]}), Sample((np.asarray(1.5, dtype),), {"shape": [1, 1]}),
            Sample((x.transpose(2, 1, 0),), {"shape": [4, 6]}, name="non-contiguous"),
            Sample((_r(rng, dtype, 0, 3),), {"shape": [3, -1]}, name="empty"),
            Sample((np.ones((1,), dtype),), {"shape": []}, name="to-0-d")]


def _np_reshape(x, shape):
    shape = [x.shape[i] if s == 0 else s for i, s in enumerate(shape)]
    return np.reshape(x, shape)


def _squeeze_samples(rng, dtype):
    x = _r(rng, dtype, 2, 1, 3, 1)
    return [Sample((x,), {}), Sample((x,), {"axis": 1}), Sample((x,), {"axis": [-1, 1]}),
            Sample((x,), {"axis": [0, 1]}, name="non-1-axis-kept"),
            Sample((np.asarray(2.0, dtype),), {}, name="0-d"),
            Sample((_r(rng, dtype, 1, 0),), {"axis": 0}, name="empty")]


def _np_squeeze(x, axis=None):
    if axis is None:
        return np.squeeze(x)
    axes = [axis] if isinstance(axis, int) else axis
    axes = tuple(a % x.ndim for a in axes if x.shape[a] == 1)
    return np.squeeze(x, axis=axes)


def _unsqueeze_samples(rng, dtype):
    x = _r(rng, dtype, 2, 3)
    return [Sample((x,), {"axis": 0}), Sample((x,), {"axis": -1}),
            Sample((x,), {"axis": [0, 3]}), Sample((np.asarray(2.0, dtype),), {"axis": [0, 0]}),
            Sample((x.T,), {"axis": 1}, name="non-contiguous")]


def _np_unsqueeze(x, axis):
    for a in [axis] if isinstance(axis, int) else axis:
        x = np.expand_dims(x, a if a >= 0 else a + x.ndim + 1)
    return x


def _flatten_samples(rng, dtype):
    x = _r(rng, dtype, 2, 3, 2, 2)
    return [Sample((x,), {}), Sample((x,), {"start_axis": 1, "stop_axis": 2}),
            Sample((x,), {"start_axis": -2}), Sample((np.asarray(3.0, dtype),), {}, name="0-d"),
            Sample((_r(rng, dtype, 2, 0, 3),), {"start_axis": 1}, name="empty")]


def _np_flatten(x, start_axis=0, stop_axis=-1):
    if x.ndim == 0:
        return x.reshape(1)
    s, e = start_axis % x.ndim, stop_axis % x.ndim
    return x.reshape(x.shape[:s] + (int(np.prod(x.shape[s:e + 1])),) + x.shape[e + 1:])


def _transpose_samples(rng, dtype):
    x = _r(rng, dtype, 2, 3, 4)
    return [Sample((x,), {"perm": [2, 0, 1]}), Sample((x,), {"perm": [0, -1, 1]}),
            Sample((np.asarray(1.0, dtype),), {"perm": []}, name="0-d"),
            Sample((_r(rng, dtype, 0, 3),), {"perm": [1, 0]}, name="empty"),
            Sample((x[:, ::2],), {"perm": [1, 2, 0]}, name="non-contiguous")]


def _concat_samples(rng, dtype):
    return [Sample(([_r(rng, dtype, 2, 3), _r(rng, dtype, 1, 3)],), {"axis": 0}),
            Sample(([_r(rng, dtype, 2, 1), _r(rng, dtype, 2, 2), _r(rng, dtype, 2, 3)],),
                   {"axis": -1}),
            Sample(([_r(rng, dtype, 3)],), {}, name="single"),
            Sample(([_r(rng, dtype, 0, 2), _r(rng, dtype, 2, 2)],), {}, name="empty"),
            Sample(([_r(rng, dtype, 3, 2).T, _r(rng, dtype, 2, 2)],), {"axis": 1},
                   name="non-contiguous")]


def _split_samples(rng, dtype):
    x = _r(rng, dtype, 4, 6)
    return [Sample((x,), {"num_or_sections": 2}), Sample((x,), {"num_or_sections": 3, "axis": 1}),
            Sample((x,), {"num_or_sections": [1, -1, 2], "axis": -1}),
            Sample((x,), {"num_or_sections": [4, 0], "axis": 0}, name="zero-section"),
            Sample((x.T,), {"num_or_sections": [2, 4]}, name="non-contiguous")]


def _np_split(x, num_or_sections, axis=0):
    if isinstance(num_or_sections, int):
        return np.split(x, num_or_sections, axis=axis)
    sections = list(num_or_sections)
    if -1 in sections:
        sections[sections.index(-1)] = x.shape[axis] - (sum(sections) + 1)
    return np.split(x, np.cumsum(sections)[:-1], axis=axis)


def _stack_samples(rng, dtype):
    return [Sample(([_r(rng, dtype, 2, 3), _r(rng, dtype, 2, 3)],), {"axis": 0}),
            Sample(([_r(rng, dtype, 2, 3)] * 3,), {"axis": -1}),
            Sample(([_r(rng, dtype), _r(rng, dtype)],), {}, name="0-d"),
            Sample(([_r(rng, dtype, 0, 2)] * 2,), {"axis": 1}, name="empty")]


def _tile_samples(rng, dtype):
    x = _r(rng, dtype, 2, 3)
    return [Sample((x,), {"repeat_times": [2, 1]}), Sample((x,), {"repeat_times": [2, 1, 2]}),
            Sample((x,), {"repeat_times": [3]}), Sample((np.asarray(1.0, dtype),),
                                                      {"repeat_times": [3]}, name="0-d"),
            Sample((x.T,), {"repeat_times": [1, 2]}, name="non-contiguous")]


def _expand_samples(rng, dtype):
    return [Sample((_r(rng, dtype, 3, 1),), {"shape": [3, 4]}),
            Sample((_r(rng, dtype, 3, 1),), {"shape": [2, -1, 4]}),
            Sample((np.asarray(1.0, dtype),), {"shape": [2, 3]}, name="0-d"),
            Sample((_r(rng, dtype, 1, 3),), {"shape": [0, 3]}, name="empty")]


def _np_expand(x, shape):
    lead = len(shape) - x.ndim
    shape = [x.shape[i - lead] if s == -1 else s for i, s in enumerate(shape)]
    return np.broadcast_to(x, shape)


def _flip_samples(rng, dtype):
    x = _r(rng, dtype, 2, 3, 4)
    return [Sample((x,), {"axis": 0}), Sample((x,), {"axis": [0, -1]}),
            Sample((np.asarray(1.0, dtype),), {"axis": []}, name="0-d"),
            Sample((x[:, ::2],), {"axis": [1]}, name="non-contiguous")]


def _roll_samples(rng, dtype):
    x = _r(rng, dtype, 3, 4)
    return [Sample((x,), {"shifts": 1}), Sample((x,), {"shifts": [1, -2], "axis": [0, 1]}),
            Sample((x,), {"shifts": 5, "axis": 1}),
            Sample((_r(rng, dtype, 0, 2),), {"shifts": 1, "axis": 1}, name="empty")]


def _np_roll(x, shifts, axis=None):
    return np.roll(x, shifts, axis=axis)


def _np_pad(x, pad, mode="constant", value=0.0, data_format=None):
    """Reference of the public pad layout for the sample cases below."""
    n = x.ndim
    pairs = [(0, 0)] * n
    if mode == "constant" and len(pad) == 2 * n:
        pairs = [(pad[2 * i], pad[2 * i + 1]) for i in range(n)]
    else:
        channel_last = data_format is not None and data_format[-1] == "C"
        axes = list(range(1, n - 1)) if channel_last else list(range(n - len(pad) // 2, n))
        for k, ax in enumerate(reversed(axes)):
            pairs[ax] = (pad[2 * k], pad[2 * k + 1])
    np_mode = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}.get(mode)
    if np_mode is None:
        return np.pad(x, pairs, constant_values=value)
    return np.pad(x, pairs, mode=np_mode)


def _pad_samples(mode):
    def samples(rng, dtype):
        x3 = _r(rng, dtype, 1, 2, 4)
        x4 = _r(rng, dtype, 1, 2, 3, 3)
        out = [Sample((x3,), {"pad": [1, 2], "mode": mode}),
               Sample((x4,), {"pad": [1, 0, 2, 1], "mode": mode}),
               Sample((x4,), {"pad": [2, 1, 0, 1], "mode": mode, "data_format": "NHWC"},
                      name="NHWC"),
               Sample((x4[..., ::-1],), {"pad": [1, 1, 1, 1], "mode": mode},
                      name="non-contiguous")]
        if mode == "constant":
            out += [Sample((_r(rng, dtype, 2, 3),), {"pad": [1, 0, 0, 2], "value": 1.5},
                           name="full-length"),
                    Sample((_r(rng, dtype, 2, 3),), {"pad": [1, 2]}, name="last-dim"),
                    Sample((_r(rng, dtype, 0, 2),), {"pad": [1, 1, 0, 1]}, name="empty")]
        return out
    return samples


def _crop_samples(rng, dtype):
    x = _r(rng, dtype, 3, 4)
    return [Sample((x,), {"shape": [2, 2], "offsets": [1, 1]}),
            Sample((x,), {"shape": [-1, 3], "offsets": [1, 0]}),
            Sample((x,), {"shape": [2, 4]}), Sample((x,), {}, name="defaults"),
            Sample((x.T,), {"shape": [0, 2], "offsets": [1, 0]}, name="empty")]


def _np_crop(x, shape=None, offsets=None):
    shape = x.shape if shape is None else shape
    offsets = [0] * x.ndim if offsets is None else offsets
    return x[tuple(slice(o, o + (n - o if s == -1 else s))
                   for o, s, n in zip(offsets, shape, x.shape))]


def _repeat_samples(rng, dtype):
    x = _r(rng, dtype, 2, 3)
    return [Sample((x,), {"repeats": 2}), Sample((x,), {"repeats": 2, "axis": 1}),
            Sample((x,), {"repeats": [1, 0, 2], "axis": -1}, name="list"),
            Sample((x,), {"repeats": paddle.to_tensor([2, 1]), "axis": 0}, name="tensor"),
            Sample((np.asarray(1.0, dtype),), {"repeats": 3}, name="0-d")]


def _np_repeat(x, repeats, axis=None):
    return np.repeat(x, np.asarray(repeats), axis=axis)


def _as_complex_samples(rng, dtype):
    return [Sample((_r(rng, dtype, 3, 2),)), Sample((_r(rng, dtype, 2),), name="0-d-out"),
            Sample((_r(rng, dtype, 2, 4).T,), name="non-contiguous")]


def _as_real_samples(rng, dtype):
    ctype = {"float32": np.complex64, "float64": np.complex128}[dtype]
    z = (_r(rng, dtype, 2, 3) + 1j * _r(rng, dtype, 2, 3)).astype(ctype)
    return [Sample((z,)), Sample((z[0, 0],), name="0-d"), Sample((z.T,), name="non-contiguous")]


def _view_samples(rng, dtype):
    x = _r(rng, dtype, 2, 4)
    return [Sample((x,), {"shape_or_dtype": "int32"}), Sample((x,), {"shape_or_dtype": "uint8"}),
            Sample((x,), {"shape_or_dtype": "float64"})]


def _np_view(x, shape_or_dtype):
    return np.ascontiguousarray(x).view(shape_or_dtype)


def _unfold_samples(rng, dtype):
    return [Sample((_r(rng, dtype, 6, 2),), {"axis": 0, "size": 2, "step": 2}),
            Sample((_r(rng, dtype, 2, 7),), {"axis": -1, "size": 3, "step": 2}, name="tail"),
            Sample((_r(rng, dtype, 5),), {"axis": 0, "size": 3, "step": 1}, name="overlap"),
            Sample((_r(rng, dtype, 3, 4).T,), {"axis": 0, "size": 4, "step": 3},
                   name="non-contiguous")]


def _np_unfold(x, axis, size, step):
    axis %= x.ndim
    w = np.lib.stride_tricks.sliding_window_view(x, size, axis=axis)
    idx = [slice(None)] * w.ndim
    idx[axis] = slice(None, None, step)
    return w[tuple(idx)]


def _shard_samples(rng, dtype):
    x = rng.integers(0, 20, (4, 1)).astype(dtype)
    return [Sample((x,), {"index_num": 20, "nshards": 2, "shard_id": 0}),
            Sample((x,), {"index_num": 20, "nshards": 3, "shard_id": 1, "ignore_value": -5}),
            Sample((x.reshape(2, 2, 1),), {"index_num": 20, "nshards": 4, "shard_id": 3})]


def _np_shard(x, index_num, nshards, shard_id, ignore_value=-1):
    size = (index_num + nshards - 1) // nshards
    lo = shard_id * size
    return np.where((x >= lo) & (x < lo + size), x - lo, ignore_value).astype(x.dtype)


ENTRIES = [
    OpEntry("reshape", paddle.reshape, _np_reshape, _reshape_samples),
    OpEntry("squeeze", paddle.squeeze, _np_squeeze, _squeeze_samples),
    OpEntry("unsqueeze", paddle.unsqueeze, _np_unsqueeze, _unsqueeze_samples),
    OpEntry("flatten", paddle.flatten, _np_flatten, _flatten_samples),
    OpEntry("transpose", paddle.transpose, lambda x, perm: np.transpose(x, perm),
            _transpose_samples, dtypes=("float64", "float32", "int32", "bool")),
    OpEntry("concat", paddle.concat, lambda x, axis=0: np.concatenate(x, axis=axis),
            _concat_samples, dtypes=("float64", "float32", "int64")),
    OpEntry("split", paddle.split, _np_split, _split_samples),
    OpEntry("stack", paddle.stack, lambda x, axis=0: np.stack(x, axis=axis), _stack_samples),
    OpEntry("tile", paddle.tile, lambda x, repeat_times: np.tile(x, repeat_times),
            _tile_samples, dtypes=("float64", "float32", "int64")),
    OpEntry("expand", paddle.expand, _np_expand, _expand_samples),
    OpEntry("expand", paddle.broadcast_to, _np_expand, _expand_samples, name="broadcast_to"),
    OpEntry("expand_as", paddle.expand_as, lambda x, y: np.broadcast_to(x, y.shape),
            lambda rng, dt: [Sample((_r(rng, dt, 3, 1), _r(rng, dt, 2, 3, 4))),
                             Sample((np.asarray(2.0, dt), _r(rng, dt, 2)))],
            grad_args=(0,)),
    OpEntry("flip", paddle.flip, lambda x, axis: np.flip(x, axis), _flip_samples),
    OpEntry("roll", paddle.roll, _np_roll, _roll_samples),
    OpEntry("pad", paddle.pad, _np_pad, _pad_samples("constant"),
            dtypes=("float64", "float32", "int32")),
    OpEntry("pad", paddle.pad, _np_pad, _pad_samples("reflect"), name="pad-reflect"),
    OpEntry("pad", paddle.pad, _np_pad, _pad_samples("replicate"), name="pad-replicate"),
    OpEntry("pad", paddle.pad, _np_pad, _pad_samples("circular"), name="pad-circular"),
    OpEntry("crop", paddle.crop, _np_crop, _crop_samples),
    OpEntry("repeat_interleave", paddle.repeat_interleave, _np_repeat, _repeat_samples),
    OpEntry("as_complex", paddle.as_complex, lambda x: x[..., 0] + 1j * x[..., 1],
            _as_complex_samples, grad=False),
    OpEntry("as_real", paddle.as_real, lambda z: np.stack([z.real, z.imag], -1),
            _as_real_samples, grad=False),
    OpEntry("view", paddle.view, _np_view, _view_samples, grad=False),
    OpEntry("unfold", paddle.unfold, _np_unfold, _unfold_samples),
    OpEntry("shard_index", paddle.shard_index, _np_shard, _shard_samples,
            dtypes=("int64", "int32"), grad=False),
]
