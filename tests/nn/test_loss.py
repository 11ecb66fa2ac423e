"""Loss functions and layers: numbers from PaddlePaddle 3.3.1, NumPy references, gradients,
compute == decompose for the fused cross entropy, error messages and layer wiring."""
import math

import numpy as np
import pytest

import sampan as paddle
import sampan.nn.functional as F
from sampan.ops import REGISTRY
from sampan.ops.dispatch import call

# Inputs shared with the generator run under PaddlePaddle 3.3.1 (values below are its output).
X = (np.arange(15, dtype="float64").reshape(5, 3) * 0.37) % 1.3 - 0.6
LAB = np.array([0, 2, 1, 1, 2])
W = np.array([0.5, 2.0, 1.5])
SOFT = np.array([[0.2, 0.3, 0.5], [0.1, 0.8, 0.1], [1 / 3, 1 / 3, 1 / 3], [0.6, 0.2, 0.2],
                 [0.0, 0.5, 0.5]])
X4 = ((np.arange(24, dtype="float64").reshape(2, 3, 2, 2) * 0.53) % 1.7) - 0.8
L4 = np.array([[[0, 1], [2, 1]], [[1, 1], [0, 2]]])
LP = (np.arange(30, dtype="float64").reshape(5, 2, 3) * 0.61) % 1.1
LABELS = np.array([[1, 2, 2], [1, 1, 0]], "int32")

# loss value(s) and gradient w.r.t. the logits, from paddle 3.3.1
PADDLE = {'axis1': (1.23842391,
           [[[[-0.04407317, 0.04592954], [0.0, 0.13062679]],
             [[0.01747575, -0.15231922], [0.0, -0.1859031]],
             [[0.02659742, 0.10638968], [0.0, 0.05527631]]],
            [[[0.07545429, 0.04592954], [-0.04407317, 0.0]],
             [[-0.10738369, -0.15231922], [0.01747575, 0.0]],
             [[0.0319294, 0.10638968], [0.02659742, 0.0]]]]),
 'ctc': (([3.08129734, 3.05216437], 1.27659065),
         [[[0.10223287, -0.3863854, 0.28415253], [0.23084893, -0.64232562, 0.41147669]],
          [[0.10223287, 0.03836477, -0.14059764], [-0.28071584, 0.09192163, 0.18879422]],
          [[0.10908221, 0.22357622, -0.33265843], [-0.09832771, -0.18582482, 0.28415253]],
          [[-0.39088901, 0.30817186, 0.08271715], [-0.03790605, -0.37357064, 0.41147669]],
          [[0.20216065, 0.46382678, -0.66598744], [0.0, 0.0, 0.0]]]),
 'ctc_nbt': (([3.08129734, 3.05216437], 1.27659065),
             [[[0.02044657, -0.07727708, 0.05683051], [0.05771223, -0.16058141, 0.10286917]],
              [[0.02044657, 0.00767295, -0.02811953], [-0.07017896, 0.02298041, 0.04719855]],
              [[0.02181644, 0.04471524, -0.06653169], [-0.02458193, -0.04645621, 0.07103813]],
              [[-0.0781778, 0.06163437, 0.01654343], [-0.00947651, -0.09339266, 0.10286917]],
              [[0.04043213, 0.09276536, -0.13319749], [0.0, 0.0, 0.0]]]),
 'ctc_short': (([3.08129734, 0.0], 0.51354956),
               [[[0.10223287, -0.3863854, 0.28415253], [0.0, 0.0, 0.0]],
                [[0.10223287, 0.03836477, -0.14059764], [0.0, 0.0, 0.0]],
                [[0.10908221, 0.22357622, -0.33265843], [0.0, 0.0, 0.0]],
                [[-0.39088901, 0.30817186, 0.08271715], [0.0, 0.0, 0.0]],
                [[0.20216065, 0.46382678, -0.66598744], [0.0, 0.0, 0.0]]]),
 'ignore1': (1.17445017,
             [[-0.2599712, 0.1062089, 0.1537623], [0.16956946, 0.06690426, -0.23647372],
              [0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.07336213, 0.1062089, -0.17957103]]),
 'ignore_default': (0.8516515,
                    [[-0.15598272, 0.06372534, 0.09225738], [0.10174168, 0.04014256, -0.14188423],
                     [0.0, 0.0, 0.0], [0.06624834, -0.10408999, 0.03784165],
                     [0.04401728, 0.06372534, -0.10774262]]),
 'mean': (0.9986329,
          [[-0.15598272, 0.06372534, 0.09225738], [0.10174168, 0.04014256, -0.14188423],
           [0.06624834, -0.10408999, 0.03784165], [0.06624834, -0.10408999, 0.03784165],
           [0.04401728, 0.06372534, -0.10774262]]),
 'nll': (-0.46222200989723206,
         [[-0.111111, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, -0.444444, 0.0], [0.0, -0.444444, 0.0],
          [0.0, 0.0, 0.0]]),
 'no_softmax': ([1.51373508, 1.23588035, 0.73490699, 0.73490699, 0.77373508], None),
 'none_weight': ([0.75686754, 1.85382053, 1.46981399, 1.46981399, 1.16060263],
                 [[-0.3899568, 0.15931335, 0.23064345], [0.76306257, 0.30106917, -1.06413174],
                  [0.66248338, -1.04089988, 0.37841651], [0.66248338, -1.04089988, 0.37841651],
                  [0.3301296, 0.47794005, -0.80806965]]),
 'smooth': (1.01469958,
            [[-0.14264939, 0.05705867, 0.08559071], [0.09507501, 0.03347589, -0.1285509],
             [0.05958167, -0.09075666, 0.03117498], [0.05958167, -0.09075666, 0.03117498],
             [0.03735061, 0.05705867, -0.09440929]]),
 'smooth_weight': (0.96333046,
                   [[-0.05878003, 0.02290546, 0.03587457], [0.08840834, 0.02680922, -0.11521757],
                    [0.06734637, -0.09853878, 0.0311924], [0.06734637, -0.09853878, 0.0311924],
                    [0.03068395, 0.05039201, -0.08107595]]),
 'soft_weight': (1.16350877,
                 [[0.00397163, 0.00368301, -0.00765464], [0.10031933, -0.14709777, 0.04677844],
                  [-0.0003803, 0.02658486, -0.02620456], [-0.03664886, 0.03812046, -0.0014716],
                  [0.05252062, -0.04328227, -0.00923835]]),
 'sum_weight': (6.71091867,
                [[-0.3899568, 0.15931335, 0.23064345], [0.76306257, 0.30106917, -1.06413174],
                 [0.66248338, -1.04089988, 0.37841651], [0.66248338, -1.04089988, 0.37841651],
                 [0.3301296, 0.47794005, -0.80806965]]),
 'weight': (0.89478916,
            [[-0.05199424, 0.02124178, 0.03075246], [0.10174168, 0.04014256, -0.14188423],
             [0.08833112, -0.13878665, 0.05045553], [0.08833112, -0.13878665, 0.05045553],
             [0.04401728, 0.06372534, -0.10774262]]),
 'weight_ignore1': (1.07751163,
                    [[-0.11141623, 0.0455181, 0.06589813], [0.21801788, 0.08601976, -0.30403764],
                     [0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.09432274, 0.1365543, -0.23087704]])}


