"""Extra tests for the linalg family: error messages, composites without their own OpDef,
Paddle-specific semantics, method binding and the paddle.linalg namespace."""
import math

import numpy as np
import pytest

import sampan as paddle
import sampan.linalg as L


def _t(a, grad=False):
    t = paddle.to_tensor(np.asarray(a, dtype="float64"))
    t.stop_gradient = not grad
    return t


def _rand(*shape, seed=0):
    return np.random.default_rng(seed).uniform(-1, 1, shape)


# --- matmul family -----------------------------------------------------------------------

def test_matmul_shape_error_message():
    with pytest.raises(ValueError, match=r"matmul: the last dim of x \(shape \[2, 3\]\) must "
                                         r"equal the second-to-last dim of y \(shape \[4, 5\]\);"
                                         r" got 3 vs 4"):
        paddle.matmul(paddle.ones([2, 3]), paddle.ones([4, 5]))


def test_matmul_rejects_0d_and_bad_batch():
    with pytest.raises(ValueError, match="matmul: x must be at least 1-D"):
        paddle.matmul(_t(1.0), _t([1.0]))
    with pytest.raises(ValueError, match="matmul"):
        paddle.matmul(_t(_rand(2, 3, 4)), _t(_rand(3, 4, 2)))


def test_matmul_transpose_flags_and_operator():
    x, y = _rand(4, 3), _rand(2, 4)
    out = paddle.matmul(_t(x), _t(y), transpose_x=True, transpose_y=True)
    np.testing.assert_allclose(out.numpy(), x.T @ y.T)
    np.testing.assert_allclose((_t(x.T) @ _t(y.T)).numpy(), x.T @ y.T)
    assert paddle.matmul(_t(_rand(3)), _t(_rand(3))).shape == []


def test_matmul_keeps_integer_dtype():
    x = paddle.to_tensor(np.arange(6, dtype="int64").reshape(2, 3))
    out = paddle.matmul(x, paddle.to_tensor(np.ones((3, 2), dtype="int64")))
    assert out.dtype == paddle.int64
    np.testing.assert_array_equal(out.numpy(), np.arange(6).reshape(2, 3) @ np.ones((3, 2)))


def test_matmul_grad_of_vector_batch_case():
    x = _t(_rand(2, 3, 4), grad=True)
    v = _t(_rand(4), grad=True)
    paddle.matmul(x, v).sum().backward()
    np.testing.assert_allclose(v.grad.numpy(), x.numpy().sum(axis=(0, 1)))
    np.testing.assert_allclose(x.grad.numpy(), np.broadcast_to(v.numpy(), (2, 3, 4)))


def test_matmul_vjp_without_attrs_uses_defaults():
    from sampan.ops.dispatch import call
    x = _t(_rand(2, 3), grad=True)
    y = _t(_rand(3, 2))
    call("matmul", x, y).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.ones((2, 2)) @ y.numpy().T)


def test_bmm_mv_dot_errors():
    with pytest.raises(ValueError, match="bmm: x and y must be 3-D"):
        paddle.bmm(_t(_rand(2, 3)), _t(_rand(3, 2)))
    with pytest.raises(ValueError, match="bmm: the batch sizes"):
        paddle.bmm(_t(_rand(2, 2, 3)), _t(_rand(3, 3, 2)))
    with pytest.raises(ValueError, match=r"bmm: the last dim of x .* got 3 vs 4"):
        paddle.bmm(_t(_rand(2, 2, 3)), _t(_rand(2, 4, 2)))
    with pytest.raises(ValueError, match="mv: x must be 2-D and vec 1-D"):
        paddle.mv(_t(_rand(2, 3)), _t(_rand(3, 1)))
    with pytest.raises(ValueError, match="dot: x and y must be 1-D or 2-D"):
        paddle.dot(_t(_rand(3)), _t(_rand(4)))


def test_dot_shapes_follow_paddle3():
    assert paddle.dot(_t(_rand(3)), _t(_rand(3))).shape == []
    assert paddle.dot(_t(_rand(2, 3)), _t(_rand(2, 3))).shape == [2]


