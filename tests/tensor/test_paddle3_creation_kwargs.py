"""Paddle 3.3.1's creation keywords device= / requires_grad= / pin_memory= (values recorded
from Paddle 3.3.1 on a CPU build)."""
import inspect

import numpy as np
import pytest

import sampan as paddle

SHAPED = {
    "zeros": lambda **k: paddle.zeros([2, 3], **k),
    "ones": lambda **k: paddle.ones([2, 3], **k),
    "full": lambda **k: paddle.full([2, 3], 1.5, **k),
    "empty": lambda **k: paddle.empty([2, 3], **k),
    "zeros_like": lambda **k: paddle.zeros_like(paddle.ones([2, 3]), **k),
    "ones_like": lambda **k: paddle.ones_like(paddle.ones([2, 3]), **k),
    "full_like": lambda **k: paddle.full_like(paddle.ones([2, 3]), 2.0, **k),
    "empty_like": lambda **k: paddle.empty_like(paddle.ones([2, 3]), **k),
    "arange": lambda **k: paddle.arange(0, 6, 1.0, **k),
    "eye": lambda **k: paddle.eye(2, 3, **k),
    "rand": lambda **k: paddle.rand([2, 3], **k),
    "randn": lambda **k: paddle.randn([2, 3], **k),
    "randperm": lambda **k: paddle.randperm(6, **k),
}
NO_PIN = {
    "linspace": lambda **k: paddle.linspace(0, 1, 5, **k),
    "uniform": lambda **k: paddle.uniform([2, 3], **k),
    "standard_normal": lambda **k: paddle.standard_normal([2, 3], **k),
}


@pytest.mark.parametrize("name", sorted({**SHAPED, **NO_PIN}))
def test_requires_grad_and_device(name):
    make = {**SHAPED, **NO_PIN}[name]
    assert make().stop_gradient is True
    t = make(device="cpu", requires_grad=True)
    assert t.stop_gradient is False  # Paddle: Place(cpu) False
    assert str(t.place) == "Place(cpu)"
    assert make(device=paddle.CPUPlace()).place.is_cpu_place()


@pytest.mark.parametrize("name", sorted(SHAPED))
def test_pin_memory_on_cpu_is_refused(name):
    # Paddle 3.3.1 (CPU): RuntimeError "Pinning memory is not supported for Place(cpu)"
    with pytest.raises(RuntimeError, match=f"{name}: pin_memory=True.*Place\\(cpu\\)"):
        SHAPED[name](pin_memory=True)
    assert SHAPED[name](pin_memory=False).shape == SHAPED[name]().shape


@pytest.mark.parametrize("name", sorted(NO_PIN))
def test_keyword_only_and_absent_pin(name):
    fn = getattr(paddle, name)
    params = inspect.signature(fn).parameters
    assert params["device"].kind is inspect.Parameter.KEYWORD_ONLY
    assert params["requires_grad"].kind is inspect.Parameter.KEYWORD_ONLY
    assert "pin_memory" not in params


def test_bad_device_names_the_value():
    # Paddle: ValueError "place only support string which is 'Place' and so on, but got 3"
    with pytest.raises(ValueError, match="got 3"):
        paddle.zeros([2], device=3)


def test_requires_grad_tensor_takes_gradient():
    w = paddle.ones([3], requires_grad=True)
    (w * paddle.to_tensor([1.0, 2.0, 3.0])).sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), [1.0, 2.0, 3.0])
    np.testing.assert_allclose(paddle.full([2], 1.5, requires_grad=True).numpy(), [1.5, 1.5])


def test_fftfreq_device_requires_grad():
    f = paddle.fft.fftfreq(4, d=0.5, device="cpu", requires_grad=True)
    np.testing.assert_allclose(f.numpy(), [0., 0.5, -1., -0.5])
    assert f.stop_gradient is False and paddle.fft.fftfreq(4).stop_gradient is True
    r = paddle.fft.rfftfreq(4, requires_grad=True, device=paddle.CPUPlace())
    np.testing.assert_allclose(r.numpy(), [0., 0.25, 0.5])
    assert r.stop_gradient is False
