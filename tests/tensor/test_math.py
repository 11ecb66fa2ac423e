"""Tests of the math family beyond the op database: Paddle semantics, operators, methods,
in-place variants, subgradients at non-smooth points, composites and error messages."""
import numpy as np
import pytest

import sampan as paddle


def t(values, dtype=None, grad=False):
    if dtype is not None:
        values = np.asarray(values, dtype=dtype)
    x = paddle.to_tensor(values)
    x.stop_gradient = not grad
    return x


# --- integer semantics ------------------------------------------------------------------

def test_integer_floor_divide_and_remainder_follow_python():
    x = t([7, -7, 7, -7])
    y = t([2, 2, -2, -2])
    np.testing.assert_array_equal(paddle.floor_divide(x, y).numpy(), [3, -4, -4, 3])
    np.testing.assert_array_equal(paddle.remainder(x, y).numpy(), [1, 1, -1, -1])
    assert paddle.floor_divide(x, y).dtype == paddle.int64


def test_integer_division_by_zero_does_not_crash():
    x = t([5, -3], "int32")
    zero = t([0, 0], "int32")
    assert paddle.floor_divide(x, zero).shape == [2]
    assert paddle.remainder(x, zero).shape == [2]
    assert paddle.divide(x, zero).dtype == paddle.float32


def test_pow_keeps_integer_dtype():
    x = t([2, 3, -2], "int32")
    out = paddle.pow(x, 3)
    assert out.dtype == paddle.int32
    np.testing.assert_array_equal(out.numpy(), [8, 27, -8])
    np.testing.assert_array_equal((x ** t([2, 0, 1], "int32")).numpy(), [4, 1, -2])
    neg = paddle.pow(t([1, 2, -1]), -1)
    assert neg.dtype == paddle.int64
    np.testing.assert_array_equal(neg.numpy(), [1, 0, -1])


def test_pow_with_float_exponent_promotes_integer_base():
    out = paddle.pow(t([4, 9]), 0.5)
    assert out.dtype == paddle.float32
    np.testing.assert_allclose(out.numpy(), [2.0, 3.0])


@pytest.mark.parametrize("fn", ["abs", "square", "sign", "neg", "floor", "ceil", "trunc",
                                "round"])
def test_integer_dtype_kept(fn):
    x = t([-3, 0, 4], "int32")
    out = getattr(paddle, fn)(x)
    assert out.dtype == paddle.int32


@pytest.mark.parametrize("fn", ["sqrt", "exp", "log", "sin", "sigmoid", "erf", "reciprocal",
                                "deg2rad", "lgamma", "i0"])
def test_integer_input_gives_default_float(fn):
    assert getattr(paddle, fn)(t([1, 2, 3])).dtype == paddle.float32


def test_atan2_of_integers_is_float64():
    out = paddle.atan2(t([1, -1]), t([1, 1]))
    assert out.dtype == paddle.float64
    np.testing.assert_allclose(out.numpy(), [np.pi / 4, -np.pi / 4])


def test_gcd_lcm():
    np.testing.assert_array_equal(paddle.gcd(t([12, -18, 0]), t([8, 12, 0])).numpy(), [4, 6, 0])
    np.testing.assert_array_equal(paddle.lcm(t([4, 6, 0]), t([6, 4, 5])).numpy(), [12, 12, 0])


# --- float semantics --------------------------------------------------------------------

def test_round_is_half_to_even_and_takes_decimals():
    x = t([-2.5, -0.5, 0.5, 1.5, 2.5])
    np.testing.assert_array_equal(paddle.round(x).numpy(), [-2.0, -0.0, 0.0, 2.0, 2.0])
    np.testing.assert_allclose(paddle.round(t([1.2345, 123.0]), decimals=2).numpy(),
                               [1.23, 123.0], rtol=1e-6)
    np.testing.assert_allclose(paddle.round(t([1234.0]), -2).numpy(), [1200.0])


def test_maximum_propagates_nan_and_fmax_ignores_it():
    x = t([2.0, 3.0, float("nan")])
    y = t([1.0, float("nan"), 4.0])
    assert np.isnan(paddle.maximum(x, y).numpy()[1:]).all()
    np.testing.assert_array_equal(paddle.fmax(x, y).numpy(), [2.0, 3.0, 4.0])
    np.testing.assert_array_equal(paddle.fmin(x, y).numpy(), [1.0, 3.0, 4.0])