def t(a, **kw):
    return paddle.to_tensor(a, **kw)


CE_CASES = {
    "mean": {}, "weight": {"weight": W}, "ignore1": {"ignore_index": 1},
    "weight_ignore1": {"weight": W, "ignore_index": 1},
    "sum_weight": {"weight": W, "reduction": "sum"},
    "none_weight": {"weight": W, "reduction": "none"},
    "smooth": {"label_smoothing": 0.1}, "smooth_weight": {"label_smoothing": 0.2, "weight": W},
}


def _loss_and_grad(fn, x):
    xt = t(x, stop_gradient=False)
    loss = fn(xt)
    loss.sum().backward()
    return loss.numpy(), xt.grad.numpy()


@pytest.mark.parametrize("case", sorted(CE_CASES))
def test_cross_entropy_matches_paddle(case):
    kw = {k: t(v) if isinstance(v, np.ndarray) else v for k, v in CE_CASES[case].items()}
    loss, grad = _loss_and_grad(lambda x: F.cross_entropy(x, t(LAB), **kw), X)
    want_loss, want_grad = PADDLE[case]
    np.testing.assert_allclose(loss, want_loss, atol=1e-7)
    np.testing.assert_allclose(grad, want_grad, atol=1e-7)


def test_cross_entropy_default_ignore_index_counts_ignored_rows_in_mean():
    lab = LAB.copy()
    lab[2] = -100
    loss, grad = _loss_and_grad(lambda x: F.cross_entropy(x, t(lab)), X)
    np.testing.assert_allclose(loss, PADDLE["ignore_default"][0], atol=1e-7)
    np.testing.assert_allclose(grad, PADDLE["ignore_default"][1], atol=1e-7)
    assert not grad[2].any()


def test_cross_entropy_soft_label_weight_and_axis():
    loss, grad = _loss_and_grad(
        lambda x: F.cross_entropy(x, t(SOFT), soft_label=True, weight=t(W)), X)
    np.testing.assert_allclose(loss, PADDLE["soft_weight"][0], atol=1e-7)
    np.testing.assert_allclose(grad, PADDLE["soft_weight"][1], atol=1e-7)
    loss, grad = _loss_and_grad(
        lambda x: F.cross_entropy(x, t(L4), axis=1, weight=t(W), ignore_index=2), X4)
    np.testing.assert_allclose(loss, PADDLE["axis1"][0], atol=1e-7)
    np.testing.assert_allclose(grad, PADDLE["axis1"][1], atol=1e-7)


def test_cross_entropy_without_softmax_clamps_log_zero():
    p = np.exp(X) / np.exp(X).sum(1, keepdims=True)
    out = F.cross_entropy(t(p), t(LAB), use_softmax=False, reduction="none")
    np.testing.assert_allclose(out.numpy(), PADDLE["no_softmax"][0], atol=1e-7)
    zero = F.cross_entropy(t(np.array([[0.0, 1.0]])), t(np.array([0])), use_softmax=False,
                           reduction="none")
    assert zero.numpy()[0] == 1e20


def test_cross_entropy_shapes():
    x = t(X)
    assert F.cross_entropy(x, t(LAB)).shape == []
    assert F.cross_entropy(x, t(LAB), reduction="none").shape == [5]
    assert F.cross_entropy(x, t(LAB[:, None]), reduction="none").shape == [5, 1]
    assert F.cross_entropy(x, t(SOFT), soft_label=True, reduction="none").shape == [5, 1]
    assert F.cross_entropy(t(X4), t(L4), axis=1, reduction="none").shape == [2, 2, 2]
    assert F.cross_entropy(x.astype("float32"), t(LAB)).dtype == paddle.float32
    assert math.isnan(F.cross_entropy(t(np.zeros((0, 3))), t(np.zeros(0, "int64"))).item())


def test_nll_loss_matches_paddle():
    loss, grad = _loss_and_grad(
        lambda x: F.nll_loss(x, t(LAB), weight=t(W), ignore_index=2), X.astype("float32"))
    np.testing.assert_allclose(loss, PADDLE["nll"][0], atol=1e-6)
    np.testing.assert_allclose(grad, PADDLE["nll"][1], atol=1e-6)
    # every label ignored: 0, not nan (Paddle)
    assert F.nll_loss(t(X), t(np.full(5, 1)), ignore_index=1).item() == 0.0


def test_nll_loss_higher_rank_against_numpy():
    x = t(X4)
    got = F.nll_loss(x, t(L4), reduction="none").numpy()
    want = -np.take_along_axis(X4, L4[:, None], 1)[:, 0]
    np.testing.assert_allclose(got, want)
    np.testing.assert_allclose(F.nll_loss(x, t(L4)).numpy(), want.mean())


