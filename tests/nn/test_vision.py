"""Vision functions and layers: pad, interpolate, grid_sample, affine_grid, pixel/channel
shuffles. References are per-pixel NumPy loops and golden values produced by Paddle 3.3.1."""
import numpy as np
import pytest

import sampan as paddle
import sampan.nn as nn
import sampan.nn.functional as F
from tests.gradcheck import numeric_grad




def _check_grads(fn, *arrays, which=None):
    """Tape gradients of sum(fn(*xs) * w) vs central differences, for inputs `which`."""
    which = range(len(arrays)) if which is None else which
    size = fn(*[paddle.to_tensor(a) for a in arrays]).numpy().size
    w = np.cos(np.arange(size))
    tensors = [paddle.to_tensor(a) for a in arrays]
    for i in which:
        tensors[i].stop_gradient = False
    out = fn(*tensors)
    (out * paddle.to_tensor(w.reshape(out.shape))).sum().backward()
    for i in which:
        def loss(arr, i=i):
            args = [paddle.to_tensor(arr if k == i else a) for k, a in enumerate(arrays)]
            return float((fn(*args).numpy().reshape(-1) * w).sum())
        np.testing.assert_allclose(tensors[i].grad.numpy(), numeric_grad(loss, arrays[i]),
                                   rtol=1e-5, atol=1e-6, err_msg=f"input {i}")


X23 = np.array([[1.0, 4.0, 2.0], [0.0, 3.0, 5.0]]).reshape(1, 1, 2, 3)


# --- pad -------------------------------------------------------------------------------------

def test_pad_modes_match_numpy():
    x = np.arange(24.0).reshape(1, 2, 3, 4)
    t = paddle.to_tensor(x)
    for mode, np_mode in (("reflect", "reflect"), ("replicate", "edge"),
                          ("circular", "wrap")):
        got = F.pad(t, [1, 2, 2, 1], mode=mode).numpy()
        want = np.pad(x, [(0, 0), (0, 0), (2, 1), (1, 2)], mode=np_mode)
        np.testing.assert_array_equal(got, want, err_msg=mode)
    got = F.pad(t, [1, 0, 0, 1], value=-1.0).numpy()
    np.testing.assert_array_equal(got, np.pad(x, [(0, 0), (0, 0), (0, 1), (1, 0)],
                                              constant_values=-1))
    nhwc = F.pad(paddle.to_tensor(x.transpose(0, 2, 3, 1)), [1, 2, 2, 1], mode="reflect",
                 data_format="NHWC").numpy()
    np.testing.assert_array_equal(nhwc, np.pad(x, [(0, 0), (0, 0), (2, 1), (1, 2)],
                                               mode="reflect").transpose(0, 2, 3, 1))
    full = F.pad(t, [1, 0, 0, 1, 2, 1, 0, 2]).numpy()
    assert full.shape == (2, 3, 6, 6)
    _check_grads(lambda a: F.pad(a, [1, 2, 2, 1], mode="reflect"), x[:, :1])


def test_zeropad2d_and_pad_layers():
    x = np.arange(12.0).reshape(1, 1, 3, 4)
    t = paddle.to_tensor(x)
    np.testing.assert_array_equal(F.zeropad2d(t, [1, 0, 2, 1]).numpy(),
                                  np.pad(x, [(0, 0), (0, 0), (2, 1), (1, 0)]))
    np.testing.assert_array_equal(nn.ZeroPad2D(1)(t).numpy(), np.pad(x, [(0, 0), (0, 0),
                                                                         (1, 1), (1, 1)]))
    np.testing.assert_array_equal(nn.Pad2D([1, 2, 0, 1], mode="replicate")(t).numpy(),
                                  np.pad(x, [(0, 0), (0, 0), (0, 1), (1, 2)], mode="edge"))
    x1 = np.arange(6.0).reshape(1, 2, 3)
    np.testing.assert_array_equal(nn.Pad1D([2, 1], mode="reflect")(paddle.to_tensor(x1)).numpy(),
                                  np.pad(x1, [(0, 0), (0, 0), (2, 1)], mode="reflect"))
    np.testing.assert_array_equal(nn.ZeroPad1D(1)(paddle.to_tensor(x1)).numpy(),
                                  np.pad(x1, [(0, 0), (0, 0), (1, 1)]))
    x3 = np.arange(8.0).reshape(1, 1, 2, 2, 2)
    np.testing.assert_array_equal(nn.Pad3D(1, value=7.0)(paddle.to_tensor(x3)).numpy(),
                                  np.pad(x3, [(0, 0), (0, 0)] + [(1, 1)] * 3,
                                         constant_values=7))
    np.testing.assert_array_equal(nn.ZeroPad3D([1, 0, 0, 0, 0, 1])(paddle.to_tensor(x3)).numpy(),
                                  np.pad(x3, [(0, 0), (0, 0), (0, 1), (0, 0), (1, 0)]))