def test_scipy_backed_ops_keep_half_precision():
    x = t([0.5, 1.0], "float16")
    for fn in (paddle.erf, paddle.erfinv, paddle.lgamma, paddle.digamma, paddle.sigmoid,
               paddle.i0e, paddle.exp):
        assert fn(x * 0.5).dtype == paddle.float16, fn.__name__


def test_logit_eps_clips():
    out = paddle.logit(t([0.0, 0.5, 1.0]), eps=0.2)
    np.testing.assert_allclose(out.numpy(), [np.log(0.25), 0.0, np.log(4.0)], rtol=1e-6)
    assert np.isnan(paddle.logit(t([-0.5, 1.5])).numpy()).all()


def test_angle_of_real_numbers():
    np.testing.assert_allclose(paddle.angle(t([-2.0, 0.0, 3.0])).numpy(), [np.pi, 0.0, 0.0])


def test_heaviside():
    out = paddle.heaviside(t([-1.0, 0.0, 2.0]), t([0.5, 0.5, 0.5]))
    np.testing.assert_array_equal(out.numpy(), [0.0, 0.5, 1.0])


def test_clip_integer_tensor_and_tensor_bounds():
    out = paddle.clip(t([-5, 0, 5], "int32"), min=-2, max=3)
    assert out.dtype == paddle.int32
    np.testing.assert_array_equal(out.numpy(), [-2, 0, 3])
    out = paddle.clip(t([-5.0, 0.0, 5.0]), t(-1.0), t(1.0))
    np.testing.assert_array_equal(out.numpy(), [-1.0, 0.0, 1.0])
    np.testing.assert_array_equal(paddle.clip(t([-5.0, 5.0])).numpy(), [-5.0, 5.0])


def test_scale_variants():
    x = t([1.0, 2.0])
    np.testing.assert_allclose(paddle.scale(x, 2.0, 1.0).numpy(), [3.0, 5.0])
    np.testing.assert_allclose(paddle.scale(x, 2.0, 1.0, bias_after_scale=False).numpy(),
                               [4.0, 6.0])
    np.testing.assert_allclose(paddle.scale(x, t(3.0), 1.0).numpy(), [4.0, 7.0])
    np.testing.assert_allclose(paddle.scale(x, -1.0, act="tanh").numpy(), np.tanh([-1.0, -2.0]),
                               rtol=1e-6)
    assert paddle.scale(t([1, 2], "int32"), 3.0).dtype == paddle.int32


def test_add_n_single_tensor():
    x = t([1.0, 2.0])
    np.testing.assert_array_equal(paddle.add_n(x).numpy(), [1.0, 2.0])


# --- operators, methods, aliases, in-place ----------------------------------------------

