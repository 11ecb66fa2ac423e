"""Run op_db entries on a device place and compare values and gradients with the CPU.

Shared by tests/backend/test_fake_device.py (the fake device, on every machine) and
bench/gpu_check.py (a real GPU through CuPy).
"""
from __future__ import annotations

import numpy as np

import sampan as paddle
from sampan.framework import place as _place
from sampan.ops import devices
from tests.ops.op_db import tolerance


def _as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _tensors(args, place, grad_idx):
    out = []
    for i, a in enumerate(args):
        if isinstance(a, np.ndarray):
            t = paddle.to_tensor(a, place=place)
            t.stop_gradient = i not in grad_idx
            out.append(t)
        elif isinstance(a, list) and a and all(isinstance(v, np.ndarray) for v in a):
            ts = [paddle.to_tensor(v, place=place) for v in a]
            for t in ts:
                t.stop_gradient = i not in grad_idx
            out.append(ts)
        else:
            out.append(a)
    return out


def _run(entry, s, place, grad_idx, cots):
    """(output arrays, input grads) of one sample on `place`; outputs must stay there."""
    old = _place.current_place()
    _place.set_place(place)
    try:
        tensors = _tensors(s.args, place, grad_idx)
        outs = _as_tuple(entry.fn(*tensors, **s.kwargs))
        for k, o in enumerate(outs):
            if isinstance(o, paddle.Tensor) and o.place != place:
                raise AssertionError(f"{entry.name}[{s.name}]: output {k} is on {o.place}, "
                                     f"not {place}")
        values = [o.numpy() if isinstance(o, paddle.Tensor) else o for o in outs]
        grads = []
        if grad_idx and cots is not None:
            terms = [(o * paddle.to_tensor(c, place=place)).sum() for o, c in zip(outs, cots)
                     if c is not None and isinstance(o, paddle.Tensor) and not o.stop_gradient]
            if terms:
                flat = [t for i in grad_idx for t in (tensors[i] if isinstance(tensors[i], list)
                                                      else [tensors[i]])]
                got = paddle.grad([paddle.add_n(terms)], flat, allow_unused=True)
                grads = [None if g is None else g.numpy() for g in got]
        return values, grads
    finally:
        _place.set_place(old)


def _grad_idx(entry, s):
    if not entry.grad:
        return ()
    if entry.grad_args is not None:
        return entry.grad_args
    return tuple(i for i, a in enumerate(s.args) if isinstance(a, np.ndarray)
                 and a.dtype.kind == "f")


def _close(got, want, dtype, mult, what):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, f"{what}: shape {got.shape} vs {want.shape}"
    if want.dtype.kind in "fc":
        # integer inputs with float results (sin of int64 is float32): the result's tolerance
        atol, rtol = tolerance(dtype, mult) if tolerance(dtype)[0] else tolerance(
            want.dtype.name, mult)
        np.testing.assert_allclose(got.astype(want.dtype), want, atol=max(atol, 1e-12),
                                   rtol=max(rtol, 1e-9), equal_nan=True, err_msg=what)
    else:
        np.testing.assert_array_equal(got, want, err_msg=what)


def check_entry(entry, place, max_samples: int = 4) -> int:
    """Compare `entry` on `place` with the CPU; return the number of samples checked.

    An op listed CPU-only must refuse a device input with an error naming it and the place.
    """
    dtype = entry.dtypes[0]
    rng = np.random.default_rng(0)
    samples = entry.samples(np.random.default_rng(0), dtype)[:max_samples]
    checked = 0
    for s in samples:
        idx = _grad_idx(entry, s) if dtype in ("float64", "float32") else ()
        cpu_vals, _ = _run(entry, s, _place.CPUPlace(), (), None)
        cots = [rng.standard_normal(np.shape(v)).astype(v.dtype)
                if isinstance(v, np.ndarray) and v.dtype.kind == "f" else None for v in cpu_vals]
        _, cpu_grads = _run(entry, s, _place.CPUPlace(), idx, cots)
        try:
            vals, grads = _run(entry, s, place, idx, cots)
        except NotImplementedError as err:  # a CPU-only op (this one or one it uses)
            op = str(err).split(":")[0]
            listed = devices.CPU_ONLY | getattr(place.backend(), "CPU_ONLY", frozenset())
            assert op in listed and str(place) in str(err), str(err)
            checked += 1
            continue
        for k, (g, w) in enumerate(zip(vals, cpu_vals)):
            _close(g, w, dtype, entry.tol, f"{entry.name}[{s.name}] output {k} on {place}")
        for k, (g, w) in enumerate(zip(grads, cpu_grads)):
            if w is not None and g is not None:
                _close(g, w, dtype, entry.tol * 10, f"{entry.name}[{s.name}] grad {k} on {place}")
        checked += 1
    return checked
