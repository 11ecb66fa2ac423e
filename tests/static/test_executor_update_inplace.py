"""Executor: optimizer update ops whose outputs are their own persistable inputs run their
OpDef's `update` in place on the scope / bound arrays (no copies); values must equal the
copying `compute` path, and fetched or fed arrays must never change behind the user."""
from __future__ import annotations

import numpy as np
import pytest

import sampan as paddle
from sampan import static
from sampan.static import plan as P
from sampan.utils import unique_name
from tests.static_util import static_guard

RNG = np.random.default_rng(0)
X = RNG.standard_normal((8, 4)).astype("float32")
Y = RNG.standard_normal((8, 2)).astype("float32")


@pytest.fixture(autouse=True)
def _static_mode():
    paddle.enable_static()
    yield
    paddle.disable_static()


def _build(opt, extra=None):
    paddle.seed(1)
    main, startup = static.Program(), static.Program()
    with static_guard(main, startup), unique_name.guard():
        x = static.data("x", [None, 4], "float32")
        y = static.data("y", [None, 2], "float32")
        h = static.nn.fc(x, 6, activation="tanh")
        out = static.nn.fc(h, 2)
        loss = paddle.mean((out - y) ** 2)
        opt(main.all_parameters()).minimize(loss)
        if extra is not None:
            loss = (loss, extra(main))
    return main, startup, loss


_OPTS = {
    "sgd": lambda ps: paddle.optimizer.SGD(0.1, parameters=ps),
    "momentum": lambda ps: paddle.optimizer.Momentum(0.1, 0.9, parameters=ps),
    "adam": lambda ps: paddle.optimizer.Adam(0.05, parameters=ps),
    "adamw": lambda ps: paddle.optimizer.AdamW(0.05, parameters=ps),
}


def _train(opt, steps=4, inplace=True, monkeypatch=None):
    if not inplace:
        monkeypatch.setattr(P, "_in_place_update", lambda *a: None)
    main, startup, loss = _build(opt)
    exe = static.Executor()
    scope = static.Scope()
    with static.scope_guard(scope):
        exe.run(startup)
        losses = [float(exe.run(main, feed={"x": X, "y": Y}, fetch_list=[loss])[0])
                  for _ in range(steps)]
    state = {n: scope.get(n).copy() for n in scope.local_var_names()}
    plans = [p for ps in exe._cache.values() for p in ps.values() if p.updates]
    return losses, state, plans


@pytest.mark.parametrize("name", sorted(_OPTS))
def test_in_place_updates_equal_the_copying_path(name, monkeypatch):
    losses, state, plans = _train(_OPTS[name])
    assert plans and all(len(p.updates) == 4 for p in plans)  # 2 fc layers: w and b each
    with monkeypatch.context() as m:
        ref_losses, ref_state, ref_plans = _train(_OPTS[name], inplace=False, monkeypatch=m)
    assert not ref_plans
    assert losses == ref_losses
    assert state.keys() == ref_state.keys()
    for n in state:
        np.testing.assert_array_equal(state[n], ref_state[n], err_msg=n)


def test_fetched_parameters_and_views_do_not_change_on_later_runs():
    def transposed(main):  # a view of the parameter's array in NumPy
        return paddle.transpose(main.all_parameters()[0], [1, 0])
    main, startup, (loss, wt) = _build(_OPTS["adam"], transposed)
    w = main.all_parameters()[0]
    exe = static.Executor()
    with static.scope_guard(static.Scope()):
        exe.run(startup)
        w1, wt1 = exe.run(main, feed={"x": X, "y": Y}, fetch_list=[w, wt])
        keep_w, keep_wt = w1.copy(), wt1.copy()
        w2, _ = exe.run(main, feed={"x": X, "y": Y}, fetch_list=[w, wt])
    np.testing.assert_array_equal(w1, keep_w)
    np.testing.assert_array_equal(wt1, keep_wt)
    assert not np.array_equal(w1, w2)  # the parameter did train


def test_scope_set_and_fed_arrays_are_not_modified():
    main, startup, loss = _build(_OPTS["sgd"])
    name = main.all_parameters()[0].name
    exe = static.Executor()
    scope = static.Scope()
    with static.scope_guard(scope):
        exe.run(startup)
        mine = np.ones_like(scope.get(name))
        scope.set(name, mine)  # the scope keeps a copy, as Paddle's tensor.set
        exe.run(main, feed={"x": X, "y": Y}, fetch_list=[loss])
        np.testing.assert_array_equal(mine, 1.0)
        assert not np.array_equal(scope.get(name), mine)
        fed = np.full_like(mine, 2.0)  # a fed parameter is never updated in place
        exe.run(main, feed={"x": X, "y": Y, name: fed}, fetch_list=[loss])
        np.testing.assert_array_equal(fed, 2.0)


def test_read_only_scope_arrays_fall_back_to_the_copying_path():
    main, startup, loss = _build(_OPTS["momentum"])
    exe = static.Executor()
    scope = static.Scope()
    with static.scope_guard(scope):
        exe.run(startup)
        name = main.all_parameters()[0].name
        frozen = scope.get(name)
        frozen.flags.writeable = False
        before = frozen.copy()
        exe.run(main, feed={"x": X, "y": Y}, fetch_list=[loss])
        np.testing.assert_array_equal(frozen, before)
        assert not np.array_equal(scope.get(name), before)


def test_layer_parameters_bound_to_the_program_train_in_place():
    paddle.disable_static()
    layer = paddle.nn.Linear(4, 2)
    paddle.enable_static()
    main, startup = static.Program(), static.Program()
    with static_guard(main, startup), unique_name.guard():
        x = static.data("x", [None, 4], "float32")
        y = static.data("y", [None, 2], "float32")
        loss = paddle.mean((layer(x) - y) ** 2)
        paddle.optimizer.SGD(0.1, parameters=layer.parameters()).minimize(loss)
    exe = static.Executor()
    exe.run(startup)
    w0 = layer.weight.numpy().copy()
    version = layer.weight._version
    exe.run(main, feed={"x": X, "y": Y}, fetch_list=[loss])
    assert not np.array_equal(layer.weight.numpy(), w0)
    assert layer.weight._version > version