@pytest.mark.parametrize("case", ["ctc", "ctc_nbt", "ctc_short"])
def test_ctc_loss_matches_paddle(case):
    lengths = {"ctc": ([5, 4], [3, 2]), "ctc_nbt": ([5, 4], [3, 2]),
               "ctc_short": ([5, 2], [3, 2])}[case]
    il, ll = (t(np.array(v)) for v in lengths)
    xt = t(LP, stop_gradient=False)
    loss = F.ctc_loss(xt, t(LABELS), il, ll, reduction="none", norm_by_times=case == "ctc_nbt")
    loss.sum().backward()
    (want_none, want_mean), want_grad = PADDLE[case]
    np.testing.assert_allclose(loss.numpy(), want_none, atol=1e-7)
    np.testing.assert_allclose(xt.grad.numpy(), want_grad, atol=1e-7)
    np.testing.assert_allclose(F.ctc_loss(t(LP), t(LABELS), il, ll).numpy(), want_mean,
                               atol=1e-7)


def test_ctc_loss_layer_and_float32():
    il, ll = t(np.array([5, 4])), t(np.array([3, 2]))
    layer = paddle.nn.CTCLoss(reduction="sum")
    got = layer(t(LP.astype("float32")), t(LABELS), il, ll)
    assert got.dtype == paddle.float32
    np.testing.assert_allclose(got.numpy(), sum(PADDLE["ctc"][0][0]), rtol=1e-5)


def test_softmax_with_cross_entropy_compute_equals_decompose():
    op = REGISTRY["softmax_with_cross_entropy"]
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 5))
    cases = [(np.array([[0], [4], [2], [2]]), {"ignore_index": 2}),
             (rng.dirichlet(np.ones(5), 4), {"soft_label": True}),
             (np.array([[1, 0, 2, 1, 0]]), {"axis": 0})]
    for label, attrs in cases:
        xs = x[:3] if attrs.get("axis") == 0 else x
        got = call("softmax_with_cross_entropy", t(xs), t(label), **attrs)
        want = op.decompose(t(xs), t(label), **attrs)
        for g, w in zip(got, want):
            np.testing.assert_allclose(g.numpy(), w.numpy(), atol=1e-12)


def test_softmax_with_cross_entropy_is_stable_and_second_order():
    big = t(np.array([[1000.0, 0.0, -1000.0]]))
    loss, sm = F.softmax_with_cross_entropy(big, t(np.array([[2]])), return_softmax=True)
    assert loss.item() == 2000.0 and np.isfinite(sm.numpy()).all()
    x = t(X, stop_gradient=False)
    g, = paddle.grad([F.cross_entropy(x, t(LAB))], [x], create_graph=True)
    h, = paddle.grad([(g * g).sum()], [x])
    eps = 1e-6

    def gsq(arr):
        xx = t(arr, stop_gradient=False)
        gg, = paddle.grad([F.cross_entropy(xx, t(LAB))], [xx])
        return float((gg.numpy() ** 2).sum())
    k = (1, 2)
    hi, lo = X.copy(), X.copy()
    hi[k] += eps
    lo[k] -= eps
    np.testing.assert_allclose(h.numpy()[k], (gsq(hi) - gsq(lo)) / (2 * eps), rtol=1e-5)


# --- composites against NumPy references ------------------------------------------------

P = 1 / (1 + np.exp(-X))
Y01 = (np.arange(15).reshape(5, 3) % 2).astype("float64")
PM = np.where(np.arange(15).reshape(5, 3) % 3 == 0, 1.0, -1.0)


def _softplus(v):
    return np.logaddexp(0, v)


NUMPY_REFS = {
    "mse": (lambda a, b: F.mse_loss(a, b, "none"), lambda a, b: (a - b) ** 2),
    "l1": (lambda a, b: F.l1_loss(a, b, "none"), lambda a, b: np.abs(a - b)),
    "smooth_l1": (lambda a, b: F.smooth_l1_loss(a, b, "none", delta=0.3),
                  lambda a, b: np.where(np.abs(a - b) <= 0.3, 0.5 * (a - b) ** 2,
                                        0.3 * (np.abs(a - b) - 0.15))),
    "bce": (lambda a, b: F.binary_cross_entropy(paddle.sigmoid(a), t(Y01),
                                                reduction="none"),
            lambda a, b: -(Y01 * np.log(1 / (1 + np.exp(-a))) +
                           (1 - Y01) * np.log(1 - 1 / (1 + np.exp(-a))))),
    "bce_logits": (lambda a, b: F.binary_cross_entropy_with_logits(a, t(Y01), reduction="none",
                                                                   pos_weight=t(W)),
                   lambda a, b: (1 - Y01) * a + (1 + (W - 1) * Y01) * _softplus(-a)),
    "soft_margin": (lambda a, b: F.soft_margin_loss(a, t(PM), "none"),
                    lambda a, b: _softplus(-PM * a)),
    "hinge": (lambda a, b: F.hinge_embedding_loss(a, t(PM), 0.5, "none"),
              lambda a, b: np.where(PM == 1, a, np.maximum(0, 0.5 - a))),
    "kl": (lambda a, b: F.kl_div(a, b, "none"), lambda a, b: b * (np.log(b) - a)),
    "margin_ranking": (lambda a, b: F.margin_ranking_loss(a, b, t(PM), 0.1, "none"),
                       lambda a, b: np.maximum(0, -PM * (a - b) + 0.1)),
    "poisson": (lambda a, b: F.poisson_nll_loss(a, b, reduction="none"),
                lambda a, b: np.exp(a) - b * a),
    "gaussian": (lambda a, b: F.gaussian_nll_loss(a, t(P), b, reduction="none"),
                 lambda a, b: 0.5 * (np.log(b) + (a - P) ** 2 / b)),
}


