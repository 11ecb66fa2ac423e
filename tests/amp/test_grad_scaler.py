"""GradScaler: Paddle 3.3.1's disabled CPU behaviour, and the dynamic loss-scaling state machine
(made live by declaring float16 supported, as on the GPU backend) step by step."""
import warnings

import numpy as np
import pytest

import sampan as paddle
from sampan.amp import support

SCALER_CPU_WARNING = ("AmpScaler can only be enabled on CUDAPlace, XPUPlace and CustomPlace, "
                      "current place is Place(cpu), so it makes no effect.")


@pytest.fixture
def fp16_device(monkeypatch):
    monkeypatch.setattr(support, "is_float16_supported", lambda device=None: True)


def _model(seed=0):
    paddle.seed(seed)
    model = paddle.nn.Linear(3, 2)
    return model, paddle.optimizer.SGD(learning_rate=0.1, parameters=model.parameters())


def test_disabled_on_cpu_like_paddle():
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        scaler = paddle.amp.GradScaler(init_loss_scaling=1024, incr_every_n_steps=7)
    assert [str(r.message) for r in rec] == [SCALER_CPU_WARNING]
    assert not scaler.is_enable() and not scaler.is_use_dynamic_loss_scaling()
    assert scaler.state_dict() == {}
    assert scaler.get_init_loss_scaling() == 1.0  # as Paddle 3.3.1 answers
    assert scaler.get_incr_every_n_steps() == 7 and scaler.get_incr_ratio() == 2.0
    model, opt = _model()
    ref_model, ref_opt = _model()
    x = paddle.ones([4, 3])
    loss = model(x).mean()
    assert scaler.scale(loss) is loss
    loss.backward()
    scaler.step(opt)
    scaler.update()
    ref_model(x).mean().backward()
    ref_opt.step()
    np.testing.assert_array_equal(model.weight.numpy(), ref_model.weight.numpy())


def test_scale_unscale_and_step(fp16_device):
    scaler = paddle.amp.GradScaler(init_loss_scaling=8.0)
    model, opt = _model()
    ref_model, _ = _model()
    x = paddle.ones([4, 3])
    scaled = scaler.scale(model(x).mean())
    ref_model(x).mean().backward()
    scaled.backward()
    np.testing.assert_allclose(model.weight.grad.numpy(), 8 * ref_model.weight.grad.numpy(),
                               rtol=1e-6)
    scaler.unscale_(opt)
    np.testing.assert_allclose(model.weight.grad.numpy(), ref_model.weight.grad.numpy(),
                               rtol=1e-6)
    with pytest.raises(RuntimeError, match="already been called"):
        scaler.unscale_(opt)
    before = model.weight.numpy().copy()
    scaler.step(opt)
    np.testing.assert_allclose(model.weight.numpy(),
                               before - 0.1 * ref_model.weight.grad.numpy(), rtol=1e-6)
    with pytest.raises(RuntimeError, match="step\\(\\) has already"):
        scaler.step(opt)
    scaler.update()
    scaler.unscale_(opt)  # allowed again after update


def _run_step(scaler, model, opt, bad: bool):
    opt.clear_grad()
    loss = model(paddle.ones([2, 3])).mean()
    scaler.scale(loss).backward()
    if bad:
        model.weight.grad._data[0, 0] = np.inf
    before = model.weight.numpy().copy()
    scaler.step(opt)
    scaler.update()
    return not np.array_equal(before, model.weight.numpy())


