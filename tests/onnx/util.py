"""Helpers for the ONNX tests: export a Program built from op_db samples, run onnxruntime."""
from __future__ import annotations

import numpy as np
import pytest

import sampan as paddle
from sampan import static
from sampan.utils import unique_name
from tests.static_util import static_guard


def need_onnx():
    pytest.importorskip("onnx", reason="onnx is not installed (pip install onnx)")
    return pytest.importorskip("onnxruntime",
                               reason="onnxruntime is not installed (pip install onnxruntime)")


def run_model(model, feed: dict) -> list:
    """Run an onnx ModelProto (or a file path) in onnxruntime on `feed`."""
    ort = need_onnx()
    src = model if isinstance(model, str) else model.SerializeToString()
    opts = ort.SessionOptions()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    sess = ort.InferenceSession(src, opts, providers=["CPUExecutionProvider"])
    names = {i.name for i in sess.get_inputs()}
    return sess.run(None, {k: v for k, v in feed.items() if k in names})


def _is_array(a) -> bool:
    return isinstance(a, (np.ndarray, np.generic))


def build_sample(fn, args, kwargs):
    """(Program, feed, fetch names, output positions) for fn(*args) with array args as data."""
    main = static.Program()
    feed = {}
    with unique_name.guard(), static_guard(main, static.Program()):
        vargs = []
        for i, a in enumerate(args):
            if _is_array(a):
                vargs.append(static.data(f"in{i}", list(np.shape(a)), np.asarray(a).dtype))
                feed[f"in{i}"] = np.asarray(a)
            elif isinstance(a, list) and a and all(_is_array(v) for v in a):
                vs = []
                for k, v in enumerate(a):
                    vs.append(static.data(f"in{i}_{k}", list(v.shape), v.dtype))
                    feed[f"in{i}_{k}"] = v
                vargs.append(vs)
            else:
                vargs.append(a)
        outs = fn(*vargs, **kwargs)
    outs = outs if isinstance(outs, (tuple, list)) else (outs,)
    fetch = [o.name for o in outs if getattr(o, "_is_variable", False)]
    return main, feed, fetch


def eager_outputs(fn, args, kwargs) -> list:
    targs = [paddle.to_tensor(a) if _is_array(a) else
             [paddle.to_tensor(v) for v in a] if isinstance(a, list) and a and
             all(_is_array(v) for v in a) else a for a in args]
    outs = fn(*targs, **kwargs)
    outs = outs if isinstance(outs, (tuple, list)) else (outs,)
    return [o.numpy() for o in outs if isinstance(o, paddle.Tensor)]


def compare(got, want, atol=1e-5, rtol=1e-5, what=""):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, f"{what}: shape {got.shape} vs {want.shape}"
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype} vs {want.dtype}"
    if got.dtype.kind in "fc":
        np.testing.assert_allclose(got, want, atol=atol, rtol=rtol, equal_nan=True,
                                   err_msg=what)
    else:
        np.testing.assert_array_equal(got, want, err_msg=what)
