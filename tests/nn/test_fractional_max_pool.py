"""fractional_max_pool2d/3d and FractionalMaxPool2D/3D (Paddle 3.x). Masks, sums and
messages recorded from Paddle 3.3.1 on the same inputs (np.random.seed(0))."""
import numpy as np
import pytest

import sampan as paddle

F = paddle.nn.functional


def _inputs():
    np.random.seed(0)
    x3 = np.random.rand(1, 2, 5, 7, 6)
    x2 = np.random.rand(2, 3, 9, 11).astype("float32")
    return x3, x2


# (output_size, kernel_size, random_u) -> mask[1, 2] of Paddle 3.3.1 on x2
MASKS_2D = [
    ([4, 5], None, 0.3, [11, 13, 15, 8, 10, 34, 36, 38, 28, 43, 44, 57, 59, 72, 65, 88, 90,
                         82, 94, 87]),
    ([4, 5], None, 0.9, [11, 13, 15, 6, 8, 34, 36, 38, 28, 43, 44, 57, 59, 61, 65, 66, 69,
                         82, 94, 74]),
    ([4, 5], 2, 0.3, [11, 13, 5, 8, 10, 44, 36, 49, 52, 54, 66, 57, 71, 74, 65, 88, 90, 94,
                      84, 87]),
    ([4, 5], 3, 0.7, [24, 15, 15, 8, 8, 44, 36, 28, 52, 54, 57, 59, 59, 72, 65, 90, 69, 94,
                      94, 74]),
    ([3, 3], 4, 0.99, [36, 36, 8, 36, 59, 65, 57, 59, 65]),
]


@pytest.mark.parametrize("output_size,kernel,u,expected", MASKS_2D)
def test_2d_masks_match_paddle(output_size, kernel, u, expected):
    x2 = paddle.to_tensor(_inputs()[1])
    out, mask = F.fractional_max_pool2d(x2, output_size, kernel_size=kernel, random_u=u,
                                        return_mask=True)
    assert mask.dtype == paddle.int32 and out.shape == [2, 3, *output_size]
    assert mask.numpy()[1, 2].ravel().tolist() == expected
    flat = x2.numpy().reshape(2, 3, -1)
    np.testing.assert_array_equal(
        out.numpy().reshape(2, 3, -1),
        np.take_along_axis(flat, mask.numpy().reshape(2, 3, -1).astype(int), axis=2))


def test_paper_example():
    x = paddle.to_tensor([2., 4., 3., 1., 5., 2., 3.]).reshape([1, 1, 1, 7])
    assert F.fractional_max_pool2d(x, [1, 5], random_u=0.3).numpy().ravel().tolist() == [
        2., 4., 1., 5., 3.]


def test_3d_values_mask_and_gradient():
    x = paddle.to_tensor(_inputs()[0], stop_gradient=False)
    out, mask = F.fractional_max_pool3d(x, [3, 4, 4], random_u=0.6, return_mask=True)
    assert out.shape == [1, 2, 3, 4, 4] and out.dtype == paddle.float64
    assert mask.numpy().ravel()[:8].tolist() == [7, 8, 52, 5, 13, 20, 21, 17]
    assert round(float(out.sum()), 8) == 72.43972779
    out.sum().backward()
    assert float(x.grad.sum()) == 96.0
    assert np.nonzero(x.grad.numpy().ravel())[0][:8].tolist() == [5, 7, 8, 13, 17, 20, 21,
                                                                  35]
    out = F.fractional_max_pool3d(x, [2, 3, 3], kernel_size=[2, 2, 3], random_u=0.2)
    assert round(float(out.sum()), 8) == 33.44075023


def test_random_u_repeats_under_seed_and_none_output_dims():
    x2 = paddle.to_tensor(_inputs()[1])
    paddle.seed(1)
    a = F.fractional_max_pool2d(x2, [4, 5]).numpy()
    paddle.seed(1)
    np.testing.assert_array_equal(F.fractional_max_pool2d(x2, [4, 5]).numpy(), a)
    assert F.fractional_max_pool2d(x2, [None, 5], random_u=0.5).shape == [2, 3, 9, 5]


def test_layers():
    layer = paddle.nn.FractionalMaxPool2D(3, random_u=0.3)
    assert repr(layer) == "FractionalMaxPool2D(output_size=3, return_mask=False)"
    assert layer(paddle.rand([1, 2, 7, 7])).shape == [1, 2, 3, 3]
    layer3 = paddle.nn.FractionalMaxPool3D([2, 3, None], kernel_size=2, return_mask=True)
    assert repr(layer3) == "FractionalMaxPool3D(output_size=[2, 3, None], return_mask=True)"
    out, mask = paddle.nn.FractionalMaxPool3D([2, 3, None], return_mask=True)(
        paddle.rand([1, 1, 4, 5, 3]))
    assert out.shape == [1, 1, 2, 3, 3] and mask.shape == [1, 1, 2, 3, 3]


def test_static_mode():
    from tests.static_util import static_guard
    main, startup = paddle.static.Program(), paddle.static.Program()
    with static_guard(main, startup):
        x = paddle.static.data("x", [-1, 3, 9, 11], "float32")
        out, mask = F.fractional_max_pool2d(x, [4, 5], random_u=0.3, return_mask=True)
    got = paddle.static.Executor().run(main, feed={"x": _inputs()[1]}, fetch_list=[mask])[0]
    assert got[1, 2].ravel().tolist() == MASKS_2D[0][3]


def test_errors():
    x2 = paddle.to_tensor(_inputs()[1])
    for u in (0.0, 1.0):
        with pytest.raises(ValueError, match=r"`random_u` should be a `float` in \(0, 1\)"):
            F.fractional_max_pool2d(x2, [4, 5], random_u=u)
    with pytest.raises(ValueError, match=r"input_height \[9\] is less than valid "
                                         r"output_height \[23\]"):
        F.fractional_max_pool2d(x2, [4, 5], kernel_size=20, random_u=0.5)
    with pytest.raises(ValueError, match="x must be a 4-D tensor"):
        F.fractional_max_pool2d(paddle.ones([2, 3, 4]), 2)
    with pytest.raises(ValueError, match="output_size must be an int or 3 ints"):
        F.fractional_max_pool3d(paddle.ones([1, 1, 4, 4, 4]), [2, 2])
