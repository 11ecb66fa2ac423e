"""The conversion corpus (tests/jit/corpus): for every case, the converted function run
eagerly equals the original, and the converted function traced into a static Program
(static.data inputs, Executor.run) equals the eager result."""
import numpy as np
import pytest

import sampan as paddle
from sampan.jit.convert_static import TensorArray
from sampan.jit.transform import convert_function
from sampan.static.builder import building

from .corpus import CASES


def _eager(args):
    return [paddle.to_tensor(a) if isinstance(a, np.ndarray) else a for a in args]


def _leaves(value, out):
    if isinstance(value, (list, tuple)):
        for v in value:
            _leaves(v, out)
    elif isinstance(value, dict):
        for k in sorted(value):
            _leaves(value[k], out)
    else:
        out.append(value)
    return out


def _value(v):
    if isinstance(v, paddle.Tensor):
        return v.numpy()
    return v


def _close(got, want, where: str) -> None:
    g, w = np.asarray(got), np.asarray(want)
    assert g.shape == w.shape, f"{where}: shape {g.shape} != {w.shape}"
    if w.dtype.kind in "fc":
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6, err_msg=where)
    else:
        np.testing.assert_array_equal(g, w, err_msg=where)


def _static_run(fn, args, dynamic: bool):
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup), building():
            feed, inputs = {}, []
            for k, a in enumerate(args):
                if isinstance(a, np.ndarray):
                    shape = list(a.shape)
                    if dynamic and shape:
                        shape[0] = -1
                    inputs.append(paddle.static.data(f"in{k}", shape, str(a.dtype)))
                    feed[f"in{k}"] = a
                else:
                    inputs.append(a)
            out = fn(*inputs)
        leaves = [v.data if isinstance(v, TensorArray) else v for v in _leaves(out, [])]
        fetch = [v for v in leaves if getattr(v, "_is_variable", False)]
        exe = paddle.static.Executor()
        exe.run(startup)
        got = iter(exe.run(main, feed=feed, fetch_list=fetch) if fetch else [])
        return [next(got) if getattr(v, "_is_variable", False) else _value(v) for v in leaves]
    finally:
        paddle.disable_static()


def _stacked(want):
    """The eager result of a case whose list output is a tensor array once traced."""
    return want


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_converted_eager_equals_eager(case):
    args = case.make_inputs()
    want = _leaves(case.fn(*_eager(args)), [])
    got = _leaves(convert_function(case.fn)(*_eager(args)), [])
    assert len(got) == len(want)
    for k, (g, w) in enumerate(zip(got, want)):
        _close(_value(g), _value(w), f"{case.name} output {k}")


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_converted_static_equals_eager(case):
    args = case.make_inputs()
    want = [_value(w) for w in _leaves(case.fn(*_eager(args)), [])]
    got = _static_run(convert_function(case.fn), args, case.dynamic)
    if len(got) != len(want) and len(got) == 1:   # a list that became a tensor array
        want = [np.stack(want)]
    assert len(got) == len(want)
    for k, (g, w) in enumerate(zip(got, want)):
        _close(g, w, f"{case.name} output {k}")
