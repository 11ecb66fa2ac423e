"""Paddle 3.3.1's tensor API beyond 2.6 (issue #10): aliases, thin wrappers with Paddle 3's
argument names, Tensor conversion methods and properties, histogramdd, linalg.svd_lowrank.
Values, dtypes, shapes, error types and signatures were recorded from Paddle 3.3.1 into
paddle3_expected.json by running the cases of paddle3_cases.py there; Paddle is not needed."""
import inspect
import json
import os
import re

import numpy as np
import pytest

import sampan as paddle
from tests.tensor.paddle3_cases import CASES, ERRORS

with open(os.path.join(os.path.dirname(__file__), "paddle3_expected.json")) as _f:
    EXPECTED = json.load(_f)

TOL = {"float16": (1e-3, 1e-3), "float32": (2e-5, 2e-6), "float64": (1e-8, 1e-9),
       "complex64": (2e-5, 2e-6), "complex128": (1e-8, 1e-9)}


def _check(got, want, where):
    if isinstance(want, dict) and "values" in want:
        assert hasattr(got, "dtype"), f"{where}: expected a Tensor, got {got!r}"
        assert str(got.dtype).replace("paddle.", "") == want["dtype"], where
        assert list(got.shape) == want["shape"], where
        arr = got.numpy()
        if arr.dtype.kind == "c":
            arr = np.stack([arr.real, arr.imag])
        rtol, atol = TOL.get(want["dtype"], (0, 0))
        np.testing.assert_allclose(arr.astype("float64") if arr.dtype.kind != "b" else arr,
                                   np.array(want["values"], dtype=arr.dtype if
                                            arr.dtype.kind == "b" else "float64"),
                                   rtol=rtol, atol=atol, err_msg=where)
    elif isinstance(want, list):
        assert len(got) == len(want), where
        for i, (g, w) in enumerate(zip(got, want)):
            _check(g, w, f"{where}[{i}]")
    elif want == "nan":
        assert got != got, where
    elif isinstance(want, float):
        assert got == pytest.approx(want, rel=1e-8), where
    else:
        assert (str(got) if isinstance(got, paddle.dtype) else got) == want, where


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_match_paddle(name):
    _check(CASES[name](paddle), EXPECTED["cases"][name], name)


# Paddle raises AssertionError from `assert` checks; sampan raises a ValueError naming the API.
_SAMPAN_ERROR = {"AssertionError": ValueError, "ValueError": ValueError,
                 "RuntimeError": RuntimeError}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_like_paddle(name):
    with pytest.raises(_SAMPAN_ERROR[EXPECTED["errors"][name]]):
        ERRORS[name](paddle)


def test_error_messages_name_the_problem():
    with pytest.raises(ValueError, match=r"narrow: start \(2\) \+ length \(2\) exceeds"):
        paddle.narrow(paddle.ones([2, 3]), 1, 2, 2)
    with pytest.raises(ValueError, match="histogramdd: the length of bins must be 2"):
        paddle.histogramdd(paddle.ones([4, 2]), bins=[2, 2, 2])
    with pytest.raises(ValueError, match="scatter_reduce: reduce must be one of"):
        paddle.scatter_reduce(paddle.ones([2]), 0, paddle.to_tensor([0]),
                              paddle.ones([1]), "max")
    with pytest.raises(TypeError, match="sinc: x must be a floating tensor"):
        paddle.sinc(paddle.to_tensor([1, 2]))
    with pytest.raises(ValueError, match="svd_lowrank: q must be in"):
        paddle.linalg.svd_lowrank(paddle.ones([3, 2]), q=3)


def _norm_sig(fn) -> str:
    s = re.sub(r": '[^']*'|: \"[^\"]*\"", "", str(inspect.signature(fn)).split(" -> ")[0])
    # sampan also takes PyTorch-style varargs dims/sizes: f(x, 1, 0) besides f(x, [1, 0])
    return s.replace(" = ", "=").replace(", *more_dims", "").replace("*more,", "*,")


