"""Optimizers: a few steps on a tiny problem vs NumPy transcriptions of the published update
rules (tests/ops/db/optim.py), a few vs numbers recorded from PaddlePaddle 3.3.1, and the base
class semantics (groups, ParamAttr lr, regularizers, clipping, skipping, state_dict, lr API)."""
import copy

import numpy as np
import pytest

import sampan as paddle
import tests.ops.op_db  # noqa: F401  (gathers the db modules first: no import cycle)
from tests.ops.db import optim as R

O = paddle.optimizer
P0 = np.array([[0.5, -1.2, 0.3], [2.0, -0.7, 0.05]])
C = np.array([[1.0, 0.5, -2.0], [0.3, -1.5, 2.5]])
D = C[::-1].copy()


def _grad(p):
    return 2 * p * C + D  # gradient of sum(p*p*C + p*D)


def _run(make, steps=4, p0=P0):
    p = paddle.Parameter(p0.copy())
    opt = make([p])
    for _ in range(steps):
        (p * p * paddle.to_tensor(C) + p * paddle.to_tensor(D)).sum().backward()
        opt.step()
        opt.clear_grad()
    return p.numpy(), opt


def _numpy_run(rule, states, attrs, lr=0.1, steps=4):
    """Iterate a NumPy reference rule: rule(param, grad, lr, *states, **attrs)."""
    p = P0.copy()
    for _ in range(steps):
        out = rule(p, _grad(p), np.array([lr]), *states, **attrs)
        out = out if isinstance(out, tuple) else (out,)
        p, states = out[0], out[1:]
    return p


