"""Transforms: forward / log-det-Jacobian / shapes against values recorded from Paddle 3.3.1,
inverse round trips, log-det against numerical Jacobians, TransformedDistribution, errors."""
import numpy as np
import pytest
from scipy import stats

import sampan as paddle
import sampan.distribution as D

X = np.array([[0.3, -1.2, 0.8], [1.5, 0.1, -0.4]])


def t(a):
    return paddle.to_tensor(np.asarray(a, dtype=np.float64))


def make(name):
    return {
        "abs": lambda: D.AbsTransform(),
        "affine": lambda: D.AffineTransform(t(1.0), t(-2.0)),
        "exp": lambda: D.ExpTransform(),
        "power": lambda: D.PowerTransform(t(3.0)),
        "sigmoid": lambda: D.SigmoidTransform(),
        "softmax": lambda: D.SoftmaxTransform(),
        "stickbreaking": lambda: D.StickBreakingTransform(),
        "tanh": lambda: D.TanhTransform(),
        "chain": lambda: D.ChainTransform([D.AffineTransform(t(0.5), t(2.0)),
                                           D.TanhTransform()]),
        "independent": lambda: D.IndependentTransform(D.ExpTransform(), 1),
        "reshape": lambda: D.ReshapeTransform((3,), (3, 1)),
        "stack": lambda: D.StackTransform([D.ExpTransform(), D.TanhTransform()], 0),
    }[name]()


# name -> (forward(X), forward_log_det_jacobian(X) or None if not injective,
#          forward_shape([2, 3]), inverse_shape(y.shape)), recorded from Paddle 3.3.1
PADDLE = {
    "abs": ([[0.3, 1.2, 0.8], [1.5, 0.1, 0.4]], None, (2, 3), (2, 3)),
    "affine": ([[0.4, 3.4, -0.6], [-2.0, 0.8, 1.8]], 0.69314718, (2, 3), (2, 3)),
    "exp": ([[1.34985881, 0.30119421, 2.22554093], [4.48168907, 1.10517092, 0.67032005]],
            X, (2, 3), (2, 3)),
    "power": ([[0.027, 1.728, 0.512], [3.375, 0.001, 0.064]],
              [[-1.30933332, 1.4632554, 0.65232519], [1.9095425, -3.5065579, -0.73396918]],
              (2, 3), (2, 3)),
    "sigmoid": ([[0.57444252, 0.23147522, 0.68997448], [0.81757448, 0.52497919, 0.40131234]],
                [[-1.40871049, -1.72656493, -1.54220133], [-1.90282656, -1.38879332,
                                                           -1.4260305]], (2, 3), (2, 3)),
    "softmax": ([[0.34820743, 0.07769558, 0.57409699], [0.71624742, 0.17662444, 0.10712814]],
                None, (2, 3), (2, 3)),
    "stickbreaking": ([[0.31032244, 0.09026917, 0.4135765, 0.1858319],
                       [0.59902102, 0.14271366, 0.10364506, 0.15462026]],
                      [-6.14092828, -6.59293984], (2, 4), (2, 3)),
    "tanh": ([[0.29131261, -0.83365461, 0.66403677], [0.90514825, 0.09966799, -0.37994896]],
             [[-0.08868154, -1.18737794, -0.58150712], [-1.71088034, -0.00998338, -0.15590697]],
             (2, 3), (2, 3)),
    "chain": ([[0.80049902, -0.95623746, 0.97045194], [0.9981779, 0.60436778, -0.29131261]],
              [[-0.3307251, -1.76480689, -2.15032697], [-4.92238139, 0.23860672, 0.60446564]],
              (2, 3), (2, 3)),
    "independent": ([[1.34985881, 0.30119421, 2.22554093],
                     [4.48168907, 1.10517092, 0.67032005]], [-0.1, 1.2], (2, 3), (2, 3)),
    "reshape": ([[[0.3], [-1.2], [0.8]], [[1.5], [0.1], [-0.4]]], [0.0, 0.0], (2, 3, 1),
                (2, 3)),
    "stack": ([[1.34985881, 0.30119421, 2.22554093], [0.90514825, 0.09966799, -0.37994896]],
              [[0.3, -1.2, 0.8], [-1.71088034, -0.00998338, -0.15590697]], (2, 3), (2, 3)),
}


def _input(name):
    return np.abs(X) if name == "power" else X


@pytest.mark.parametrize("name", sorted(PADDLE))
def test_matches_paddle(name):
    tr = make(name)
    y_ref, ldj_ref, fshape, ishape = PADDLE[name]
    x = t(_input(name))
    y = tr.forward(x)
    np.testing.assert_allclose(y.numpy(), y_ref, rtol=1e-7, atol=1e-8)
    np.testing.assert_allclose(tr(x).numpy(), y.numpy())
    if ldj_ref is None:
        with pytest.raises(NotImplementedError, match="non-injective"):
            tr.forward_log_det_jacobian(x)
    else:
        ldj = tr.forward_log_det_jacobian(x).numpy()
        # NOTE: AffineTransform broadcasts log|scale| to x's shape (Paddle returns the scalar)
        np.testing.assert_allclose(ldj, np.broadcast_to(ldj_ref, ldj.shape), rtol=1e-7,
                                   atol=1e-8)
    assert tuple(tr.forward_shape([2, 3])) == fshape
    assert tuple(tr.inverse_shape(list(y.shape))) == ishape


@pytest.mark.parametrize("name", ["affine", "exp", "power", "sigmoid", "stickbreaking", "tanh",
                                  "chain", "independent", "reshape", "stack"])