def test_pad_layer_reprs_and_errors():
    assert repr(nn.Pad1D(1)) == "Pad1D(padding=[1, 1], mode=constant, value=0.0, data_format=NCL)"
    assert repr(nn.Pad2D([1, 2, 3, 4], mode="reflect")) == (
        "Pad2D(padding=[1, 2, 3, 4], mode=reflect, value=0.0, data_format=NCHW)")
    assert repr(nn.ZeroPad3D(1)) == ("ZeroPad3D(padding=[1, 1, 1, 1, 1, 1], mode=constant, "
                                     "value=0.0, data_format=NCDHW)")
    with pytest.raises(ValueError, match="Pad2D: padding must be an int or 4 ints"):
        nn.Pad2D([1, 2, 3])
    with pytest.raises(ValueError, match="Pad2D: mode must be one of"):
        nn.Pad2D(1, mode="wrap")
    with pytest.raises(ValueError, match="Pad3D: data_format"):
        nn.Pad3D(1, data_format="NCHW")


# --- interpolate -----------------------------------------------------------------------------

GOLDEN = [  # Paddle 3.3.1 outputs for X23
    (dict(size=[3, 4], mode="bilinear"),
     [[1.0, 2.875, 3.25, 2.0], [0.5, 2.375, 3.5, 3.5], [0.0, 1.875, 3.75, 5.0]]),
    (dict(size=[3, 4], mode="bilinear", align_corners=True),
     [[1.0, 3.0, 10 / 3, 2.0], [0.5, 2.5, 3.5, 3.5], [0.0, 2.0, 11 / 3, 5.0]]),
    (dict(size=[3, 4], mode="bilinear", align_mode=1),
     [[1.0, 3.25, 3.0, 2.0], [1 / 3, 2.58333333, 3.66666667, 4.0], [0.0, 2.25, 4.0, 5.0]]),
    (dict(size=[3, 5], mode="bicubic"),
     [[0.79880556, 2.41980569, 4.08680558, 2.86630528, 1.51424995],
      [0.21199998, 1.66400008, 3.5000001, 3.71599999, 3.50000011],
      [-0.37480556, 0.90819452, 2.91319467, 4.56569462, 5.48575011]]),
    (dict(scale_factor=1.5, mode="nearest"),
     [[1.0, 1.0, 4.0, 2.0], [1.0, 1.0, 4.0, 2.0], [0.0, 0.0, 3.0, 5.0]]),
    (dict(size=[1, 2], mode="area"), [[2.0, 3.5]]),
]


@pytest.mark.parametrize("kwargs,want", GOLDEN, ids=[str(g[0]) for g in GOLDEN])
def test_interpolate_golden_paddle(kwargs, want):
    got = F.interpolate(paddle.to_tensor(X23), **kwargs).numpy()[0, 0]
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def _bilinear_ref(x, oh, ow, align_corners):
    n, c, h, w = x.shape
    out = np.zeros((n, c, oh, ow))
    for i in range(oh):
        for j in range(ow):
            if align_corners:
                sy = i * (h - 1) / (oh - 1) if oh > 1 else 0.0
                sx = j * (w - 1) / (ow - 1) if ow > 1 else 0.0
            else:
                sy = max((i + 0.5) * h / oh - 0.5, 0.0)
                sx = max((j + 0.5) * w / ow - 0.5, 0.0)
            y0, x0 = min(int(sy), h - 1), min(int(sx), w - 1)
            y1, x1 = min(y0 + 1, h - 1), min(x0 + 1, w - 1)
            ly, lx = sy - y0, sx - x0
            out[:, :, i, j] = ((1 - ly) * ((1 - lx) * x[:, :, y0, x0] + lx * x[:, :, y0, x1])
                               + ly * ((1 - lx) * x[:, :, y1, x0] + lx * x[:, :, y1, x1]))
    return out