@pytest.mark.parametrize("key", sorted(EXPECTED["signatures"]))
def test_signatures_match_paddle(key):
    space, name = key.split(".")
    owner = {"top": paddle, "linalg": paddle.linalg, "tensor": paddle.Tensor}[space]
    assert _norm_sig(getattr(owner, name)) == EXPECTED["signatures"][key]


# Paddle 3.3.1 binds these names to the very same function objects (checked in 3.3.1).
ALIASES = {"clamp": "clip", "cat": "concat", "concatenate": "concat", "eq": "equal",
           "ne": "not_equal", "lt": "less_than", "less": "less_than", "le": "less_equal",
           "ge": "greater_equal", "gt": "greater",  # (not greater_than: its own C++ binding)
           "ger": "outer", "take_along_dim": "take_along_axis", "swapdims": "swapaxes",
           "manual_seed": "seed"}


@pytest.mark.parametrize("alias", sorted(ALIASES))
def test_alias_is_its_target(alias):
    assert getattr(paddle, alias) is getattr(paddle, ALIASES[alias])


def test_aliases_compute_like_targets_and_are_methods():
    x = paddle.to_tensor([[1.0, -2.0, 3.0], [4.0, 5.0, -6.0]])
    y = paddle.to_tensor([[0.5, 5.0, 3.0], [4.0, -1.0, 0.0]])
    for alias, target in (("mul", "multiply"), ("negative", "neg"), ("gammaln", "lgamma")):
        args = (x, y) if alias == "mul" else (paddle.abs(x) if alias == "gammaln" else x,)
        np.testing.assert_array_equal(getattr(paddle, alias)(*args).numpy(),
                                      getattr(paddle, target)(*args).numpy())
    for name in ("clamp", "eq", "ne", "lt", "le", "ge", "gt", "mul", "sub", "div"):
        assert callable(getattr(x, name)), name
    np.testing.assert_array_equal(x.clamp(-1.0, 2.0).numpy(), np.clip(x.numpy(), -1, 2))


def test_inplace_forms():
    x = paddle.to_tensor([[1.0, -2.0], [4.0, 5.0]])
    out = x.clamp_(min=0.0)
    assert out is x and x.numpy().tolist() == [[1.0, 0.0], [4.0, 5.0]]
    z = paddle.to_tensor([7.0, -7.0])
    paddle.div_(z, paddle.to_tensor([2.0, 2.0]), rounding_mode="floor")
    assert z.numpy().tolist() == [3.0, -4.0]
    w = paddle.to_tensor([0.0, 0.5])
    paddle.sinc_(w)
    np.testing.assert_allclose(w.numpy(), [1.0, 2 / np.pi], rtol=1e-6)


def test_svd_lowrank_exact_for_low_rank():
    rng = np.random.RandomState(3)
    a = rng.randn(2, 8, 3) @ rng.randn(2, 3, 6)  # batch of rank-3 8x6 matrices
    paddle.seed(7)
    u, s, v = paddle.linalg.svd_lowrank(paddle.to_tensor(a), q=4, niter=2)
    assert u.shape == [2, 8, 4] and s.shape == [2, 4] and v.shape == [2, 6, 4]
    exact = np.linalg.svd(a, compute_uv=False)
    np.testing.assert_allclose(s.numpy()[:, :3], exact[:, :3], rtol=1e-9)
    recon = u.numpy() @ (s.numpy()[..., None] * np.swapaxes(v.numpy(), -1, -2))
    np.testing.assert_allclose(recon, a, atol=1e-9)
    np.testing.assert_allclose(np.swapaxes(u.numpy(), -1, -2) @ u.numpy(),
                               np.broadcast_to(np.eye(4), (2, 4, 4)), atol=1e-12)


