"""Generic operator tests driven by the op database (tests/ops/op_db.py).

For every entry: forward vs the NumPy reference in each dtype; `infer` vs the actual output of
the dispatched op; vjp vs central differences in float64; second-order gradients vs
differences of the first-order gradient; in-place = out-of-place; `decompose` = `compute` where
an op has one. A coverage test fails when a registered OpDef has no entry.
"""
from __future__ import annotations

import numpy as np
import pytest

import sampan as paddle
from sampan.framework.flags import dispatch_wrapper
from sampan.ops import REGISTRY
from sampan.ops.dispatch import spec_of
from tests.ops.op_db import ENTRIES, tolerance

_IDS = [e.name for e in ENTRIES]


def _to_tensors(args, dtype_grad=None, grad_idx=()):
    out = []
    for i, a in enumerate(args):
        if isinstance(a, np.ndarray):
            t = paddle.to_tensor(a)
            t.stop_gradient = i not in grad_idx
            out.append(t)
        elif isinstance(a, list) and a and all(isinstance(v, np.ndarray) for v in a):
            ts = [paddle.to_tensor(v) for v in a]
            for t in ts:
                t.stop_gradient = i not in grad_idx
            out.append(ts)
        else:
            out.append(a)
    return out


def _as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _samples(entry, dtype, seed=0):
    return entry.samples(np.random.default_rng(seed), dtype)


class _Recorder:
    """Intercept that records every call of one op (inputs, attrs, outputs) on the eager path."""

    def __init__(self, op_name):
        self.op_name = op_name
        self.calls = []

    def __call__(self, op, inputs, attrs, nxt):
        out = nxt(op, inputs, attrs)
        if op.name == self.op_name:
            self.calls.append((inputs, dict(attrs), out))
        return out

    def __enter__(self):
        self._guard = dispatch_wrapper(self)
        self._guard.__enter__()
        return self

    def __exit__(self, *exc):
        self._guard.__exit__(*exc)


def test_every_opdef_has_an_entry():
    covered = {e.op for e in ENTRIES}
    missing = sorted(set(REGISTRY) - covered)
    assert not missing, f"OpDefs without an op_db entry: {missing}"
    unknown = sorted(covered - set(REGISTRY))
    assert not unknown, f"op_db entries naming unregistered ops: {unknown}"


@pytest.mark.parametrize("entry", ENTRIES, ids=_IDS)
def test_forward_matches_reference(entry):
    for dtype in entry.dtypes:
        for s in _samples(entry, dtype):
            got = _as_tuple(entry.fn(*_to_tensors(s.args), **s.kwargs))
            want = _as_tuple(entry.ref(*s.args, **s.kwargs))
            assert len(got) == len(want), f"{entry.name}[{s.name}] output count"
            atol, rtol = tolerance(dtype, entry.tol)
            for g, w in zip(got, want):
                g = g.numpy() if isinstance(g, paddle.Tensor) else np.asarray(g)
                w = np.asarray(w)
                assert g.shape == w.shape, f"{entry.name}[{s.name}] {dtype}: shape {g.shape} vs {w.shape}"
                if g.dtype.kind in "fc" or w.dtype.kind in "fc":
                    np.testing.assert_allclose(g.astype(w.dtype if w.dtype.kind in "fc" else g.dtype), w,
                                               atol=atol, rtol=rtol, equal_nan=True,
                                               err_msg=f"{entry.name}[{s.name}] {dtype}")
                else:
                    np.testing.assert_array_equal(g, w, err_msg=f"{entry.name}[{s.name}] {dtype}")


@pytest.mark.parametrize("entry", ENTRIES, ids=_IDS)
def test_infer_matches_compute(entry):
    op = REGISTRY[entry.op]
    seen = 0
    for dtype in entry.dtypes:
        for s in _samples(entry, dtype):
            with _Recorder(entry.op) as rec:
                entry.fn(*_to_tensors(s.args), **s.kwargs)
            for inputs, attrs, out in rec.calls:
                specs = [[spec_of(v._data) for v in i] if isinstance(i, list) else
                         (None if i is None else spec_of(getattr(i, "_data", i)))
                         for i in inputs]
                inferred = _as_tuple(op.infer(*specs, **attrs))
                actual = _as_tuple(out)
                for k, (spec, t) in enumerate(zip(inferred, actual)):
                    if spec is None:
                        continue
                    # -1 marks a data-dependent size (nonzero, unique): only the rank is known
                    assert len(spec.shape) == t.ndim and all(
                        s in (-1, a) for s, a in zip(spec.shape, t.shape)), (
                        f"{entry.op}[{s.name}] output {k}: infer shape {spec.shape} vs {t.shape}")
                    assert spec.dtype == t.dtype, (
                        f"{entry.op}[{s.name}] output {k}: infer dtype {spec.dtype} vs {t.dtype}")
                seen += 1
    assert seen, f"{entry.name}: fn never dispatched op {entry.op}"


