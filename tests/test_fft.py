"""paddle.fft: every public function against numpy.fft / scipy.fft, dtypes, Paddle's complex
gradient convention, argument errors, frequencies and shifts."""
import numpy as np
import pytest
import scipy.fft as sfft

import sampan as paddle
import sampan.fft as pfft

RNG = np.random.default_rng(0)
X = RNG.standard_normal((3, 4, 5))
XC = X + 1j * RNG.standard_normal((3, 4, 5))
NORMS = ("backward", "forward", "ortho")


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("name,complex_in", [("fft", True), ("ifft", True), ("rfft", False),
                                             ("irfft", True), ("hfft", True),
                                             ("ihfft", False)])
def test_one_dim_matches_numpy(name, complex_in, norm):
    x = XC if complex_in else X
    for n, axis in ((None, -1), (3, 1), (8, 0), (7, -1)):
        got = getattr(pfft, name)(paddle.to_tensor(x), n=n, axis=axis, norm=norm).numpy()
        want = getattr(np.fft, name)(x, n=n, axis=axis, norm=norm)
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_allclose(got, want, atol=1e-12, err_msg=f"{name} n={n}")


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("name,complex_in", [
    ("fft2", True), ("ifft2", True), ("rfft2", False), ("irfft2", True), ("hfft2", True),
    ("ihfft2", False), ("fftn", True), ("ifftn", True), ("rfftn", False), ("irfftn", True),
    ("hfftn", True), ("ihfftn", False)])
def test_multi_dim_matches_scipy(name, complex_in, norm):
    x = XC if complex_in else X
    two = name.endswith("2")
    cases = [(None, None), ([4, 6], None), ([3, 2], [0, 2])]
    if not two:
        cases.append(([2, 3, 6], None))
    for s, axes in cases:
        kwargs = {} if axes is None else {"axes": axes}
        got = getattr(pfft, name)(paddle.to_tensor(x), s=s, norm=norm, **kwargs).numpy()
        want = getattr(sfft, name)(x, s=s, norm=norm, **kwargs)
        assert got.shape == want.shape, (name, s, axes)
        np.testing.assert_allclose(got, want, atol=1e-12, err_msg=f"{name} s={s} axes={axes}")


def test_dtypes():
    x32 = paddle.to_tensor(X.astype("float32"))
    assert pfft.fft(x32).dtype == paddle.complex64
    assert pfft.rfft(x32).dtype == paddle.complex64
    assert pfft.ihfftn(x32).dtype == paddle.complex64
    assert pfft.irfft(pfft.rfft(x32)).dtype == paddle.float32
    assert pfft.hfft(x32).dtype == paddle.float32  # real input read as complex
    assert pfft.fft(paddle.to_tensor(X)).dtype == paddle.complex128
    assert pfft.fft(paddle.to_tensor([1, 2, 3])).dtype == paddle.complex64
    np.testing.assert_allclose(pfft.fft(paddle.to_tensor([1, 2, 3])).numpy(),
                               np.fft.fft([1, 2, 3]), rtol=1e-6)
    assert pfft.fft2(paddle.to_tensor(XC.astype("complex64"))).dtype == paddle.complex64


def test_empty_axis():
    out = pfft.fft(paddle.zeros([3, 0]))
    assert out.shape == [3, 0] and out.dtype == paddle.complex64
    assert pfft.fft(paddle.zeros([0, 3])).shape == [0, 3]


def test_complex_gradient_follows_paddle():
    # Parseval: sum |fft(x)|^2 = n sum |x|^2, so the grad (d/dRe + i d/dIm) is 2 n x
    x = paddle.to_tensor(XC[0, 0])
    x.stop_gradient = False
    y = pfft.fft(x)
    (paddle.real(y) ** 2 + paddle.imag(y) ** 2).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 10 * XC[0, 0], rtol=1e-12)


def test_irfft_gradient_matches_paddle():
    # Paddle 3.3.1: grad of sum(irfft(x, n) * g) is rfft(g) / n with interior bins doubled
    g = RNG.standard_normal(4)
    x = paddle.to_tensor(XC[0, 0, :3])
    x.stop_gradient = False
    (pfft.irfft(x, n=4) * paddle.to_tensor(g)).sum().backward()
    want = np.fft.rfft(g) / 4
    want[1] *= 2
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-12, atol=1e-15)


