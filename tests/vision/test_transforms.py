"""Transform classes: Compose, BaseTransform keys, deterministic transforms, random transforms
(drawn from paddle.seed), argument errors."""
import numpy as np
import pytest

import sampan as paddle
from sampan.vision import transforms as T
from sampan.vision.transforms import functional as F

from .paddle_transform_values import IMAGE, PIL_VALUES

Image = pytest.importorskip("PIL.Image", reason="Pillow is needed for PIL image transforms")

RANDOM = [
    lambda: T.RandomCrop(3, padding=1),
    lambda: T.RandomResizedCrop((3, 2)),
    lambda: T.RandomHorizontalFlip(),
    lambda: T.RandomVerticalFlip(),
    lambda: T.ColorJitter(0.4, 0.4, 0.4, 0.1),
    lambda: T.RandomRotation(45),
    lambda: T.RandomAffine(20, translate=(0.2, 0.2), scale=(0.8, 1.2), shear=(-5, 5, -5, 5)),
    lambda: T.RandomPerspective(prob=1.0),
    lambda: T.RandomErasing(prob=1.0, value="random"),
]


@pytest.mark.parametrize("make", RANDOM)
@pytest.mark.parametrize("kind", ["pil", "ndarray", "tensor"])
def test_random_transforms_follow_paddle_seed(make, kind):
    def image():
        if kind == "pil":
            return Image.fromarray(IMAGE)
        if kind == "tensor":
            return paddle.to_tensor(IMAGE.transpose(2, 0, 1).astype("float32") / 255)
        return IMAGE.copy()

    def run(seed):
        paddle.seed(seed)
        t = make()
        return [np.asarray(F.to_tensor(t(image())).numpy()) for _ in range(6)]
    first, again = run(7), run(7)
    for a, b in zip(first, again):
        np.testing.assert_array_equal(a, b)
    outputs = run(7) + run(8)
    assert any(not np.array_equal(outputs[0], o) for o in outputs[1:]), "never random"


def test_flip_probability_and_keys_share_one_draw():
    paddle.seed(3)
    flip = T.RandomHorizontalFlip(prob=0.5, keys=("image", "mask"))
    flips = 0
    for _ in range(200):
        img, mask = flip((IMAGE, IMAGE[..., 0].copy()))
        np.testing.assert_array_equal(img[..., 0], mask)  # same draw for image and mask
        flips += int(not np.array_equal(img, IMAGE))
    assert 70 < flips < 130


def test_compose_and_pipeline_to_normalized_tensor():
    t = T.Compose([T.Resize(8), T.CenterCrop(6), T.ToTensor(),
                   T.Normalize(mean=[0.5, 0.5, 0.5], std=[0.5, 0.5, 0.5])])
    out = t(Image.fromarray(IMAGE))
    assert isinstance(out, paddle.Tensor) and out.shape == [3, 6, 6]
    assert -1.0 <= float(out.numpy().min()) and float(out.numpy().max()) <= 1.0
    assert "Resize" in repr(t) or "Compose" in repr(t)
    with pytest.raises(TypeError, match="callable"):
        T.Compose([1])


def test_base_transform_passes_extra_inputs_and_rejects_unknown_keys():
    class AddOne(T.BaseTransform):
        def _apply_image(self, image):
            return image + 1
    img, label = AddOne()((np.zeros(2), 5))
    np.testing.assert_array_equal(img, [1, 1])
    assert label == 5
    with pytest.raises(NotImplementedError, match="label is unsupported"):
        AddOne(keys=("image", "label"))
    with pytest.raises(NotImplementedError, match="does not transform masks"):
        AddOne(keys=("image", "mask"))((np.zeros(2), np.zeros(2)))
    with pytest.raises(ValueError, match="keys should be a sequence"):
        AddOne(keys=3)


def test_deterministic_classes_match_functional():
    pil = Image.fromarray(IMAGE)
    shape, values = PIL_VALUES["pad_reflect"]
    np.testing.assert_array_equal(np.asarray(T.Pad((1, 2), padding_mode="reflect")(pil)),
                                  np.reshape(values, shape))
    shape, values = PIL_VALUES["gray"]
    np.testing.assert_array_equal(np.asarray(T.Grayscale()(pil)), np.reshape(values, shape))
    assert T.Grayscale(3)(IMAGE).shape == (4, 5, 3)
    assert T.Transpose()(IMAGE).shape == (3, 4, 5)
    assert T.Transpose()(pil).shape == (3, 4, 5)
    assert T.ToTensor(data_format="HWC")(pil).shape == [4, 5, 3]
    one = T.Normalize(mean=127.5, std=127.5, data_format="HWC")(IMAGE[..., :1].astype("float32"))
    np.testing.assert_allclose(one, IMAGE[..., :1] / 127.5 - 1, rtol=1e-6)


def test_color_transform_ranges():
    assert T.BrightnessTransform(0.4).value == [0.6, 1.4]
    assert T.BrightnessTransform(1.5).value == [0, 2.5]
    assert T.HueTransform(0.2).value == [-0.2, 0.2]
    assert T.ContrastTransform(0).value is None
    np.testing.assert_array_equal(T.ColorJitter()(IMAGE), IMAGE)  # nothing to jitter


def test_random_resized_crop_falls_back_to_center():
    paddle.seed(1)
    t = T.RandomResizedCrop(4, scale=(1.0, 1.0), ratio=(4.0, 5.0))  # never fits 4x5
    i, j, h, w = t._get_param(IMAGE)
    assert (h, w) == (1, 5) and (i, j) == (1, 0)  # full width, height width / 4


def test_random_crop_pads_if_needed_and_errors():
    paddle.seed(0)
    assert T.RandomCrop((6, 7), pad_if_needed=True)(IMAGE).shape == (6, 7, 3)
    with pytest.raises(ValueError, match="larger than the image"):
        T.RandomCrop(9)(IMAGE)


def test_random_erasing_on_tensor_uses_chw_box():
    paddle.seed(5)
    x = paddle.ones([3, 10, 10])
    out = T.RandomErasing(prob=1.0, value=(0, 0, 0))(x)
    zeros = out.numpy() == 0
    assert zeros.any() and (zeros[0] == zeros[1]).all()
    assert float(x.numpy().min()) == 1.0  # not in place


@pytest.mark.parametrize("make, err, words", [
    (lambda: T.Resize([1, 2, 3]), TypeError, "Resize"),
    (lambda: T.RandomHorizontalFlip(1.5), ValueError, "prob"),
    (lambda: T.RandomRotation(-3), ValueError, "degrees"),
    (lambda: T.RandomAffine(5, translate=(2, 0)), ValueError, "translate"),
    (lambda: T.RandomAffine(5, scale=(0, 1)), ValueError, "scale"),
    (lambda: T.HueTransform(0.8), ValueError, "hue"),
    (lambda: T.BrightnessTransform("a"), TypeError, "brightness"),
    (lambda: T.RandomErasing(value="zeros"), ValueError, "random"),
    (lambda: T.RandomResizedCrop(3, scale=(1, 0.5)), ValueError, "scale"),
    (lambda: T.Pad([1, 2, 3]), ValueError, "2 or 4"),
    (lambda: T.Normalize(std=0), ValueError, "std"),
    (lambda: T.ToTensor("NHWC"), ValueError, "data_format"),
    (lambda: T.RandomPerspective(distortion_scale=2), ValueError, "distortion_scale"),
])
def test_constructor_errors(make, err, words):
    with pytest.raises(err) as info:
        make()
    assert words in str(info.value)
