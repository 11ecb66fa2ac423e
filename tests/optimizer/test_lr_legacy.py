"""paddle.optimizer.lr's functional decays return the equivalent schedulers; values recorded
from Paddle 3.3.1 (dynamic mode) for six steps."""
import pytest

import sampan as paddle

PADDLE = {  # name: (args, the first six values)
    "exponential_decay": ((0.1, 10, 0.5), [0.1, 0.05, 0.025, 0.0125, 0.00625, 0.003125]),
    "natural_exp_decay": ((0.1, 10, 0.5),
                          [0.1, 0.06065307, 0.03678794, 0.02231302, 0.01353353, 0.0082085]),
    "inverse_time_decay": ((0.1, 10, 0.5),
                           [0.1, 0.06666667, 0.05, 0.04, 0.03333333, 0.02857143]),
    "polynomial_decay": ((0.1, 10), [0.1, 0.09001, 0.08002, 0.07003, 0.06004, 0.05005]),
    "piecewise_decay": (([2, 4], [0.1, 0.01, 0.001]), [0.1, 0.1, 0.01, 0.01, 0.001, 0.001]),
    "cosine_decay": ((0.1, 10, 5),
                     [0.1, 0.09045085, 0.06545085, 0.03454915, 0.00954915, 0.0]),
}


@pytest.mark.parametrize("name", sorted(PADDLE))
def test_values_match_paddle(name):
    args, want = PADDLE[name]
    sched = getattr(paddle.optimizer.lr, name)(*args)
    assert isinstance(sched, paddle.optimizer.lr.LRScheduler)
    got = []
    for _ in range(6):
        got.append(round(sched(), 8))
        sched.step()
    assert got == pytest.approx(want, abs=1e-8)


def test_noam_and_linear_warmup():
    lr = paddle.optimizer.lr.noam_decay(0.01, 200, learning_rate=2.0)
    lr.step()
    assert lr() == pytest.approx(0.007071067811865475)  # Paddle 3.3.1
    warm = paddle.optimizer.lr.linear_lr_warmup(0.5, warmup_steps=2, start_lr=0.0, end_lr=1.0)
    got = []
    for _ in range(4):
        got.append(warm())
        warm.step()
    assert got == pytest.approx([0.0, 0.5, 0.5, 0.5])
    with pytest.raises(TypeError, match="LinearWarmup: learning_rate must be"):
        paddle.optimizer.lr.linear_lr_warmup("fake_lr", 2, 0.0, 1.0)
    with pytest.raises(ValueError, match=r"piecewise_decay: len\(values\) - len\(boundaries\)"):
        paddle.optimizer.lr.piecewise_decay([1, 2], [0.1])
