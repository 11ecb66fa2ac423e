"""Grad-mode switches as decorators: set_grad_enabled(mode) is a call, a context manager and
a decorator; decorated functions and methods keep their name and signature."""
import inspect

import pytest

import sampan as paddle
from sampan.base import framework


def _f(a, b=1):
    return a + b


def test_set_grad_enabled_as_decorator():
    x = paddle.to_tensor([1.0], stop_gradient=False)

    @paddle.set_grad_enabled(False)
    def double(t):
        return t * 2

    assert paddle.is_grad_enabled()  # decorating does not change the mode
    assert double(x).stop_gradient is True
    assert paddle.is_grad_enabled()
    assert double.__name__ == "double"
    with paddle.no_grad():
        y = paddle.set_grad_enabled(True)(lambda t: t * 2)(x)
    assert y.stop_gradient is False


def test_set_grad_enabled_call_and_context():
    x = paddle.to_tensor([1.0], stop_gradient=False)
    with paddle.set_grad_enabled(False):
        assert (x * 2).stop_gradient is True
    assert paddle.is_grad_enabled()
    paddle.set_grad_enabled(False)
    try:
        assert (x * 2).stop_gradient is True
    finally:
        paddle.set_grad_enabled(True)
    with pytest.raises(TypeError, match="set_grad_enabled"):
        paddle.set_grad_enabled(True)(1)


@pytest.mark.parametrize("make", [lambda f: paddle.no_grad(f), lambda f: paddle.no_grad()(f),
                                  lambda f: paddle.enable_grad()(f),
                                  lambda f: paddle.set_grad_enabled(True)(f)])
def test_decorated_functions_keep_their_signature(make):
    wrapped = make(_f)
    assert str(inspect.getfullargspec(wrapped)) == str(inspect.getfullargspec(_f))
    assert wrapped(1) == 2 and wrapped.__name__ == "_f"


def test_decorated_method_binds_with_its_name():
    class Model:
        @paddle.no_grad()
        def run(self, t):
            return paddle.is_grad_enabled(), t

    assert Model().run.__name__ == "run"
    assert Model().run(3) == (False, 3)
    assert paddle.is_grad_enabled()


def test_dygraph_tracer_reads_and_sets_the_grad_mode():
    tracer = framework._dygraph_tracer()
    assert tracer._has_grad is True
    with paddle.no_grad():
        assert tracer._has_grad is False
    tracer._has_grad = False
    try:
        assert not paddle.is_grad_enabled()
    finally:
        tracer._has_grad = True
    paddle.enable_static()
    try:
        assert framework._dygraph_tracer() is None
    finally:
        paddle.disable_static()