@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("size", [[7, 5], [2, 3]])
def test_interpolate_bilinear_vs_loop(size, align_corners):
    x = np.random.default_rng(0).standard_normal((2, 3, 4, 5))
    got = F.interpolate(paddle.to_tensor(x), size=size, mode="bilinear",
                        align_corners=align_corners).numpy()
    np.testing.assert_allclose(got, _bilinear_ref(x, *size, align_corners), rtol=1e-12,
                               atol=1e-12)


def test_interpolate_nearest_and_area_vs_loop():
    x = np.random.default_rng(1).standard_normal((1, 2, 5, 4))
    got = F.interpolate(paddle.to_tensor(x), size=[7, 3]).numpy()
    rows = [int(i * 5 / 7) for i in range(7)]
    cols = [int(j * 4 / 3) for j in range(3)]
    np.testing.assert_array_equal(got, x[:, :, rows][:, :, :, cols])
    got = F.interpolate(paddle.to_tensor(x), size=[2, 3], mode="area").numpy()
    want = np.zeros((1, 2, 2, 3))
    for i in range(2):
        for j in range(3):
            r0, r1 = (i * 5) // 2, -((-(i + 1) * 5) // 2)
            c0, c1 = (j * 4) // 3, -((-(j + 1) * 4) // 3)
            want[:, :, i, j] = x[:, :, r0:r1, c0:c1].mean(axis=(2, 3))
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_interpolate_layouts_and_ranks():
    x = np.random.default_rng(2).standard_normal((2, 3, 4, 5))
    a = F.interpolate(paddle.to_tensor(x), size=[6, 7], mode="bilinear").numpy()
    b = F.interpolate(paddle.to_tensor(x.transpose(0, 2, 3, 1)), size=[6, 7], mode="bilinear",
                      data_format="NHWC").numpy()
    np.testing.assert_allclose(b, a.transpose(0, 2, 3, 1), rtol=1e-12)
    x1 = x[:, :, 0]
    lin = F.interpolate(paddle.to_tensor(x1), size=[9], mode="linear", data_format="NCW")
    want = _bilinear_ref(x1[:, :, None], 1, 9, False)[:, :, 0]
    np.testing.assert_allclose(lin.numpy(), want, rtol=1e-12)
    x5 = np.random.default_rng(3).standard_normal((1, 2, 2, 3, 2))
    tri = F.interpolate(paddle.to_tensor(x5), scale_factor=2, mode="trilinear")
    assert tri.shape == [1, 2, 4, 6, 4]
    up = F.upsample(paddle.to_tensor(x), scale_factor=[2, 0.5], mode="nearest")
    assert up.shape == [2, 3, 8, 2]
    assert F.interpolate(paddle.to_tensor(x.astype("float32")), scale_factor=2).dtype == \
        paddle.float32


@pytest.mark.parametrize("mode,kwargs", [("bilinear", {}), ("bicubic", {"align_corners": True}),
                                         ("nearest", {}), ("area", {})])
def test_interpolate_grad(mode, kwargs):
    x = np.random.default_rng(4).standard_normal((1, 2, 3, 3))
    _check_grads(lambda a: F.interpolate(a, size=[4, 2], mode=mode, **kwargs), x)