def test_svd_lowrank_with_m_and_seed():
    rng = np.random.RandomState(4)
    base = rng.randn(6, 2) @ rng.randn(2, 5)
    mean = rng.randn(1, 5)
    x = paddle.to_tensor(base + mean)
    paddle.seed(1)
    u1, s1, v1 = paddle.linalg.svd_lowrank(x, q=2, M=paddle.to_tensor(mean))
    np.testing.assert_allclose(s1.numpy(), np.linalg.svd(base, compute_uv=False)[:2],
                               rtol=1e-9)
    paddle.seed(1)
    u2, _, _ = x.svd_lowrank(q=2, M=paddle.to_tensor(mean))
    np.testing.assert_array_equal(u1.numpy(), u2.numpy())  # same seed, same sketch


def test_svd_lowrank_default_q_and_gradient():
    paddle.seed(0)
    x = paddle.to_tensor(np.random.RandomState(5).randn(7, 9))
    x.stop_gradient = False
    u, s, v = paddle.linalg.svd_lowrank(x)
    assert s.shape == [6]
    s.sum().backward()
    assert x.grad.shape == [7, 9]


def test_histogramdd_explicit_edges_and_weights_dtype():
    pts = paddle.to_tensor([[0.5, 0.1], [1.5, 2.5], [3.0, 0.0], [-1.0, 1.0]])
    hist, edges = paddle.histogramdd(pts, bins=[paddle.to_tensor([0.0, 1.0, 3.0]),
                                                paddle.to_tensor([0.0, 2.0, 3.0])])
    np.testing.assert_array_equal(hist.numpy(), [[1.0, 0.0], [1.0, 1.0]])  # -1 is outside
    assert [e.shape for e in edges] == [[3], [3]]
    with pytest.raises(AssertionError, match="weights must have x's dtype float32"):
        paddle.histogramdd(pts, bins=2, weights=paddle.to_tensor(  # Paddle asserts too
            [1.0, 2.0, 3.0, 4.0], dtype="float64"))


def test_tensor_properties_and_methods():
    x = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]])
    x.requires_grad = True
    assert x.stop_gradient is False and x.requires_grad
    x.requires_grad_(False)
    assert x.stop_gradient is True
    assert x.device == "cpu" and x.is_cuda is False and x.get_device() == -1
    assert x.new_zeros([2], requires_grad=True).stop_gradient is False
    assert x.new_empty(2, 3).shape == [2, 3]
    assert x.gradient() is None and x.to_dense() is x and not x.is_sparse_coo()
    y = paddle.to_tensor([1.0, 2.0])
    assert y.apply(lambda t: t * 2).numpy().tolist() == [2.0, 4.0]
    y.apply_(lambda t: t + 1)
    assert y.numpy().tolist() == [2.0, 3.0]
    assert [t.shape for t in paddle.ones([2, 6]).hsplit(3)] == [[2, 2]] * 3


def test_random_like_and_log_normal():
    paddle.seed(2)
    x = paddle.ones([2, 3], dtype="float64")
    r = paddle.rand_like(x)
    assert r.shape == [2, 3] and r.dtype == paddle.float64
    assert float(r.min()) >= 0.0 and float(r.max()) < 1.0
    assert paddle.randn_like(x, dtype="float32").dtype == paddle.float32
    big = paddle.zeros([20000], dtype="float64").log_normal_(mean=1.0, std=0.5)
    logs = np.log(big.numpy())
    assert abs(logs.mean() - 1.0) < 0.02 and abs(logs.std() - 0.5) < 0.02
    assert paddle.log_normal(shape=[3]).shape == [3]
    b = paddle.zeros([10000]).bernoulli_(0.25)
    assert set(np.unique(b.numpy())) <= {0.0, 1.0} and abs(b.numpy().mean() - 0.25) < 0.02


def test_gradients_flow_through_composites():
    x = paddle.to_tensor([[0.3, -1.2], [2.0, 0.7]], dtype="float64")
    x.stop_gradient = False
    (paddle.sinc(x).sum() + paddle.vecdot(x, x).sum()
     + paddle.narrow(x, 1, 1, 1).sum()).backward()
    v = x.numpy()
    px = np.pi * v
    dsinc = (np.cos(px) * px - np.sin(px)) / (px * v)
    want = dsinc + 2 * v + np.array([[0.0, 1.0], [0.0, 1.0]])
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-10)


