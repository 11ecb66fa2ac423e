"""Transforms on static Variables: the kernel runs in the Program (py_func op), so a static
Program gives what the same transform gives an eager Tensor; paddle.vision.transforms.
transforms holds the random transform classes too."""
import numpy as np
import pytest

import sampan as paddle
from sampan.vision.transforms import functional as F
from sampan.vision.transforms import transforms

from ..static_util import static_guard

SHAPE = (3, 12, 10)
IMG = (np.random.default_rng(0).random(SHAPE) * 255).astype(np.float32)


def _eager(api):
    paddle.seed(7)
    return api(paddle.to_tensor(IMG)).numpy()


def _static(api, shape=SHAPE):
    main = paddle.static.Program()
    with static_guard(main):
        paddle.seed(7)
        x = paddle.static.data(name="img", shape=list(shape), dtype="float32")
        out = api(x)
        declared = list(out.shape)
        exe = paddle.static.Executor()
    res = exe.run(main, feed={"img": IMG}, fetch_list=[out])[0]
    assert list(res.shape) == declared
    return res


@pytest.mark.parametrize("make", [
    lambda: transforms.Resize((6, 5)),
    lambda: transforms.Resize(4),
    lambda: transforms.RandomVerticalFlip(prob=1),
    lambda: transforms.RandomHorizontalFlip(1),
    lambda: transforms.RandomCrop((5, 4)),
    lambda: transforms.RandomResizedCrop((8, 8)),
    lambda: transforms.RandomRotation((30, 30), expand=True, fill=3),
    lambda: transforms.RandomErasing(prob=1, value=100),
    lambda: transforms.Pad(2),
])
def test_static_variable_matches_eager(make):
    np.testing.assert_allclose(_static(make()), _eager(make()), rtol=0, atol=1e-5)


def test_flip_values_in_static_program():
    out = _static(transforms.RandomVerticalFlip(prob=1))
    np.testing.assert_array_equal(out, IMG[:, ::-1, :])
    out = _static(lambda x: F.hflip(x))
    np.testing.assert_array_equal(out, IMG[:, :, ::-1])


def test_unknown_dims_are_refused():
    main = paddle.static.Program()
    with static_guard(main):
        x = paddle.static.data(name="img", shape=[-1, -1, -1], dtype="float32")
        with pytest.raises(NotImplementedError, match="resize: .*fully known shape"):
            transforms.Resize(size=(16, 16))(x)


def test_transforms_module_holds_random_classes():
    for name in ("RandomCrop", "RandomHorizontalFlip", "RandomVerticalFlip", "RandomRotation",
                 "RandomResizedCrop", "RandomErasing", "ColorJitter"):
        assert getattr(transforms, name) is getattr(paddle.vision.transforms, name)
