"""LR schedulers: every scheduler's lr sequence vs a closed-form Python formula and vs values
recorded once from PaddlePaddle 3.3.1 (same constructor arguments); state_dict round trips."""
import math

import numpy as np
import pytest

import sampan as paddle

L = paddle.optimizer.lr

PADDLE_LRS = {
    "NoamDecay": [0.0, 0.03125, 0.0625, 0.09375, 0.125, 0.11180339887498948, 0.10206207261596575, 0.09449111825230681, 0.08838834764831845, 0.08333333333333333, 0.07905694150420949, 0.07537783614444091],
    "PiecewiseDecay": [0.1, 0.1, 0.1, 0.05, 0.05, 0.05, 0.01, 0.01, 0.01, 0.01, 0.01, 0.01],
    "NaturalExpDecay": [0.5, 0.45241870901797976, 0.4093653765389909, 0.37040911034085894, 0.33516002301781966, 0.3032653298563167, 0.2744058180470132, 0.24829265189570474, 0.22466448205861078, 0.20328482987029955, 0.18393972058572117, 0.16643554184903978],
    "InverseTimeDecay": [0.5, 0.45454545454545453, 0.4166666666666667, 0.3846153846153846, 0.35714285714285715, 0.3333333333333333, 0.3125, 0.2941176470588235, 0.2777777777777778, 0.2631578947368421, 0.25, 0.23809523809523808],
    "PolynomialDecay": [0.5, 0.32360000000000005, 0.1864, 0.0884, 0.029599999999999987, 0.01, 0.01, 0.01, 0.01, 0.01, 0.01, 0.01],
    "PolynomialDecayCycle": [0.5, 0.3775, 0.255, 0.1325, 0.01, 0.19375, 0.1325, 0.07125, 0.01, 0.1325, 0.09166666666666665, 0.050833333333333355],
    "LinearWarmup": [0.0, 0.125, 0.25, 0.375, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5],
    "LinearWarmupSched": [0.1, 0.23333333333333334, 0.3666666666666667, 0.5, 0.5, 0.25, 0.25, 0.125, 0.125, 0.0625, 0.0625, 0.03125],
    "ExponentialDecay": [0.5, 0.45, 0.405, 0.36450000000000005, 0.32805, 0.29524500000000004, 0.2657205, 0.23914845000000004, 0.21523360500000005, 0.19371024450000005, 0.17433922005000005, 0.15690529804500003],
    "MultiStepDecay": [0.5, 0.5, 0.25, 0.25, 0.25, 0.125, 0.125, 0.125, 0.125, 0.0625, 0.0625, 0.0625],
    "StepDecay": [0.5, 0.5, 0.5, 0.25, 0.25, 0.25, 0.125, 0.125, 0.125, 0.0625, 0.0625, 0.0625],
    "LambdaDecay": [0.5, 0.45, 0.405, 0.36450000000000005, 0.32805, 0.29524500000000004, 0.2657205, 0.23914845000000004, 0.21523360500000005, 0.19371024450000005, 0.17433922005000005, 0.15690529804500003],
    "CosineAnnealingDecay": [0.5, 0.4340990257669732, 0.275, 0.11590097423302684, 0.05, 0.1159009742330268, 0.275, 0.43409902576697335, 0.5000000000000002, 0.4340990257669734, 0.2750000000000002, 0.11590097423302705],
    "MultiplicativeDecay": [0.5, 0.45, 0.405, 0.36450000000000005, 0.32805000000000006, 0.2952450000000001, 0.2657205000000001, 0.23914845000000007, 0.21523360500000008, 0.19371024450000007, 0.17433922005000008, 0.15690529804500009],
    "OneCycleLR": [0.040000000000000036, 0.3497896542195831, 0.8792851591221287, 0.9944159715712529, 0.93301940062203, 0.8117637264392737, 0.6474128494467316, 0.4626886897114672, 0.2831298246281768, 0.13356071667867842, 0.034659669365330145, 0.0001],
    "OneCycleLR3": [0.04, 0.52, 1.0, 0.52, 0.040000000000000036, 0.034300000000000004, 0.0286, 0.022900000000000004, 0.017200000000000003, 0.011500000000000003, 0.0058000000000000065, 0.00010000000000000286],
    "CyclicLR": [0.1, 0.3999999999999999, 0.6999999999999998, 0.9999999999999998, 0.5499999999999999, 0.1, 0.40000000000000024, 0.6999999999999998, 0.9999999999999998, 0.5500000000000004, 0.1, 0.40000000000000024],
    "CyclicLR2": [0.1, 0.55, 1.0, 0.55, 0.1, 0.325, 0.55, 0.325, 0.1, 0.21250000000000002, 0.325, 0.21250000000000002],
    "CyclicLRexp": [0.1, 0.505, 0.8290000000000001, 0.42805000000000004, 0.1, 0.3657205, 0.5782969000000001, 0.3152336050000001, 0.1, 0.27433922005000005, 0.41381059609000015, 0.24121476824050003],
    "CosineAnnealingWarmRestarts": [0.5, 0.3775, 0.13250000000000006, 0.5, 0.4671762239271875, 0.3775, 0.255, 0.13250000000000006, 0.04282377607281252, 0.5, 0.4916518274408217, 0.4671762239271875],
    "LinearLR": [0.1, 0.16000000000000003, 0.22000000000000003, 0.28, 0.3400000000000001, 0.40000000000000013, 0.40000000000000013, 0.40000000000000013, 0.40000000000000013, 0.40000000000000013, 0.40000000000000013, 0.40000000000000013],
    "ReduceOnPlateau": [1.0, 1.0, 1.0, 0.5, 0.5, 0.5, 0.5, 0.25, 0.25, 0.25],
}

