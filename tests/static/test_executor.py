"""Executor: feeds, fetches, scopes, plan cache, freeing, random seeds, clear errors."""
from __future__ import annotations

import numpy as np
import pytest

import sampan as paddle
from sampan import static
from sampan.static.executor import _compile
from tests.static_util import static_guard


def _prog():
    main, startup = static.Program(), static.Program()
    with static_guard(main, startup):
        x = static.data("x", [None, 3], "float32")
        w = static.create_parameter([3, 2], "float32", name="w_exec")
        h = paddle.tanh(paddle.matmul(x, w))
        y = (h * h).sum()
    return main, startup, x, w, h, y


def test_run_startup_then_main_and_scope():
    main, startup, x, w, h, y = _prog()
    scope = static.Scope()
    exe = static.Executor(paddle.CPUPlace())
    with static.scope_guard(scope):
        exe.run(startup)
        assert static.global_scope() is scope
        wv = scope.find_var("w_exec").get_tensor().numpy()
        xv = np.random.default_rng(0).standard_normal((4, 3)).astype("float32")
        out_y, out_h = exe.run(main, feed={"x": xv}, fetch_list=[y, "tmp" and h.name])
    np.testing.assert_allclose(out_h, np.tanh(xv @ wv), rtol=1e-6)
    np.testing.assert_allclose(out_y, (np.tanh(xv @ wv) ** 2).sum(), rtol=1e-5)
    assert static.global_scope() is not scope


def test_return_numpy_false_gives_tensors():
    main, startup, x, w, h, y = _prog()
    exe = static.Executor()
    with static.scope_guard(static.Scope()):
        exe.run(startup)
        (out,) = exe.run(main, feed={"x": np.ones((1, 3), "float32")}, fetch_list=[y],
                         return_numpy=False)
    assert isinstance(out, paddle.Tensor) and out.shape == []


def test_plan_is_cached_and_rebuilt_after_a_change():
    main, startup, x, w, h, y = _prog()
    exe = static.Executor()
    with static.scope_guard(static.Scope()):
        exe.run(startup)
        feed = {"x": np.ones((2, 3), "float32")}
        exe.run(main, feed=feed, fetch_list=[y])
        exe.run(main, feed=feed, fetch_list=[y])
        assert len(exe._cache) == 2 and len(exe._cache[main]) == 1  # startup + main
        with static_guard(main):
            z = y * 2.0
        (zv,) = exe.run(main, feed=feed, fetch_list=[z])
        assert len(exe._cache[main]) == 1  # the new version's plan; the stale one dropped
        (yv,) = exe.run(main, feed=feed, fetch_list=[y])
    np.testing.assert_allclose(zv, 2 * yv, rtol=1e-6)


def test_intermediates_are_freed_after_last_use():
    main, startup, x, w, h, y = _prog()
    plan = _compile(main, ("x",), (y.name,))
    freed = {i for step in plan.steps for i in step.frees}
    kept = {plan.feeds["x"].slot} | set(plan.fetch)
    assert freed and not freed & set(plan.fetch)
    assert len(freed) >= len(main.global_block().ops) - 1 - len(kept & freed)


def test_feed_and_fetch_errors_name_the_variable():
    main, startup, x, w, h, y = _prog()
    exe = static.Executor()
    with static.scope_guard(static.Scope()):
        with pytest.raises(RuntimeError, match="w_exec.*startup"):
            exe.run(main, feed={"x": np.ones((2, 3), "float32")}, fetch_list=[y])
        exe.run(startup)
        with pytest.warns(UserWarning, match="'nope' is not found in program"):
            exe.run(main, feed={"x": np.ones((2, 3), "float32"), "nope": np.ones(3)},
                    fetch_list=[y])
        # Paddle 3.3.1 runs with the fed shape: a warning names x, then matmul fails
        with pytest.warns(UserWarning, match="'x'.*shape \\[2, 4\\].*\\[-1, 3\\]"):
            with pytest.raises(ValueError, match="matmul"):
                exe.run(main, feed={"x": np.ones((2, 4), "float32")}, fetch_list=[y])
        with pytest.raises(TypeError, match="'x'.*float64.*float32"):
            exe.run(main, feed={"x": np.ones((2, 3))}, fetch_list=[y])
        with pytest.raises(ValueError, match="data variable 'x'.*must be fed"):
            exe.run(main, feed={}, fetch_list=[y])
        with pytest.raises(ValueError, match="cannot fetch 'missing_var'"):
            exe.run(main, feed={"x": np.ones((2, 3), "float32")}, fetch_list=["missing_var"])
        out = exe.run(main, feed={"x": [[1.0, 2.0, 3.0]]}, fetch_list=[y])  # lists are cast
        assert out[0].dtype == np.float32


def test_random_ops_redraw_per_run_unless_seeded():
    main = static.Program()
    with static_guard(main):
        r = paddle.uniform([4], "float32")
        fixed = paddle.uniform([4], "float32", seed=7)
    exe = static.Executor()
    a, b = exe.run(main, fetch_list=[r, fixed]), exe.run(main, fetch_list=[r, fixed])
    assert not np.array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])  # a fixed op seed repeats


def test_global_var_and_inplace_update_of_persistable():
    main, startup = static.Program(), static.Program()
    with static_guard(main, startup):
        counter = static.create_global_var([1], 0.0, "float32", persistable=True,
                                           name="counter")
        counter.add_(paddle.ones([1]))
    exe = static.Executor()
    with static.scope_guard(static.Scope()):
        exe.run(startup)
        for _ in range(3):
            exe.run(main)
        (value,) = exe.run(main, fetch_list=[counter])
    np.testing.assert_allclose(value, [4.0])


def test_executor_rejects_non_program():
    with pytest.raises(TypeError, match="must be a Program"):
        static.Executor().run("not a program")


def test_an_eager_tensor_in_fetch_list_is_fetched_by_value():
    # Paddle accepts it (its own tests fetch paddle.ones(...) built in dynamic mode)
    with static.program_guard(static.Program()):
        ones = paddle.ones(shape=[4], dtype="int64")
        (value,) = static.Executor().run(fetch_list=[ones])
    np.testing.assert_array_equal(value, np.ones(4, "int64"))
    main = static.Program()
    with static_guard(main, static.Program()):
        x = static.data("x", [2], "float32")
        y = x * 2.0
    got = static.Executor().run(main, feed={"x": np.ones(2, "float32")},
                                fetch_list=[y, paddle.to_tensor([7.0])])
    np.testing.assert_allclose(got[0], [2.0, 2.0])
    np.testing.assert_allclose(got[1], [7.0])


def test_fetched_int64_arrays_are_longlong_as_paddle_prints_them():
    import sampan as paddle
    from tests.static_util import static_guard
    main, startup = paddle.static.Program(), paddle.static.Program()
    with static_guard(main, startup):
        x = paddle.static.data("x", [2], "float32")
        y, z = paddle.argmax(x), paddle.cast(x, "int32")
    exe = paddle.static.Executor()
    got = exe.run(main, feed={"x": np.array([1.0, 3.0], "float32")}, fetch_list=[y, z, x])
    assert repr(got[0]) == "array(1, dtype=int64)" and got[0].dtype == np.int64
    assert repr(got[1]) == "array([1, 3], dtype=int32)"
    assert got[2].dtype == np.float32
    assert isinstance(exe.run(main, feed={"x": np.ones(2, "float32")}, fetch_list=[y],
                              return_numpy=False)[0], paddle.Tensor)