_DECOMPOSED = [e for e in ENTRIES if REGISTRY[e.op].decompose is not None
               and not REGISTRY[e.op].random]


@pytest.mark.parametrize("entry", _DECOMPOSED, ids=[e.name for e in _DECOMPOSED])
def test_decompose_matches_compute(entry):
    """An op's `decompose` (its equivalent in primitives) gives the kernel's values."""
    op = REGISTRY[entry.op]
    seen = 0
    for dtype in entry.dtypes:
        for s in _samples(entry, dtype):
            with _Recorder(entry.op) as rec:
                entry.fn(*_to_tensors(s.args), **s.kwargs)
            atol, rtol = tolerance(dtype, entry.tol * 10)
            for inputs, attrs, out in rec.calls:
                with paddle.no_grad():
                    got = _as_tuple(op.decompose(*inputs, **{**op.attrs, **attrs}))
                for k, (g, w) in enumerate(zip(got, _as_tuple(out))):
                    g, w = np.asarray(g.numpy()), np.asarray(w.numpy())
                    assert g.shape == w.shape, f"{entry.op}[{s.name}] output {k} shape"
                    np.testing.assert_allclose(g.astype(w.dtype), w, atol=atol, rtol=rtol,
                                               equal_nan=True,
                                               err_msg=f"{entry.op}[{s.name}] output {k}")
                seen += 1
    assert seen, f"{entry.name}: fn never dispatched op {entry.op}"


def _grad_setup(entry, s):
    idx = entry.grad_args
    if idx is None:
        idx = tuple(i for i, a in enumerate(s.args)
                    if (isinstance(a, np.ndarray) and a.dtype.kind == "f")
                    or (isinstance(a, list) and a and isinstance(a[0], np.ndarray)
                        and a[0].dtype.kind == "f"))
    return idx


def _flat_inputs(tensors, idx):
    flat = []
    for i in idx:
        flat.extend(tensors[i] if isinstance(tensors[i], list) else [tensors[i]])
    return flat


def _loss(entry, s, tensors, cots):
    outs = _as_tuple(entry.fn(*tensors, **s.kwargs))
    total = None
    for o, c in zip(outs, cots):
        if c is None or not isinstance(o, paddle.Tensor):
            continue
        term = (o * paddle.to_tensor(c)).sum()
        total = term if total is None else total + term
    return total


def _cotangents(entry, s, rng):
    outs = _as_tuple(entry.fn(*_to_tensors(s.args), **s.kwargs))
    return [rng.standard_normal(o.shape).astype(o.numpy().dtype)
            if isinstance(o, paddle.Tensor) and o.dtype.kind == "f" else None for o in outs]


def _numeric_grad(f, arrays, eps=1e-6):
    """Central differences of scalar f(list of arrays) w.r.t. each array."""
    grads = []
    for a in arrays:
        g = np.zeros_like(a)
        flat = a.reshape(-1)
        gflat = g.reshape(-1)
        for k in range(flat.size):
            old = flat[k]
            flat[k] = old + eps
            hi = f()
            flat[k] = old - eps
            lo = f()
            flat[k] = old
            gflat[k] = (hi - lo) / (2 * eps)
        grads.append(g)
    return grads


def _grad_samples(entry):
    dtype = "float64"
    for s in _samples(entry, dtype):
        idx = _grad_setup(entry, s)
        if not idx:
            continue
        arrays = []
        for i in idx:
            arrays.extend(s.args[i] if isinstance(s.args[i], list) else [s.args[i]])
        if sum(a.size for a in arrays) == 0 or sum(a.size for a in arrays) > 200:
            continue
        yield s, idx


def _copy_sample(s):
    args = tuple(np.array(a, copy=True) if isinstance(a, np.ndarray) else
                 [np.array(v, copy=True) for v in a] if isinstance(a, list) and a and
                 isinstance(a[0], np.ndarray) else a for a in s.args)
    return type(s)(args, s.kwargs, s.name)


@pytest.mark.parametrize("entry", [e for e in ENTRIES if e.grad], ids=[e.name for e in ENTRIES if e.grad])
def test_vjp_matches_finite_differences(entry):
    rng = np.random.default_rng(1)
    checked = 0
    for s, idx in _grad_samples(entry):
        s = _copy_sample(s)
        cots = _cotangents(entry, s, rng)
        tensors = _to_tensors(s.args, grad_idx=idx)
        loss = _loss(entry, s, tensors, cots)
        if loss is None:
            continue
        inputs = _flat_inputs(tensors, idx)
        got = paddle.grad([loss], inputs, allow_unused=True)
        arrays = [t.numpy() for t in inputs]  # shared buffers: perturbing them perturbs fn input

        def f():
            with paddle.no_grad():
                value = _loss(entry, s, tensors, cots)
            return float(value.numpy())
        want = _numeric_grad(f, arrays)
        atol, rtol = 1e-6 * entry.tol, 1e-5 * entry.tol
        for k, (g, w) in enumerate(zip(got, want)):
            g = np.zeros_like(w) if g is None else g.numpy()
            np.testing.assert_allclose(g, w, atol=atol, rtol=rtol,
                                       err_msg=f"{entry.name}[{s.name}] grad of input {k}")
        checked += 1
    assert checked or not entry.grad, f"{entry.name}: no sample suitable for a gradient check"