def test_interpolate_errors():
    x = paddle.ones([1, 1, 4, 4])
    with pytest.raises(ValueError, match="interpolate: one of size and scale_factor"):
        F.interpolate(x)
    with pytest.raises(ValueError, match="only one of size and scale_factor"):
        F.interpolate(x, size=[2, 2], scale_factor=2)
    with pytest.raises(ValueError, match="mode 'trilinear' needs a 5-D x"):
        F.interpolate(x, size=[2, 2], mode="trilinear")
    with pytest.raises(ValueError, match="mode must be one of"):
        F.interpolate(x, size=[2, 2], mode="cubic")
    with pytest.raises(ValueError, match="size must have 2 values"):
        F.interpolate(x, size=[2, 2, 2])
    with pytest.raises(ValueError, match="data_format must be one of"):
        F.interpolate(x, size=[2, 2], data_format="NCDHW")
    with pytest.raises(ValueError, match="align_corners can only be True"):
        F.interpolate(x, size=[2, 2], align_corners=True)
    with pytest.raises(ValueError, match="mode 'area' needs size"):
        F.interpolate(x, scale_factor=2, mode="area")
    with pytest.raises(ValueError, match="scale_factor must be positive"):
        F.interpolate(x, scale_factor=-1.0)


def test_upsample_layers():
    x = paddle.to_tensor(np.arange(16.0).reshape(1, 1, 4, 4))
    np.testing.assert_allclose(nn.UpsamplingBilinear2D(scale_factor=2)(x).numpy(),
                               F.interpolate(x, scale_factor=2, mode="bilinear",
                                             align_corners=True).numpy())
    np.testing.assert_array_equal(nn.UpsamplingNearest2D(size=[8, 8])(x).numpy(),
                                  F.interpolate(x, size=[8, 8]).numpy())
    np.testing.assert_array_equal(nn.Upsample(scale_factor=2, mode="bicubic")(x).numpy(),
                                  F.interpolate(x, scale_factor=2, mode="bicubic").numpy())
    assert repr(nn.Upsample(scale_factor=2)) == ("Upsample(scale_factor=2, mode=nearest, "
                                                 "align_corners=False, align_mode=0, "
                                                 "data_format=None)")
    assert repr(nn.Upsample(size=[3, 4], mode="bilinear")) == (
        "Upsample(size=[3, 4], mode=bilinear, align_corners=False, align_mode=0, "
        "data_format=None)")
    assert repr(nn.UpsamplingNearest2D(scale_factor=2)) == \
        "UpsamplingNearest2D(scale_factor=2, data_format=NCHW)"
    assert repr(nn.UpsamplingBilinear2D(size=[4, 4])) == \
        "UpsamplingBilinear2D(size=[4, 4], data_format=NCHW)"
    with pytest.raises(ValueError, match="Upsample: one of size and scale_factor"):
        nn.Upsample()
    with pytest.raises(ValueError, match="Upsample: mode must be one of"):
        nn.Upsample(scale_factor=2, mode="cubic")


# --- grid_sample / affine_grid ---------------------------------------------------------------

GRID = np.array([[[-0.9, -0.3], [0.2, 0.7]], [[1.2, -1.1], [0.05, 0.5]]]).reshape(1, 2, 2, 2)
GRID_GOLDEN = [  # Paddle 3.3.1 on X23 / GRID
    ({}, [[0.95, 3.43], [1.52, 3.3]]),
    ({"align_corners": False}, [[0.52, 2.88], [0.16, 3.15]]),
    ({"padding_mode": "border", "align_corners": False}, [[0.8, 3.6], [2.0, 3.15]]),
    ({"padding_mode": "reflection", "align_corners": False}, [[0.8, 3.6], [2.0, 3.15]]),
    ({"mode": "nearest"}, [[1.0, 3.0], [2.0, 3.0]]),
]


@pytest.mark.parametrize("kwargs,want", GRID_GOLDEN, ids=[str(g[0]) for g in GRID_GOLDEN])
def test_grid_sample_golden_paddle(kwargs, want):
    got = F.grid_sample(paddle.to_tensor(X23), paddle.to_tensor(GRID), **kwargs).numpy()
    np.testing.assert_allclose(got[0, 0], want, rtol=1e-6, atol=1e-8)