@pytest.mark.parametrize("name", sorted(NUMPY_REFS))
def test_composite_losses_against_numpy_and_finite_differences(name):
    fn, ref = NUMPY_REFS[name]
    a, b = X + 0.05, P + 0.1
    np.testing.assert_allclose(fn(t(a), t(b)).numpy(), ref(a, b), rtol=1e-10, atol=1e-12)
    at, bt = t(a, stop_gradient=False), t(b, stop_gradient=False)
    got = paddle.grad([fn(at, bt).sum()], [at, bt], allow_unused=True)
    for k, (arr, g) in enumerate(zip((a, b), got)):
        num = np.zeros_like(arr)
        for i in np.ndindex(arr.shape):
            hi, lo = arr.copy(), arr.copy()
            hi[i] += 1e-6
            lo[i] -= 1e-6
            args_hi = (hi, b) if k == 0 else (a, hi)
            args_lo = (lo, b) if k == 0 else (a, lo)
            num[i] = (ref(*args_hi).sum() - ref(*args_lo).sum()) / 2e-6
        np.testing.assert_allclose(np.zeros_like(arr) if g is None else g.numpy(), num,
                                   rtol=1e-5, atol=1e-6, err_msg=f"{name} grad {k}")


def test_reductions_give_0d():
    a, b = t(X), t(P)
    for fn in (F.mse_loss, F.l1_loss, F.smooth_l1_loss, F.soft_margin_loss):
        for reduction, want in (("mean", np.mean), ("sum", np.sum)):
            out = fn(a, b, reduction=reduction)
            assert out.shape == []
            np.testing.assert_allclose(out.numpy(), want(fn(a, b, reduction="none").numpy()))
    assert F.kl_div(a, b, reduction="batchmean").shape == []


def test_margin_and_embedding_losses_against_numpy():
    a, p, n = X, P, X[::-1].copy()
    got = F.triplet_margin_loss(t(a), t(p), t(n), margin=1.5, p=3, swap=True,
                                reduction="none").numpy()

    def d(u, v):
        return (np.abs(u - v + 1e-6) ** 3).sum(-1) ** (1 / 3)
    want = np.maximum(d(a, p) - np.minimum(d(a, n), d(p, n)) + 1.5, 0)
    np.testing.assert_allclose(got, want)
    lab = np.array([1, -1, 1, -1, -1])
    got = F.cosine_embedding_loss(t(a), t(p), t(lab), margin=0.1, reduction="none").numpy()
    cos = (a * p).sum(1) / np.sqrt(((a * a).sum(1) + 1e-11) * ((p * p).sum(1) + 1e-11))
    np.testing.assert_allclose(got, np.where(lab == 1, 1 - cos, np.maximum(cos - 0.1, 0)))
    got = F.multi_margin_loss(t(a), t(LAB), p=2, margin=0.8, weight=t(W),
                              reduction="none").numpy()
    tgt = a[np.arange(5), LAB][:, None]
    terms = W[LAB][:, None] * np.maximum(0.8 - tgt + a, 0) ** 2
    terms[np.arange(5), LAB] = 0
    np.testing.assert_allclose(got, terms.sum(1) / 3)
    lab = np.array([[2, 0, -1], [1, -1, 0], [-1, 1, 1], [0, 1, 2], [2, 2, -1]])
    got = F.multi_label_margin_loss(t(a), t(lab), reduction="none").numpy()
    want = []
    for row, labs in zip(a, lab):
        targets = []
        for v in labs:
            if v == -1:
                break
            targets.append(v)
        want.append(sum(max(0, 1 - (row[j] - row[i])) for j in targets for i in range(3)
                        if i not in targets) / 3)
    np.testing.assert_allclose(got, want)


def test_sigmoid_focal_dice_npair_log_loss_values():
    # numbers from paddle 3.3.1 (float32 where Paddle only has float32 kernels)
    x = t(np.array([[2.0, -1.0], [0.5, 0.3]]))
    y = t(np.array([[1.0, 0.0], [0.0, 1.0]]))
    np.testing.assert_allclose(F.sigmoid_focal_loss(x, y, normalizer=t(np.array([2.0])),
                                                    gamma=1.5).numpy(),
                               _focal(x.numpy(), y.numpy(), 0.25, 1.5).sum() / 2.0)
    probs = t(np.array([[0.3, 0.7], [0.6, 0.4]]))
    assert abs(F.dice_loss(probs, t(np.array([[1], [0]]))).item() - 0.35000324) < 1e-6
    anchor = t(np.array([[0.3, 0.7], [0.6, 0.4]], "float32"))
    pos = t(np.array([[0.1, 0.2], [0.5, 0.1]], "float32"))
    assert abs(F.npair_loss(anchor, pos, t(np.array([1.0, 2.0]))).item() - 0.65865183) < 1e-6
    got = F.log_loss(t(np.array([[0.3], [0.9]])), t(np.array([[1.0], [0.0]]))).numpy()
    np.testing.assert_allclose(got, [[1.20363951], [2.30158544]], rtol=1e-6)


def _focal(x, y, alpha, gamma):
    p = 1 / (1 + np.exp(-x))
    ce = -(y * np.log(p) + (1 - y) * np.log(1 - p))
    p_t = p * y + (1 - p) * (1 - y)
    return (alpha * y + (1 - alpha) * (1 - y)) * (1 - p_t) ** gamma * ce


def test_margin_cross_entropy_against_numpy():
    logits = np.clip(X, -1, 1) * 0.9
    loss, sm = F.margin_cross_entropy(t(logits), t(LAB), margin1=1.0, margin2=0.3,
                                      margin3=0.1, scale=4.0, return_softmax=True,
                                      reduction=None)
    theta = np.arccos(logits[np.arange(5), LAB])
    adj = logits.copy()
    adj[np.arange(5), LAB] = np.cos(theta + 0.3) - 0.1
    adj *= 4.0
    logp = adj - np.log(np.exp(adj).sum(1, keepdims=True))
    np.testing.assert_allclose(loss.numpy()[:, 0], -logp[np.arange(5), LAB])
    np.testing.assert_allclose(sm.numpy(), np.exp(logp))


# --- errors -----------------------------------------------------------------------------