@pytest.mark.parametrize("entry", [e for e in ENTRIES if e.grad and e.double_grad],
                         ids=[e.name for e in ENTRIES if e.grad and e.double_grad])
def test_double_grad_matches_finite_differences(entry):
    rng = np.random.default_rng(2)
    for s, idx in list(_grad_samples(entry))[:2]:
        s = _copy_sample(s)
        cots = _cotangents(entry, s, rng)
        tensors = _to_tensors(s.args, grad_idx=idx)
        inputs = _flat_inputs(tensors, idx)
        loss = _loss(entry, s, tensors, cots)
        if loss is None:
            continue
        firsts = paddle.grad([loss], inputs, create_graph=True, allow_unused=True)
        vs = [rng.standard_normal(t.shape) for t in inputs]
        terms = [(g * paddle.to_tensor(v)).sum() for g, v in zip(firsts, vs)
                 if g is not None and not g.stop_gradient]
        if not terms:
            continue  # gradient is constant in the inputs (linear op): nothing to check
        total = terms[0]
        for term in terms[1:]:
            total = total + term
        second = paddle.grad([total], inputs, allow_unused=True)
        arrays = [t.numpy() for t in inputs]

        def f():
            ts = _to_tensors(s.args, grad_idx=idx)
            for t_new, t_old in zip(_flat_inputs(ts, idx), inputs):
                t_new._data = t_old._data
            fl = _loss(entry, s, ts, cots)
            gs = paddle.grad([fl], _flat_inputs(ts, idx), allow_unused=True)
            return sum(float((g.numpy() * v).sum()) for g, v in zip(gs, vs) if g is not None)
        want = _numeric_grad(f, arrays)
        for k, (g, w) in enumerate(zip(second, want)):
            g = np.zeros_like(w) if g is None else g.numpy()
            np.testing.assert_allclose(g, w, atol=1e-5 * entry.tol, rtol=1e-4 * entry.tol,
                                       err_msg=f"{entry.name}[{s.name}] double grad {k}")


@pytest.mark.parametrize("entry", [e for e in ENTRIES if e.inplace],
                         ids=[e.name for e in ENTRIES if e.inplace])
def test_inplace_equals_out_of_place(entry):
    for s in _samples(entry, entry.dtypes[0]):
        want = entry.fn(*_to_tensors(s.args), **s.kwargs)
        tensors = _to_tensors(s.args)
        if tuple(tensors[0].shape) != tuple(want.shape):
            continue  # broadcasting that grows x cannot be done in place
        x = tensors[0]
        before = x._version
        out = getattr(x, entry.inplace)(*tensors[1:], **s.kwargs)
        assert out is x
        assert x._version == before + 1
        np.testing.assert_allclose(x.numpy(), want.numpy(), err_msg=f"{entry.inplace}[{s.name}]")


_ONNX = [e for e in ENTRIES if e.onnx and REGISTRY[e.op].onnx is not None]


@pytest.mark.parametrize("entry", _ONNX, ids=[e.name for e in _ONNX])
def test_onnx_matches_onnxruntime(entry):
    """The op's ONNX lowering, run by onnxruntime, gives the eager values (float32)."""
    from tests.onnx.util import build_sample, compare, eager_outputs, need_onnx, run_model
    need_onnx()
    from sampan.onnx.export import program_to_onnx
    dtype = "float32" if "float32" in entry.dtypes else entry.dtypes[0]
    atol, rtol = tolerance("float32", entry.tol)
    for s in _samples(entry, dtype):
        want = eager_outputs(entry.fn, s.args, s.kwargs)
        main, feed, fetch = build_sample(entry.fn, s.args, s.kwargs)
        if entry.onnx is not True:   # the outputs an inference graph computes
            want, fetch = [want[k] for k in entry.onnx], [fetch[k] for k in entry.onnx]
        got = run_model(program_to_onnx(main, list(feed), fetch), feed)
        assert len(got) == len(want), f"{entry.name}[{s.name}]: output count"
        for k, (g, w) in enumerate(zip(got, want)):
            compare(g, w, atol, rtol, f"{entry.name}[{s.name}] output {k}")
