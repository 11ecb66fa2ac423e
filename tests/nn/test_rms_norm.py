"""paddle.nn.functional.rms_norm (Paddle 3.x). Paddle 3.3.1's CPU build registers no
rms_norm kernel, so the values below were recorded from PyTorch 2's
torch.nn.functional.rms_norm (the same formula) on the same inputs."""
import numpy as np
import pytest

import sampan as paddle
from tests.static_util import static_guard

F = paddle.nn.functional


def _inputs():
    rng = np.random.RandomState(0)
    x = rng.randn(2, 3, 4).astype("float32")
    w = rng.randn(4).astype("float32")
    return (paddle.to_tensor(x, stop_gradient=False), paddle.to_tensor(w, stop_gradient=False))


def test_values_and_gradients_match_torch():
    x, w = _inputs()
    out, invvar = F.rms_norm(x, [4], w)
    np.testing.assert_allclose(out.numpy().ravel()[:6], [
        2.632768, -0.382672, 0.029448, -0.275811, 3.658963, 1.226865], rtol=1e-5, atol=1e-6)
    assert invvar.shape == [6] and invvar.dtype == paddle.float32
    xn = x.numpy()
    np.testing.assert_allclose(invvar.numpy(),
                               1 / np.sqrt((xn ** 2).mean(-1) + 1e-5).ravel(), rtol=1e-6)
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy().ravel()[:6], [
        1.110391, -1.042971, -0.18189, -0.60842, 0.238, -0.354688], rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(w.grad.numpy(), [4.156822, 0.437791, 3.545203, 2.4701],
                               rtol=1e-5)


def test_two_normalized_dims_no_weight_and_eps():
    x, _ = _inputs()
    out, invvar = F.rms_norm(x, (3, 4), eps=0.5)
    np.testing.assert_allclose(out.numpy().ravel()[:6], [
        1.27601, 0.28945, 0.70796, 1.620928, 1.35088, -0.706904], rtol=1e-5, atol=1e-6)
    assert invvar.shape == [2]


def test_int_normalized_shape_and_float64():
    x = paddle.to_tensor([[3.0, 4.0], [1.0, 1.0]], dtype="float64")
    out, invvar = F.rms_norm(x, 2, eps=0.0)
    assert out.dtype == paddle.float64 and invvar.dtype == paddle.float32
    np.testing.assert_allclose(out.numpy(), [[0.6 * 2 ** 0.5, 0.8 * 2 ** 0.5], [1, 1]])


def test_static_mode_builds_and_runs():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with static_guard(main, startup):
        x = paddle.static.data("x", [-1, 4], "float32")
        out, invvar = F.rms_norm(x, [4])
    exe = paddle.static.Executor()
    xn = np.arange(8, dtype="float32").reshape(2, 4)
    got, inv = exe.run(main, feed={"x": xn}, fetch_list=[out, invvar])
    want = 1 / np.sqrt((xn ** 2).mean(-1) + 1e-5)
    np.testing.assert_allclose(inv, want, rtol=1e-6)
    np.testing.assert_allclose(got, xn * want[:, None], rtol=1e-6)


def test_errors_name_the_api_and_argument():
    x, _ = _inputs()
    with pytest.raises(ValueError, match=r"rms_norm: normalized_shape \[3\] must match"):
        F.rms_norm(x, [3])
    with pytest.raises(ValueError, match=r"normalized_shape \[5, 4\]"):
        F.rms_norm(x, [5, 4])
    with pytest.raises(ValueError, match=r"weight shape \[3\]"):
        F.rms_norm(x, [4], paddle.ones([3]))
    with pytest.raises(TypeError, match="input must be a Tensor"):
        F.rms_norm(np.ones([2, 4]), [4])
    with pytest.raises(TypeError, match="normalized_shape must be"):
        F.rms_norm(x, "4")
