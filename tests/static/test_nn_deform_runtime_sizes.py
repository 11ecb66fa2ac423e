"""deform_conv2d in a static Program whose spatial sizes are unknown (-1) while it is built:
one Program runs inputs of several sizes and matches the eager composite, forward and
backward."""
import numpy as np

import sampan as paddle
from tests.static_util import static_guard


def _inputs(rng, n, h, w, stride, padding, dilation):
    oh = (h + 2 * padding - dilation * 2 - 1) // stride + 1
    ow = (w + 2 * padding - dilation * 2 - 1) // stride + 1
    x = rng.uniform(-1, 1, (n, 4, h, w))
    off = rng.uniform(-1.5, 1.5, (n, 2 * 2 * 9, oh, ow))
    mask = rng.uniform(0, 1, (n, 2 * 9, oh, ow))
    return x, off, mask


def _eager(x, off, mask, weight, bias, kw):
    ts = [paddle.to_tensor(a, stop_gradient=False) for a in (x, off, mask)]
    out = paddle.vision.ops.deform_conv2d(ts[0], ts[1], paddle.to_tensor(weight),
                                          paddle.to_tensor(bias), mask=ts[2], **kw)
    (out * out).sum().backward()
    return out.numpy(), [t.grad.numpy() for t in ts]


def test_unknown_spatial_sizes_run_at_several_sizes():
    rng = np.random.RandomState(0)
    weight = rng.uniform(-0.5, 0.5, (6, 2, 3, 3))
    bias = rng.uniform(-0.5, 0.5, (6,))
    kw = dict(stride=2, padding=1, dilation=1, deformable_groups=2, groups=2)
    main, startup = paddle.static.Program(), paddle.static.Program()
    with static_guard(main, startup):
        xs = paddle.static.data("x", [-1, 4, -1, -1], "float64")
        offs = paddle.static.data("off", [-1, 36, -1, -1], "float64")
        masks = paddle.static.data("mask", [-1, 18, -1, -1], "float64")
        for v in (xs, offs, masks):
            v.stop_gradient = False
        out = paddle.vision.ops.deform_conv2d(xs, offs, paddle.to_tensor(weight),
                                              paddle.to_tensor(bias), mask=masks, **kw)
        assert out.shape[:2] == [-1, 6]
        grads = paddle.static.gradients([(out * out).sum()], [xs, offs, masks])
    exe = paddle.static.Executor()
    for n, h, w in ((2, 5, 5), (1, 7, 4)):
        x, off, mask = _inputs(rng, n, h, w, 2, 1, 1)
        res = exe.run(main, feed={"x": x, "off": off, "mask": mask},
                      fetch_list=[out] + grads)
        want, want_grads = _eager(x, off, mask, weight, bias, kw)
        assert res[0].shape == want.shape
        np.testing.assert_allclose(res[0], want, rtol=1e-12, atol=1e-12)
        for got, ref in zip(res[1:], want_grads):
            np.testing.assert_allclose(got, ref, rtol=1e-10, atol=1e-10)


def test_unknown_sizes_without_mask_with_dilation():
    rng = np.random.RandomState(1)
    weight = rng.uniform(-0.5, 0.5, (3, 4, 3, 3))
    x, off, _ = _inputs(rng, 2, 8, 6, 1, 0, 2)
    off = off[:, :18]
    main = paddle.static.Program()
    with static_guard(main):
        xs = paddle.static.data("x", [-1, 4, -1, -1], "float64")
        offs = paddle.static.data("off", [-1, 18, -1, -1], "float64")
        out = paddle.vision.ops.deform_conv2d(xs, offs, paddle.to_tensor(weight), dilation=2)
    res, = paddle.static.Executor().run(main, feed={"x": x, "off": off}, fetch_list=[out])
    want = paddle.vision.ops.deform_conv2d(paddle.to_tensor(x), paddle.to_tensor(off),
                                           paddle.to_tensor(weight), dilation=2).numpy()
    assert res.shape == (2, 3, 4, 2)
    np.testing.assert_allclose(res, want, rtol=1e-12, atol=1e-12)