def test_python_operators():
    x = t([1.0, -2.0, 4.0])
    np.testing.assert_allclose((x ** 2).numpy(), [1.0, 4.0, 16.0])
    np.testing.assert_allclose((2 ** x).numpy(), [2.0, 0.25, 16.0])
    np.testing.assert_allclose((x // 3).numpy(), [0.0, -1.0, 1.0])
    np.testing.assert_allclose((x % 3).numpy(), [1.0, 1.0, 1.0])
    np.testing.assert_allclose((7 % t([3.0, -3.0])).numpy(), [1.0, -2.0])
    np.testing.assert_allclose(abs(x).numpy(), [1.0, 2.0, 4.0])
    np.testing.assert_allclose((-x).numpy(), [-1.0, 2.0, -4.0])
    assert (x ** 2).dtype == paddle.float32


def test_methods_and_aliases():
    x = t([0.25, 0.5])
    np.testing.assert_allclose(x.sin().numpy(), np.sin([0.25, 0.5]), rtol=1e-6)
    np.testing.assert_allclose(x.sigmoid().numpy(), 1 / (1 + np.exp(-np.array([0.25, 0.5]))),
                               rtol=1e-6)
    np.testing.assert_allclose(x.clip(max=0.3).numpy(), [0.25, 0.3])
    y = t([5.0, -5.0])
    for fn in (paddle.mod, paddle.floor_mod, y.mod, y.floor_mod):
        args = (y, 3.0) if fn in (paddle.mod, paddle.floor_mod) else (3.0,)
        np.testing.assert_allclose(fn(*args).numpy(), [2.0, 1.0])


def test_inplace_variants():
    x = t([1.0, 4.0])
    v = x._version
    assert x.sqrt_() is x and x._version == v + 1
    np.testing.assert_allclose(x.numpy(), [1.0, 2.0])
    x.clip_(min=1.5)
    np.testing.assert_allclose(x.numpy(), [1.5, 2.0])
    x.pow_(2)
    np.testing.assert_allclose(x.numpy(), [2.25, 4.0])
    x.mod_(t([2.0, 3.0]))
    np.testing.assert_allclose(x.numpy(), [0.25, 1.0])


def test_inplace_on_leaf_requiring_grad_raises():
    x = t([1.0, 2.0], grad=True)
    with pytest.raises(ValueError, match="exp_.*leaf Tensor"):
        x.exp_()


def test_increment_updates_in_place():
    x = t([1.0])
    out = paddle.increment(x, 2.5)
    assert out is x
    np.testing.assert_allclose(x.numpy(), [3.5])
    counter = t(0, "int64")
    paddle.increment(counter)
    assert counter.item() == 1 and counter.dtype == paddle.int64


def test_increment_requires_one_element():
    with pytest.raises(ValueError, match=r"increment: x must have exactly one element.*\[2\]"):
        paddle.increment(t([1.0, 2.0]))


# --- gradients at non-smooth points and of composites -----------------------------------

def _grads(fn, *xs):
    out = fn(*xs)
    return [g.numpy() for g in paddle.grad([out.sum()], list(xs))]


def test_abs_grad_is_zero_at_zero():
    x = t([-2.0, 0.0, 3.0], grad=True)
    np.testing.assert_array_equal(_grads(paddle.abs, x)[0], [-1.0, 0.0, 1.0])


def test_maximum_minimum_ties_send_grad_to_y():
    x = t([1.0, 2.0, 3.0], grad=True)
    y = t([2.0, 2.0, 2.0], grad=True)
    gx, gy = _grads(paddle.maximum, x, y)
    np.testing.assert_array_equal(gx, [0.0, 0.0, 1.0])
    np.testing.assert_array_equal(gy, [1.0, 1.0, 0.0])
    gx, gy = _grads(paddle.minimum, x, y)
    np.testing.assert_array_equal(gx, [1.0, 0.0, 0.0])
    np.testing.assert_array_equal(gy, [0.0, 1.0, 1.0])


def test_fmax_grad_goes_to_the_returned_value():
    x = t([1.0, float("nan"), 2.0, 5.0], grad=True)
    y = t([float("nan"), 3.0, 2.0, 1.0], grad=True)
    gx, gy = _grads(paddle.fmax, x, y)
    np.testing.assert_array_equal(gx, [1.0, 0.0, 1.0, 1.0])
    np.testing.assert_array_equal(gy, [0.0, 1.0, 0.0, 0.0])


def test_clip_grad_is_zero_on_the_bounds():
    x = t([-1.0, 0.0, 0.5, 1.0, 2.0], grad=True)
    np.testing.assert_array_equal(_grads(lambda v: paddle.clip(v, 0.0, 1.0), x)[0],
                                  [0.0, 0.0, 1.0, 0.0, 0.0])


def test_rounding_and_sign_grads_are_zero():
    x = t([0.3, -1.7], grad=True)
    for fn in (paddle.floor, paddle.ceil, paddle.round, paddle.trunc, paddle.sign):
        np.testing.assert_array_equal(_grads(fn, x)[0], [0.0, 0.0])
    np.testing.assert_array_equal(_grads(paddle.frac, x)[0], [1.0, 1.0])


def test_nan_to_num_grad_masks_replaced_values():
    x = t([1.0, float("nan"), float("inf"), -2.0], grad=True)
    np.testing.assert_array_equal(_grads(paddle.nan_to_num, x)[0], [1.0, 0.0, 0.0, 1.0])


def test_complex_parts_grads():
    re = t([1.0, 2.0], "float64", grad=True)
    im = t([3.0, -1.0], "float64", grad=True)
    z = paddle.complex(re, im)
    assert z.dtype == paddle.complex128
    loss = (paddle.real(z) * 2.0 + paddle.imag(z) * 3.0).sum()
    g_re, g_im = paddle.grad([loss], [re, im])
    np.testing.assert_array_equal(g_re.numpy(), [2.0, 2.0])
    np.testing.assert_array_equal(g_im.numpy(), [3.0, 3.0])
    np.testing.assert_allclose(paddle.abs(z).numpy(), np.abs([1 + 3j, 2 - 1j]))
    np.testing.assert_allclose(paddle.conj(z).numpy(), [1 - 3j, 2 + 1j])


def test_lerp_scalar_weight_and_grads():
    x = t([0.0, 1.0], "float64", grad=True)
    y = t([2.0, 3.0], "float64", grad=True)
    np.testing.assert_allclose(paddle.lerp(x, y, 0.25).numpy(), [0.5, 1.5])
    gx, gy = _grads(lambda a, b: paddle.lerp(a, b, 0.25), x, y)
    np.testing.assert_allclose(gx, [0.75, 0.75])
    np.testing.assert_allclose(gy, [0.25, 0.25])


def test_increment_grad_is_identity_for_non_leaf():
    x = t([2.0], "float64", grad=True)
    y = x * 3.0
    paddle.increment(y, 1.0)
    np.testing.assert_allclose(y.numpy(), [7.0])
    np.testing.assert_allclose(paddle.grad([y.sum()], [x])[0].numpy(), [3.0])


def test_addmm_matches_numpy_and_has_grads():
    rng = np.random.default_rng(0)
    inp, a, b = (rng.standard_normal(s) for s in ((2, 4), (2, 3), (3, 4)))
    ti, ta, tb = t(inp, grad=True), t(a, grad=True), t(b, grad=True)
    out = paddle.addmm(ti, ta, tb, beta=0.5, alpha=2.0)
    np.testing.assert_allclose(out.numpy(), 0.5 * inp + 2.0 * a @ b, rtol=1e-12)
    gi, ga, gb = paddle.grad([out.sum()], [ti, ta, tb])
    np.testing.assert_allclose(gi.numpy(), np.full((2, 4), 0.5))
    np.testing.assert_allclose(ga.numpy(), 2.0 * np.ones((2, 4)) @ b.T, rtol=1e-12)


def test_ldexp():
    out = paddle.ldexp(t([1.0, 2.0, 3.0]), t([2, 3, 4], "int32"))
    assert out.dtype == paddle.float32
    np.testing.assert_array_equal(out.numpy(), [4.0, 16.0, 48.0])
    out = paddle.ldexp(t([1, 2]), t([1]))
    assert out.dtype == paddle.float32
    np.testing.assert_array_equal(out.numpy(), [2.0, 4.0])
    x = t([1.5, -2.0], "float64", grad=True)
    np.testing.assert_array_equal(_grads(lambda v: paddle.ldexp(v, t([3, -1])), x)[0],
                                  [8.0, 0.5])


def test_multigammaln_matches_scipy_and_has_grad():
    from scipy.special import multigammaln, psi
    x = t([2.5, 3.0, 4.2], "float64", grad=True)
    np.testing.assert_allclose(paddle.multigammaln(x, 3).numpy(),
                               [multigammaln(v, 3) for v in (2.5, 3.0, 4.2)], rtol=1e-12)
    want = sum(psi(np.array([2.5, 3.0, 4.2]) - i / 2) for i in range(3))
    np.testing.assert_allclose(_grads(lambda v: paddle.multigammaln(v, 3), x)[0], want)
    with pytest.raises(ValueError, match="multigammaln: p must be a positive int"):
        paddle.multigammaln(x, 0)


def test_polar():
    out = paddle.polar(t([2.0, 1.0], "float64"), t([0.0, np.pi / 2], "float64"))
    assert out.dtype == paddle.complex128
    np.testing.assert_allclose(out.numpy(), [2.0, 1j], atol=1e-15)


def test_frexp_roundtrip_and_zero():
    m, e = paddle.frexp(t([0.0, 8.0, -3.0]))
    np.testing.assert_array_equal(m.numpy(), [0.0, 0.5, -0.75])
    np.testing.assert_array_equal(e.numpy(), [0.0, 4.0, 2.0])
    assert e.stop_gradient
    with pytest.raises(TypeError, match="frexp: x must be a float32 or float64 tensor, got int64"):
        paddle.frexp(t([1, 2]))


def test_copysign_negative_zero_and_nextafter():
    np.testing.assert_array_equal(paddle.copysign(t([1.0, 2.0]), t([-0.0, 0.0])).numpy(),
                                  [-1.0, 2.0])
    x = t([1.0], "float64")
    assert paddle.nextafter(x, t([2.0], "float64")).item() == np.nextafter(1.0, 2.0)
    with pytest.raises(TypeError, match="nextafter: x and y must be float32 or float64"):
        paddle.nextafter(t([1]), t([2]))


# --- error messages ---------------------------------------------------------------------

def test_broadcast_error_names_api_and_shapes():
    with pytest.raises(ValueError, match=r"add: shape of x \[2, 3\] and shape of y \[4\]"):
        paddle.add(t(np.ones((2, 3))), t(np.ones(4)))


def test_gcd_rejects_floats():
    with pytest.raises(TypeError, match="gcd: x must be an integer tensor.*float32"):
        paddle.gcd(t([1.0]), t([2.0]))


def test_add_n_shape_mismatch():
    with pytest.raises(ValueError, match=r"add_n:.*inputs\[1\] has \[3\]"):
        paddle.add_n([t([1.0, 2.0]), t([1.0, 2.0, 3.0])])


def test_multiplex_errors():
    a, b = t(np.ones((3, 2))), t(np.zeros((3, 2)))
    with pytest.raises(ValueError, match=r"multiplex: index must have shape \[3, 1\]"):
        paddle.multiplex([a, b], t([[0], [1]], "int32"))
    with pytest.raises(TypeError, match="multiplex: index must be an int32 or int64"):
        paddle.multiplex([a, b], t([[0.0], [1.0], [0.0]]))
    with pytest.raises(IndexError, match=r"multiplex: index values must be in \[0, 2\)"):
        paddle.multiplex([a, b], t([[0], [2], [0]], "int32"))
    with pytest.raises(TypeError, match="multiplex: inputs must be a list"):
        paddle.multiplex(a, t([[0], [1], [0]], "int32"))


def test_clip_bound_errors():
    with pytest.raises(ValueError, match=r"clip: min must be a scalar.*\[2\]"):
        paddle.clip(t([1.0, 2.0]), min=t([0.0, 1.0]))
    with pytest.raises(TypeError, match="clip: max must be a float or None, got str"):
        paddle.clip(t([1.0]), max="1")


def test_argument_type_errors():
    with pytest.raises(TypeError, match="round: decimals must be an int, got float"):
        paddle.round(t([1.0]), decimals=1.5)
    with pytest.raises(ValueError, match="polygamma: n must be a non-negative int"):
        paddle.polygamma(t([1.0]), -1)
    with pytest.raises(TypeError, match="logit: eps must be a float or None"):
        paddle.logit(t([0.5]), eps="0.1")
    with pytest.raises(ValueError, match="scale: act 'nope' is not a known activation"):
        paddle.scale(t([1.0]), act="nope")
    with pytest.raises(TypeError, match="lerp: weight must be a float"):
        paddle.lerp(t([1.0]), t([2.0]), "0.5")


def test_complex_rejects_integer_parts():
    with pytest.raises(TypeError, match="complex: real and imag must be floating point"):
        paddle.complex(t([1, 2]), t([3, 4]))


def test_addmm_shape_errors():
    with pytest.raises(ValueError, match=r"addmm: x must be a 2-D tensor, got shape \[3\]"):
        paddle.addmm(t(np.ones((2, 2))), t(np.ones(3)), t(np.ones((3, 2))))
    with pytest.raises(ValueError, match=r"addmm: the second dim of x.*got 3 vs 4"):
        paddle.addmm(t(np.ones((2, 2))), t(np.ones((2, 3))), t(np.ones((4, 2))))
