"""ExponentialFamily.entropy reads the carrier measure first: a subclass that does not give
one raises NotImplementedError, even when its natural parameters are plain floats."""
import pytest

import sampan as paddle


class _Dummy(paddle.distribution.ExponentialFamily):
    def __init__(self):
        pass

    def entropy(self):
        return 1.0

    @property
    def _natural_parameters(self):
        return (1.0,)

    def _log_normalizer(self, x):
        return -paddle.log(-x)


def test_missing_carrier_measure_is_not_implemented():
    with pytest.raises(NotImplementedError):
        paddle.distribution.ExponentialFamily.entropy(_Dummy())


class _Exp(_Dummy):
    """Exponential(rate) as an exponential family: theta = -rate, F = -log(-theta), h = 1."""

    def __init__(self, rate):
        paddle.distribution.ExponentialFamily.__init__(self, rate.shape, ())
        self.rate = rate

    @property
    def _natural_parameters(self):
        return (-self.rate,)

    @property
    def _mean_carrier_measure(self):
        return 0.0


def test_base_rule_gives_the_exponential_entropy():
    rate = paddle.to_tensor([0.5, 2.0])
    got = paddle.distribution.ExponentialFamily.entropy(_Exp(rate))
    want = 1.0 - paddle.log(rate)
    assert got.numpy().round(6).tolist() == want.numpy().round(6).tolist()