def test_state_machine_step_by_step(fp16_device):
    scaler = paddle.amp.GradScaler(init_loss_scaling=1024.0, incr_ratio=2.0, decr_ratio=0.5,
                                   incr_every_n_steps=3, decr_every_n_nan_or_inf=2)
    model, opt = _model()
    # (overflow?, stepped?, scale after, incr_count, decr_count)
    script = [(False, True, 1024, 1, 0), (False, True, 1024, 2, 0),
              (False, True, 2048, 0, 0),      # 3rd good step: raise
              (True, False, 2048, 0, 1),      # bad: skip, count
              (True, False, 1024, 0, 0),      # 2nd bad in a row: lower
              (False, True, 1024, 1, 0), (True, False, 1024, 0, 1),
              (False, True, 1024, 1, 0)]      # a good step resets the bad count
    for bad, stepped, scale, incr, decr in script:
        assert _run_step(scaler, model, opt, bad) is stepped
        state = scaler.state_dict()
        assert (float(state["scale"][0]), state["incr_count"], state["decr_count"]) == (
            scale, incr, decr)


def test_scale_floor_and_static_scaling(fp16_device):
    scaler = paddle.amp.GradScaler(init_loss_scaling=2.0, decr_every_n_nan_or_inf=1)
    for _ in range(3):
        scaler._update_scale(True)
    assert scaler.state_dict()["scale"][0] == 1.0  # never below 1
    fixed = paddle.amp.GradScaler(init_loss_scaling=4.0, use_dynamic_loss_scaling=False)
    model, opt = _model()
    assert _run_step(fixed, model, opt, bad=True) is False
    assert fixed.state_dict()["scale"][0] == 4.0


def test_minimize_skips_on_overflow_and_updates(fp16_device):
    scaler = paddle.amp.GradScaler(init_loss_scaling=16.0)
    model, opt = _model()
    loss = model(paddle.ones([2, 3])).mean()
    scaled = scaler.scale(loss)
    scaled.backward()
    model.bias.grad._data[0] = np.nan
    before = model.weight.numpy().copy()
    scaler.minimize(opt, scaled)
    np.testing.assert_array_equal(before, model.weight.numpy())
    assert scaler.state_dict()["scale"][0] == 8.0


def test_setters_state_dict_round_trip(fp16_device):
    scaler = paddle.amp.GradScaler()
    assert scaler.get_init_loss_scaling() == 65536.0
    assert scaler.get_decr_every_n_nan_or_inf() == 1 and scaler.get_decr_ratio() == 0.5
    scaler.set_incr_ratio(3.0)
    scaler.set_decr_ratio(0.25)
    scaler.set_incr_every_n_steps(5)
    scaler.set_decr_every_n_nan_or_inf(4)
    scaler.set_init_loss_scaling(512.0)
    scaler._update_scale(False)
    other = paddle.amp.GradScaler()
    other.load_state_dict(scaler.state_dict())
    assert other.state_dict().keys() == scaler.state_dict().keys()
    for key, value in scaler.state_dict().items():
        np.testing.assert_array_equal(other.state_dict()[key], value)
    with pytest.raises(RuntimeError, match="empty"):
        other.load_state_dict({})
    with pytest.raises(ValueError, match="incr_ratio"):
        scaler.set_incr_ratio(0.5)
    with pytest.raises(ValueError, match="incr_every_n_steps"):
        scaler.set_incr_every_n_steps(0)


def test_float16_without_scaler_warns(fp16_device, monkeypatch):
    monkeypatch.setattr(support, "_SCALERS", [0])
    with pytest.warns(UserWarning, match="without an enabled"):
        with paddle.amp.auto_cast(dtype="float16"):
            pass
    paddle.amp.GradScaler()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with paddle.amp.auto_cast(dtype="float16"):
            pass


def test_warns_when_gradients_were_never_cleared(fp16_device):
    scaler = paddle.amp.GradScaler(init_loss_scaling=4.0)
    model, opt = _model()
    x = paddle.ones([2, 3])
    scaler.scale(model(x).mean()).backward()
    scaler.step(opt)
    scaler.update()
    with pytest.warns(UserWarning, match="never cleared"):
        scaler.scale(model(x).mean())
    opt.clear_grad()
    scaler.step(opt)
    scaler.update()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        scaler.scale(model(x).mean())