Z = np.zeros_like(P0)
ONE = np.ones_like(P0)
B = (0.9, 0.999)
CASES = {
    "SGD": (lambda ps: O.SGD(0.1, parameters=ps), R.sgd_ref, (), {}),
    "Momentum": (lambda ps: O.Momentum(0.1, momentum=0.8, use_nesterov=True, parameters=ps),
                 R.momentum_ref, (Z,), {"mu": 0.8, "use_nesterov": True}),
    "Adam": (lambda ps: O.Adam(0.1, parameters=ps), R.adam_ref,
             (Z, Z, Z, np.array([B[0]]), np.array([B[1]])), {}),
    "Adam-amsgrad": (lambda ps: O.Adam(0.1, beta1=0.7, beta2=0.8, amsgrad=True, parameters=ps),
                     R.adam_ref, (Z, Z, Z, np.array([0.7]), np.array([0.8])),
                     {"beta1": 0.7, "beta2": 0.8, "amsgrad": True}),
    "AdamW": (lambda ps: O.AdamW(0.1, weight_decay=0.2, parameters=ps), R.adamw_ref,
              (Z, Z, Z, np.array([B[0]]), np.array([B[1]])), {"coeff": 0.2}),
    "Adamax": (lambda ps: O.Adamax(0.1, parameters=ps), R.adamax_ref,
               (Z, Z, np.array([0.9])), {}),
    "Adagrad": (lambda ps: O.Adagrad(0.1, initial_accumulator_value=0.2, parameters=ps),
                R.adagrad_ref, (ONE * 0.2,), {}),
    "Adadelta": (lambda ps: O.Adadelta(0.1, rho=0.9, parameters=ps), R.adadelta_ref, (Z, Z),
                 {"rho": 0.9}),
    "RMSProp": (lambda ps: O.RMSProp(0.1, momentum=0.3, centered=True, parameters=ps),
                R.rmsprop_ref, (Z, Z, Z), {"momentum": 0.3, "centered": True}),
    "Lamb": (lambda ps: O.Lamb(0.1, parameters=ps), R.lamb_ref,
             (Z, Z, np.array([B[0]]), np.array([B[1]])), {}),
    "NAdam": (lambda ps: O.NAdam(0.1, parameters=ps), R.nadam_ref,
              (ONE, ONE, ONE, Z, Z), {}),
    "RAdam": (lambda ps: O.RAdam(0.1, parameters=ps), R.radam_ref, (ONE, ONE, ONE, Z, Z), {}),
    "ASGD": (lambda ps: O.ASGD(0.1, batch_num=3, parameters=ps), R.asgd_ref,
             (Z, np.zeros((3,) + P0.shape), np.zeros(1, np.int64)), {}),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_steps_match_numpy_rule(name):
    make, rule, states, attrs = CASES[name]
    steps = 8 if name == "RAdam" else 4  # RAdam rectifies from step 6 on
    got, _ = _run(make, steps)
    np.testing.assert_allclose(got, _numpy_run(rule, states, attrs, steps=steps), rtol=1e-10,
                               atol=1e-12)


def test_rprop_matches_numpy_rule():
    got, _ = _run(lambda ps: O.Rprop(0.1, parameters=ps), steps=5)
    p, rates, prev = P0.copy(), np.full_like(P0, 0.1), np.zeros_like(P0)
    for _ in range(5):
        p, rates, prev = R.rprop_ref(p, _grad(p), rates, prev)
    np.testing.assert_allclose(got, p, rtol=1e-12)


def test_float32_params_stay_float32():
    for make, *_ in CASES.values():
        got, opt = _run(make, 2, P0.astype("float32"))
        assert got.dtype == np.float32
        assert all(v._data.dtype in (np.float32, np.int64) for v in opt.state_dict().values()
                   if isinstance(v, paddle.Tensor))


# recorded once from PaddlePaddle 3.3.1 (float64, 3 steps, hyper-parameters exactly
# representable in float32 because Paddle passes them to its kernels as float32 attrs)
E = 2.0 ** -10
PADDLE = {
    "Momentum": [[-0.3125, 2.175, -10.2625], [-1.4540000000000002, -16.95, 0.48750000000000004]],
    "Adam": [[-0.3817893752356885, 0.25104328925550845, -1.2170660525288641],
             [0.532256151544137, -2.2304265102464704, 0.3687780295216718]],
    "AdamW": [[-0.3131494150222208, 0.45123590150040355, -1.1354172231810198],
              [0.07053908564850547, -1.8176400618349073, 0.31203917528774505]],
    "Lamb": [[-0.33387101036164485, 0.30431788073239213, -1.0024206292985844],
             [0.24649436793895874, -1.711056173637946, 0.3479783320808791]],
}
PADDLE_MAKE = {
    "Momentum": lambda ps: O.Momentum(0.5, momentum=0.5, parameters=ps),
    "Adam": lambda ps: O.Adam(0.5, beta1=0.5, beta2=0.75, epsilon=E, parameters=ps),
    "AdamW": lambda ps: O.AdamW(0.5, beta1=0.5, beta2=0.75, epsilon=E, weight_decay=0.25,
                                parameters=ps),
    "Lamb": lambda ps: O.Lamb(0.5, lamb_weight_decay=0.25, beta1=0.5, beta2=0.75, epsilon=E,
                              parameters=ps),
}


@pytest.mark.parametrize("name", sorted(PADDLE))
def test_matches_recorded_paddle(name):
    got, _ = _run(PADDLE_MAKE[name], steps=3)
    np.testing.assert_allclose(got, PADDLE[name], rtol=1e-12, atol=1e-14)


def test_lbfgs_matches_recorded_paddle():
    # recorded from PaddlePaddle 3.3.1: 3 step() calls of max_iter=5, history_size=3
    want = {None: [0.4870745439386882, -1.0146603928904134, 0.6792313364639125],
            "strong_wolfe": [0.4870449107162706, -1.0147026851821501, 0.6791131246979495]}
    a = paddle.to_tensor([[3.0, 0.5, 0.0], [0.5, 2.0, 0.3], [0.0, 0.3, 1.0]], "float64")
    b = paddle.to_tensor([1.0, -2.0, 0.5], "float64")
    for search, expected in want.items():
        w = paddle.Parameter(np.ones(3))
        opt = O.LBFGS(learning_rate=0.5 if search is None else 1.0, max_iter=5,
                      history_size=3, line_search_fn=search, parameters=[w])

        def closure():
            opt.clear_grad()
            loss = 0.5 * (w * paddle.matmul(a, w)).sum() - (b * w).sum() + (w ** 4).sum() * 0.1
            loss.backward()
            return loss
        for _ in range(3):
            loss = opt.step(closure)
        assert isinstance(loss, paddle.Tensor)
        np.testing.assert_allclose(w.numpy(), expected, rtol=1e-12)
    with pytest.raises(ValueError, match="line_search_fn"):
        O.LBFGS(line_search_fn="armijo", parameters=[w])


def _params(*shapes):
    rng = np.random.default_rng(0)
    return [paddle.Parameter(rng.uniform(-1, 1, s)) for s in shapes]


def _set_grads(params, value=1.0):
    for p in params:
        p.grad = paddle.to_tensor(np.full(p.shape, value))


def test_state_dict_keys_follow_paddle():
    p = paddle.Parameter(np.zeros((2, 3)), name="linear_9.w_0")
    opt = O.Adam(0.1, parameters=[p], amsgrad=False)
    _set_grads([p])
    opt.step()
    keys = sorted(opt.state_dict())
    stems = sorted(k.rsplit("_", 1)[0] for k in keys)
    assert stems == ["linear_9.w_0_beta1_pow_acc", "linear_9.w_0_beta2_pow_acc",
                     "linear_9.w_0_moment1", "linear_9.w_0_moment2"]
    assert opt.state_dict()[keys[0]].shape == [1]
    sched = O.lr.StepDecay(0.1, 2)
    opt = O.Momentum(sched, parameters=[p])
    opt.step()
    state = opt.state_dict()
    assert state["LR_Scheduler"] == {"last_epoch": 0, "last_lr": 0.1}
    assert [k.rsplit("_", 1)[0] for k in state if k != "LR_Scheduler"] == [
        "linear_9.w_0_velocity"]


@pytest.mark.parametrize("name", ["Adam", "Momentum", "RMSProp", "NAdam", "ASGD", "Lamb"])
def test_state_dict_round_trip_resumes_identically(name):
    make = CASES[name][0]
    sched = O.lr.ExponentialDecay(0.1, 0.9)
    _, opt = _run(lambda ps: make(ps), steps=2)
    p_ref = paddle.Parameter(P0.copy(), name="fc_0.w_0")  # the state dict matches by name
    opt_ref = make([p_ref])
    opt_ref.set_lr_scheduler(sched)

    def train(p, opt, steps):
        for _ in range(steps):
            (p * p * paddle.to_tensor(C) + p * paddle.to_tensor(D)).sum().backward()
            opt.step()
            opt.clear_grad()
            if isinstance(opt._learning_rate, O.lr.LRScheduler):
                opt._learning_rate.step()
    train(p_ref, opt_ref, 3)
    saved_param = p_ref.numpy().copy()
    saved_state = copy.deepcopy(opt_ref.state_dict())
    train(p_ref, opt_ref, 3)
    # a fresh optimizer, loaded before its first step (accumulators created lazily)
    p_new = paddle.Parameter(saved_param, name="fc_0.w_0")
    opt_new = make([p_new])
    opt_new.set_lr_scheduler(O.lr.ExponentialDecay(0.1, 0.9))
    opt_new.set_state_dict(saved_state)
    train(p_new, opt_new, 3)
    np.testing.assert_allclose(p_new.numpy(), p_ref.numpy(), rtol=1e-13)
    assert opt_new.get_lr() == opt_ref.get_lr()


def test_set_state_dict_after_step_and_missing_entry():
    p = _params((2,))[0]
    opt = O.Adam(0.1, parameters=[p])
    _set_grads([p])
    opt.step()
    state = {k: v.numpy() * 0 + 7 for k, v in opt.state_dict().items()}
    opt.set_state_dict(state)
    assert all((v.numpy() == 7).all() for v in opt.state_dict().values())
    with pytest.raises(KeyError, match="not found"):
        opt.set_state_dict({})
    sched_opt = O.SGD(O.lr.StepDecay(0.1, 2), parameters=[p])
    with pytest.raises(KeyError, match="LR_Scheduler"):
        sched_opt.set_state_dict({})


def test_param_groups_lr_multiplier_and_overrides():
    a, b = _params((2,), (2,))
    a0, b0 = a.numpy().copy(), b.numpy().copy()
    opt = O.Momentum(0.1, momentum=0.0, parameters=[
        {"params": [a]}, {"params": [b], "learning_rate": 0.5, "momentum": 0.9}])
    for _ in range(2):
        _set_grads([a, b])
        opt.step()
    np.testing.assert_allclose(a.numpy(), a0 - 0.2)
    np.testing.assert_allclose(b.numpy(), b0 - 0.05 * (1 + 1.9))
    with pytest.raises(ValueError, match="more than one parameter group"):
        O.SGD(0.1, parameters=[{"params": [a]}, {"params": [a]}])
    with pytest.raises(TypeError, match="set"):
        O.SGD(0.1, parameters=[{"params": {a}}])


def test_param_attr_learning_rate_multiplies():
    p = paddle.Parameter(np.zeros(2))
    p.optimize_attr = {"learning_rate": 3.0}
    _set_grads([p])
    O.SGD(0.1, parameters=[p]).step()
    np.testing.assert_allclose(p.numpy(), [-0.3, -0.3])


def test_regularizers_and_precedence():
    p, q = paddle.Parameter(np.array([2.0, -2.0])), paddle.Parameter(np.array([2.0, -2.0]))
    q.regularizer = paddle.regularizer.L1Decay(0.5)
    opt = O.SGD(1.0, parameters=[p, q], weight_decay=0.25)
    _set_grads([p, q], 0.0)
    opt.step()
    np.testing.assert_allclose(p.numpy(), [1.5, -1.5])  # L2 from the optimizer
    np.testing.assert_allclose(q.numpy(), [1.5, -1.5])  # the parameter's own L1 wins
    r = paddle.Parameter(np.array([2.0, -2.0]))
    opt = O.SGD(1.0, parameters=[{"params": [r], "weight_decay": 0.5}], weight_decay=0.1)
    _set_grads([r], 0.0)
    opt.step()
    np.testing.assert_allclose(r.numpy(), [1.0, -1.0])  # the group's decay wins
    with pytest.raises(TypeError, match="weight_decay"):
        O.SGD(0.1, parameters=[p], weight_decay="l2")


def test_momentum_fuses_l2_after_rescale():
    p = paddle.Parameter(np.array([1.0]))
    opt = O.Momentum(1.0, momentum=0.0, parameters=[p], weight_decay=0.5, rescale_grad=0.5)
    _set_grads([p], 2.0)
    opt.step()
    np.testing.assert_allclose(p.numpy(), [1.0 - (0.5 * 2.0 + 0.5 * 1.0)])


def test_adamw_decay_fun_and_lr_ratio():
    a, b = paddle.Parameter(np.ones(1), name="w_a"), paddle.Parameter(np.ones(1), name="b_b")
    opt = O.AdamW(0.1, weight_decay=0.5, parameters=[a, b], lr_ratio=lambda p: 0.5,
                  apply_decay_param_fun=lambda n: n.startswith("w"))
    _set_grads([a, b], 0.0)
    opt.step()
    np.testing.assert_allclose(a.numpy(), [1 - 0.05 * 0.5])
    np.testing.assert_allclose(b.numpy(), [1.0])


def test_lamb_exclude_fn():
    p = paddle.Parameter(np.ones(2))
    opt = O.Lamb(0.1, lamb_weight_decay=0.5, parameters=[p],
                 exclude_from_weight_decay_fn=lambda param: True)
    _set_grads([p], 0.0)
    opt.step()
    np.testing.assert_allclose(p.numpy(), [1.0, 1.0])


def test_skips_stop_gradient_and_missing_grads_and_need_clip():
    frozen, nograd, p = _params((2,), (2,), (2,))
    frozen.stop_gradient = True
    frozen.grad = paddle.to_tensor([1.0, 1.0])
    before = [t.numpy().copy() for t in (frozen, nograd)]
    p.need_clip = False
    p.grad = paddle.to_tensor([10.0, 0.0])
    p0 = p.numpy().copy()
    opt = O.SGD(1.0, parameters=[frozen, nograd, p], grad_clip=paddle.nn.clip.ClipGradByValue(1))
    opt.step()
    np.testing.assert_array_equal(frozen.numpy(), before[0])
    np.testing.assert_array_equal(nograd.numpy(), before[1])
    np.testing.assert_allclose(p.numpy(), p0 - [10.0, 0.0])  # need_clip=False: not clipped


def test_grad_clip_global_norm_in_step():
    a, b = paddle.Parameter(np.zeros(1)), paddle.Parameter(np.zeros(1))
    a.grad, b.grad = paddle.to_tensor([3.0]), paddle.to_tensor([4.0])
    O.SGD(1.0, parameters=[a, b], grad_clip=paddle.nn.clip.ClipGradByGlobalNorm(1.0)).step()
    np.testing.assert_allclose([a.numpy()[0], b.numpy()[0]], [-0.6, -0.8])
    with pytest.raises(TypeError, match="grad_clip"):
        O.SGD(0.1, parameters=[a], grad_clip=1.0)


def test_clear_grad_minimize_and_lr_api():
    w = paddle.Parameter(np.array([1.0, 2.0]))
    opt = O.SGD(0.5, parameters=[w])
    loss = (w * w).sum()
    ops, pairs = opt.minimize(loss)  # Paddle's dynamic mode: no backward inside minimize
    assert ops == [] and pairs == [] and w.numpy().tolist() == [1.0, 2.0]
    loss.backward()
    ops, pairs = opt.minimize(loss)
    assert ops == [] and pairs[0][0] is w
    np.testing.assert_allclose(w.numpy(), [0.0, 0.0])
    opt.clear_grad()
    np.testing.assert_array_equal(w.grad.numpy(), [0.0, 0.0])
    opt.clear_grad(set_to_zero=False)
    assert w.grad is None
    assert opt.get_lr() == 0.5
    opt.set_lr(0.25)
    assert opt.get_lr() == 0.25
    with pytest.raises(TypeError, match="float"):
        opt.set_lr("0.1")
    opt.set_lr_scheduler(O.lr.StepDecay(0.1, 2))
    assert opt.get_lr() == 0.1
    with pytest.raises(RuntimeError, match="LRScheduler"):
        opt.set_lr(0.3)
    with pytest.raises(TypeError, match="LRScheduler"):
        opt.set_lr_scheduler(0.3)


def test_step_bumps_version_and_keeps_identity():
    w = paddle.Parameter(np.array([1.0]))
    data = w._data
    w.grad = paddle.to_tensor([1.0])
    v = w._version
    O.Adam(0.1, parameters=[w]).step()
    assert w._data is data and w._version == v + 1


@pytest.mark.parametrize("make, exc, words", [
    (lambda p: O.SGD(0.1, parameters=None), AttributeError, "should not be None"),
    (lambda p: O.SGD(0.1, parameters=p[0]), TypeError, "iterable"),
    (lambda p: O.SGD(0.1, parameters={"params": p}), TypeError, "list of dicts"),
    (lambda p: O.SGD("0.1", parameters=p), TypeError, "learning_rate"),
    (lambda p: O.Adam(0.1, beta1=1.0, parameters=p), ValueError, "beta1"),
    (lambda p: O.Adam(0.1, epsilon=-1.0, parameters=p), ValueError, "epsilon"),
    (lambda p: O.RMSProp(0.1, rho=-1.0, parameters=p), ValueError, "rho"),
    (lambda p: O.Rprop(0.1, learning_rate_range=(0.2, 1.0), parameters=p), ValueError,
     "learning_rate_range"),
    (lambda p: O.Rprop(0.1, etas=(1.5, 1.2), parameters=p), ValueError, "etas"),
    (lambda p: O.ASGD(0.1, batch_num=0, parameters=p), ValueError, "batch_num"),
    (lambda p: O.SGD(0.1, parameters=[{"lr": 1}]), ValueError, "params"),
])
def test_constructor_errors(make, exc, words):
    with pytest.raises(exc, match=words):
        make(_params((2,)))


def test_beta_may_be_tensor():
    got, _ = _run(lambda ps: O.Adam(0.1, beta1=paddle.to_tensor(0.9), parameters=ps))
    want, _ = _run(lambda ps: O.Adam(0.1, parameters=ps))
    np.testing.assert_allclose(got, want)


# --- audit: Paddle 2.6 methods, group defaults, argument errors ------------------------------
def _quad_param():
    p = paddle.Parameter(P0.copy())
    (p * p * paddle.to_tensor(C) + p * paddle.to_tensor(D)).sum().backward()
    return p


def test_backward_apply_gradients_equal_step():
    p, q = _quad_param(), _quad_param()
    O.Adam(0.1, parameters=[p]).step()
    opt = O.Adam(0.1, parameters=[q])
    q.clear_gradient(False)
    loss = (q * q * paddle.to_tensor(C) + q * paddle.to_tensor(D)).sum()
    pairs = opt.backward(loss)
    assert [pp is q for pp, _ in pairs] == [True]
    assert opt.apply_gradients(pairs) == []
    np.testing.assert_allclose(q.numpy(), p.numpy(), rtol=1e-6)
    assert opt.get_opti_var_name_list() == [a.name for a in opt.state_dict().values()]
    loss = (q * q).sum()
    assert opt.backward(loss, no_grad_set={q.name}) == []
    other = paddle.Parameter(P0.copy())
    with pytest.raises(ValueError, match="apply_gradients: parameter .* not optimized"):
        opt.apply_gradients([(other, paddle.ones([2, 3]))])


def test_append_regularization_ops():
    p = paddle.Parameter(np.array([1.0, -2.0]))
    g = paddle.to_tensor([0.5, 0.5])
    opt = O.SGD(0.1, parameters=[p])
    [(pp, gg)] = opt.append_regularization_ops([(p, g)], paddle.regularizer.L2Decay(0.1))
    assert pp is p
    np.testing.assert_allclose(gg.numpy(), [0.6, 0.3])
    [(_, gg)] = opt.append_regularization_ops([(p, g)])
    assert gg is g


def test_adamw_group_without_weight_decay_uses_coeff():
    # recorded with Paddle 3.3.1: one group keeps the optimizer's 0.05, the other sets 0.5
    def run(groups):
        a, b = paddle.Parameter(np.array([1.0, -2.0])), paddle.Parameter(np.array([3.0]))
        params = [{"params": [a]}, {"params": [b], "weight_decay": 0.5}] if groups else [a, b]
        opt = O.AdamW(0.1, parameters=params, weight_decay=0.05)
        (a.sum() + b.sum()).backward()
        opt.step()
        return a.numpy(), b.numpy()
    a, b = run(True)
    np.testing.assert_allclose(a, [1.0 * (1 - 0.1 * 0.05) - 0.1, -2.0 * (1 - 0.1 * 0.05) - 0.1],
                               rtol=1e-6)
    np.testing.assert_allclose(b, [3.0 * (1 - 0.1 * 0.5) - 0.1], rtol=1e-6)
    np.testing.assert_allclose(run(False)[0], a, rtol=1e-6)


@pytest.mark.parametrize("make, exc, match", [
    (lambda p: O.SGD(None, parameters=p), ValueError, "SGD: learning_rate is not set"),
    (lambda p: O.SGD(0.1, parameters=[1.0]), TypeError, "SGD: parameters must be Tensors"),
    (lambda p: O.SGD(0.1, parameters=[{"params": [1]}]), TypeError, "SGD: the 'params'"),
    (lambda p: O.RMSProp(0.1, rho=None, parameters=p), ValueError, "RMSProp: rho is not set"),
    (lambda p: O.AdamW(0.1, parameters=p, weight_decay="a"), TypeError,
     "AdamW: weight_decay must be"),
    (lambda p: O.Adam(0.1, parameters=p, grad_clip=1.0), TypeError, "Adam: grad_clip"),
    (lambda p: paddle.nn.ClipGradByGlobalNorm("a"), TypeError, "ClipGradByGlobalNorm: clip_norm"),
    (lambda p: paddle.nn.ClipGradByValue("a"), TypeError, "ClipGradByValue: max"),
    (lambda p: paddle.regularizer.L2Decay("a"), TypeError, "L2Decay: coeff"),
    (lambda p: paddle.nn.utils.clip_grad_norm_(p, 1.0, norm_type=3), ValueError,
     "clip_grad_norm_: norm_type"),
])
def test_argument_errors_name_api(make, exc, match):
    with pytest.raises(exc, match=match):
        make([paddle.Parameter(np.ones(2))])


def test_adamax_name_is_positional_like_paddle():
    import inspect
    names = list(inspect.signature(O.Adamax).parameters)
    assert names[:8] == ["learning_rate", "beta1", "beta2", "epsilon", "parameters",
                         "weight_decay", "grad_clip", "name"]


@pytest.mark.parametrize("name, kwargs, expected", [
    # one step on w = [1, -2, 3], loss 3 * sum(w^2), float32; recorded with Paddle 3.3.1
    ("Adam", {}, [0.8999999761581421, -1.899999976158142, 2.9000000953674316]),
    ("AdamW", {}, [0.8989999890327454, -1.8980000019073486, 2.8970000743865967]),
    ("Adamax", {}, [0.8999999761581421, -1.899999976158142, 2.9000000953674316]),
    ("RMSProp", {}, [0.5527865886688232, -1.5527864694595337, 2.5527865886688232]),
    ("Lamb", {}, [0.7861000299453735, -1.783982276916504, 2.7818644046783447]),
])
def test_float32_hyper_parameters_round_like_paddle(name, kwargs, expected):
    # Paddle's kernels use beta/rho in float32 (1 - 0.9f = 0.100000024), which matters in
    # Adam's bias correction: sqrt(1 - beta2_pow) cancels only with the same rounding
    w = paddle.Parameter(np.array([1.0, -2.0, 3.0], "float32"))
    opt = getattr(O, name)(0.1, parameters=[w], **kwargs)
    ((w * w).sum() * 3).backward()
    opt.step()
    np.testing.assert_allclose(w.numpy(), expected, rtol=1.5e-7, atol=0)


def test_adamw_applies_param_attr_regularizer():
    # recorded with Paddle 3.3.1: the ParamAttr L1Decay is added to the gradient, while the
    # optimizer's weight_decay stays decoupled
    w = paddle.create_parameter(
        [3], "float32", attr=paddle.ParamAttr(regularizer=paddle.regularizer.L1Decay(0.1)),
        default_initializer=paddle.nn.initializer.Assign(np.array([1.0, -2.0, 3.0])))
    opt = O.AdamW(0.1, parameters=[w])
    for _ in range(3):
        ((w * w).sum() * 3).backward()
        opt.step()
        opt.clear_grad()
    np.testing.assert_allclose(w.numpy(), [0.6988739967346191, -1.6949390172958374,
                                           2.691701889038086], rtol=1e-6)


@pytest.mark.parametrize("lr", [np.float64(0.25), np.float32(0.25), 0.25])
def test_numpy_scalar_learning_rate(lr):
    opt = O.SGD(lr, parameters=[paddle.Parameter(np.ones(2))])
    assert opt.get_lr() == 0.25 and type(opt.get_lr()) is float


def test_lbfgs_state_keys_match_paddle():
    w = paddle.Parameter(np.array([-1.5, 2.0]))
    opt = O.LBFGS(learning_rate=1, max_iter=3, history_size=4, parameters=[w])

    def closure():
        opt.clear_grad()
        loss = (1 - w[0]) ** 2 + 100 * (w[1] - w[0] ** 2) ** 2
        loss.backward()
        return loss
    opt.step(closure)
    assert sorted(opt.state_dict()["state"]) == ["H_diag", "al", "alpha", "d", "func_evals",
                                                 "n_iter", "old_sk", "old_yk",
                                                 "prev_flat_grad", "prev_loss", "ro"]
