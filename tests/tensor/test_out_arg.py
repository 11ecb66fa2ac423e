"""Paddle 3.3.1's keyword-only `out=` (sampan/tensor/out_arg.py).

Behaviour recorded from Paddle 3.3.1 (eager): `out` takes the result over - value, shape,
dtype and graph position - whatever its own shape/dtype was; gradients flow through it; a
multi-output function takes a tuple (a list or a wrong length is a ValueError). Paddle's
C++ functions return a second handle sharing out's storage, sampan returns `out` itself.
Paddle 3.3.1's static graph (PIR) ignores `out` with a warning; sampan's Variable takes the
result over (SSA rebind), so fetching `out` gives the result.
"""
import inspect

import numpy as np
import pytest

import sampan as paddle
from sampan.tensor import out_arg
from tests.static_util import static_guard


def _xy():
    return paddle.to_tensor([1.0, 2.0, 3.0]), paddle.to_tensor([4.0, 5.0, 6.0])


def test_out_takes_the_result_and_is_returned():
    x, y = _xy()
    out = paddle.zeros([3])
    r = paddle.add(x, y, out=out)
    assert r is out
    np.testing.assert_array_equal(out.numpy(), [5.0, 7.0, 9.0])
    r = x.exp(out=out)  # the Tensor method too
    assert r is out
    np.testing.assert_allclose(out.numpy(), np.exp([1.0, 2.0, 3.0]), rtol=1e-6)


def test_out_shape_and_dtype_follow_the_result():
    # Paddle 3.3.1: add(x, y, out=zeros([2], 'int32')) leaves out float32 of shape [3];
    # equal(x, x, out=zeros([1], 'int32')) leaves out bool [2, 2]; sum over axis 0 of
    # [[1, 5], [3, 2]] into zeros([1]) gives [4, 7].
    x, y = _xy()
    out = paddle.zeros([2], dtype="int32")
    paddle.add(x, y, out=out)
    assert out.shape == [3] and out.dtype == paddle.float32
    m = paddle.to_tensor([[1.0, 5.0], [3.0, 2.0]])
    out = paddle.zeros([1], dtype="int32")
    paddle.equal(m, m, out=out)
    assert out.dtype == paddle.bool and out.shape == [2, 2]
    out = paddle.zeros([1])
    paddle.sum(m, axis=0, out=out)
    np.testing.assert_array_equal(out.numpy(), [4.0, 7.0])


def test_creation_and_random_functions_fill_out():
    out = paddle.zeros([1])
    assert paddle.ones([2, 2], out=out) is out
    np.testing.assert_array_equal(out.numpy(), np.ones((2, 2)))
    out = paddle.zeros([1], dtype="int64")
    paddle.arange(5, out=out)
    assert out.numpy().tolist() == [0, 1, 2, 3, 4]
    paddle.seed(3)
    paddle.rand([2, 3], out=out)
    assert out.shape == [2, 3] and out.dtype == paddle.float32


def test_out_may_be_an_input():
    x, y = _xy()
    assert paddle.add(x, y, out=x) is x
    np.testing.assert_array_equal(x.numpy(), [5.0, 7.0, 9.0])


def test_gradients_flow_through_out():
    # Paddle 3.3.1: multiply(a, a, out=o); o.sum().backward() -> a.grad == 2a, o not a leaf
    a = paddle.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
    out = paddle.zeros([3])
    paddle.multiply(a, a, out=out)
    assert not out.stop_gradient and not out.is_leaf
    out.sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), [2.0, 4.0, 6.0])
    # an out leaf that requires grad is allowed; it becomes the result (its .grad stays None)
    b = paddle.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
    out = paddle.zeros([3])
    out.stop_gradient = False
    paddle.exp(b, out=out).sum().backward()
    np.testing.assert_allclose(b.grad.numpy(), np.exp([1.0, 2.0, 3.0]), rtol=1e-6)
    assert out.grad is None and not out.is_leaf


