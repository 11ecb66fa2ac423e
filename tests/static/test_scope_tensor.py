"""scope.var(name).get_tensor(): Paddle's DenseTensor of a scope variable (set/read/print)."""
import numpy as np

import sampan as paddle
from sampan.static import Scope, scope_guard, global_scope


def test_set_through_get_tensor_then_find_var_reads_it():
    scope = Scope()
    with scope_guard(scope):
        t = global_scope().var("data").get_tensor()
        assert not t._is_initialized() and t.shape() == [0]
        assert np.array(t).shape == (0,)
        t.set(np.ones((2, 2)), paddle.CPUPlace())
    assert t._is_initialized() and t.shape() == [2, 2] and t._dtype() == paddle.float64
    np.testing.assert_array_equal(np.array(scope.find_var("data").get_tensor()), np.ones((2, 2)))
    assert "data" not in global_scope()


def test_earlier_handle_sees_later_set_and_prints_dense_tensor():
    scope = Scope()
    old = scope.var("w").get_tensor()
    scope.var("w").get_tensor().set(np.arange(3, dtype="int32"), paddle.CPUPlace())
    np.testing.assert_array_equal(old.numpy(), [0, 1, 2])
    assert str(old).endswith("  - dtype: int32\n  - data: [0 1 2]")
    assert scope.find_var("missing") is None


def test_executor_reads_value_set_in_scope():
    main, startup = paddle.static.Program(), paddle.static.Program()
    from tests.static_util import static_guard
    with static_guard(main, startup):
        w = paddle.static.create_parameter([2], "float32", name="w_scope_t")
        out = w * 2.0
        exe = paddle.static.Executor()
        scope = Scope()
        exe.run(startup, scope=scope)
        scope.var("w_scope_t").get_tensor().set(np.array([1.0, 3.0], "float32"), None)
        res, = exe.run(main, fetch_list=[out], scope=scope)
    np.testing.assert_allclose(res, [2.0, 6.0])


def test_save_a_dense_tensor_loads_a_tensor(tmp_path):
    scope = Scope()
    scope.var("w").get_tensor().set(np.ones((2, 2), "float32"), None)
    paddle.save(scope.find_var("w").get_tensor(), str(tmp_path / "w.pdtensor"))
    loaded = paddle.load(str(tmp_path / "w.pdtensor"))
    assert isinstance(loaded, paddle.Tensor) and loaded.name == "w"
    np.testing.assert_array_equal(loaded.numpy(), np.ones((2, 2)))
    paddle.save(paddle.to_tensor([1.0, 2.0]).get_tensor(), str(tmp_path / "x.pdtensor"))
    np.testing.assert_array_equal(
        paddle.load(str(tmp_path / "x.pdtensor"), return_numpy=True), [1.0, 2.0])
