"""Static Programs and to_static on a device place (the fake device, on every machine): the
Executor computes on its place, keeps parameters there, returns NumPy fetches, and gives the
same numbers as the CPU."""
from __future__ import annotations

import numpy as np
import pytest

import sampan as paddle
from sampan.backend.fake import FakeArray, FakePlace
from sampan.framework import place as _place
from tests.backend.static_check import cond_program, mlp_program, train_static, train_to_static
from tests.static_util import static_guard

FAKE = FakePlace(0)


@pytest.fixture
def on_fake():
    old = _place.current_place()
    _place.set_place(FAKE)
    try:
        yield
    finally:
        _place.set_place(old)


def test_static_training_on_device_equals_cpu():
    cpu_losses, cpu_out, cpu_scope = train_static(paddle.CPUPlace())
    losses, out, scope = train_static(FAKE)
    assert all(isinstance(v, np.ndarray) for v in losses + [out])  # return_numpy: NumPy
    np.testing.assert_allclose(losses, cpu_losses, rtol=1e-5)
    np.testing.assert_allclose(out, cpu_out, rtol=1e-5, atol=1e-6)
    assert {type(v) for v in scope._vars.values()} == {FakeArray}  # parameters stay there
    name = next(n for n in scope.local_var_names() if n.endswith(".w_0"))
    got = scope.get(name)   # the public read is a host copy
    assert isinstance(got, np.ndarray)
    np.testing.assert_allclose(got, cpu_scope.get(name), rtol=1e-5, atol=1e-6)


def test_executor_follows_current_place_and_returns_device_tensors(on_fake):
    main, startup, out, _ = mlp_program()
    exe = paddle.static.Executor()
    scope = paddle.static.Scope()
    with paddle.static.scope_guard(scope):
        exe.run(startup)
        x = paddle.to_tensor(np.ones((2, 4), "float32"))   # a device tensor as feed
        res, = exe.run(main, feed={"x": x, "y": np.zeros((2, 1), "int64")}, fetch_list=[out],
                       return_numpy=False)
    assert res.place == FAKE and isinstance(res._data, FakeArray)
    assert res.shape == [2, 3]


def test_executor_place_strings_and_host_places():
    main, startup, out, _ = mlp_program()
    feed = {"x": np.ones((2, 4), "float32"), "y": np.zeros((2, 1), "int64")}
    for place in ("cpu", paddle.CUDAPinnedPlace()):
        scope = paddle.static.Scope()
        with paddle.static.scope_guard(scope):
            exe = paddle.static.Executor(place)
            exe.run(startup)
            res, = exe.run(main, feed=feed, fetch_list=[out])
        assert isinstance(res, np.ndarray) and all(
            isinstance(v, np.ndarray) for v in scope._vars.values())
    with pytest.raises(ValueError, match="Executor: place must be .*'tpu'"):
        paddle.static.Executor("tpu")


def test_control_flow_blocks_run_on_device():
    main, out = cond_program()
    x = np.array([1.0, -2.0, 3.0], "float32")
    want, = paddle.static.Executor(paddle.CPUPlace()).run(main, feed={"x": x},
                                                          fetch_list=[out])
    got, = paddle.static.Executor(FAKE).run(main, feed={"x": x}, fetch_list=[out])
    np.testing.assert_allclose(got, want)
    np.testing.assert_allclose(want, (x * 8 + 7) - 1.0)


def test_to_static_training_on_device_equals_cpu():
    for got, want in zip(train_to_static(FAKE), train_to_static(paddle.CPUPlace())):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_cpu_only_op_in_a_device_program_runs_on_the_host():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with static_guard(main, startup):
        x = paddle.static.data("x", [3, 3], "float64")
        a = paddle.matmul(x, x, transpose_y=True) + paddle.eye(3, dtype="float64")
        out = paddle.linalg.cholesky(a).sum() * 2.0    # cholesky is CPU-only
    x = np.random.default_rng(0).standard_normal((3, 3))
    want, = paddle.static.Executor(paddle.CPUPlace()).run(main, feed={"x": x},
                                                          fetch_list=[out])
    got, = paddle.static.Executor(FAKE).run(main, feed={"x": x}, fetch_list=[out],
                                            return_numpy=False)
    assert got.place == FAKE
    np.testing.assert_allclose(got.numpy(), want)
    np.testing.assert_allclose(want, 2 * np.linalg.cholesky(x @ x.T + np.eye(3)).sum())
    with pytest.raises(NotImplementedError, match="cholesky.*fake"):   # eager: a clear error
        paddle.linalg.cholesky(paddle.to_tensor(np.eye(2), place=FAKE))