def test_multi_output_takes_a_tuple():
    # Paddle 3.3.1: topk(k=1, axis=1) of [[1, 5], [3, 2]] -> [[5], [3]], [[1], [0]] int64
    m = paddle.to_tensor([[1.0, 5.0], [3.0, 2.0]])
    out = (paddle.zeros([1]), paddle.zeros([1], dtype="int32"))
    r = m.topk(1, axis=1, out=out)
    assert r is out
    assert out[0].numpy().tolist() == [[5.0], [3.0]]
    assert out[1].numpy().tolist() == [[1], [0]] and out[1].dtype == paddle.int64
    out = tuple(paddle.zeros([1]) for _ in range(3))
    u, s, vh = paddle.linalg.svd(paddle.to_tensor([[3.0, 0.0], [0.0, 2.0]]), out=out)
    assert s is out[1]
    np.testing.assert_allclose(s.numpy(), [3.0, 2.0], rtol=1e-6)


def test_bad_out_errors():
    x, y = _xy()
    # Paddle 3.3.1: "The out argument must be a tuple with 2 elements." (ValueError)
    with pytest.raises(ValueError, match=r"paddle.topk: the out argument must be a tuple "
                                         r"with 2 elements.*got a list of 2"):
        paddle.topk(x, 2, out=[paddle.zeros([2]), paddle.zeros([2])])
    with pytest.raises(ValueError, match=r"tuple with 2 elements.*got a tuple of 1"):
        paddle.topk(x, 2, out=(paddle.zeros([2]),))
    with pytest.raises(TypeError, match=r"paddle.add: out must be a Tensor, got a list"):
        paddle.add(x, y, out=[1.0, 2.0, 3.0])
    with pytest.raises(TypeError, match=r"paddle.topk: out\[1\] must be a Tensor, got int"):
        paddle.topk(x, 2, out=(paddle.zeros([2]), 0))


def test_static_mode_out_variable_holds_the_result():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with static_guard(main, startup):
        a = paddle.static.data("a", [3], "float32")
        b = paddle.static.data("b", [3], "float32")
        out = paddle.zeros([3])
        assert paddle.add(a, b, out=out) is out
        pair = (paddle.zeros([2]), paddle.zeros([2], dtype="int64"))
        assert paddle.topk(a, 2, out=pair) is pair
        with pytest.raises(TypeError, match=r"paddle.exp: out is an eager Tensor"):
            paddle.exp(a, out=paddle.Tensor(np.zeros(3, "float32")))
    exe = paddle.static.Executor()
    exe.run(startup)
    feed = {"a": np.array([1.0, 3.0, 2.0], "float32"), "b": np.ones(3, "float32")}
    got = exe.run(main, feed=feed, fetch_list=[out, pair[0], pair[1]])
    np.testing.assert_array_equal(got[0], [2.0, 4.0, 3.0])
    np.testing.assert_array_equal(got[1], [3.0, 2.0])
    assert got[2].tolist() == [1, 2]


def test_signatures_list_out_keyword_only():
    for fn in (paddle.add, paddle.Tensor.add, paddle.topk, paddle.arange, paddle.fft.fft,
               paddle.linalg.svd, paddle.nn.functional.softmax, paddle.Tensor.sum):
        p = inspect.signature(fn).parameters["out"]
        assert p.kind is inspect.Parameter.KEYWORD_ONLY and p.default is None, fn
    assert list(inspect.signature(paddle.topk).parameters)[-2:] == ["name", "out"]
    assert "out" not in inspect.signature(paddle.reshape).parameters  # not in Paddle's list
    # aliases stay the same object as their target (Paddle binds them so)
    assert paddle.clamp is paddle.clip and paddle.mod is paddle.remainder


def test_every_listed_name_has_out():
    for name in out_arg.TENSOR_NAMES:
        assert "out" in inspect.signature(getattr(paddle, name)).parameters, name
    for mod, names in ((paddle.fft, out_arg.FFT_NAMES), (paddle.linalg, out_arg.LINALG_NAMES),
                       (paddle.nn.functional, out_arg.FUNCTIONAL_NAMES)):
        for name in names:
            assert "out" in inspect.signature(getattr(mod, name)).parameters, name


def test_wrapper_idempotent_and_signature_before_var_keyword():
    def f(x, name=None, **kwargs):
        return x
    w = out_arg.with_out(f)
    assert out_arg.with_out(w) is w and inspect.unwrap(w) is f
    assert list(inspect.signature(w).parameters) == ["x", "name", "out", "kwargs"]


def test_function_with_its_own_out_is_left_alone():
    def g(x, out=None):
        return (x, out)
    assert out_arg.with_out(g) is g