CASES = {
    "NoamDecay": lambda: L.NoamDecay(d_model=64, warmup_steps=4, learning_rate=2.0),
    "PiecewiseDecay": lambda: L.PiecewiseDecay([3, 6], [0.1, 0.05, 0.01]),
    "NaturalExpDecay": lambda: L.NaturalExpDecay(0.5, gamma=0.1),
    "InverseTimeDecay": lambda: L.InverseTimeDecay(0.5, gamma=0.1),
    "PolynomialDecay": lambda: L.PolynomialDecay(0.5, decay_steps=5, end_lr=0.01, power=2.0),
    "PolynomialDecayCycle": lambda: L.PolynomialDecay(0.5, decay_steps=4, end_lr=0.01,
                                                      cycle=True),
    "LinearWarmup": lambda: L.LinearWarmup(0.5, warmup_steps=4, start_lr=0.0, end_lr=0.5),
    "LinearWarmupSched": lambda: L.LinearWarmup(L.StepDecay(0.5, 2, 0.5), warmup_steps=3,
                                                start_lr=0.1, end_lr=0.5),
    "ExponentialDecay": lambda: L.ExponentialDecay(0.5, gamma=0.9),
    "MultiStepDecay": lambda: L.MultiStepDecay(0.5, milestones=[2, 5, 9], gamma=0.5),
    "StepDecay": lambda: L.StepDecay(0.5, step_size=3, gamma=0.5),
    "LambdaDecay": lambda: L.LambdaDecay(0.5, lambda e: 0.9 ** e),
    "CosineAnnealingDecay": lambda: L.CosineAnnealingDecay(0.5, T_max=4, eta_min=0.05),
    "MultiplicativeDecay": lambda: L.MultiplicativeDecay(0.5, lambda e: 0.9),
    "OneCycleLR": lambda: L.OneCycleLR(1.0, total_steps=12),
    "OneCycleLR3": lambda: L.OneCycleLR(1.0, total_steps=12, three_phase=True,
                                        anneal_strategy="linear", phase_pct=0.25),
    "CyclicLR": lambda: L.CyclicLR(0.1, 1.0, step_size_up=3, step_size_down=2),
    "CyclicLR2": lambda: L.CyclicLR(0.1, 1.0, step_size_up=2, mode="triangular2"),
    "CyclicLRexp": lambda: L.CyclicLR(0.1, 1.0, step_size_up=2, mode="exp_range",
                                      exp_gamma=0.9),
    "CosineAnnealingWarmRestarts": lambda: L.CosineAnnealingWarmRestarts(0.5, T_0=3, T_mult=2,
                                                                         eta_min=0.01),
    "LinearLR": lambda: L.LinearLR(0.5, total_steps=5, start_factor=0.2, end_factor=0.8),
}


def _cyclic(t, up, down, lo, hi, scale):
    cycle = t // (up + down)
    pos = t - cycle * (up + down)
    frac = pos / up if pos <= up else 1 - (pos - up) / down
    return lo + (hi - lo) * frac * scale(cycle + 1, t)


