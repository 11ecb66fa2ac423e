"""Executor: plans cached weakly per Program as named records, fetch_list items that are
lists/tuples (flattened as Paddle 3.3.1 does), feed names the program lacks (ignored with
Paddle's warning), run values registered with set_run_value."""
from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest

import sampan as paddle
from sampan import static
from sampan.static.executor import set_run_value
from sampan.static.plan import FeedSpec, Plan, Step
from tests.static_util import static_guard


XV = np.arange(6, dtype="float32").reshape(2, 3)


def _prog():
    main = static.Program()
    with static_guard(main):
        x = static.data("x", [2, 3], "float32")
        y, z, w = x * 2.0, x + 1.0, paddle.sum(x)
    return main, x, y, z, w


def test_fetch_list_items_may_be_lists_or_tuples_of_variables():
    # Paddle 3.3.1: fetch_list=[[y, z], w] -> 3 arrays of shapes (2, 3), (2, 3), ()
    main, x, y, z, w = _prog()
    exe = static.Executor()
    out = exe.run(main, feed={"x": XV}, fetch_list=[[y, z], w])
    assert [o.shape for o in out] == [(2, 3), (2, 3), ()]
    np.testing.assert_array_equal(out[0], XV * 2)
    np.testing.assert_array_equal(out[1], XV + 1)
    assert float(out[2]) == 15.0
    out = exe.run(main, feed={"x": XV}, fetch_list=[(y, z)])
    assert [o.shape for o in out] == [(2, 3), (2, 3)]
    assert len(exe.run(main, feed={"x": XV}, fetch_list=y)) == 1
    assert exe.run(main, feed={"x": XV}, fetch_list=[]) == []


def test_fetch_list_nested_deeper_or_with_other_items_is_refused():
    # Paddle 3.3.1 raises TypeError "... should be Variable, Operator or str" for both
    main, x, y, z, w = _prog()
    exe = static.Executor()
    with pytest.raises(TypeError, match=r"fetch_list\[0\]\[1\] must be a Variable"):
        exe.run(main, feed={"x": XV}, fetch_list=[[y, [z, w]]])
    with pytest.raises(TypeError, match=r"fetch_list\[0\]\[1\] must be .*got int"):
        exe.run(main, feed={"x": XV}, fetch_list=[[y, 3]])


def test_feed_names_not_in_the_program_are_ignored_with_a_warning():
    # Paddle 3.3.1 warns "The value axis is not found in program. It is not declared or is
    # pruned." and runs; a static Layer called with keyword arguments (`axis=...`) whose
    # values a test also feeds hit this.
    main, x, y, z, w = _prog()
    exe = static.Executor()
    with pytest.warns(UserWarning, match="'axis' is not found in program"):
        (out,) = exe.run(main, feed={"x": XV, "axis": np.array([1])}, fetch_list=[y])
    np.testing.assert_array_equal(out, XV * 2)
    (out,) = exe.run(main, feed={"x": XV, "axis": np.array([1])}, fetch_list=[y])  # cached
    np.testing.assert_array_equal(out, XV * 2)


def test_plans_are_named_records_without_variables():
    main, x, y, z, w = _prog()
    exe = static.Executor()
    exe.run(main, feed={"x": XV}, fetch_list=[y])
    (plan,) = exe._cache[main].values()
    assert isinstance(plan, Plan) and all(isinstance(s, Step) for s in plan.steps)
    spec = plan.feeds["x"]
    assert isinstance(spec, FeedSpec) and spec.name == "x" and spec.shape == [2, 3]
    assert plan.steps[0].compute.__self__.name == main.global_block().ops[0].type


def test_a_program_that_is_run_and_dropped_is_collected():
    main, x, y, z, w = _prog()
    exe = static.Executor()
    exe.run(main, feed={"x": XV}, fetch_list=[y, [z, w]])
    ref = weakref.ref(main)
    del main, x, y, z, w
    gc.collect()
    assert ref() is None
    assert len(exe._cache) == 0


def test_a_trained_program_is_collected_while_its_optimizer_lives():
    main, startup = static.Program(), static.Program()
    with static_guard(main, startup):
        x = static.data("x", [None, 4], "float32")
        loss = paddle.mean(static.nn.fc(x, 2))
        opt = paddle.optimizer.Adam(0.1)
        opt.minimize(loss)
    exe = static.Executor()
    with static.scope_guard(static.Scope()):
        exe.run(startup)
        exe.run(main, feed={"x": np.ones((2, 4), "float32")}, fetch_list=[loss])
    ref = weakref.ref(main)
    del main, startup, x, loss
    gc.collect()
    assert ref() is None and opt is not None


def test_set_run_value_writes_the_scope_before_each_run():
    main, startup = static.Program(), static.Program()
    with static_guard(main, startup):
        c = static.create_global_var([], 0.0, "float32", persistable=True, name="run_c")
        out = c * 2.0
    values = iter([1.0, 3.0, None])
    set_run_value(main, "run_c", lambda: (lambda v: None if v is None else
                                          np.array(v, "float32"))(next(values)))
    exe, scope = static.Executor(), static.Scope()
    with static.scope_guard(scope):
        exe.run(startup)
        got = [float(exe.run(main, fetch_list=[out])[0]) for _ in range(3)]
    assert got == [2.0, 6.0, 6.0]  # None keeps the scope's last value