def test_gammaincc_gradient_matches_paddle():
    x = paddle.to_tensor([1.5, 3.0])
    y = paddle.to_tensor([2.0, 1.0])
    x.stop_gradient = y.stop_gradient = False
    paddle.gammaincc(x, y).sum().backward()
    assert x.grad is None  # Paddle differentiates only through y
    np.testing.assert_allclose(y.grad.numpy(), [-0.21596386, -0.18393971], rtol=1e-6)
    y2 = paddle.to_tensor([2.0, 1.0])
    y2.stop_gradient = False
    paddle.gammainc(paddle.to_tensor([1.5, 3.0]), y2).sum().backward()
    np.testing.assert_allclose(y2.grad.numpy(), [0.21596386, 0.18393971], rtol=1e-6)
    with pytest.raises(TypeError, match="gammaincc: x and y must both be float32 or float64"):
        paddle.gammaincc(paddle.to_tensor([1, 2]), paddle.to_tensor([1, 2]))


def test_standard_gamma_binomial_random_():
    paddle.seed(3)
    g = paddle.standard_gamma(paddle.full([20000], 2.5, dtype="float64"))
    assert g.dtype == paddle.float64 and abs(float(g.mean()) - 2.5) < 0.05
    b = paddle.binomial(paddle.full([20000], 10, dtype="int64"), paddle.full([20000], 0.3))
    assert b.dtype == paddle.int64 and abs(float(b.astype("float64").mean()) - 3.0) < 0.05
    r = paddle.zeros([2000]).random_(3, 7)
    assert set(np.unique(r.numpy())) == {3.0, 4.0, 5.0, 6.0}
    with pytest.raises(ValueError, match=r"random_: to \(2\) must be greater than from_ \(5\)"):
        paddle.zeros([2]).random_(5, 2)


def test_top_level_functional_names():
    import sampan.nn.functional as F
    for name in ("adaptive_avg_pool1d", "conv1d", "conv2d", "conv3d", "group_norm",
                 "layer_norm"):
        assert getattr(paddle, name) is getattr(F, name), name


def test_dlpack_round_trip():
    x = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]], dtype="float64")
    y = paddle.from_dlpack(paddle.to_dlpack(x))
    assert y.dtype == paddle.float64 and y.numpy().tolist() == x.numpy().tolist()
    z = paddle.from_dlpack(np.arange(3, dtype="int32"))  # any object with __dlpack__
    assert z.dtype == paddle.int32 and z.numpy().tolist() == [0, 1, 2]
    with pytest.raises(TypeError, match="from_dlpack: cannot read"):
        paddle.from_dlpack(object())


def test_composites_build_static_programs():
    from tests.static_util import static_guard
    xv = np.array([[0.0, -1.5, 2.0], [0.5, 3.0, -0.25]], dtype="float32")
    fns = {
        "isin": lambda x: paddle.isin(x, paddle.to_tensor([2.0, 0.5])),
        "sinc": paddle.sinc, "signbit": paddle.signbit,
        "div": lambda x: paddle.div(x, x + 4.0, rounding_mode="floor"),
        "swapaxes": lambda x: paddle.swapaxes(x, 0, 1), "vecdot": lambda x: paddle.vecdot(x, x),
        "narrow": lambda x: paddle.narrow(x, 1, 1, 2), "reduce_as": lambda x: paddle.reduce_as(
            x, paddle.ones([1, 3])),
    }
    main = paddle.static.Program()
    with static_guard(main, paddle.static.Program()):
        x = paddle.static.data("x", [2, 3], "float32")
        outs = [fn(x) for fn in fns.values()]
    got = paddle.static.Executor().run(main, feed={"x": xv}, fetch_list=outs)
    for name, fn, value in zip(fns, fns.values(), got):
        np.testing.assert_array_equal(value, fn(paddle.to_tensor(xv)).numpy(), err_msg=name)