def test_methods_are_bound():
    x = _t(_rand(3, 3) + 3 * np.eye(3))
    np.testing.assert_allclose(x.matmul(x).numpy(), x.numpy() @ x.numpy())
    np.testing.assert_allclose(x.inverse().numpy(), np.linalg.inv(x.numpy()))
    np.testing.assert_allclose(float(x.norm()), np.linalg.norm(x.numpy()))
    np.testing.assert_allclose(x.mm(x).numpy(), x.numpy() @ x.numpy())


# --- einsum ------------------------------------------------------------------------------

def test_einsum_errors():
    a = _t(_rand(2, 3))
    with pytest.raises(ValueError, match="einsum: equation 'ij,jk' has 2 operand terms but "
                                         "1 operands"):
        paddle.einsum("ij,jk", a)
    with pytest.raises(ValueError, match="einsum: operand 0 has 2 dims but its term 'ijk'"):
        paddle.einsum("ijk->i", a)
    with pytest.raises(ValueError, match="einsum: output subscript 'q'"):
        paddle.einsum("ij->q", a)
    with pytest.raises(ValueError, match="einsum: subscript 'j' has inconsistent sizes"):
        paddle.einsum("ij,jk->ik", a, _t(_rand(4, 2)))
    with pytest.raises(TypeError, match="einsum: equation must be a str"):
        paddle.einsum(3, a)


def test_einsum_accepts_operand_list_and_trace_grad():
    a = _t(_rand(3, 3), grad=True)
    out = paddle.einsum("ii", [a])
    assert out.shape == []
    out.backward()
    np.testing.assert_allclose(a.grad.numpy(), np.eye(3))


# --- norms -------------------------------------------------------------------------------

def test_norm_defaults_and_errors():
    x = _rand(2, 3, 4)
    np.testing.assert_allclose(float(L.norm(_t(x))), np.sqrt((x ** 2).sum()))
    assert L.norm(_t(x), p=2, axis=-1, keepdim=True).shape == [2, 3, 1]
    with pytest.raises(ValueError, match="norm: axis must be an int or a list of 1 or 2"):
        L.norm(_t(x), axis=[0, 1, 2])
    with pytest.raises(ValueError, match="norm: p=3.0 is not supported for matrix norms"):
        L.norm(_t(x), p=3, axis=[0, 1])
    with pytest.raises(IndexError, match="norm: axis 5 is out of range"):
        L.norm(_t(x), p=2, axis=5)
    with pytest.raises(TypeError, match="norm: x must be a floating point tensor"):
        L.norm(paddle.to_tensor(np.arange(3)))
    with pytest.raises(ValueError, match="norm: p must be 'fro', 'nuc' or a number"):
        L.norm(_t(x), p="bad")


def test_vector_and_matrix_norm_helpers():
    x = _rand(3, 4)
    np.testing.assert_allclose(L.vector_norm(_t(x), p=1, axis=1).numpy(),
                               np.abs(x).sum(1))
    np.testing.assert_allclose(float(L.matrix_norm(_t(x), p="nuc")),
                               np.linalg.norm(x, "nuc"))


def test_dist_and_cross_semantics():
    x, y = _rand(2, 3), _rand(2, 3, seed=1)
    np.testing.assert_allclose(float(paddle.dist(_t(x), _t(y), p=0)), 6.0)
    with pytest.raises(ValueError, match="cross: x \\(shape \\[2, 2\\]\\) has no dim of size 3"):
        paddle.cross(_t(_rand(2, 2)), _t(_rand(2, 2)))
    with pytest.raises(ValueError, match="cross: the size of dim 0"):
        paddle.cross(_t(_rand(2, 3)), _t(_rand(2, 3)), axis=0)


# --- inverse / solve errors --------------------------------------------------------------