def _warm_restarts(t, t0, mult, lo, hi):
    ti = t0
    while t >= ti:
        t, ti = t - ti, ti * mult
    return lo + (hi - lo) * (1 + math.cos(math.pi * t / ti)) / 2


# closed forms written from each scheduler's documented formula (not from the code)
FORMULAS = {
    "NoamDecay": lambda t: 2.0 * 64 ** -0.5 * min(t ** -0.5 if t else 1.0, t * 4 ** -1.5),
    "PiecewiseDecay": lambda t: 0.1 if t < 3 else 0.05 if t < 6 else 0.01,
    "NaturalExpDecay": lambda t: 0.5 * math.exp(-0.1 * t),
    "InverseTimeDecay": lambda t: 0.5 / (1 + 0.1 * t),
    "PolynomialDecay": lambda t: (0.5 - 0.01) * (1 - min(t, 5) / 5) ** 2 + 0.01,
    "PolynomialDecayCycle": lambda t: (0.5 - 0.01) * (
        1 - t / (4 * max(1, math.ceil(t / 4)))) + 0.01,
    "LinearWarmup": lambda t: 0.5 * t / 4 if t < 4 else 0.5,
    "LinearWarmupSched": lambda t: 0.1 + 0.4 * t / 3 if t < 3 else 0.5 * 0.5 ** ((t - 3) // 2),
    "ExponentialDecay": lambda t: 0.5 * 0.9 ** t,
    "MultiStepDecay": lambda t: 0.5 * 0.5 ** sum(t >= m for m in (2, 5, 9)),
    "StepDecay": lambda t: 0.5 * 0.5 ** (t // 3),
    "LambdaDecay": lambda t: 0.5 * 0.9 ** t,
    "CosineAnnealingDecay": lambda t: 0.05 + 0.45 * (1 + math.cos(math.pi * t / 4)) / 2,
    "MultiplicativeDecay": lambda t: 0.5 * 0.9 ** t,
    "CyclicLR": lambda t: _cyclic(t, 3, 2, 0.1, 1.0, lambda c, i: 1.0),
    "CyclicLR2": lambda t: _cyclic(t, 2, 2, 0.1, 1.0, lambda c, i: 0.5 ** (c - 1)),
    "CyclicLRexp": lambda t: _cyclic(t, 2, 2, 0.1, 1.0, lambda c, i: 0.9 ** i),
    "CosineAnnealingWarmRestarts": lambda t: _warm_restarts(t, 3, 2, 0.01, 0.5),
    "LinearLR": lambda t: 0.5 * (0.2 + 0.6 * min(t, 5) / 5),
}


def _sequence(sched, n=12):
    values = [sched()]
    for _ in range(n - 1):
        sched.step()
        values.append(sched())
    return values


@pytest.mark.parametrize("name", sorted(CASES))
def test_sequence_matches_paddle(name):
    np.testing.assert_allclose(_sequence(CASES[name]()), PADDLE_LRS[name], rtol=1e-12,
                               atol=1e-15)


@pytest.mark.parametrize("name", sorted(FORMULAS))
def test_sequence_matches_formula(name):
    want = [FORMULAS[name](t) for t in range(12)]
    np.testing.assert_allclose(_sequence(CASES[name]()), want, rtol=1e-9, atol=1e-12)


def test_one_cycle_formula():
    # warm-up over 0.3 * 12 - 1 = 2.6 steps by cosine from 1/25 to 1, then cosine to 1e-4
    s = CASES["OneCycleLR"]()
    got = _sequence(s)
    up = 0.3 * 12 - 1
    for t, v in enumerate(got):
        if t <= up:
            start, end, pct = 0.04, 1.0, t / up
        else:
            start, end, pct = 1.0, 1e-4, (t - up) / (11 - up)
        assert v == pytest.approx(end + (start - end) * (1 + math.cos(math.pi * pct)) / 2)
    with pytest.raises(ValueError, match="total_steps"):
        s.step()
        s.step()


def test_reduce_on_plateau_matches_paddle():
    s = L.ReduceOnPlateau(1.0, patience=1, cooldown=1, factor=0.5)
    got = []
    for m in [5, 4, 4, 4, 3, 3, 3, 3, 3, 2]:
        s.step(paddle.to_tensor(float(m)) if m == 4 else m)
        got.append(s())
    assert got == PADDLE_LRS["ReduceOnPlateau"]
    with pytest.raises(ValueError, match="one element"):
        s.step(paddle.to_tensor([1.0, 2.0]))
    with pytest.raises(TypeError, match="metrics"):
        s.step("bad")


def test_reduce_on_plateau_max_mode_and_min_lr():
    s = L.ReduceOnPlateau(1.0, mode="max", patience=0, factor=0.1, min_lr=0.05,
                          threshold_mode="abs", threshold=0.5)
    for m in (1.0, 1.2, 1.3):  # improvements below the absolute threshold are not better
        s.step(m)
    assert s() == pytest.approx(0.05)


def test_step_with_epoch_uses_closed_form():
    s = L.CosineAnnealingDecay(0.5, T_max=4)
    s.step(2)
    assert s.last_epoch == 2 and s() == pytest.approx(0.25)
    s = L.StepDecay(1.0, step_size=2)
    s.step(5)
    assert s() == pytest.approx(0.01)


@pytest.mark.parametrize("name", sorted(CASES))
def test_state_dict_resumes(name):
    a = CASES[name]()
    for _ in range(4):
        a.step()
    b = CASES[name]()
    b.set_state_dict(a.state_dict())
    assert b.last_epoch == a.last_epoch and b() == a()
    if name.startswith("CosineAnnealingWarm"):
        return  # its T_cur/T_i are not part of Paddle's state dict either
    a.step()
    b.step()
    assert b() == pytest.approx(a())


def test_state_dict_keys_and_missing_key():
    s = L.StepDecay(0.5, 2)
    assert s.state_dict() == {"last_epoch": 0, "last_lr": 0.5}
    assert set(L.LinearWarmup(L.StepDecay(0.5, 2), 2, 0.0, 0.5).state_dict()) == {
        "last_epoch", "last_lr", "LinearWarmup_LR"}
    with pytest.raises(RuntimeError, match="last_lr"):
        s.set_state_dict({"last_epoch": 3})


def test_verbose_prints(capsys):
    s = L.ExponentialDecay(0.5, 0.5, verbose=True)
    s.step()
    assert "Epoch 1: ExponentialDecay set learning rate to 0.25." in capsys.readouterr().out


@pytest.mark.parametrize("make, exc, words", [
    (lambda: L.StepDecay(0.5, step_size=2.0), TypeError, "step_size"),
    (lambda: L.StepDecay(0.5, step_size=2, gamma=1.5), ValueError, "gamma"),
    (lambda: L.MultiStepDecay(0.5, milestones=[3, 2]), ValueError, "increasing"),
    (lambda: L.PiecewiseDecay([1, 2], [0.1, 0.2]), ValueError, "one more element"),
    (lambda: L.LinearWarmup(0.5, 2, start_lr=0.5, end_lr=0.1), ValueError, "end_lr"),
    (lambda: L.LinearWarmup("x", 2, 0.0, 0.1), TypeError, "learning_rate"),
    (lambda: L.OneCycleLR(1.0, total_steps=10, phase_pct=1), TypeError, "phase_pct"),
    (lambda: L.OneCycleLR(1.0, 10, anneal_strategy="exp"), ValueError, "anneal_strategy"),
    (lambda: L.CyclicLR(0.1, 1.0, step_size_up=0), ValueError, "step_size_up"),
    (lambda: L.CyclicLR(0.1, 1.0, 2, mode="bad"), ValueError, "mode"),
    (lambda: L.CosineAnnealingWarmRestarts(0.5, T_0=0), ValueError, "T_0"),
    (lambda: L.LinearLR(0.5, total_steps=5, start_factor=0), ValueError, "start_factor"),
    (lambda: L.ReduceOnPlateau(0.5, mode="avg"), ValueError, "mode"),
    (lambda: L.LambdaDecay(0.5, lr_lambda=3), TypeError, "lr_lambda"),
    (lambda: L.ExponentialDecay("0.5", 0.9), TypeError, "learning_rate"),
    (lambda: L.CosineAnnealingDecay(0.5, T_max=2.5), TypeError, "T_max"),
])
def test_argument_errors(make, exc, words):
    with pytest.raises(exc, match=words):
        make()


def test_optimizer_reads_scheduler_each_step():
    w = paddle.Parameter(np.zeros(1))
    sched = L.StepDecay(1.0, step_size=1, gamma=0.5)
    opt = paddle.optimizer.SGD(sched, parameters=[w])
    for _ in range(3):
        w.grad = paddle.to_tensor(np.ones(1))
        opt.step()
        sched.step()
    assert w.numpy()[0] == pytest.approx(-1.75)
    assert opt.get_lr() == 0.125