def test_inverse_round_trip_and_inverse_log_det(name):
    tr = make(name)
    x = t(_input(name))
    y = tr.forward(x)
    np.testing.assert_allclose(tr.inverse(y).numpy(), x.numpy(), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(tr.inverse_log_det_jacobian(y).numpy(),
                               -tr.forward_log_det_jacobian(x).numpy(), rtol=1e-9, atol=1e-12)


def test_abs_inverse_gives_both_preimages():
    lo, hi = D.AbsTransform().inverse(t([1.0, 2.0]))
    assert lo.numpy().tolist() == [-1.0, -2.0] and hi.numpy().tolist() == [1.0, 2.0]


def _numeric_jacobian(fn, x, eps=1e-6):
    cols = []
    for i in range(x.size):
        d = np.zeros_like(x)
        d[i] = eps
        cols.append((fn(x + d) - fn(x - d)) / (2 * eps))
    return np.stack(cols, -1)


def test_stick_breaking_log_det_matches_numerical_jacobian():
    tr = D.StickBreakingTransform()
    x = np.array([0.4, -0.9, 1.3])
    jac = _numeric_jacobian(lambda v: tr.forward(t(v)).numpy()[:-1], x)
    np.testing.assert_allclose(float(tr.forward_log_det_jacobian(t(x))),
                               np.log(abs(np.linalg.det(jac))), rtol=1e-6)


def test_elementwise_log_dets_match_derivatives():
    x = np.array([0.3, 1.1, 2.0])
    for tr in (D.ExpTransform(), D.SigmoidTransform(), D.TanhTransform(),
               D.PowerTransform(t(2.5)), D.AffineTransform(t(0.5), t(-3.0))):
        deriv = np.diag(_numeric_jacobian(lambda v: tr.forward(t(v)).numpy(), x))
        np.testing.assert_allclose(tr.forward_log_det_jacobian(t(x)).numpy(),
                                   np.log(np.abs(deriv)), rtol=1e-6)


def test_transformed_distribution_matches_paddle_and_scipy():
    base = D.Normal(t([0.0, 1.0]), t([1.0, 2.0]))
    d = D.TransformedDistribution(base, [D.StickBreakingTransform()])
    assert d.batch_shape == () and d.event_shape == (3,)
    np.testing.assert_allclose(float(d.log_prob(t([0.2, 0.3, 0.5]))), 0.4499828865333093,
                               rtol=1e-7)  # Paddle builds the stick offsets in float32
    d2 = D.TransformedDistribution(D.Normal(paddle.zeros([2, 3], "float64"),
                                            paddle.ones([2, 3], "float64")),
                                   [D.ReshapeTransform((3,), (3, 1)), D.ExpTransform()])
    assert d2.batch_shape == (2,) and d2.event_shape == (3, 1)
    np.testing.assert_allclose(d2.log_prob(paddle.ones([2, 3, 1], "float64")).numpy(),
                               [-2.7568156] * 2, rtol=1e-7)
    # y = 1 - 2 x for x ~ N(0.5, 1.5): N(0, 3)
    d3 = D.ExpTransform()(D.AffineTransform(t(1.0), t(-2.0))(D.Normal(t(0.5), t(1.5))))
    y = np.array([0.5, 1.0, 4.0])
    ref = stats.lognorm(3.0, scale=np.exp(0.0)).logpdf(y)
    np.testing.assert_allclose(d3.log_prob(t(y)).numpy(), ref, rtol=1e-10)
    chain = D.ExpTransform()(D.TanhTransform())
    assert isinstance(chain, D.ChainTransform)


def test_independent_matches_sum_of_base():
    base = D.Normal(t(np.zeros((2, 3))), t(np.ones((2, 3))))
    d = D.Independent(base, 2)
    assert d.batch_shape == () and d.event_shape == (2, 3)
    v = t(np.arange(6.0).reshape(2, 3) / 5)
    np.testing.assert_allclose(float(d.log_prob(v)), base.log_prob(v).numpy().sum())
    np.testing.assert_allclose(float(d.entropy()), base.entropy().numpy().sum())


def test_transform_errors():
    with pytest.raises(TypeError, match="AffineTransform: loc must be a Tensor"):
        D.AffineTransform(1.0, t(1.0))
    with pytest.raises(TypeError, match="PowerTransform: power must be a Tensor"):
        D.PowerTransform(2.0)
    with pytest.raises(ValueError, match="differ in size"):
        D.ReshapeTransform((2, 3), (5,))
    with pytest.raises(ValueError, match="does not end with the event shape"):
        D.ReshapeTransform((3,), (3, 1)).forward_shape([2, 4])
    with pytest.raises(ValueError, match="reinterpreted_batch_rank must be a positive int"):
        D.IndependentTransform(D.ExpTransform(), 0)
    with pytest.raises(ValueError, match="must equal the number of transforms"):
        D.StackTransform([D.ExpTransform()], 0).forward(t(X))
    with pytest.raises(TypeError, match="every element of transforms must be a Transform"):
        D.ChainTransform([D.ExpTransform(), 3])
    with pytest.raises(ValueError, match="at least 1 dimensions"):
        D.StickBreakingTransform().forward(t(1.0))
    with pytest.raises(TypeError, match="ExpTransform.forward: x must be a Tensor"):
        D.ExpTransform().forward([1.0])
    with pytest.raises(TypeError, match="TransformedDistribution: base must be a Distribution"):
        D.TransformedDistribution(3, [D.ExpTransform()])
    with pytest.raises(ValueError, match="Independent: reinterpreted_batch_rank"):
        D.Independent(D.Normal(t([0.0]), t([1.0])), 2)
