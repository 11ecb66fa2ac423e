"""The dispatch chain: one build target plus ordered wrappers, composable and per thread;
one mode predicate (`paddle.in_dynamic_mode`) that static APIs and the builder agree on."""
import itertools
import threading

import numpy as np
import pytest

import sampan as paddle
from sampan import static
from sampan.framework.flags import STATE, dispatch_wrapper, in_dynamic_mode
from sampan.ops.dispatch import call


class Record:
    """A profiler-like wrapper: records op names and passes the call on."""

    def __init__(self):
        self.names = []

    def __call__(self, op, inputs, attrs, nxt):
        self.names.append(op.name)
        return nxt(op, inputs, attrs)


class CastMatmul:
    """An AMP-like wrapper: runs matmul in float64 (its casts re-enter the chain)."""

    def __call__(self, op, inputs, attrs, nxt):
        if op.name == "matmul":
            inputs = tuple(call("cast", x, dtype="float64") for x in inputs)
        return nxt(op, inputs, attrs)


X = np.arange(6, dtype="float32").reshape(2, 3) / 7
W = np.linspace(-1, 1, 12).astype("float32").reshape(3, 4)


def _model(x):
    return paddle.nn.functional.relu(paddle.matmul(x, paddle.to_tensor(W)) + 0.5)


def _expected(cast: bool):
    x, w = (X.astype("float64"), W.astype("float64")) if cast else (X, W)
    return np.maximum(x @ w + 0.5, 0)


def _run(parts):
    """Apply the named parts in order (outermost first); return (values, program, record)."""
    rec = Record() if "record" in parts else None
    guards = []
    for part in parts:
        if part == "record":
            guards.append(dispatch_wrapper(rec))
        elif part == "cast":
            guards.append(dispatch_wrapper(CastMatmul()))
    main = static.Program()
    build = "static" in parts
    try:
        if build:
            paddle.enable_static()
        for g in guards:
            g.__enter__()
        if build:
            with static.program_guard(main, static.Program()):
                out = _model(static.data("x", [2, 3], "float32"))
        else:
            out = _model(paddle.to_tensor(X))
    finally:
        for g in reversed(guards):
            g.__exit__(None, None, None)
        paddle.disable_static()
    if build:
        value = static.Executor().run(main, feed={"x": X}, fetch_list=[out])[0]
        return value, main, rec
    return out.numpy(), None, rec


COMBOS = [c for n in (1, 2, 3) for c in itertools.permutations(("static", "cast", "record"), n)]


@pytest.mark.parametrize("parts", COMBOS, ids=["+".join(c) for c in COMBOS])
def test_every_combination_builds_the_right_program_and_values(parts):
    value, program, rec = _run(parts)
    cast = "cast" in parts
    np.testing.assert_allclose(value, _expected(cast), rtol=1e-6)
    assert value.dtype == (np.float64 if cast else np.float32)
    if program is not None:
        types = [op.type for op in program.global_block().ops]
        assert "matmul" in types and "relu" in types
        # to_tensor(W) while building is a Variable too (Paddle 3.3.1), so both casts are ops
        assert types.count("cast") == (2 if cast else 0)
    if rec is not None:
        assert "matmul" in rec.names and "relu" in rec.names
        assert rec.names.count("cast") == (2 if cast else 0)
    assert STATE.intercept is None and in_dynamic_mode()


def test_static_data_works_under_a_wrapper_installed_on_top_of_static_mode():
    paddle.enable_static()
    try:
        with dispatch_wrapper(Record()), static.program_guard(static.Program()):
            x = static.data("x", [None, 3], "float32")
            assert x.shape == [-1, 3]
    finally:
        paddle.disable_static()


def test_program_guard_alone_does_not_switch_the_mode():
    assert paddle.in_dynamic_mode()
    with static.program_guard(static.Program()):
        assert paddle.in_dynamic_mode()
        with pytest.raises(AssertionError, match="static graph mode"):
            static.data("x", [2], "float32")
        y = paddle.to_tensor([1.0]) * 2  # dynamic mode: runs eagerly
        assert isinstance(y, paddle.Tensor)


def test_enable_static_is_what_in_dynamic_mode_reports():
    paddle.enable_static()
    try:
        assert not paddle.in_dynamic_mode()
        assert not paddle.in_dygraph_mode()
    finally:
        paddle.disable_static()
    assert paddle.in_dynamic_mode()


def test_two_threads_one_building_one_eager_do_not_interfere():
    main = static.Program()
    barrier = threading.Barrier(2, timeout=20)
    results, errors = {}, []

    def builder():
        try:
            paddle.enable_static()
            with static.program_guard(main, static.Program()):
                x = static.data("x", [2, 3], "float32")
                barrier.wait()            # the eager thread runs ops now
                h = paddle.exp(x)
                barrier.wait()
                results["out"] = paddle.tanh(h)
                results["builder_dynamic"] = paddle.in_dynamic_mode()
        except Exception as e:  # surfaced by the assertion below
            errors.append(e)
        finally:
            paddle.disable_static()

    def eager():
        try:
            barrier.wait()
            t = paddle.to_tensor(X)
            results["eager_dynamic"] = paddle.in_dynamic_mode()
            results["eager"] = (paddle.sin(t) * 2).numpy()
            results["eager_main_is_other"] = static.default_main_program() is not main
            barrier.wait()
        except Exception as e:
            errors.append(e)

    threads = [threading.Thread(target=builder), threading.Thread(target=eager)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert not errors, errors
    assert results["eager_dynamic"] and not results["builder_dynamic"]
    assert results["eager_main_is_other"]
    np.testing.assert_allclose(results["eager"], np.sin(X) * 2, rtol=1e-6)
    assert [op.type for op in main.global_block().ops] == ["exp", "tanh"]
    value = static.Executor().run(main, feed={"x": X}, fetch_list=[results["out"]])[0]
    np.testing.assert_allclose(value, np.tanh(np.exp(X)), rtol=1e-6)


def test_a_new_thread_starts_in_dynamic_mode_with_grad_enabled():
    seen = {}
    paddle.enable_static()
    try:
        with paddle.no_grad():
            t = threading.Thread(target=lambda: seen.update(
                dynamic=paddle.in_dynamic_mode(), grad=STATE.grad_enabled))
            t.start()
            t.join(timeout=10)
    finally:
        paddle.disable_static()
    assert seen == {"dynamic": True, "grad": True}


def test_no_grad_in_one_thread_leaves_another_threads_recording_alone():
    from sampan.framework.flags import HOT
    inside, go = threading.Event(), threading.Event()
    seen = {}

    def quiet():
        with paddle.no_grad():
            x = paddle.to_tensor([1.0], stop_gradient=False)
            seen["quiet_grad"] = not (x * 2).stop_gradient
            inside.set()
            go.wait(timeout=10)

    t = threading.Thread(target=quiet)
    t.start()
    assert inside.wait(timeout=10)
    x = paddle.to_tensor([3.0], stop_gradient=False)
    y = (x * x).sum()       # this thread still records
    y.backward()
    go.set()
    t.join(timeout=10)
    assert seen == {"quiet_grad": False}
    np.testing.assert_allclose(x.grad.numpy(), [6.0])
    assert HOT.quirk == 0   # every grad-mode change was undone