def test_cross_entropy_errors_name_the_loss_and_shapes():
    x = t(X)
    with pytest.raises(ValueError, match=r"softmax_with_cross_entropy.*\[5, 1\].*\[3, 1\]"):
        F.cross_entropy(x, t(LAB[:3]))
    with pytest.raises(ValueError, match=r"cross_entropy: label must have rank 1 or 2"):
        F.cross_entropy(x, t(np.zeros((5, 1, 1), "int64")))
    with pytest.raises(IndexError, match=r"cross_entropy: label value 3 is out of range for 3"):
        F.cross_entropy(x, t(LAB + 1))
    with pytest.raises(ValueError, match=r"cross_entropy: reduction must be one of"):
        F.cross_entropy(x, t(LAB), reduction="avg")
    with pytest.raises(ValueError, match=r"cross_entropy: weight has 4 classes"):
        F.cross_entropy(x, t(LAB), weight=t(np.ones(4)))
    with pytest.raises(TypeError, match=r"cross_entropy: input must be a float"):
        F.cross_entropy(t(LAB), t(LAB))
    with pytest.raises(ValueError, match=r"soft_label=True.*shape"):
        F.cross_entropy(x, t(SOFT[:, :2]), soft_label=True)
    with pytest.raises(IndexError, match=r"label value 5 is out of range"):
        call("softmax_with_cross_entropy", x, t(np.array([[5], [0], [0], [0], [0]])))


def test_other_loss_errors():
    x = t(X)
    with pytest.raises(ValueError, match=r"nll_loss: label must have shape \[5\]"):
        F.nll_loss(x, t(LAB[:4]))
    with pytest.raises(ValueError, match=r"nll_loss: label value 3 is out of range"):
        F.nll_loss(x, t(LAB + 1))
    with pytest.raises(ValueError, match=r"binary_cross_entropy: input and label must have "
                                         r"the same shape, got \[5, 3\] and \[5\]"):
        F.binary_cross_entropy(t(P), t(P[:, 0]))
    with pytest.raises(ValueError, match=r"poisson_nll_loss: epsilon must be positive"):
        F.poisson_nll_loss(x, x, epsilon=0.0)
    with pytest.raises(ValueError, match=r"gaussian_nll_loss: variance of shape \[2\]"):
        F.gaussian_nll_loss(x, x, t(np.ones(2)))
    with pytest.raises(ValueError, match=r"gaussian_nll_loss: variance has negative"):
        F.gaussian_nll_loss(x, x, t(-np.ones((5, 3))))
    with pytest.raises(ValueError, match=r"triplet_margin_loss: margin must be >= 0"):
        F.triplet_margin_loss(x, x, x, margin=-1.0)
    with pytest.raises(ValueError, match=r"kl_div: reduction must be one of.*batchmean"):
        F.kl_div(x, x, reduction="avg")
    with pytest.raises(ValueError, match=r"multi_label_margin_loss: label values must lie"):
        F.multi_label_margin_loss(x, t(np.full((5, 3), 3)))
    with pytest.raises(ValueError, match=r"dice_loss: label must have input's shape"):
        F.dice_loss(t(P), t(LAB))
    with pytest.raises(ValueError, match=r"log_loss: input must have shape \[N, 1\]"):
        F.log_loss(t(P), t(P))
    with pytest.raises(ValueError, match=r"margin_cross_entropy: only group=None"):
        F.margin_cross_entropy(x, t(LAB), group=object())


def test_ctc_errors():
    il, ll = t(np.array([5, 4])), t(np.array([3, 2]))
    with pytest.raises(ValueError, match=r"ctc_loss: log_probs must be 3-D"):
        F.ctc_loss(t(LP[0]), t(LABELS), il, ll)
    with pytest.raises(ValueError, match=r"ctc_loss: input_lengths has 3 entries but "
                                         r"log_probs has batch_size 2"):
        F.ctc_loss(t(LP), t(LABELS), t(np.array([5, 4, 3])), ll)
    with pytest.raises(ValueError, match=r"ctc_loss: labels must lie in \[0, 3\)"):
        F.ctc_loss(t(LP), t(LABELS + 2), il, ll)
    with pytest.raises(ValueError, match=r"ctc_loss: input_lengths must lie in \[0, 5\]"):
        F.ctc_loss(t(LP), t(LABELS), t(np.array([6, 4])), ll)
    with pytest.raises(ValueError, match=r"ctc_loss: blank 3 is out of range"):
        F.ctc_loss(t(LP), t(LABELS), il, ll, blank=3)


# --- layers -----------------------------------------------------------------------------

LAYERS = [
    (paddle.nn.CrossEntropyLoss(weight=t(W), ignore_index=1),
     lambda: F.cross_entropy(t(X), t(LAB), weight=t(W), ignore_index=1), (X, LAB)),
    (paddle.nn.NLLLoss(reduction="sum"), lambda: F.nll_loss(t(X), t(LAB), reduction="sum"),
     (X, LAB)),
    (paddle.nn.MSELoss(), lambda: F.mse_loss(t(X), t(P)), (X, P)),
    (paddle.nn.L1Loss("sum"), lambda: F.l1_loss(t(X), t(P), "sum"), (X, P)),
    (paddle.nn.SmoothL1Loss(delta=0.3), lambda: F.smooth_l1_loss(t(X), t(P), delta=0.3),
     (X, P)),
    (paddle.nn.HuberLoss(delta=0.3, is_huber=False),
     lambda: F.smooth_l1_loss(t(X), t(P), delta=0.3, is_huber=False), (X, P)),
    (paddle.nn.BCELoss(weight=t(W)), lambda: F.binary_cross_entropy(t(P), t(Y01), t(W)),
     (P, Y01)),
    (paddle.nn.BCEWithLogitsLoss(pos_weight=t(W)),
     lambda: F.binary_cross_entropy_with_logits(t(X), t(Y01), pos_weight=t(W)), (X, Y01)),
    (paddle.nn.KLDivLoss("batchmean"), lambda: F.kl_div(t(X), t(P), "batchmean"), (X, P)),
    (paddle.nn.MarginRankingLoss(0.2), lambda: F.margin_ranking_loss(t(X), t(P), t(PM), 0.2),
     (X, P, PM)),
    (paddle.nn.HingeEmbeddingLoss(0.5), lambda: F.hinge_embedding_loss(t(X), t(PM), 0.5),
     (X, PM)),
    (paddle.nn.CosineEmbeddingLoss(0.1),
     lambda: F.cosine_embedding_loss(t(X), t(P), t(LAB - 1), 0.1), (X, P, LAB - 1)),
    (paddle.nn.TripletMarginLoss(p=1.0), lambda: F.triplet_margin_loss(t(X), t(P), t(-X), p=1.0),
     (X, P, -X)),
    (paddle.nn.TripletMarginWithDistanceLoss(margin=0.5),
     lambda: F.triplet_margin_with_distance_loss(t(X), t(P), t(-X), margin=0.5), (X, P, -X)),
    (paddle.nn.MultiLabelSoftMarginLoss(weight=t(W)),
     lambda: F.multi_label_soft_margin_loss(t(X), t(Y01), t(W)), (X, Y01)),
    (paddle.nn.MultiLabelMarginLoss(),
     lambda: F.multi_label_margin_loss(t(X[:2]), t(L4[0].T)), (X[:2], L4[0].T)),
    (paddle.nn.MultiMarginLoss(p=2), lambda: F.multi_margin_loss(t(X), t(LAB), p=2), (X, LAB)),
    (paddle.nn.SoftMarginLoss(), lambda: F.soft_margin_loss(t(X), t(PM)), (X, PM)),
    (paddle.nn.PoissonNLLLoss(full=True), lambda: F.poisson_nll_loss(t(X), t(P * 3), full=True),
     (X, P * 3)),
    (paddle.nn.GaussianNLLLoss(full=True), lambda: F.gaussian_nll_loss(t(X), t(P), t(P), True),
     (X, P, P)),
]


