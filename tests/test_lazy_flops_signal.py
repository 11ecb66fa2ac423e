"""paddle.LazyGuard, paddle.flops and paddle.disable_signal_handler."""
import faulthandler
import signal

import numpy as np
import pytest

import sampan as paddle
from sampan import nn


def test_lazy_guard_defers_initialization():
    paddle.seed(5)
    ref = nn.Linear(4, 3)
    paddle.seed(5)
    with paddle.LazyGuard():
        lazy = nn.Linear(4, 3)
    after = nn.Linear(2, 2)           # outside the guard: initialized at once
    assert after.weight._is_initialized()
    assert not lazy.weight._is_initialized() and lazy.weight.shape == [4, 3]
    assert not np.any(lazy.weight.numpy())
    for p in lazy.parameters():
        p.initialize()
    assert lazy.weight._is_initialized()
    # the draw happens at initialize(), after `after` took its own draws: different values
    assert not np.allclose(lazy.weight.numpy(), ref.weight.numpy())
    assert np.abs(lazy.weight.numpy()).max() <= np.sqrt(6 / 7) + 1e-6    # XavierUniform bound
    lazy.weight.initialize()          # a second call leaves the value alone
    before = lazy.weight.numpy().copy()
    lazy.weight.initialize()
    np.testing.assert_array_equal(lazy.weight.numpy(), before)


def test_lazy_guard_nests_and_restores():
    with paddle.LazyGuard():
        with paddle.LazyGuard():
            a = nn.Linear(2, 2)
        b = nn.Linear(2, 2)
    c = nn.Linear(2, 2)
    assert not a.weight._is_initialized() and not b.weight._is_initialized()
    assert c.weight._is_initialized()


def _cnn():
    return nn.Sequential(nn.Conv2D(3, 8, 3, padding=1), nn.BatchNorm2D(8), nn.ReLU(),
                         nn.MaxPool2D(2), nn.Flatten(), nn.Linear(8 * 4 * 4, 10), nn.Softmax())


class _Mixed(nn.Layer):
    def __init__(self):
        super().__init__()
        self.a, self.l, self.u = nn.AvgPool2D(2), nn.LeakyReLU(), nn.Upsample(scale_factor=2)
        self.d, self.ln = nn.Dropout(), nn.LayerNorm(4)
        self.c1, self.ct = nn.Conv1D(3, 5, 3, bias_attr=False), nn.Conv2DTranspose(3, 2, 3)
        self.ad = nn.AdaptiveAvgPool2D(1)

    def forward(self, x):
        return (self.a(x).sum() + self.l(x).sum() + self.u(x).sum() + self.d(x).sum()
                + self.ln(x).sum() + self.c1(x[:, :, 0]).sum() + self.ct(x).sum()
                + self.ad(x).sum())


def test_flops_follows_paddle_rules(capsys):
    # Paddle 2.6 rules: conv y.numel*(cin/groups*k + bias) = 1024*28; BN eval 2*1024;
    # linear in_features*y.numel = 128*20 (Paddle 3.3.1's flops crashes on int([1]-tensor))
    net = _cnn()
    assert paddle.flops(net, [2, 3, 8, 8]) == 28672 + 2048 + 2560
    assert net.training                          # mode restored
    out = capsys.readouterr().out
    assert "Treat it as zero FLOPs" in out and "Total Params: 1546" in out  # BN mean/var count, as in Paddle
    # avgpool 12, leaky 48, conv1d 10*9, conv2d-transpose 72*28, adaptive 3*17
    assert paddle.flops(_Mixed(), [1, 3, 4, 4]) == 12 + 48 + 90 + 2016 + 51

    def leaky(m, x, y):
        m.total_ops += 7
    assert paddle.flops(_Mixed(), [1, 3, 4, 4], custom_ops={nn.LeakyReLU: leaky}) == 2176
    paddle.flops(_cnn(), [1, 3, 8, 8], print_detail=True)
    assert "Output Shape" in capsys.readouterr().out
    with pytest.raises(TypeError, match="flops: net must be a paddle.nn.Layer"):
        paddle.flops("net", [1])


def test_disable_signal_handler():
    old = signal.getsignal(signal.SIGTERM)
    was = faulthandler.is_enabled()
    try:
        signal.signal(signal.SIGTERM, lambda *a: None)
        faulthandler.enable()
        paddle.disable_signal_handler()
        assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL
        assert not faulthandler.is_enabled()
    finally:
        signal.signal(signal.SIGTERM, old)
        if was:
            faulthandler.enable()