def test_rfft_gradient_real():
    x = paddle.to_tensor(X[0, 0])
    x.stop_gradient = False
    c = RNG.standard_normal(3) + 1j * RNG.standard_normal(3)
    y = pfft.rfft(x)  # real(y * c) written without a complex multiply
    (paddle.real(y) * paddle.to_tensor(c.real) - paddle.imag(y) * paddle.to_tensor(c.imag)
     ).sum().backward()
    assert x.grad.dtype == paddle.float64
    eye = np.eye(5)
    want = [np.real((np.fft.rfft(eye[i]) * c).sum()) for i in range(5)]  # linear in x
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-12)


def test_fftfreq_rfftfreq():
    np.testing.assert_allclose(pfft.fftfreq(5, 0.5).numpy(), np.fft.fftfreq(5, 0.5), rtol=1e-6)
    np.testing.assert_allclose(pfft.fftfreq(6).numpy(), np.fft.fftfreq(6), rtol=1e-6)
    np.testing.assert_allclose(pfft.rfftfreq(7, 2.0).numpy(), np.fft.rfftfreq(7, 2.0),
                               rtol=1e-6)
    assert pfft.fftfreq(4).dtype == paddle.float32
    assert pfft.fftfreq(4, dtype="float64").dtype == paddle.float64
    with pytest.raises(TypeError, match="fftfreq: dtype"):
        pfft.fftfreq(4, dtype="int64")
    with pytest.raises(ValueError, match="rfftfreq.*n"):
        pfft.rfftfreq(0)


def test_fftshift():
    x = np.arange(12.0).reshape(3, 4)
    np.testing.assert_array_equal(pfft.fftshift(paddle.to_tensor(x)).numpy(), np.fft.fftshift(x))
    np.testing.assert_array_equal(pfft.fftshift(paddle.to_tensor(x), axes=0).numpy(),
                                  np.fft.fftshift(x, axes=0))
    np.testing.assert_array_equal(pfft.ifftshift(paddle.to_tensor(x), axes=[1]).numpy(),
                                  np.fft.ifftshift(x, axes=[1]))
    y = paddle.to_tensor(np.arange(5.0))
    np.testing.assert_array_equal(pfft.ifftshift(pfft.fftshift(y)).numpy(), np.arange(5.0))


def test_errors():
    x = paddle.to_tensor(X)
    with pytest.raises(ValueError, match="norm 'bad'"):
        pfft.fft(x, norm="bad")
    with pytest.raises(ValueError, match=r"argument n\(0\).*positive"):
        pfft.fft(x, n=0)
    with pytest.raises(ValueError, match=r"n\(2.0\).*integer"):
        pfft.ifft(x, n=2.0)
    with pytest.raises(ValueError, match=r"axis \(3\).*\[-3, 3\)"):
        pfft.rfft(x, axis=3)
    with pytest.raises(ValueError, match="fft2.*axes.*2 integers"):
        pfft.fft2(x, axes=(0,))
    with pytest.raises(ValueError, match=r"rank of x \(1\)"):
        pfft.fft2(paddle.zeros([3]))
    with pytest.raises(ValueError, match=r"length of s \(1\) and length of axes \(2\)"):
        pfft.fftn(x, s=[2], axes=[0, 1])
    with pytest.raises(ValueError, match="repeated axis"):
        pfft.fftn(x, axes=[0, 0])
    with pytest.raises(ValueError, match=r"s\(0\)"):
        pfft.fftn(x, s=[0, 2])
    with pytest.raises(TypeError, match="rfft: x must be a real tensor"):
        pfft.rfft(paddle.to_tensor(XC))
    with pytest.raises(TypeError, match="ihfft2: x must be a real tensor"):
        pfft.ihfft2(paddle.to_tensor(XC))
    with pytest.raises(ValueError, match="irfft.*1 element"):
        pfft.irfft(paddle.to_tensor(XC[..., :1]))
    with pytest.raises(ValueError, match="axis"):
        pfft.fft(paddle.to_tensor(1.0))
    with pytest.raises(TypeError, match="fft: x must be a Tensor"):
        pfft.fft([1.0, 2.0])


def test_op_errors_name_the_op():
    from sampan.ops.dispatch import call
    with pytest.raises(TypeError, match="fft_r2c: x must be a real"):
        call("fft_r2c", paddle.to_tensor(XC), axes=[0])
    with pytest.raises(ValueError, match="fft_c2c: invalid FFT axis"):
        call("fft_c2c", paddle.to_tensor(XC), axes=[5])
