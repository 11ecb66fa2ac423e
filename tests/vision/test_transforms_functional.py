"""transforms.functional against PaddlePaddle 3.3.1 values (PIL and Tensor paths), the NumPy
(ndarray) path against the PIL path, and argument errors."""
import numpy as np
import pytest

import sampan as paddle
from sampan.vision.transforms import functional as F

from .paddle_transform_values import CASES, IMAGE, PIL_VALUES, TENSOR_VALUES

Image = pytest.importorskip("PIL.Image", reason="Pillow is needed for PIL image transforms")


def _as_array(out):
    return np.asarray(out.numpy() if isinstance(out, paddle.Tensor) else out)


@pytest.mark.parametrize("name", sorted(PIL_VALUES))
def test_pil_path_matches_paddle(name):
    x = Image.fromarray(IMAGE)
    out = _as_array(eval(CASES[name], {"F": F, "x": x}))
    shape, values = PIL_VALUES[name]
    assert list(out.shape) == shape
    np.testing.assert_allclose(out.ravel(), values, atol=1e-6)


@pytest.mark.parametrize("name", sorted(TENSOR_VALUES))
def test_tensor_path_matches_paddle(name):
    x = paddle.to_tensor(IMAGE.transpose(2, 0, 1).astype("float32") / 255.0)
    out = eval(CASES[name], {"F": F, "x": x})
    assert isinstance(out, paddle.Tensor)
    shape, values = TENSOR_VALUES[name]
    assert list(out.shape) == shape
    np.testing.assert_allclose(out.numpy().ravel(), values, atol=2e-6)


EXACT_ON_UINT8 = ["pad_reflect", "pad_symmetric", "center_crop", "brightness", "contrast",
                  "saturation", "hue", "gray", "rotate", "rotate90", "rotate_expand",
                  "rotate_center", "affine", "perspective", "vflip", "to_tensor", "resize_up"]


@pytest.mark.parametrize("name", EXACT_ON_UINT8)
def test_ndarray_path_agrees_with_pil(name):
    out = _as_array(eval(CASES[name], {"F": F, "x": IMAGE.copy()}))
    shape, values = PIL_VALUES[name]
    ref = np.asarray(values).reshape(shape)
    if ref.ndim == 2:
        ref = ref[..., None]  # ndarray grayscale keeps a channel axis
    if name == "resize_up":  # Pillow's bilinear is a triangle filter over 2 pixels: same upscale
        np.testing.assert_allclose(out, ref, atol=1)
    else:
        np.testing.assert_allclose(out, ref, atol=1e-6)


def test_ndarray_nearest_and_int_fill_follow_opencv_rules():
    # Pillow fills an RGB border from an int as a packed colour (9 -> (9, 0, 0)) and samples
    # nearest at pixel centres; ndarrays fill every channel and take floor(dst * scale)
    out = F.pad(IMAGE, [1, 0, 2, 1], fill=9)
    assert out.shape == (5, 8, 3) and (out[:, 0] == 9).all() and (out[-1] == 9).all()
    np.testing.assert_array_equal(out[:4, 1:6], IMAGE)
    np.testing.assert_array_equal(F.resize(IMAGE, (2, 5), "nearest"), IMAGE[[0, 2]])


def test_batched_tensor_and_dtype_kept():
    x = paddle.to_tensor(np.stack([IMAGE.transpose(2, 0, 1)] * 2).astype("float32") / 255)
    out = F.rotate(x, 90)
    shape, values = TENSOR_VALUES["rotate90"]
    assert out.shape == [2] + shape
    np.testing.assert_allclose(out.numpy()[1].ravel(), values, atol=2e-6)
    u8 = paddle.to_tensor(IMAGE.transpose(2, 0, 1).copy())
    assert F.hflip(u8).dtype == paddle.uint8
    np.testing.assert_array_equal(F.hflip(u8).numpy(), IMAGE.transpose(2, 0, 1)[:, :, ::-1])


def test_to_tensor_modes():
    t = F.to_tensor(IMAGE, data_format="HWC")
    assert t.shape == [4, 5, 3] and t.dtype == paddle.float32
    np.testing.assert_allclose(t.numpy(), IMAGE / 255.0, rtol=1e-6)
    gray = F.to_tensor(np.arange(6, dtype=np.float64).reshape(2, 3))
    assert gray.shape == [1, 2, 3] and gray.dtype == paddle.float64  # no scaling for floats
    binary = F.to_tensor(Image.fromarray(np.eye(2, dtype=bool)))
    np.testing.assert_array_equal(binary.numpy()[0], np.eye(2))


def test_normalize_and_erase():
    out = F.normalize(IMAGE, [100., 110., 120.], [50., 60., 70.], "HWC")
    np.testing.assert_allclose(out, (IMAGE - [100., 110., 120.]) / [50., 60., 70.], rtol=1e-6)
    chw = paddle.to_tensor(np.ones((3, 2, 2), np.float32))
    np.testing.assert_allclose(F.normalize(chw, [1, 0, 0], [1, 2, 4]).numpy()[:, 0, 0],
                               [0, 0.5, 0.25])
    bgr = F.normalize(IMAGE, [0, 0, 0], [1, 1, 1], "HWC", to_rgb=True)
    np.testing.assert_array_equal(bgr, IMAGE[..., ::-1])
    erased = F.erase(chw, 0, 1, 2, 1, paddle.to_tensor(np.zeros((3, 1, 1), np.float32)))
    assert erased.numpy()[:, :, 1].sum() == 0 and chw.numpy().sum() == 12
    F.erase(chw, 0, 0, 1, 1, 5.0, inplace=True)
    assert chw.numpy()[0, 0, 0] == 5.0


@pytest.mark.parametrize("call, err, words", [
    (lambda: F.resize([[1]], 2), TypeError, "img should be PIL Image"),
    (lambda: F.resize(IMAGE, (1, 2, 3)), TypeError, "size"),
    (lambda: F.resize(IMAGE, 0), ValueError, "positive"),
    (lambda: F.resize(IMAGE, 3, "lanczos"), ValueError, "interpolation"),
    (lambda: F.pad(IMAGE, (1, 2, 3)), ValueError, "2 or 4"),
    (lambda: F.pad(IMAGE, 1, padding_mode="wrap"), ValueError, "padding_mode"),
    (lambda: F.adjust_hue(IMAGE, 0.7), ValueError, "[-0.5, 0.5]"),
    (lambda: F.adjust_brightness(IMAGE, -1), ValueError, "brightness_factor"),
    (lambda: F.affine(IMAGE, 10, (1,), 1.0, 0), ValueError, "translate"),
    (lambda: F.affine(IMAGE, 10, (0, 0), 0.0, 0), ValueError, "scale"),
    (lambda: F.rotate(IMAGE, 10, "bicubic"), ValueError, "interpolation"),
    (lambda: F.to_grayscale(IMAGE, 2), ValueError, "num_output_channels"),
    (lambda: F.to_tensor(IMAGE, "NCHW"), ValueError, "data_format"),
    (lambda: F.hflip(paddle.ones([2, 2])), ValueError, "3-D (CHW) or 4-D"),
    (lambda: F.perspective(IMAGE, [[0, 0]], [[0, 0]]), ValueError, "startpoints"),
])
def test_errors_name_the_argument(call, err, words):
    with pytest.raises(err, match=None) as info:
        call()
    assert words in str(info.value)