def test_singular_matrices_raise():
    sing = _t([[1.0, 2.0], [2.0, 4.0]])
    with pytest.raises(ValueError, match="inverse: the input matrix is singular"):
        L.inv(sing)
    with pytest.raises(ValueError, match="solve: the input matrix is singular"):
        L.solve(sing, _t([[1.0], [2.0]]))
    with pytest.raises(ValueError, match="cholesky: x must be symmetric positive definite"):
        L.cholesky(_t([[1.0, 2.0], [2.0, 1.0]]))


def test_shape_errors_name_the_op():
    with pytest.raises(ValueError, match="inverse: x must be a square matrix"):
        L.inv(_t(_rand(2, 3)))
    with pytest.raises(ValueError, match="det: x must be a matrix or a batch of matrices"):
        L.det(_t(_rand(3)))
    with pytest.raises(ValueError, match="solve: x .* and y .* do not match"):
        L.solve(_t(np.eye(3)), _t(_rand(2, 2)))
    with pytest.raises(ValueError, match="triangular_solve: y must be a matrix"):
        L.triangular_solve(_t(np.eye(3)), _t(_rand(3)))
    with pytest.raises(ValueError, match="lstsq: x .* and y .* must have the same number"):
        L.lstsq(_t(_rand(3, 2)), _t(_rand(2, 2)))
    with pytest.raises(ValueError, match="qr: mode must be"):
        L.qr(_t(_rand(3, 3)), mode="full")
    with pytest.raises(ValueError, match="eigh: UPLO must be 'L' or 'U'"):
        L.eigh(_t(np.eye(2)), UPLO="X")
    with pytest.raises(ValueError, match="matrix_power: x must be a square matrix"):
        L.matrix_power(_t(_rand(2, 3)), 2)
    with pytest.raises(ValueError, match="multi_dot: tensor 1 must be 2-D"):
        L.multi_dot([_t(_rand(2)), _t(_rand(2)), _t(_rand(2))])


# --- decompositions: Paddle-specific outputs ---------------------------------------------

def test_qr_mode_r_returns_r_only():
    x = _rand(4, 3)
    r = L.qr(_t(x), mode="r")
    assert isinstance(r, paddle.Tensor) and r.shape == [3, 3]
    np.testing.assert_allclose(r.numpy(), np.linalg.qr(x, mode="r"))


def test_slogdet_is_stacked():
    x = _rand(2, 3, 3) + 3 * np.eye(3)
    out = L.slogdet(_t(x))
    assert out.shape == [2, 2]
    sign, logdet = np.linalg.slogdet(x)
    np.testing.assert_allclose(out.numpy(), np.stack([sign, logdet]))