@pytest.mark.parametrize("layer,functional,args", LAYERS,
                         ids=[type(layer).__name__ for layer, _, _ in LAYERS])
def test_layer_calls_functional(layer, functional, args):
    want = functional()
    got = layer(*[t(a) for a in args])
    np.testing.assert_allclose(got.numpy(), want.numpy())
    assert len(layer.state_dict()) == 0
    assert repr(layer) == f"{type(layer).__name__}()"


def test_layer_argument_errors():
    with pytest.raises(ValueError, match=r"MSELoss: reduction must be one of"):
        paddle.nn.MSELoss("avg")
    with pytest.raises(ValueError, match=r"CrossEntropyLoss: label_smoothing must lie"):
        paddle.nn.CrossEntropyLoss(label_smoothing=1.5)
    with pytest.raises(ValueError, match=r"TripletMarginLoss: margin must be >= 0"):
        paddle.nn.TripletMarginLoss(margin=-0.5)
    with pytest.raises(ValueError, match=r"PoissonNLLLoss: epsilon must be positive"):
        paddle.nn.PoissonNLLLoss(epsilon=0)
    assert paddle.nn.KLDivLoss("batchmean").reduction == "batchmean"


def test_cross_entropy_loss_trains_a_linear_model():
    rng = np.random.default_rng(0)
    x = t(rng.standard_normal((16, 4)).astype("float32"))
    y = t(rng.integers(0, 3, 16))
    w = t(np.zeros((4, 3), "float32"), stop_gradient=False)
    loss_fn = paddle.nn.CrossEntropyLoss()
    first = None
    for _ in range(20):
        loss = loss_fn(paddle.matmul(x, w), y)
        first = first if first is not None else loss.item()
        (g,) = paddle.grad([loss], [w])
        w = (w - 0.5 * g).detach()
        w.stop_gradient = False
    assert loss.item() < first * 0.9


# --- rnnt_loss: Paddle 3.3.1 CPU warprnnt (blank=1, fastemit_lambda=0.001, 'mean') ------
RNNT_X = ((np.arange(48, dtype="float64").reshape(2, 3, 2, 4) * 0.41) % 1.3) - 1.5
RNNT_NONE = [2.27902061, 1.89247189]
RNNT_MEAN = 2.085746251140716
RNNT_GRAD = [[[[0.0, -0.35104731, -0.14910164, 0.0], [0.0, -0.14895269, 0.0, 0.0]],
              [[0.0, -0.29401439, -0.05708996, 0.0], [0.0, -0.20598561, 0.0, 0.0]],
              [[0.0, 0.0, -0.2943084, 0.0], [0.0, -0.5, 0.0, 0.0]]],
             [[[0.0, -0.29209526, 0.0, -0.20811264], [0.0, -0.20790474, 0.0, 0.0]],
              [[0.0, 0.0, 0.0, -0.29238736], [0.0, -0.5, 0.0, 0.0]],
              [[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]]]]


def _rnnt_args(dtype="float64"):
    return (t(RNNT_X.astype(dtype), stop_gradient=False), t(np.array([[2], [3]], "int32")),
            t(np.array([3, 2], "int32")), t(np.array([1, 1], "int32")))


def test_rnnt_loss_matches_paddle():
    x, lab, il, ll = _rnnt_args()
    np.testing.assert_allclose(F.rnnt_loss(x, lab, il, ll, blank=1, reduction="none").numpy(),
                               RNNT_NONE, atol=1e-7)
    loss = F.rnnt_loss(x, lab, il, ll, blank=1)
    assert loss.shape == []
    np.testing.assert_allclose(loss.numpy(), RNNT_MEAN, atol=1e-7)
    loss.backward()
    np.testing.assert_allclose(x.grad.numpy(), RNNT_GRAD, atol=1e-7)


def test_rnnt_loss_layer_float32_and_fastemit():
    x, lab, il, ll = _rnnt_args("float32")
    layer = paddle.nn.RNNTLoss(blank=1, reduction="sum")
    got = layer(x, lab, il, ll)
    assert got.dtype == paddle.float32 and len(layer.state_dict()) == 0
    np.testing.assert_allclose(got.numpy(), sum(RNNT_NONE), rtol=1e-5)
    (g0,) = paddle.grad([F.rnnt_loss(x, lab, il, ll, 1, 0.0, "sum")], [x])
    (g1,) = paddle.grad([F.rnnt_loss(x, lab, il, ll, 1, 1.0, "sum")], [x])
    # fastemit doubles (lambda = 1) the label-emission gradients only; blank ones unchanged
    emit = np.zeros(RNNT_X.shape, bool)
    emit[0, :, 0, 2] = emit[1, :, 0, 3] = True
    np.testing.assert_allclose(g1.numpy()[emit], 2 * g0.numpy()[emit], rtol=1e-6)
    np.testing.assert_allclose(g1.numpy()[~emit], g0.numpy()[~emit], rtol=1e-6)