def _grid_sample_ref(x, grid, align_corners):
    """Bilinear, zeros padding, per output pixel."""
    n, c, h, w = x.shape
    _, oh, ow, _ = grid.shape
    out = np.zeros((n, c, oh, ow))
    for b in range(n):
        for i in range(oh):
            for j in range(ow):
                gx, gy = grid[b, i, j]
                if align_corners:
                    sx, sy = (gx + 1) / 2 * (w - 1), (gy + 1) / 2 * (h - 1)
                else:
                    sx, sy = ((gx + 1) * w - 1) / 2, ((gy + 1) * h - 1) / 2
                x0, y0 = int(np.floor(sx)), int(np.floor(sy))
                for yy, wy in ((y0, 1 - (sy - y0)), (y0 + 1, sy - y0)):
                    for xx, wx in ((x0, 1 - (sx - x0)), (x0 + 1, sx - x0)):
                        if 0 <= yy < h and 0 <= xx < w:
                            out[b, :, i, j] += wy * wx * x[b, :, yy, xx]
    return out


@pytest.mark.parametrize("align_corners", [True, False])
def test_grid_sample_vs_loop(align_corners):
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 3, 4, 5))
    grid = rng.uniform(-1.3, 1.3, (2, 3, 2, 2))
    got = F.grid_sample(paddle.to_tensor(x), paddle.to_tensor(grid),
                        align_corners=align_corners).numpy()
    np.testing.assert_allclose(got, _grid_sample_ref(x, grid, align_corners), rtol=1e-12,
                               atol=1e-12)


@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
def test_grid_sample_grads(padding_mode):
    rng = np.random.default_rng(6)
    x = rng.standard_normal((1, 2, 3, 3))
    grid = rng.uniform(-1.2, 1.2, (1, 2, 2, 2))
    _check_grads(lambda a, g: F.grid_sample(a, g, padding_mode=padding_mode,
                                            align_corners=False), x, grid)


def test_grid_sample_5d_shape_and_grad():
    rng = np.random.default_rng(7)
    x = rng.standard_normal((1, 2, 2, 3, 2))
    grid = rng.uniform(-1, 1, (1, 2, 1, 2, 3))
    assert F.grid_sample(paddle.to_tensor(x), paddle.to_tensor(grid)).shape == [1, 2, 2, 1, 2]
    _check_grads(lambda a, g: F.grid_sample(a, g), x, grid)


def test_grid_sample_errors():
    x = paddle.ones([1, 1, 3, 3])
    with pytest.raises(ValueError, match="grid_sample: grid must have shape"):
        F.grid_sample(x, paddle.ones([1, 2, 2, 3]))
    with pytest.raises(ValueError, match="grid_sample: mode"):
        F.grid_sample(x, paddle.ones([1, 2, 2, 2]), mode="bicubic")
    with pytest.raises(ValueError, match="grid_sample: padding_mode"):
        F.grid_sample(x, paddle.ones([1, 2, 2, 2]), padding_mode="wrap")


def test_affine_grid():
    theta = np.array([[[1.0, 0.2, 0.1], [-0.3, 0.8, 0.0]]])
    got = F.affine_grid(paddle.to_tensor(theta), [1, 1, 2, 3], align_corners=False).numpy()
    want = [[[[-0.66666667, -0.2], [0.0, -0.4], [0.66666667, -0.6]],
             [[-0.46666667, 0.6], [0.2, 0.4], [0.86666667, 0.2]]]]  # Paddle 3.3.1
    np.testing.assert_allclose(got, want, rtol=1e-6)
    ident = F.affine_grid(paddle.to_tensor(np.array([[[1.0, 0, 0], [0, 1.0, 0]]])),
                          [1, 1, 3, 2]).numpy()
    np.testing.assert_allclose(ident[0, :, :, 0], [[-1, 1]] * 3)
    np.testing.assert_allclose(ident[0, :, :, 1], [[-1, -1], [0, 0], [1, 1]])
    theta3 = np.random.default_rng(8).standard_normal((2, 3, 4))
    assert F.affine_grid(paddle.to_tensor(theta3), [2, 1, 2, 3, 4]).shape == [2, 2, 3, 4, 3]
    _check_grads(lambda t: F.affine_grid(t, [1, 1, 2, 3]), theta)
    with pytest.raises(ValueError, match="affine_grid: theta must have shape"):
        F.affine_grid(paddle.to_tensor(theta3), [2, 1, 3, 4])


# --- shuffles --------------------------------------------------------------------------------