def test_lu_paddle_example_and_unpack_roundtrip():
    x = _t([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    lu_, piv = L.lu(x)
    np.testing.assert_allclose(lu_.numpy(), [[5, 6], [0.2, 0.8], [0.6, 0.5]], atol=1e-12)
    assert piv.dtype == paddle.int32 and piv.numpy().tolist() == [3, 3]
    _, _, info = L.lu(x, get_infos=True)
    assert info.shape == [] and int(info) == 0
    p, low, up = L.lu_unpack(lu_, piv)
    np.testing.assert_allclose(p.numpy() @ low.numpy() @ up.numpy(), x.numpy(), atol=1e-12)


def test_lu_reports_singular_info():
    _, _, info = L.lu(_t([[0.0, 0.0], [0.0, 0.0]]), get_infos=True)
    assert int(info) == 1


def test_eig_returns_complex():
    w, v = L.eig(paddle.to_tensor(np.eye(2, dtype="float32")))
    assert w.dtype == paddle.complex64 and v.dtype == paddle.complex64


def test_matrix_rank_dtype_and_tensor_tol():
    out = L.matrix_rank(_t(np.diag([1.0, 1e-3, 0.0])), tol=_t(1e-2))
    assert out.dtype == paddle.int64 and int(out) == 1


def test_lstsq_outputs():
    x, y = _rand(4, 2), _rand(4, 1, seed=3)
    sol, res, rank, sv = L.lstsq(_t(x), _t(y), driver="gelsd")
    want, wres, wrank, wsv = np.linalg.lstsq(x, y, rcond=None)
    np.testing.assert_allclose(sol.numpy(), want)
    np.testing.assert_allclose(res.numpy(), wres)
    assert int(rank) == wrank and rank.dtype == paddle.int32
    np.testing.assert_allclose(sv.numpy(), wsv)
    assert L.lstsq(_t(x), _t(y))[3].shape == [0]   # gelsy gives no singular values


# --- composites --------------------------------------------------------------------------

def test_matrix_power_zero_and_one():
    x = _rand(2, 3, 3)
    np.testing.assert_allclose(L.matrix_power(_t(x), 0).numpy(), np.broadcast_to(np.eye(3),
                                                                                (2, 3, 3)))
    np.testing.assert_allclose(L.matrix_power(_t(x), 1).numpy(), x)


def test_cov_single_variable_and_weight_errors():
    x = _rand(5)
    np.testing.assert_allclose(float(L.cov(_t(x))), np.cov(x))
    with pytest.raises(ValueError, match="cov: fweights must be 1-D with 4 entries"):
        L.cov(_t(_rand(2, 4)), fweights=paddle.to_tensor(np.array([1, 2])))
    with pytest.raises(ValueError, match="cov: x must be 1-D or 2-D"):
        L.cov(_t(_rand(2, 2, 2)))


def test_cholesky_solve_matches_solve():
    a = _rand(3, 3)
    spd = a @ a.T + 3 * np.eye(3)
    low = np.linalg.cholesky(spd)
    b = _rand(3, 2, seed=5)
    for factor, upper in ((low, False), (low.T, True)):
        out = L.cholesky_solve(_t(b), _t(factor), upper=upper)
        np.testing.assert_allclose(out.numpy(), np.linalg.solve(spd, b), atol=1e-12)


def test_cond_rejects_bad_p():
    with pytest.raises(ValueError, match="cond: p must be None"):
        L.cond(_t(np.eye(2)), p=3)


def test_linalg_namespace_names():
    for name in ("cholesky", "cholesky_solve", "cond", "corrcoef", "cov", "det", "eig", "eigh",
                 "eigvals", "eigvalsh", "inv", "lstsq", "lu", "lu_unpack", "matrix_power",
                 "matrix_rank", "multi_dot", "norm", "pinv", "qr", "slogdet", "solve", "svd",
                 "triangular_solve"):
        assert callable(getattr(L, name)), name
    assert L.inv is paddle.inverse


def test_norm_inf_grad_goes_to_max_element():
    x = _t([1.0, -3.0, 2.0], grad=True)
    L.norm(x, p=math.inf).backward()
    np.testing.assert_allclose(x.grad.numpy(), [0.0, -1.0, 0.0])


def test_cdist_errors_and_new_namespace_names():
    with pytest.raises(ValueError, match="cdist: x .* and y .* must be at least 2-D"):
        paddle.cdist(_t(_rand(3, 2)), _t(_rand(3, 4)))
    assert callable(L.householder_product) and callable(L.pca_lowrank)
    with pytest.raises(ValueError, match="householder_product: need x"):
        L.householder_product(_t(_rand(2, 3)), _t(_rand(2)))
    with pytest.raises(ValueError, match="pca_lowrank: q must be in"):
        L.pca_lowrank(_t(_rand(4, 3)), q=5)


def test_householder_product_without_reflectors_is_identity():
    out = L.householder_product(_t(_rand(4, 2)), _t(np.zeros((0,))))
    np.testing.assert_allclose(out.numpy(), np.eye(4, 2))


def test_norm_grad_of_zero_vector_is_zero():
    for p in (2, 3):
        x = _t(np.zeros((2, 3)), grad=True)
        L.norm(x, p=p, axis=1).sum().backward()
        np.testing.assert_array_equal(x.grad.numpy(), np.zeros((2, 3)))