def test_rnnt_loss_errors():
    x, lab, il, ll = _rnnt_args()
    with pytest.raises(ValueError, match=r"rnnt_loss: input must be 4-D"):
        F.rnnt_loss(x[0], lab, il, ll)
    with pytest.raises(ValueError, match=r"rnnt_loss: input_lengths must lie in \[1, 3\]"):
        F.rnnt_loss(x, lab, t(np.array([0, 2], "int32")), ll)
    with pytest.raises(ValueError, match=r"rnnt_loss: label_lengths must lie in \[0, 1\]"):
        F.rnnt_loss(x, lab, il, t(np.array([2, 1], "int32")))
    with pytest.raises(ValueError, match=r"rnnt_loss: label values must lie in \[0, 4\)"):
        F.rnnt_loss(x, lab + 3, il, ll)
    with pytest.raises(ValueError, match=r"rnnt_loss: blank 4 is out of range for 4"):
        F.rnnt_loss(x, lab, il, ll, blank=4)
    with pytest.raises(ValueError, match=r"rnnt_loss: input_lengths has batch_size 3"):
        F.rnnt_loss(x, lab, t(np.array([3, 2, 1], "int32")), ll)
    with pytest.raises(ValueError, match=r"rnnt_loss: reduction must be one of"):
        F.rnnt_loss(x, lab, il, ll, reduction="avg")
    with pytest.raises(ValueError, match=r"RNNTLoss: reduction must be one of"):
        paddle.nn.RNNTLoss(reduction="avg")


# --- hsigmoid_loss: Paddle 3.3.1 (loss and grads of sum(loss * [1, 2, 3, 4]))
HS_X = ((np.arange(12, dtype="float64").reshape(4, 3) * 0.37) % 1.3) - 0.6
HS_W = ((np.arange(15, dtype="float64").reshape(5, 3) * 0.53) % 1.7) - 0.8
HS_B = ((np.arange(5, dtype="float64").reshape(5, 1) * 0.71) % 0.9) - 0.4
HS_LAB = np.array([0, 3, 5, 2])
HS_PT = np.array([[0, 1, -1], [0, 2, 3], [1, -1, -1], [0, 2, 4]])
HS_PC = np.array([[1, 0, 0], [0, 1, 1], [1, 0, 0], [0, 0, 1]])
HS_PADDLE = {(False, 1.0): ([1.9129144967163763, 2.1001969390077138, 1.9208982493068432, 1.731039258104627],
                [[0.67561452, -0.10127836, -0.10012115], [0.14685489, -0.25330527, 0.43641952],
                 [-2.59868313, 1.61707406, 0.3729237], [1.66802729, -2.20774205, 0.53565075]],
                [[1.05332645, 1.06508597, -0.85571646], [0.5814376, -0.41103898, -0.68560695],
                 [-0.27460591, -0.1052656, 0.06407471], [-0.16516483, 1.18972282, -0.7080592],
                 [-0.61088337, -1.31721726, 0.45816253]],
                [2.35161048, 2.26257956, 0.45767652, 0.96945423, -1.90901053]),
 (False, 100.0): ([0.6931471805602456, 40.00000000000003, 34.45444752069351,
                   3.512951011637751e-07],
                  [[0.0, -0.0, 0.0], [1.58, -0.76, 0.3], [-3.71600554, 3.25364823, 0.09645465],
                   [1.11e-06, -5.4e-07, 2.1e-07]],
                  [[0.0, -0.0, -0.0], [7.3770091, -288.03079352, 60.96719684],
                   [-0.0, -0.0, 0.0], [1.5e-07, 5.8e-07, -5e-07], [-96.0, -207.0, 72.0]],
                  [0.0, -0.95696764, 0.0, 1e-08, -3.0]),
 (True, 1.0): ([1.966755416855511, 1.296837273251819, 1.955867774784565, 2.013539761345653],
               [[0.74841632, -0.06173622, -0.04551267], [-1.42517081, 0.6131052, 0.19823925],
                [-1.02913284, 0.49502592, -0.19540497], [-0.83834558, 0.45298508, 0.85572574]],
               [[0.77676427, 0.46874877, -0.64829483], [-0.70852608, -1.01066668, 0.38070245],
                [-0.09212207, 1.25733099, -0.80303533], [-0.39081284, 0.32184587, 0.03831498],
                [-0.32095869, -1.23445648, 1.06163258]],
               [1.48735367, -0.81659621, 1.26948797, -0.76629968, -2.46891297]),
 (True, 100.0): ([0.6931471805599472, 2.842170943040401e-14, 5.630741881813392,
                  22.040000032189038],
                 [[0.0, -0.0, 0.0], [-0.0, -0.0, 0.0], [-2.33600554, 1.12364823, -0.44354535],
                  [-1.83999991, 2.83999994, 0.72]],
                 [[0.0, -0.0, -0.0], [-94.62300902, -204.03086319, 70.96725676],
                  [1.66e-06, 6.38e-06, -5.49e-06], [0.0, 0.0, 0.0],
                  [-51.99999999, -199.99999995, 171.99999995]],
                 [0.0, -2.95696903, 1.3e-07, 0.0, -4.0])}