def _pixel_shuffle_ref(x, r):
    n, c, h, w = x.shape
    out = np.zeros((n, c // (r * r), h * r, w * r))
    for ch in range(c // (r * r)):
        for i in range(h * r):
            for j in range(w * r):
                out[:, ch, i, j] = x[:, ch * r * r + (i % r) * r + (j % r), i // r, j // r]
    return out


def test_pixel_shuffle_unshuffle():
    x = np.random.default_rng(9).standard_normal((2, 8, 2, 3))
    ps = F.pixel_shuffle(paddle.to_tensor(x), 2)
    np.testing.assert_array_equal(ps.numpy(), _pixel_shuffle_ref(x, 2))
    back = F.pixel_unshuffle(ps, 2)
    np.testing.assert_array_equal(back.numpy(), x)
    nhwc = F.pixel_shuffle(paddle.to_tensor(x.transpose(0, 2, 3, 1)), 2, data_format="NHWC")
    np.testing.assert_array_equal(nhwc.numpy(), _pixel_shuffle_ref(x, 2).transpose(0, 2, 3, 1))
    np.testing.assert_array_equal(
        F.pixel_unshuffle(nhwc, 2, data_format="NHWC").numpy(), x.transpose(0, 2, 3, 1))
    np.testing.assert_array_equal(nn.PixelShuffle(2)(paddle.to_tensor(x)).numpy(), ps.numpy())
    np.testing.assert_array_equal(nn.PixelUnshuffle(2)(ps).numpy(), x)
    _check_grads(lambda a: F.pixel_shuffle(a, 2), x[:1, :, :1])
    with pytest.raises(ValueError, match="pixel_shuffle: the channel count 8"):
        F.pixel_shuffle(paddle.to_tensor(x), 3)
    with pytest.raises(ValueError, match="pixel_unshuffle: the spatial size"):
        F.pixel_unshuffle(paddle.to_tensor(x), 2)


def test_channel_shuffle():
    x = np.random.default_rng(10).standard_normal((1, 6, 2, 2))
    out = F.channel_shuffle(paddle.to_tensor(x), 3).numpy()
    np.testing.assert_array_equal(out, x[:, [0, 2, 4, 1, 3, 5]])
    out = F.channel_shuffle(paddle.to_tensor(x.transpose(0, 2, 3, 1)), 2, "NHWC").numpy()
    np.testing.assert_array_equal(out, x[:, [0, 3, 1, 4, 2, 5]].transpose(0, 2, 3, 1))
    np.testing.assert_array_equal(nn.ChannelShuffle(3)(paddle.to_tensor(x)).numpy(),
                                  x[:, [0, 2, 4, 1, 3, 5]])
    with pytest.raises(ValueError, match="channel_shuffle: the channel count 6"):
        F.channel_shuffle(paddle.to_tensor(x), 4)


def test_shuffle_layer_reprs_and_errors():
    assert repr(nn.PixelShuffle(2)) == "PixelShuffle(upscale_factor=2)"
    assert repr(nn.PixelShuffle(2, "NHWC", name="z")) == \
        "PixelShuffle(upscale_factor=2, data_format=NHWC, name=z)"
    assert repr(nn.PixelUnshuffle(2, "NHWC")) == \
        "PixelUnshuffle(downscale_factor=2, data_format=NHWC)"
    assert repr(nn.ChannelShuffle(2)) == "ChannelShuffle(groups=2)"
    with pytest.raises(ValueError, match="PixelShuffle: upscale_factor must be a positive int"):
        nn.PixelShuffle(0)
    with pytest.raises(ValueError, match="ChannelShuffle: data_format"):
        nn.ChannelShuffle(2, "NCL")
    with pytest.raises(ValueError, match="pixel_shuffle: x must be 4-D"):
        F.pixel_shuffle(paddle.ones([2, 4, 2]), 2)


@pytest.mark.parametrize("mode", ["bilinear", "bicubic", "area"])
def test_interpolating_modes_refuse_integer_input(mode):
    x = paddle.to_tensor(np.ones((1, 1, 4, 4), "int64"))
    with pytest.raises(TypeError, match=f"interpolate: mode '{mode}' needs a floating point x"):
        F.interpolate(x, size=[2, 2], mode=mode)
    assert F.interpolate(x, size=[2, 2], mode="nearest").dtype == paddle.int64