@pytest.mark.parametrize("custom", [False, True])
@pytest.mark.parametrize("scale", [1.0, 100.0])   # 100: pre-activations clipped to +-40
def test_hsigmoid_loss_matches_paddle(custom, scale):
    x, w, b = (t(a, stop_gradient=False) for a in (HS_X * scale, HS_W, HS_B))
    kw = {"path_table": t(HS_PT), "path_code": t(HS_PC)} if custom else {}
    out = F.hsigmoid_loss(x, t(HS_LAB), 6, w, b, **kw)
    assert out.shape == [4, 1]
    (out * t(np.arange(1.0, 5.0).reshape(4, 1))).sum().backward()
    want, gx, gw, gb = HS_PADDLE[(custom, scale)]
    np.testing.assert_allclose(out.numpy().ravel(), want, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(x.grad.numpy(), gx, atol=1e-7)
    np.testing.assert_allclose(w.grad.numpy(), gw, atol=1e-6)
    np.testing.assert_allclose(b.grad.numpy().ravel(), gb, atol=1e-7)


def test_hsigmoid_loss_default_tree_reference_and_grads():
    # default tree: c = label + C; step j: node (c >> (j + 1)) - 1, bit (c >> j) & 1;
    # steps past a short path contribute log(2) (Paddle's kernel)
    rng = np.random.default_rng(3)
    x, w = rng.standard_normal((5, 2)), rng.standard_normal((6, 2))
    lab = np.array([0, 6, 3, 1, 5])
    want = []
    for i, c in enumerate(lab + 7):
        z = [x[i] @ w[(c >> (j + 1)) - 1] if (c >> (j + 1)) else 0.0 for j in range(3)]
        want.append(sum(np.logaddexp(0, zj) - ((c >> j) & 1 if (c >> (j + 1)) else 0) * zj
                        for j, zj in enumerate(z)))
    got = F.hsigmoid_loss(t(x), t(lab), 7, t(w))
    np.testing.assert_allclose(got.numpy().ravel(), want)
    xt, wt = t(x, stop_gradient=False), t(w, stop_gradient=False)
    gx, gw = paddle.grad([F.hsigmoid_loss(xt, t(lab[:, None]), 7, wt).sum()], [xt, wt])
    eps, num = 1e-6, np.zeros_like(x)
    for idx in np.ndindex(*x.shape):
        d = np.zeros_like(x)
        d[idx] = eps
        num[idx] = (F.hsigmoid_loss(t(x + d), t(lab), 7, t(w)).sum().item() -
                    F.hsigmoid_loss(t(x - d), t(lab), 7, t(w)).sum().item()) / (2 * eps)
    np.testing.assert_allclose(gx.numpy(), num, atol=1e-6)
    assert gw.shape == [6, 2]


def test_hsigmoid_loss_layer():
    paddle.seed(0)
    layer = paddle.nn.HSigmoidLoss(3, 6)
    shapes = {k: v.shape for k, v in layer.state_dict().items()}
    assert shapes == {"weight": [5, 3], "bias": [5, 1]}
    assert float(np.abs(layer.bias.numpy()).max()) == 0.0
    assert float(np.abs(layer.weight.numpy()).max()) <= math.sqrt(6 / 8)  # XavierUniform
    out = layer(t(HS_X), t(HS_LAB))
    want = F.hsigmoid_loss(t(HS_X), t(HS_LAB), 6, layer.weight, layer.bias)
    np.testing.assert_allclose(out.numpy(), want.numpy())
    custom = paddle.nn.HSigmoidLoss(3, 5, bias_attr=False, is_custom=True)
    assert list(custom.state_dict()) == ["weight"] and custom.weight.shape == [5, 3]
    assert custom(t(HS_X), t(HS_LAB), t(HS_PT), t(HS_PC)).shape == [4, 1]


def test_hsigmoid_loss_errors():
    x, w = t(HS_X), t(HS_W)
    with pytest.raises(ValueError, match=r"hsigmoid_loss: num_classes must be >= 2"):
        F.hsigmoid_loss(x, t(HS_LAB), 1, w)
    with pytest.raises(ValueError, match=r"hsigmoid_loss: weight must be 2-D \[num_nodes, 3\]"):
        F.hsigmoid_loss(x, t(HS_LAB), 6, t(HS_W[:, :2]))
    with pytest.raises(ValueError, match=r"hsigmoid_loss: label must be an int tensor of "
                                         r"shape \[4\] or \[4, 1\]"):
        F.hsigmoid_loss(x, t(HS_LAB[:3]), 6, w)
    with pytest.raises(ValueError, match=r"hsigmoid_loss: label value 6 is out of range"):
        F.hsigmoid_loss(x, t(np.array([0, 1, 6, 2])), 6, w)
    with pytest.raises(ValueError, match=r"path_table and path_code must be given together"):
        F.hsigmoid_loss(x, t(HS_LAB), 6, w, path_table=t(HS_PT))
    with pytest.raises(ValueError, match=r"path_table ids must be < the 5 rows of weight"):
        F.hsigmoid_loss(x, t(HS_LAB), 6, w, path_table=t(HS_PT + 2), path_code=t(HS_PC))
    with pytest.raises(ValueError, match=r"HSigmoidLoss: num_classes must be >= 2"):
        paddle.nn.HSigmoidLoss(3, 1)


@pytest.mark.parametrize("label", [[0.5, 1.0, 2.0, 0.2], [[0.5], [1.0], [2.0], [0.2]]])
def test_cross_entropy_rejects_non_integral_hard_labels(label):
    # Paddle 3.3.1 silently truncates these to class ids (loss 1.46 on its seed); a
    # fractional hard label is almost always a missing soft_label=True.
    logits = paddle.to_tensor(np.zeros((4, 3), "float32"))
    with pytest.raises(ValueError, match=r"cross_entropy: hard labels \(soft_label=False\) "
                                         r"must be integer class ids, got a float32 label "
                                         r"with the non-integral value 0.5.*soft_label=True"):
        F.cross_entropy(logits, paddle.to_tensor(label))


def test_cross_entropy_distribution_label_without_soft_label_hints_at_it():
    logits = paddle.to_tensor(np.zeros((2, 3), "float32"))
    dist = paddle.to_tensor([[0.5, 0.5, 0.0], [0.2, 0.3, 0.5]])
    with pytest.raises(ValueError, match="it has the input's shape: pass soft_label=True"):
        paddle.nn.CrossEntropyLoss()(logits, dist)
    out = F.cross_entropy(logits, dist, soft_label=True)
    np.testing.assert_allclose(out.numpy(), np.log(3.0), rtol=1e-6)


def test_cross_entropy_integral_float_labels_still_work():
    logits = paddle.to_tensor(np.zeros((2, 3), "float32"))
    out = F.cross_entropy(logits, paddle.to_tensor([0.0, 2.0]), reduction="none")
    np.testing.assert_allclose(out.numpy(), [np.log(3.0)] * 2, rtol=1e-6)
